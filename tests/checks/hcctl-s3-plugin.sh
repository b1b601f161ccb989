#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hcctl loads its S3 client on first use (tools/hcctl/s3load.c): hcctl's
# NEEDED list has neither libcurl nor libxml2 (nor what they pull in), the
# plugin tools/hcctl/hcctl-s3.so has every library it needs and exports
# exactly the hcs3_*() of helper/lib/s3.h, verbs without S3 work without
# the plugin, and an S3 verb without it fails (exit 1) naming the plugin's
# path and the loader's reason, while with it the same verb gets past the
# client (on to "module not loaded"; neither root nor the module needed).
#
#   tests/checks/hcctl-s3-plugin.sh      (expects make -C tools/hcctl)
#
# Exit 0 if every check passes; prints each failure.

top=$(cd "$(dirname "$0")/../.." && pwd)
HCCTL=${HCCTL:-$top/tools/hcctl/hcctl}
PLUGIN=$(dirname "$HCCTL")/hcctl-s3.so

for f in "$HCCTL" "$PLUGIN"; do
	if [ ! -f "$f" ]; then
		echo "hcctl-s3-plugin: $f not built (make -C tools/hcctl)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0
passed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# 1. hcctl's own dependencies: not the S3 client's
readelf -d "$HCCTL" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$tmp/needed"
ldd "$HCCTL" >"$tmp/ldd" 2>&1
for lib in libcurl libxml2 libnghttp2 libssh2 librtmp libgnutls libldap libicuuc libstdc++; do
	if grep -q "^$lib" "$tmp/needed"; then
		fail "hcctl links $lib again (NEEDED: $(tr '\n' ' ' <"$tmp/needed"))"
	elif grep -qF "$lib" "$tmp/ldd"; then
		fail "hcctl loads $lib at start (ldd): $(grep -F "$lib" "$tmp/ldd")"
	else
		pass
	fi
done

# 2. the plugin resolves: its libraries, and exactly the hcs3_*() of s3.h
ldd "$PLUGIN" >"$tmp/ldd-plugin" 2>&1
if grep -q "not found" "$tmp/ldd" "$tmp/ldd-plugin"; then
	fail "a library is missing: $(grep 'not found' "$tmp/ldd" "$tmp/ldd-plugin")"
elif ! grep -q libcurl "$tmp/ldd-plugin"; then
	fail "$PLUGIN does not load libcurl"
else
	pass
fi
nm -D --defined-only "$PLUGIN" | awk '$2 == "T" {print $3}' | sort >"$tmp/exported"
{ sed -n 's/^[a-z].*[ *]\(hcs3_[a-z_]*\)(.*/\1/p' "$top/helper/lib/s3.h"
  # and the credential chain's two entry points hcctl calls (cred.h)
  echo hc_creds_lookup; echo hc_creds_release; } | sort -u >"$tmp/api"
missing=$(comm -23 "$tmp/api" "$tmp/exported" | tr '\n' ' ')
extra=$(comm -13 "$tmp/api" "$tmp/exported" | tr '\n' ' ')
if [ "$(wc -l <"$tmp/api")" -lt 10 ] || [ -n "$missing" ] || [ -n "$extra" ]; then
	fail "plugin exports: missing '$missing', beyond s3.h '$extra'"
else
	pass
fi

# run VAR=VALUE... -- ARGS...: hcctl ARGS under env -i VAR=VALUE...
run() {
	vars=
	while [ "$1" != -- ]; do
		vars="$vars $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	env -i PATH=/usr/bin:/bin $vars "$HCCTL" "$@" >"$tmp/out" 2>"$tmp/err"
}
# expect RC PATTERN VAR=VALUE... -- ARGS...
expect() {
	want_rc=$1 pattern=$2
	shift 2
	run "$@"
	rc=$?
	if [ "$rc" -ne "$want_rc" ]; then
		fail "$* exit status $rc, want $want_rc: $(cat "$tmp/err")"
	elif ! grep -qF -- "$pattern" "$tmp/out" "$tmp/err"; then
		fail "$* lacks '$pattern': $(cat "$tmp/out" "$tmp/err")"
	else
		pass
	fi
}

# 3. hcctl without the plugin: everything but S3 works
expect 0 "--s3-endpoint URL" HCCTL_S3_PLUGIN=/nonexistent -- bench --help
expect 0 "hcctl" HCCTL_S3_PLUGIN=/nonexistent -- --version
expect 2 "unrecognized option" HCCTL_S3_PLUGIN=/nonexistent -- flush --bogus s3://b/p/

# 4. an S3 verb: without the plugin it names it and why; with it, it runs
printf '[hypercached]\ndefault_backend = s3\n[backend s3]\ntype = s3\nendpoint = http://127.0.0.1:1\n' \
	>"$tmp/hc.conf"
creds="AWS_ACCESS_KEY_ID=k AWS_SECRET_ACCESS_KEY=s"
s3="bench --s3-endpoint http://127.0.0.1:1 --bucket b --config $tmp/hc.conf"
# shellcheck disable=SC2086
expect 1 "backend s3: S3 client plugin /nonexistent cannot be loaded: /nonexistent: cannot open shared object file" \
	$creds HCCTL_S3_PLUGIN=/nonexistent -- $s3
# not a shared object: dlopen()'s reason is passed on
: >"$tmp/empty.so"
# shellcheck disable=SC2086
expect 1 "S3 client plugin $tmp/empty.so cannot be loaded: $tmp/empty.so: file too short" \
	$creds HCCTL_S3_PLUGIN="$tmp/empty.so" -- $s3
# next to the executable (the build tree, the guest's /hc/bin), and named
# shellcheck disable=SC2086
expect 1 "hypercache module not loaded" $creds -- $s3
# shellcheck disable=SC2086
expect 1 "hypercache module not loaded" $creds HCCTL_S3_PLUGIN="$PLUGIN" -- $s3

# 5. a copy without the plugin next to it looks in the install path
# (PLUGINDIR/hcctl-s3.so), which may hold an installed plugin
cp "$HCCTL" "$tmp/hcctl"
HCCTL=$tmp/hcctl
# shellcheck disable=SC2086
run $creds -- $s3
rc=$?
if [ $rc = 1 ] && grep -q "S3 client plugin /.*/hypercache/hcctl-s3.so cannot be loaded" "$tmp/err"; then
	pass
elif [ $rc = 1 ] && grep -q "hypercache module not loaded" "$tmp/err" &&
	ls /usr/local/lib/hypercache/hcctl-s3.so /usr/lib/*/hypercache/hcctl-s3.so >/dev/null 2>&1; then
	pass
else
	fail "a copy of hcctl elsewhere: exit status $rc: $(cat "$tmp/err")"
fi

echo "hcctl-s3-plugin: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
