#!/bin/bash
# Usage: tests/vm/oldmod.sh KVER
#
# The previous module build, for the format compatibility tests (scenario
# 26-compat): builds hypercache.ko and hcctl of commit OLDMOD_COMMIT for
# kernel KVER, from `git archive` into build/oldmod/COMMIT/ (never into the
# source tree), and prints the directory holding both
# (build/oldmod/COMMIT/KVER, which mkinitramfs.sh packs as /hc/old/ when
# HC_OLD_DIR names it).  Cached: a build that finished is not redone.
#
# The module: the commit's own Kbuild, built as `make modules-all` builds
# (M=<copy of Kbuild, kmod/, uapi/> W=1 modules against
# /lib/modules/KVER/build, or HC_KERNEL_DIR/build).  hcctl: the commit's
# own `make -C tools/hcctl hcctl` (the control protocol may differ between
# the builds: each module is driven by its own hcctl), once per commit.
#
# Exit status: 0; 1 the build failed; 3 the commit is not in this clone
# (a shallow clone): the caller reports that as a skip with the reason on
# its line, never as a pass (the compatibility is untested, visibly).
set -euo pipefail

# The last commit of main (first parent) whose module knows format v1 only:
# its HC_FEATURE_INCOMPAT_SUPP is 0, so it refuses a pool with
# HC_FEATURE_INCOMPAT_V2 (EOPNOTSUPP, "unknown incompatible feature"), and
# its journal is v1.  The next commit of main, 5530058 (Merge branch
# 'wt-v2'), brought format v2 into the module (8ed66c8: the superblock bit,
# create --format 2, the journal through jrec2; afe7125: pool upgrade).
# Its kmod/core already holds jrec2.c, slab.c and upgrade.c (compiled,
# called by nothing): only the module's glue decides the format it speaks.
OLDMOD_COMMIT=357252e636d2d22544c9e79a6a8e5eae1ac57c35

if [ $# -ne 1 ]; then
	sed -n '2p' "$0" >&2
	exit 2
fi
KVER=$1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
base=$ROOT/build/oldmod/$OLDMOD_COMMIT
out=$base/$KVER

die() {
	echo "oldmod.sh: $*" >&2
	exit 1
}

if ! git -C "$ROOT" cat-file -e "$OLDMOD_COMMIT^{commit}" 2>/dev/null; then
	shallow=$(git -C "$ROOT" rev-parse --is-shallow-repository 2>/dev/null || echo unknown)
	{
		echo "oldmod.sh: *** commit $OLDMOD_COMMIT (the previous, v1-only module build) is not in this clone (shallow: $shallow)"
		echo "oldmod.sh: *** the format compatibility against the previous module build CANNOT be tested: fetch the full history (git fetch --unshallow)"
	} >&2
	exit 3
fi
if [ -f "$out/hypercache.ko" ] && [ -x "$out/hcctl" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$base"
# both kernels' suites may run at once: one build of a commit at a time
exec 9>"$base/lock"
flock 9

# hcctl, once per commit (user space: the same for every kernel)
tools=$base/tools
if [ ! -x "$tools/hcctl" ]; then
	rm -rf "$base/tools-src"
	mkdir -p "$base/tools-src" "$tools"
	git -C "$ROOT" archive "$OLDMOD_COMMIT" | tar -x -C "$base/tools-src"
	echo "  HCCTL   ${OLDMOD_COMMIT:0:12}" >&2
	make --no-print-directory -s -C "$base/tools-src/tools/hcctl" hcctl >&2 ||
		die "hcctl of $OLDMOD_COMMIT did not build (see above)"
	cp "$base/tools-src/tools/hcctl/hcctl" "$tools/hcctl.tmp"
	mv "$tools/hcctl.tmp" "$tools/hcctl"
fi

# hypercache.ko for KVER, as `make modules-all` builds it
kd=/lib/modules/$KVER/build
[ -z "${HC_KERNEL_DIR:-}" ] || kd=$HC_KERNEL_DIR/build
[ -d "$kd" ] || die "no kernel headers at $kd"
src=$out/src
rm -rf "$src"
mkdir -p "$src"
git -C "$ROOT" archive "$OLDMOD_COMMIT" Kbuild kmod uapi | tar -x -C "$src"
echo "  MODULE  $KVER (${OLDMOD_COMMIT:0:12})" >&2
make --no-print-directory -s -C "$kd" M="$src" W=1 modules >&2 ||
	die "hypercache.ko of $OLDMOD_COMMIT did not build for $KVER (see above)"
cp "$tools/hcctl" "$out/hcctl"
cp "$src/hypercache.ko" "$out/hypercache.ko.tmp"
mv "$out/hypercache.ko.tmp" "$out/hypercache.ko"
echo "$out"
