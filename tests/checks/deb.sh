#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb` (scripts/deb.sh, dpkg-buildpackage with debhelper and
# dh-dkms) builds both packages, and they hold what a host needs:
#  - hypercache: hcctl and hypercached in /usr/sbin, the three man pages,
#    hypercached.service and the udev rule in /lib, the sysusers.d entry,
#    bash completion, /etc/hypercache/hypercache.conf as a conffile, mode
#    0640 in the package; its postinst creates the hypercache group and
#    gives the configuration to it (dpkg-statoverride) and enables, but does
#    not start, the unit; it depends on the libraries it links;
#  - hypercache-dkms: the module's sources under /usr/src/hypercache-VER
#    with dkms.conf naming that version, the modules-load.d entry, and the
#    dkms postinst; it depends on dkms.
# A VM boot with the packages installed is not part of make check.
#
#   tests/checks/deb.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "deb: $*" >&2; exit 1; }
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
arch=$(dpkg --print-architecture)
make -s deb >/dev/null || fail "make deb failed (build/deb/build.log)"
main=build/deb/hypercache_${ver}_${arch}.deb
dkms=build/deb/hypercache-dkms_${ver}_all.deb
[ -f "$main" ] && [ -f "$dkms" ] || fail "missing $main or $dkms"
d=$(mktemp -d /tmp/hc-deb.XXXXXX)
trap 'rm -rf "$d"' EXIT

list=$(dpkg-deb -c "$main")
for f in ./usr/sbin/hcctl ./usr/sbin/hypercached ./usr/share/man/man8/hcctl.8.gz \
	./usr/share/man/man8/hypercached.8.gz ./usr/share/man/man5/hypercache.conf.5.gz \
	./lib/systemd/system/hypercached.service ./lib/udev/rules.d/60-hypercache.rules \
	./lib/systemd/system/hypercache-assemble.service ./lib/udev/rules.d/61-hypercache-member.rules \
	./usr/lib/sysusers.d/hypercache.conf ./usr/share/bash-completion/completions/hcctl \
	./etc/hypercache/hypercache.conf; do
	grep -q " $f\$" <<<"$list" || fail "$main lacks $f"
done
grep -q '^-rw-r----- root/root .* ./etc/hypercache/hypercache.conf$' <<<"$list" ||
	fail "hypercache.conf is not 0640 in the package: $(grep hypercache.conf <<<"$list")"
dpkg-deb -e "$main" "$d/main"
grep -qx /etc/hypercache/hypercache.conf "$d/main/conffiles" || fail "hypercache.conf is not a conffile"
grep -q 'addgroup --system --quiet hypercache' "$d/main/postinst" || fail "postinst creates no group"
grep -q 'dpkg-statoverride --update --add root hypercache 0640' "$d/main/postinst" ||
	fail "postinst does not give the configuration to the group"
grep -q "deb-systemd-helper enable 'hypercached.service'" "$d/main/postinst" || fail "the unit is not enabled"
grep -q "deb-systemd-invoke.*start" "$d/main/postinst" && fail "the unit is started at install"
dep=$(dpkg-deb -f "$main" Depends)
for l in libnl-genl-3-200 libjson-c5 libcurl4 libinih1 libsystemd0 libblkid1 adduser; do
	grep -q "$l" <<<"$dep" || fail "hypercache does not depend on $l: $dep"
done
dpkg-deb -x "$main" "$d/root"
"$d/root/usr/sbin/hypercached" --check-config -c "$d/root/etc/hypercache/hypercache.conf" >/dev/null ||
	fail "the packaged configuration does not load"
grep -qx 'ExecStart=/usr/sbin/hypercached --foreground' "$d/root/lib/systemd/system/hypercached.service" ||
	fail "the packaged unit does not run /usr/sbin/hypercached"

list=$(dpkg-deb -c "$dkms")
for f in dkms.conf Kbuild kmod/main.c kmod/compat.h kmod/core/sb.c uapi/hypercache.h; do
	grep -q " ./usr/src/hypercache-$ver/$f\$" <<<"$list" || fail "$dkms lacks /usr/src/hypercache-$ver/$f"
done
grep -q ' ./usr/lib/modules-load.d/hypercache.conf$' <<<"$list" || fail "$dkms lacks the modules-load.d entry"
dpkg-deb -x "$dkms" "$d/dkms"
grep -qx "PACKAGE_VERSION=\"$ver\"" "$d/dkms/usr/src/hypercache-$ver/dkms.conf" || fail "dkms.conf's version is not $ver"
dpkg-deb -e "$dkms" "$d/dkmsctl"
grep -q 'common.postinst' "$d/dkmsctl/postinst" || fail "hypercache-dkms has no dkms postinst"
grep -q 'dkms' <<<"$(dpkg-deb -f "$dkms" Depends)" || fail "hypercache-dkms does not depend on dkms"
echo "deb: ok ($(basename "$main"), $(basename "$dkms"))"
