#!/bin/sh
# Usage (guest, via /init): stage-harness.sh [drives=N] [size_mb=M] [fio_mb=F]
#
# Self-test of the VM harness; needs no hypercache.ko (boot with --noload):
#   nvme-namespaces  N NVMe namespaces exist, each of M MiB
#   dd-pattern       a random pattern written to drive 0 reads back identical
#   fio-verify       fio --verify=crc32c over F MiB of drive 1 passes
#   modules-loaded   every module of the initramfs is uncompressed and the
#                    kernel refused none of them (no "Invalid ELF header")
. /hc/tests/lib.sh

drives=3 size_mb=128 fio_mb=16
for a in "$@"; do
	case "$a" in
	drives=*) drives=${a#drives=} ;;
	size_mb=*) size_mb=${a#size_mb=} ;;
	fio_mb=*) fio_mb=${a#fio_mb=} ;;
	*) echo "stage-harness: unknown argument $a" >&2; exit 2 ;;
	esac
done

t_namespaces() {
	n=$(ls /dev/nvme*n1 | wc -l)
	[ "$n" -eq "$drives" ] || hc_fail "expected $drives namespaces, found $n"
	i=0
	while [ $i -lt "$drives" ]; do
		dev=$(hc_drive $i)
		[ -b "$dev" ] || hc_fail "$dev (serial hc$i) missing"
		bytes=$(blockdev --getsize64 "$dev")
		[ "$bytes" -eq $((size_mb * 1024 * 1024)) ] ||
			hc_fail "$dev: $bytes bytes, expected $size_mb MiB"
		hc_log "$dev -> $(readlink "$dev"): $bytes bytes"
		i=$((i + 1))
	done
}

t_dd_pattern() {
	dev=$(hc_drive 0)
	dd if=/dev/urandom of=/tmp/pattern bs=1M count=4 2>/dev/null
	dd if=/tmp/pattern of="$dev" bs=1M seek=8 conv=fsync 2>/dev/null
	echo 3 >/proc/sys/vm/drop_caches
	dd if="$dev" of=/tmp/readback bs=1M skip=8 count=4 2>/dev/null
	cmp /tmp/pattern /tmp/readback || hc_fail "pattern mismatch on $dev"
	rm -f /tmp/pattern /tmp/readback
}

t_fio_verify() {
	dev=$(hc_drive 1)
	fio --name=verify --filename="$dev" --rw=randwrite --bs=4k \
		--size="${fio_mb}M" --direct=1 --ioengine=libaio --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--randrepeat=1 --eta=never --minimal >/tmp/fio.out
	# fio exits non-zero on a verify error (set -e fails the test)
	hc_log "fio verify of ${fio_mb} MiB on $dev passed"
}

# mkinitramfs.sh decompresses .ko.xz (Debian's 6.12): given one as it is,
# busybox's modprobe made the kernel refuse it first, then loaded it again
t_modules_loaded() {
	packed=$(find /lib/modules -name '*.ko.*' | head -3)
	[ -z "$packed" ] || hc_fail "compressed modules in the initramfs: $packed"
	if dmesg | grep -F 'Invalid ELF header'; then
		hc_fail "the kernel refused a module image (above)"
	fi
	hc_log "$(find /lib/modules -name '*.ko' | wc -l) modules, all uncompressed"
}

hc_test nvme-namespaces t_namespaces
hc_test modules-loaded t_modules_loaded
hc_test dd-pattern t_dd_pattern
hc_test fio-verify t_fio_verify
