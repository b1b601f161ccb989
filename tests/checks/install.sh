#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install` / `make uninstall` into a staging tree (DESTDIR, so the
# host is untouched):
#  - every file lands where the Makefile's "installation" section says,
#    the configuration 0640, the unit with the install's own sbin path;
#  - the four man pages are well-formed (groff, every warning fatal) and
#    `man -l` shows each page's NAME line;
#  - hypercached.service passes `systemd-analyze verify` (its binary and
#    man pages resolved in the staging tree), and so do the assembly unit
#    and the view's mount unit (mnt-hypercache.mount: its name is its
#    mount point's, What/Where/Type as Documentation/fs.md says);
#  - a second install keeps an operator's edited configuration, and
#    uninstall removes every file but that configuration;
#  - hypercached --check-config accepts the installed configuration.
#
#   tests/checks/install.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
d=$(mktemp -d /tmp/hc-install.XXXXXX)
trap 'rm -rf "$d"' EXIT
fail() { echo "install: $*" >&2; exit 1; }

make -s install DESTDIR="$d" PREFIX=/usr >"$d.log" 2>&1 || { cat "$d.log" >&2; fail "make install failed"; }
rm -f "$d.log"
want="etc/hypercache/hypercache.conf
sbin/mount.hypercache
usr/lib/hypercache/hcctl-s3.so
usr/lib/systemd/system/hypercache-assemble.service
usr/lib/systemd/system/hypercached.service
usr/lib/systemd/system/mnt-hypercache.mount
usr/lib/sysusers.d/hypercache.conf
usr/lib/udev/rules.d/60-hypercache.rules
usr/lib/udev/rules.d/61-hypercache-member.rules
usr/sbin/hcctl
usr/sbin/hypercached
usr/share/bash-completion/completions/hcctl
usr/share/man/man5/hypercache.conf.5
usr/share/man/man8/hcctl.8
usr/share/man/man8/hypercached.8
usr/share/man/man8/mount.hypercache.8"
got=$(cd "$d" && find . -type f | sed 's|^\./||' | sort)
[ "$got" = "$want" ] || fail "installed files differ:$(diff <(echo "$want") <(echo "$got") | sed 's/^/ /')"
[ "$(stat -c %a "$d/etc/hypercache/hypercache.conf")" = 640 ] ||
	fail "hypercache.conf is mode $(stat -c %a "$d/etc/hypercache/hypercache.conf"), not 640"
grep -qx 'ExecStart=/usr/sbin/hypercached --foreground' "$d/usr/lib/systemd/system/hypercached.service" ||
	fail "the unit does not run /usr/sbin/hypercached"
grep -q '@' "$d/usr/lib/systemd/system/hypercached.service" && fail "the unit keeps an @VARIABLE@"
# the installed hcctl looks for its S3 client in the install's PLUGINDIR
strings "$d/usr/sbin/hcctl" | grep -x /usr/lib/hypercache >/dev/null ||
	fail "the installed hcctl does not look for hcctl-s3.so in /usr/lib/hypercache"

for p in man8/hcctl.8:hcctl man8/hypercached.8:hypercached man8/mount.hypercache.8:mount.hypercache man5/hypercache.conf.5:hypercache.conf; do
	f=$d/usr/share/man/${p%%:*} name=${p##*:}
	w=$(groff -k -t -man -ww -z "$f" 2>&1) || fail "$f: groff failed: $w"
	[ -z "$w" ] || fail "$f: groff warns: $w"
	MANWIDTH=80 man -l "$f" 2>/dev/null | grep -A1 '^NAME' | grep -q "^ *$name - " ||
		fail "$f: no NAME line '$name - ...'"
done

mkdir "$d/verify"
sed "s|/usr/sbin/|$d/usr/sbin/|g" "$d/usr/lib/systemd/system/hypercached.service" >"$d/verify/hypercached.service"
out=$(MANPATH=$d/usr/share/man systemd-analyze verify "$d/verify/hypercached.service" 2>&1) ||
	fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify: $out"
# the assembly unit, and the udev rule's program: the installed hcctl
sed "s|/usr/sbin/|$d/usr/sbin/|g" "$d/usr/lib/systemd/system/hypercache-assemble.service" \
	>"$d/verify/hypercache-assemble.service"
out=$(MANPATH=$d/usr/share/man systemd-analyze verify "$d/verify/hypercache-assemble.service" 2>&1) ||
	fail "systemd-analyze verify hypercache-assemble.service: $out"
[ -z "$out" ] || fail "systemd-analyze verify hypercache-assemble.service: $out"
grep -qx 'ExecStart=/usr/sbin/hcctl pool assemble --scan --timeout 90' \
	"$d/usr/lib/systemd/system/hypercache-assemble.service" ||
	fail "the assembly unit does not run /usr/sbin/hcctl pool assemble --scan"
grep -q 'IMPORT{program}="/usr/sbin/hcctl examine --export $devnode"' \
	"$d/usr/lib/udev/rules.d/61-hypercache-member.rules" ||
	fail "the member rule does not import /usr/sbin/hcctl examine --export"
grep -q '@' "$d/usr/lib/udev/rules.d/61-hypercache-member.rules" "$d/usr/lib/systemd/system/hypercache-assemble.service" &&
	fail "the assembly unit or member rule keeps an @VARIABLE@"

# the view's mount unit: systemd's name for its Where=, the view's type
u=$d/usr/lib/systemd/system/mnt-hypercache.mount
out=$(MANPATH=$d/usr/share/man systemd-analyze verify "$u" 2>&1) ||
	fail "systemd-analyze verify mnt-hypercache.mount: $out"
[ -z "$out" ] || fail "systemd-analyze verify mnt-hypercache.mount: $out"
where=$(sed -n 's/^Where=//p' "$u")
[ "$(systemd-escape -p --suffix=mount "$where")" = mnt-hypercache.mount ] ||
	fail "mnt-hypercache.mount mounts $where: the unit's name does not match"
grep -qx 'Type=hypercache' "$u" && grep -qx 'What=hypercache' "$u" ||
	fail "mnt-hypercache.mount does not mount the hypercache type"

out=$("$d/usr/sbin/hypercached" --check-config -c "$d/etc/hypercache/hypercache.conf" 2>&1) ||
	fail "the installed configuration does not load: $out"

echo "# an operator's line" >>"$d/etc/hypercache/hypercache.conf"
make -s install DESTDIR="$d" PREFIX=/usr >/dev/null 2>&1 || fail "second make install failed"
tail -n1 "$d/etc/hypercache/hypercache.conf" | grep -q "operator's line" ||
	fail "a second install overwrote the edited configuration"
make -s uninstall DESTDIR="$d" PREFIX=/usr >/dev/null 2>&1 || fail "make uninstall failed"
rm -rf "$d/verify"
left=$(cd "$d" && find . -type f | sed 's|^\./||' | sort)
[ "$left" = etc/hypercache/hypercache.conf ] || fail "uninstall left: $left"
rm "$d/etc/hypercache/hypercache.conf"
make -s install DESTDIR="$d" PREFIX=/usr >/dev/null 2>&1 && make -s uninstall DESTDIR="$d" PREFIX=/usr >/dev/null 2>&1 ||
	fail "install + uninstall failed"
left=$(cd "$d" && find . -type f)
[ -z "$left" ] || fail "uninstall of an unchanged install left: $left"
echo "install: ok ($(echo "$want" | wc -l) files, 4 man pages, units verified)"
