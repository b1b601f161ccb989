#!/bin/bash
# Usage: tests/vm/mkinitramfs.sh KVER OUT.cpio
#
# Builds the guest initramfs for the VM tests (run from anywhere; paths below
# are relative to the repository root):
#   /init                 tests/vm/guest/init
#   /bin, /sbin, ...      busybox-static + applet symlinks
#   /lib/modules/KVER     nvme md_mod raid0 dm_mod dm_flakey dm_log_writes
#                         dm_snapshot loop
#                         virtio_pci virtio_net 9p 9pnet_virtio (boot.sh --hostfs)
#                         (+ $HC_EXTRA_MODULES, + the
#                         dependencies of hypercache.ko) with their deps, depmod'ed
#   /usr/{s,}bin          real fio mdadm dmsetup blockdev losetup mke2fs mkfs.xfs
#                         curl (+ $HC_EXTRA_BINS)
#                         and the shared libraries ldd lists for them
#   /hc/hypercache.ko     $HC_KO (default ./hypercache.ko, else kmod/hypercache.ko,
#                         if one exists)
#   /hc/hypercache.deps   module names hypercache.ko depends on (modinfo)
#   /hc/bin/              every executable in $HC_BIN_DIRS (files or directories;
#                         default: tools/hcctl/hcctl
#                         tools/mount.hypercache/mount.hypercache
#                         build/guest-bin), and
#                         hcctl-s3.so from beside an hcctl (its S3 client,
#                         found next to /proc/self/exe; libraries as above)
#   /hc/tests/            tests/vm/guest/*
#   /hc/old/              with HC_OLD_DIR (tests/vm/oldmod.sh): the previous
#                         build's hypercache.ko (+ hypercache.deps) and hcctl
#                         (libraries as above), for the format compatibility
#                         tests; boot.sh
#                         then writes initramfs-old.cpio, not initramfs.cpio
# HC_MODROOT: the modules come from HC_MODROOT/lib/modules/KVER instead of
# /lib/modules/KVER (a kernel built here; tests/vm/kernel.sh sets it).
# Uncompressed: the guest kernel's own zstd decompressor, run under TCG,
# cost a boot several seconds (a 41 MB zstd image of 107 MB: 30.4 s from
# QEMU's start to the stage's first line against 14.5 s uncompressed, at
# load 2), and make check boots about 60 guests.
# Cached: OUT is rebuilt only if an input is newer than it or the set of
# inputs changed (recorded in OUT.inputs). HC_FORCE=1 forces a rebuild.
set -euo pipefail

if [ $# -ne 2 ]; then
	sed -n '2,3p' "$0" >&2
	exit 2
fi
KVER=$1
OUT=$2

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

REQUIRED_MODULES=(nvme md_mod raid0 dm_mod dm_flakey dm_log_writes dm_snapshot loop virtio_pci virtio_net)
# optional extras (skipped silently if the kernel lacks them)
# shellcheck disable=SC2206
EXTRA_MODULES=(${HC_EXTRA_MODULES-configfs libcrc32c crc32c_generic crc32c_intel null_blk brd ext4 9p 9pnet_virtio dm_delay})
# curl: the guest's S3 client (plain http to the host's gateway, no CA store)
BINS=(fio mdadm dmsetup blockdev losetup mke2fs mkfs.xfs curl)
# shellcheck disable=SC2206
BINS+=(${HC_EXTRA_BINS-})
if [ -z "${HC_KO:-}" ]; then
	# `make modules-all` leaves one module per kernel in build/kmod/KVER/
	HC_KO=$ROOT/build/kmod/$KVER/hypercache.ko
	[ -f "$HC_KO" ] || HC_KO=$ROOT/hypercache.ko
fi
if [ -f "$HC_KO" ]; then
	ko_ver=$(modinfo -F vermagic "$HC_KO" 2>/dev/null | cut -d' ' -f1)
	[ "$ko_ver" = "$KVER" ] ||
		{ echo "mkinitramfs: $HC_KO is built for '$ko_ver', not $KVER (make modules-all)" >&2; exit 1; }
fi
OLD_DIR=${HC_OLD_DIR:-}
if [ -n "$OLD_DIR" ]; then
	[ -f "$OLD_DIR/hypercache.ko" ] && [ -x "$OLD_DIR/hcctl" ] ||
		{ echo "mkinitramfs: no hypercache.ko and hcctl in HC_OLD_DIR=$OLD_DIR" >&2; exit 1; }
	ko_ver=$(modinfo -F vermagic "$OLD_DIR/hypercache.ko" 2>/dev/null | cut -d' ' -f1)
	[ "$ko_ver" = "$KVER" ] ||
		{ echo "mkinitramfs: $OLD_DIR/hypercache.ko is built for '$ko_ver', not $KVER" >&2; exit 1; }
fi
HC_BIN_DIRS=${HC_BIN_DIRS:-$ROOT/tools/hcctl/hcctl $ROOT/tools/mount.hypercache/mount.hypercache $ROOT/build/guest-bin}
MODROOT=${HC_MODROOT:-}
MODDIR=$MODROOT/lib/modules/$KVER

die() { echo "mkinitramfs: $*" >&2; exit 1; }

[ -d "$MODDIR" ] || die "no $MODDIR"
BUSYBOX=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"

# --- resolve inputs -------------------------------------------------------
ko_deps=()
if [ -f "$HC_KO" ]; then
	# modinfo on a file path: comma-separated names of the modules it needs
	IFS=, read -r -a ko_deps <<<"$(modinfo -F depends "$HC_KO" 2>/dev/null || true)"
fi
old_deps=()
[ -z "$OLD_DIR" ] ||
	IFS=, read -r -a old_deps <<<"$(modinfo -F depends "$OLD_DIR/hypercache.ko" 2>/dev/null || true)"

mod_files=$(for m in "${REQUIRED_MODULES[@]}" "${EXTRA_MODULES[@]}" "${ko_deps[@]}" "${old_deps[@]}"; do
	[ -n "$m" ] || continue
	modprobe -d "${MODROOT:-/}" -S "$KVER" --show-depends "$m" 2>/dev/null |
		awk '$1 == "insmod" { print $2 }' || true
done | sort -u)
for m in "${REQUIRED_MODULES[@]}"; do
	modprobe -d "${MODROOT:-/}" -S "$KVER" --show-depends "$m" >/dev/null 2>&1 ||
		die "module $m not found for $KVER"
done

bin_files=()
for b in "${BINS[@]}"; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$b") || die "host binary $b not found"
	bin_files+=("$(readlink -f "$p")|$p")   # "real file|path in the guest"
done

hc_bins=()
for e in $HC_BIN_DIRS; do
	if [ -d "$e" ]; then
		for f in "$e"/*; do
			[ -f "$f" ] && [ -x "$f" ] && hc_bins+=("$f")
		done
	elif [ -f "$e" ] && [ -x "$e" ]; then
		hc_bins+=("$e")
	fi
done
# hcctl's S3 client plugin (tools/hcctl/s3load.c) next to every hcctl, so
# that /hc/bin/hcctl finds it beside /proc/self/exe
for f in "${hc_bins[@]}"; do
	p=$(dirname "$f")/hcctl-s3.so
	if [ "$(basename "$f")" = hcctl ] && [ -f "$p" ] &&
		! printf '%s\n' "${hc_bins[@]}" | grep -qxF "$p"; then
		hc_bins+=("$p")
	fi
done

guest_files=()
for f in tests/vm/guest/*; do
	[ -f "$f" ] && guest_files+=("$f")
done
[ -f tests/vm/guest/init ] || die "tests/vm/guest/init missing"

inputs=$( {
	echo "$0"
	echo "$BUSYBOX"
	[ -f "$HC_KO" ] && echo "$HC_KO"
	printf '%s\n' $mod_files
	for b in "${bin_files[@]}"; do echo "${b%%|*}"; done
	printf '%s\n' "${hc_bins[@]}" "${guest_files[@]}"
	[ -z "$OLD_DIR" ] || printf '%s\n' "$OLD_DIR/hypercache.ko" "$OLD_DIR/hcctl"
} | sed '/^$/d')

# --- cache check ----------------------------------------------------------
if [ "${HC_FORCE:-0}" != 1 ] && [ -s "$OUT" ] && [ -f "$OUT.inputs" ] &&
	[ "$inputs" = "$(cat "$OUT.inputs")" ]; then
	stale=0
	while IFS= read -r f; do
		if [ "$f" -nt "$OUT" ]; then stale=1; break; fi
	done <<<"$inputs"
	if [ $stale = 0 ]; then
		echo "mkinitramfs: $OUT is up to date"
		exit 0
	fi
fi

# --- build the tree -------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
STAGING=$(mktemp -d "$(dirname "$OUT")/initramfs.XXXXXX")
trap 'rm -rf "$STAGING"' EXIT
R=$STAGING/root
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,etc,mnt,root,hc/bin,hc/tests,sys/kernel/config}
mkdir -p "$R/lib/modules/$KVER"

# copy_with_libs SRC DEST: copy a binary and the libraries ldd lists for it.
copy_with_libs() {
	local src=$1 dest=$2 lib
	install -D -m 0755 "$src" "$R$dest"
	for lib in $( { ldd "$src" 2>/dev/null || true; } | grep -o '/[^ ]*'); do
		[ -e "$R$lib" ] && continue
		install -D -m 0755 "$(readlink -f "$lib")" "$R$lib"
	done
}

# real tools first, so that busybox does not shadow them
for b in "${bin_files[@]}"; do
	copy_with_libs "${b%%|*}" "${b#*|}"
done

install -m 0755 "$BUSYBOX" "$R/bin/busybox"
for applet in $("$BUSYBOX" --list-full); do
	[ -e "$R/$applet" ] || [ -L "$R/$applet" ] && continue
	mkdir -p "$R/$(dirname "$applet")"
	ln -s /bin/busybox "$R/$applet"
done

# Compressed modules (Debian's 6.12 ships .ko.xz) go in decompressed:
# busybox's modprobe hands the file to finit_module() as it is, the kernel
# refuses it ("Invalid ELF header magic: != ELF"), and busybox then
# decompresses and loads it itself: every module was read twice, with a
# kernel error line each.
for f in $mod_files; do
	dst=$R${f#"$MODROOT"}
	mkdir -p "$(dirname "$dst")"
	case $f in
	*.ko.xz) xz -dc "$f" >"${dst%.xz}" ;;
	*.ko.zst) zstd -qdc "$f" >"${dst%.zst}" ;;
	*.ko.gz) gzip -dc "$f" >"${dst%.gz}" ;;
	*) install -m 0644 "$f" "$dst" ;;
	esac
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$MODDIR/$f" ] && cp "$MODDIR/$f" "$R/lib/modules/$KVER/"
done
depmod -b "$R" "$KVER"

if [ -f "$HC_KO" ]; then
	install -m 0644 "$HC_KO" "$R/hc/hypercache.ko"
	printf '%s\n' "${ko_deps[@]}" | sed '/^$/d' >"$R/hc/hypercache.deps"
fi
for f in "${hc_bins[@]}"; do
	copy_with_libs "$f" "/hc/bin/$(basename "$f")"
done
for f in "${guest_files[@]}"; do
	install -m 0755 "$f" "$R/hc/tests/"
done
if [ -n "$OLD_DIR" ]; then
	install -D -m 0644 "$OLD_DIR/hypercache.ko" "$R/hc/old/hypercache.ko"
	printf '%s\n' "${old_deps[@]}" | sed '/^$/d' >"$R/hc/old/hypercache.deps"
	copy_with_libs "$OLD_DIR/hcctl" /hc/old/hcctl
fi
install -m 0755 tests/vm/guest/init "$R/init"
echo "root:x:0:0:root:/root:/bin/sh" >"$R/etc/passwd"
echo "root:x:0:" >"$R/etc/group"

(cd "$R" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) >"$STAGING/out.cpio"
mv -f "$STAGING/out.cpio" "$OUT"
printf '%s\n' "$inputs" >"$OUT.inputs"
echo "mkinitramfs: wrote $OUT ($(du -h "$OUT" | cut -f1))"
