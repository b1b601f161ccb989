#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hypercached's configuration checks and log lines, without the module:
#  - --check-config: a valid file is "valid (N backends)", exit 0, nothing
#    registered; a broken one names FILE:LINE: [SECTION] KEY, exit 2;
#  - a config with a secret_key readable by others is warned about (not
#    when 0640), naming the file and its mode;
#  - log lines: with $JOURNAL_STREAM naming stderr, "<3>error: ..." (the
#    journal's priority prefix); with it naming another stream or unset, a
#    UTC timestamp and "hypercached: error: ...".
#
#   tests/checks/daemon-config.sh   (HYPERCACHED= another binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${HYPERCACHED:-}" ]; then
	make -s -C helper hypercached >/dev/null
	HYPERCACHED=$PWD/helper/hypercached
fi
d=$(mktemp -d /tmp/hc-dcfg.XXXXXX)
trap 'rm -rf "$d"' EXIT
fail() { echo "daemon-config: $*" >&2; exit 1; }

cp helper/hypercache.conf "$d/good.conf"
chmod 0640 "$d/good.conf"
out=$("$HYPERCACHED" --check-config -c "$d/good.conf" 2>&1) || fail "the example config is refused: $out"
[ "$out" = "$d/good.conf: valid (1 backend)" ] || fail "--check-config said: $out"

printf '[hypercached]\nlog_level = info\nlog_levle = debug\n' >"$d/bad.conf"
rc=0; "$HYPERCACHED" --check-config -c "$d/bad.conf" >"$d/out" 2>"$d/err" || rc=$?
[ $rc = 2 ] || fail "--check-config of a broken config exited $rc, not 2"
grep -q "bad.conf:3: \[hypercached\] log_levle: unknown key" "$d/err" || fail "no FILE:LINE message: $(cat "$d/err")"
[ ! -s "$d/out" ] || fail "a broken config printed on stdout: $(cat "$d/out")"

printf '[backend s3]\ntype = s3\nendpoint = http://127.0.0.1:1\naccess_key = AK\nsecret_key = SK\n' >"$d/secret.conf"
chmod 0644 "$d/secret.conf"
"$HYPERCACHED" --check-config -c "$d/secret.conf" >/dev/null 2>"$d/err" || fail "secret.conf refused"
grep -q "warn: $d/secret.conf holds 1 secret key and is readable by every user (mode 0644)" "$d/err" ||
	fail "no warning for a world-readable secret: $(cat "$d/err")"
chmod 0640 "$d/secret.conf"
"$HYPERCACHED" --check-config -c "$d/secret.conf" >/dev/null 2>"$d/err" || fail "secret.conf refused"
[ ! -s "$d/err" ] || fail "a 0640 config was warned about: $(cat "$d/err")"

# The journal's stream is recognised by its device and inode only.
: >"$d/journal"
js=$(stat -c '%d:%i' "$d/journal")
JOURNAL_STREAM=$js "$HYPERCACHED" --check-config -c "$d/bad.conf" 2>"$d/journal" >/dev/null || true
grep -qx '<3>error: .*bad.conf:3: \[hypercached\] log_levle: unknown key' "$d/journal" ||
	fail "stderr is the journal, but the line is: $(cat "$d/journal")"
JOURNAL_STREAM=$js "$HYPERCACHED" --check-config -c "$d/bad.conf" 2>"$d/err" >/dev/null || true
stamp='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z hypercached: error: '
grep -qE "^${stamp}.*log_levle: unknown key" "$d/err" ||
	fail "stderr is not the journal stream, but the line is: $(cat "$d/err")"
env -u JOURNAL_STREAM "$HYPERCACHED" --check-config -c "$d/bad.conf" 2>"$d/err" >/dev/null || true
grep -qE "^${stamp}" "$d/err" || fail "without JOURNAL_STREAM the line is: $(cat "$d/err")"
echo "daemon-config: ok"
