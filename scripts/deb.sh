#!/bin/bash
# Usage: scripts/deb.sh            (make deb)
#
# Builds the Debian packages hypercache and hypercache-dkms (debian/) with
# dpkg-buildpackage -b from a copy of the tree's files (tracked and new,
# not ignored: what git would commit) in build/deb/src/, so the build
# never writes into the tree, and leaves them in build/deb/:
#   build/deb/hypercache_VERSION_ARCH.deb, hypercache-dkms_VERSION_all.deb
# Needs debhelper, dh-dkms and the build dependencies of debian/control
# (scripts/deps.sh installs them).
set -euo pipefail
[ $# -eq 0 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$root/dkms.conf")
chver=$(cd "$root" && dpkg-parsechangelog -S Version)
if [ "$ver" != "$chver" ]; then
	echo "deb.sh: dkms.conf says $ver, debian/changelog $chver" >&2
	exit 1
fi
out=$root/build/deb
src=$out/src/hypercache-$ver
rm -rf "$out/src"
mkdir -p "$src"
(cd "$root" && git ls-files -co --exclude-standard -z |
	xargs -0 -I{} sh -c '[ -e "{}" ] && printf "%s\0" "{}"' |
	tar --null -T - -cf -) | tar -C "$src" -xf -
(cd "$src" && dpkg-buildpackage -b -us -uc --no-sign) >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "deb.sh: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
rm -f "$out"/*.deb
mv "$out"/src/*.deb "$out/"
rm -rf "$out/src"
ls "$out"/*.deb
