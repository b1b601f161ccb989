#!/bin/bash
# Usage (sourced):  . tests/vm/kernel.sh
#                   hc_kernel_select          # sets HC_KVER (honours $KVER)
#                   img=$(hc_kernel_image "$HC_KVER")   # vmlinux, else bzImage
#
# Chooses the guest kernel and prepares the image QEMU boots.
#  - hc_kernel_select: $KVER if set, else the newest 6.1 kernel that has both
#    /boot/vmlinuz-$KVER and /lib/modules/$KVER/build.  With HC_KERNEL_DIR
#    (a kernel built here, e.g. build/kasan/kernel from
#    scripts/kasan-kernel.sh: kver, vmlinuz, vmlinux, lib/modules/KVER) the
#    kernel is that one, and HC_MODROOT (mkinitramfs.sh's modules tree) is
#    that directory.
#  - hc_kernel_image: extracts the uncompressed ELF vmlinux from the bzImage
#    (PVH boot is ~3 s faster under TCG) into build/vm/$KVER/vmlinux, cached;
#    prints the bzImage path instead if extraction fails.
# The extraction follows the idea of the kernel's scripts/extract-vmlinux:
# look for every compression magic in the file, try to decompress from each
# offset, and keep the first result that is an ELF file.

HC_ROOT=${HC_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

hc_kernel_select() {
	if [ -n "${HC_KERNEL_DIR:-}" ]; then
		if [ ! -s "$HC_KERNEL_DIR/kver" ] || [ ! -s "$HC_KERNEL_DIR/vmlinuz" ]; then
			echo "kernel.sh: HC_KERNEL_DIR=$HC_KERNEL_DIR has no kver and vmlinuz" >&2
			return 1
		fi
		HC_KVER=$(cat "$HC_KERNEL_DIR/kver")
		HC_MODROOT=$HC_KERNEL_DIR
		export HC_KVER HC_MODROOT
		return 0
	fi
	if [ -n "${KVER:-}" ]; then
		HC_KVER=$KVER
	else
		local d k best=""
		for d in /lib/modules/6.1.*/build; do
			[ -d "$d" ] || continue
			k=${d#/lib/modules/}
			k=${k%/build}
			[ -f "/boot/vmlinuz-$k" ] || continue
			best=$(printf '%s\n%s\n' "$best" "$k" | sed '/^$/d' | sort -V | tail -n1)
		done
		if [ -z "$best" ]; then
			echo "kernel.sh: no 6.1 kernel with /boot/vmlinuz-K and /lib/modules/K/build" >&2
			return 1
		fi
		HC_KVER=$best
	fi
	if [ ! -f "/boot/vmlinuz-$HC_KVER" ]; then
		echo "kernel.sh: /boot/vmlinuz-$HC_KVER not found" >&2
		return 1
	fi
	export HC_KVER
}

# _hc_is_elf FILE: true if FILE starts with "\177ELF".
_hc_is_elf() {
	[ "$(head -c4 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = "7f454c46" ]
}

# _hc_try_decompress IN OUT HEXMAGIC PCRE_MAGIC CMD...: for every offset of the
# magic in IN, pipe the tail of IN from there through CMD; stop at the first
# output that is an ELF file. The decompressor's exit status is ignored
# (trailing data after the stream makes most of them complain).
_hc_try_decompress() {
	local in=$1 out=$2 magic=$3
	shift 3
	command -v "$1" >/dev/null 2>&1 || return 1
	local off
	for off in $(LC_ALL=C grep -obUaP "$magic" "$in" 2>/dev/null | cut -d: -f1 | head -n 8); do
		tail -c "+$((off + 1))" "$in" | "$@" >"$out" 2>/dev/null || true
		if _hc_is_elf "$out"; then
			return 0
		fi
	done
	return 1
}

# hc_extract_vmlinux BZIMAGE OUT: writes the uncompressed vmlinux to OUT.
hc_extract_vmlinux() {
	local in=$1 out=$2
	local tmp=$out.tmp.$$
	if _hc_is_elf "$in"; then
		cp "$in" "$out"
		return 0
	fi
	if _hc_try_decompress "$in" "$tmp" '\xfd7zXZ\x00' xz -dc ||
		_hc_try_decompress "$in" "$tmp" '\x28\xb5\x2f\xfd' zstd -dcq ||
		_hc_try_decompress "$in" "$tmp" '\x1f\x8b\x08' gzip -dc ||
		_hc_try_decompress "$in" "$tmp" 'BZh' bzip2 -dc ||
		_hc_try_decompress "$in" "$tmp" '\x5d\x00\x00\x00' xz --format=lzma -dc ||
		_hc_try_decompress "$in" "$tmp" '\x89LZO' lzop -dc ||
		_hc_try_decompress "$in" "$tmp" '\x02\x21\x4c\x18' lz4 -dc; then
		mv -f "$tmp" "$out"
		return 0
	fi
	rm -f "$tmp"
	return 1
}

# hc_kernel_image KVER: prints the path of the image to pass to -kernel.
hc_kernel_image() {
	local kver=$1
	if [ -n "${HC_KERNEL_DIR:-}" ]; then
		# the bzImage: the KASAN build's vmlinux resets at once under
		# PVH boot (QEMU exits after "Booting from ROM"), the bzImage boots
		echo "$HC_KERNEL_DIR/vmlinuz"
		return 0
	fi
	local bz=/boot/vmlinuz-$kver
	local dir=$HC_ROOT/build/vm/$kver
	local vml=$dir/vmlinux
	mkdir -p "$dir"
	if [ -s "$vml" ] && [ ! "$bz" -nt "$vml" ] && _hc_is_elf "$vml"; then
		echo "$vml"
		return 0
	fi
	if hc_extract_vmlinux "$bz" "$vml"; then
		echo "$vml"
	else
		echo "kernel.sh: could not extract vmlinux from $bz, using bzImage" >&2
		echo "$bz"
	fi
}
