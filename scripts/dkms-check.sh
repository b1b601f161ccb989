#!/bin/bash
# Usage: scripts/dkms-check.sh [KVER...]
#
# Checks that `dkms build` accepts dkms.conf and builds hypercache.ko for
# each given kernel (default: every installed kernel with headers).  It
# works in a private source and DKMS tree under build/dkms/ (dkms's
# --sourcetree/--dkmstree), so an installed copy of the module is never
# touched.  Exit 0 only if every build produced hypercache.ko.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

command -v dkms >/dev/null || { echo "dkms-check: dkms is not installed" >&2; exit 1; }
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
[ -n "$ver" ] || { echo "dkms-check: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }

kvers=("$@")
if [ ${#kvers[@]} -eq 0 ]; then
	for b in /lib/modules/*/build; do
		[ -d "$b" ] && kvers+=("$(basename "$(dirname "$b")")")
	done
fi
[ ${#kvers[@]} -gt 0 ] || { echo "dkms-check: no kernel headers installed" >&2; exit 1; }

work=$ROOT/build/dkms
rm -rf "$work"
src=$work/src/hypercache-$ver
mkdir -p "$src" "$work/tree" "$work/install"
cp -r Kbuild dkms.conf kmod uapi "$src/"
# no build products in the tarball-like source
find "$src" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod*' \) -delete

opts=(--sourcetree "$work/src" --dkmstree "$work/tree" --installtree "$work/install")
dkms add "${opts[@]}" -m hypercache -v "$ver" >/dev/null
rc=0
for k in "${kvers[@]}"; do
	if dkms build "${opts[@]}" -m hypercache -v "$ver" -k "$k" >"$work/build-$k.log" 2>&1 &&
		ls "$work/tree/hypercache/$ver/$k"/*/module/hypercache.ko* >/dev/null 2>&1; then
		echo "dkms-check: ok: hypercache/$ver builds for $k"
	else
		echo "dkms-check: FAILED for $k (log: build/dkms/build-$k.log)"
		tail -n 20 "$work/build-$k.log"
		rc=1
	fi
done
exit $rc
