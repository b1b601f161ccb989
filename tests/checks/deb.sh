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
#  - libhypercache1, libhypercache-dev and python3-hypercache: see below.
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
	./lib/systemd/system/mnt-hypercache.mount \
	./usr/lib/sysusers.d/hypercache.conf ./usr/share/bash-completion/completions/hcctl \
	./etc/hypercache/hypercache.conf ./usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/hypercache/hcctl-s3.so; do
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
# dh_installsystemd --no-enable: enabled again on upgrade only if it was
grep -q "deb-systemd-helper debian-installed 'mnt-hypercache.mount'" "$d/main/postinst" ||
	fail "the view's mount unit is enabled at install (a mounted pool cannot stop)"
grep -q "deb-systemd-invoke.*start" "$d/main/postinst" && fail "the unit is started at install"
dep=$(dpkg-deb -f "$main" Depends)
for l in libnl-genl-3-200 libjson-c5 libcurl4 libinih1 libsystemd0 libblkid1 adduser; do
	grep -q "$l" <<<"$dep" || fail "hypercache does not depend on $l: $dep"
done
dpkg-deb -x "$main" "$d/root"
strings "$d/root/usr/sbin/hcctl" | grep -x "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/hypercache" >/dev/null ||
	fail "the packaged hcctl does not look for hcctl-s3.so where the package puts it"
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
# The client library and the Python package (libhypercache1,
# libhypercache-dev, python3-hypercache): the shared library under its
# soname with the multiarch path, the development files, and the Python
# module importable from the unpacked package with its fsspec entry point,
# loading the packaged library by soname.
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
lib=build/deb/libhypercache1_${ver}_${arch}.deb
dev=build/deb/libhypercache-dev_${ver}_${arch}.deb
py=build/deb/python3-hypercache_${ver}_all.deb
for f in "$lib" "$dev" "$py"; do [ -f "$f" ] || fail "missing $f"; done
list=$(dpkg-deb -c "$lib")
# the library's own version (lib/Makefile), not the package's
libver=$(sed -n 's/^VERSION := //p' lib/Makefile)
[ -n "$libver" ] || fail "no VERSION in lib/Makefile"
for f in ./usr/lib/$ma/libhypercache.so.$libver ./usr/lib/$ma/libhypercache.so.1; do
	grep -q " $f\( -> .*\)\?\$" <<<"$list" || fail "$lib lacks $f"
done
grep -q " ./usr/lib/$ma/libhypercache.so.1 -> libhypercache.so.$libver\$" <<<"$list" ||
	fail "$lib: libhypercache.so.1 does not point to libhypercache.so.$libver"
grep -q 'libhypercache\.so$\|\.a$\|\.h$' <<<"$list" && fail "$lib holds development files"
dpkg-deb -e "$lib" "$d/libctl"
grep -q '^libhypercache 1 libhypercache1' "$d/libctl/shlibs" || fail "libhypercache1 has no shlibs entry"
list=$(dpkg-deb -c "$dev")
for f in ./usr/include/hypercache/hypercache.h ./usr/lib/$ma/libhypercache.a \
	./usr/lib/$ma/libhypercache.so ./usr/lib/$ma/pkgconfig/hypercache.pc \
	./usr/share/man/man3/libhypercache.3.gz; do
	grep -q " $f\( -> .*\)\?\$" <<<"$list" || fail "$dev lacks $f"
done
grep -q "libhypercache1 (= $ver)" <<<"$(dpkg-deb -f "$dev" Depends)" ||
	fail "libhypercache-dev does not depend on libhypercache1 (= $ver): $(dpkg-deb -f "$dev" Depends)"
dpkg-deb -x "$lib" "$d/lib"
dpkg-deb -x "$dev" "$d/lib"
grep -qx "libdir=/usr/lib/$ma" "$d/lib/usr/lib/$ma/pkgconfig/hypercache.pc" ||
	fail "hypercache.pc's libdir is not /usr/lib/$ma: $(grep libdir= "$d/lib/usr/lib/$ma/pkgconfig/hypercache.pc")"
list=$(dpkg-deb -c "$py")
for f in __init__.py _lib.py fs.py safetensors.py torch.py uri.py __main__.py; do
	grep -q " ./usr/lib/python3/dist-packages/hypercache/$f\$" <<<"$list" || fail "$py lacks hypercache/$f"
done
grep -q "libhypercache1" <<<"$(dpkg-deb -f "$py" Depends)" || fail "python3-hypercache does not depend on libhypercache1"
dpkg-deb -x "$py" "$d/py"
out=$(cd / && LD_LIBRARY_PATH=$d/lib/usr/lib/$ma PYTHONPATH=$d/py/usr/lib/python3/dist-packages /usr/bin/python3 -c '
import importlib.metadata as md, hypercache, hypercache._lib as L
eps = [e for e in md.entry_points(group="fsspec.specs") if e.name == "hypercache"]
assert eps and eps[0].value == "hypercache.fs:HyperCacheFileSystem", eps
assert hypercache.__file__.startswith("'"$d"'/py/"), hypercache.__file__
assert L._find() == "libhypercache.so.1", L._find()
L._load()
print(eps[0].load().__name__)
' 2>&1) || fail "the packaged Python module does not import or register hypercache://: $out"
[ "$out" = HyperCacheFileSystem ] || fail "the fsspec entry point loads $out"
echo "deb: ok ($(basename "$main"), $(basename "$dkms"), $(basename "$lib"), $(basename "$dev"), $(basename "$py"))"
