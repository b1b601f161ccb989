#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-fs.sh):
#   stage-bench-fs.sh [size=MiB] [write=MiB] [rounds=R] [opens=N]
#
# A BENCHMARK (its smoke run is the test 97-bench/bench-fs.sh).  The file
# system view (mount -t hypercache) against its peers on the same three
# drives, in one boot; every read's page cache dropped first:
#   buffered  fio seq 4 MiB reads (psync, buffered) of a size-MiB file of
#             the view against the same bytes in a file on ext4 over md
#             raid0 (4 MiB chunks) of the same drives: ratio view/ext4
#             (>= 1.0 is the target);
#   direct    fio seq 4 MiB QD32 O_DIRECT (libaio) on the view's file
#             against the same on the object's extent of /dev/hypercache0:
#             ratio (>= 0.97);
#   mmap      hc_libbench mmap (every word of the mapped file read in
#             order) of the view's file against the ext4 copy (>= 1.0);
#   open      hc_libbench openstat: N open + fstat + close of the view's
#             file against the ext4 copy: ratio of the times (<= 2);
#   write     dd bs=4M of a write-MiB file (tmpfs) to a new file of the
#             view, durable when dd's close returns, against dd bs=4M
#             oflag=direct conv=fsync of the same bytes to md raid0 of the
#             same drives: ratio of the times (<= 1.10).
# Speeds are MiB/s.  Lines: "hc: bench-fs round R ..." and
# "hc: bench-fs result ..." with the means and the ratios.
. /hc/tests/lib.sh

size=1024 write=256 rounds=3 opens=20000
for a in "$@"; do
	case "$a" in
	size=*) size=${a#size=} ;;
	write=*) write=${a#write=} ;;
	rounds=*) rounds=${a#rounds=} ;;
	opens=*) opens=${a#opens=} ;;
	*) echo "stage-bench-fs: unknown argument $a" >&2; exit 2 ;;
	esac
done
M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
B=$HC_RUN/bf
MNT=/mnt/hc
X=/mnt/bfx
mkdir -p $B $MNT $X

# secs CMD...: the wall seconds of CMD (stdout discarded), or fail
secs() {
	hc_libbench time "$@" >$B/t 2>$B/t.err ||
		{ cat $B/t.err; hc_fail "$* failed"; }
	sed -n 's/^seconds=//p' $B/t
}

# field NAME CMD...: NAME=V from the output of CMD, or fail
field() {
	f=$1
	shift
	"$@" >$B/o 2>&1 || { cat $B/o; hc_fail "$* failed"; }
	sed -n "s/.*$f=\\([0-9.]*\\).*/\\1/p" $B/o
}

# fio_mibps FILE OFFSET DIRECT: seq 4 MiB reads of size MiB at OFFSET,
# O_DIRECT QD32 (libaio) or buffered (psync)
fio_mibps() {
	if [ "$3" = 1 ]; then
		eng="--ioengine=libaio --iodepth=32"
	else
		eng="--ioengine=psync"
	fi
	# O_DIRECT too: the buffered read before left the file's pages, which
	# the first direct run (not the second) had to reclaim for its buffers
	echo 3 >/proc/sys/vm/drop_caches
	# shellcheck disable=SC2086
	fio --name=seq --filename="$1" --readonly --direct="$3" $eng --rw=read --bs=4m \
		--offset="$2" --size=${size}M --eta=never \
		--minimal --terse-version=3 >$B/fio.out 2>&1 ||
		{ cat $B/fio.out; hc_fail "fio on $1 failed"; }
	awk -F';' '$1 == "3" { printf "%.1f\n", $7 / 1024 }' $B/fio.out
}

t_src() {
	dd if=/dev/urandom of=/tmp/bf.w bs=1M count="$write" 2>/dev/null
	[ "$(stat -c %s /tmp/bf.w)" -eq $((write * 1048576)) ] || hc_fail "no source file"
	hc_pattern 1 $((size * 1048576)) | sha256sum | cut -d' ' -f1 >$B/sha
}

md_up() {
	# shellcheck disable=SC2086
	mdadm --create /dev/md0 --run --force --level=0 --raid-devices=3 \
		--chunk=4096 --metadata=1.2 $M >/dev/null 2>&1 || hc_fail "mdadm --create failed"
}

md_down() {
	mdadm --stop /dev/md0 >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	mdadm --zero-superblock $M 2>/dev/null || true
}

t_round() {
	r=$1
	# what a failed round left
	umount $MNT 2>/dev/null || true
	hcctl pool stop >/dev/null 2>&1 || true
	md_down
	# ext4 over md raid0: the read file, then the raw md for the write peer
	md_up
	/usr/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 \
		/dev/md0 || hc_fail "mke2fs failed"
	mount -t ext4 /dev/md0 $X || hc_fail "mount of ext4 failed"
	hc_pattern 1 $((size * 1048576)) | dd of=$X/f bs=4M 2>/dev/null || hc_fail "ext4 file"
	sync
	be=$(fio_mibps $X/f 0 0)
	echo 3 >/proc/sys/vm/drop_caches
	me=$(field MiBps hc_libbench mmap $X/f)
	oe=$(field us_per_op hc_libbench openstat $X/f "$opens")
	umount $X
	# the write peers start with no page cache of the device (mke2fs left
	# md0's, which a direct write must invalidate)
	sync
	echo 3 >/proc/sys/vm/drop_caches
	wm=$(secs dd if=/tmp/bf.w of=/dev/md0 bs=4M oflag=direct conv=fsync)
	md_down
	# the pool on the same drives, the file written through the view (an
	# empty pool: ingest=on makes the uncached directory s3/bench/fs, so
	# that no seed object splits the file's chunks)
	# shellcheck disable=SC2086
	hcctl pool create --force $M >/dev/null
	mount -t hypercache -o ingest=on hypercache $MNT || hc_fail "mount of the view failed"
	f=$MNT/s3/bench/fs/f
	hc_pattern 1 $((size * 1048576)) | dd of=$f bs=4M 2>/dev/null || hc_fail "the view's file"
	[ "$(sha256sum $f | cut -d' ' -f1)" = "$(cat $B/sha)" ] || hc_fail "the view's file reads back other bytes"
	off=$(hcctl locate --json s3://bench/fs/f | sed -n 's/.*"extents":\[{"offset":\([0-9]*\).*/\1/p')
	n=$(hcctl locate --json s3://bench/fs/f | grep -o '"offset"' | wc -l)
	[ -n "$off" ] && [ "$n" -eq 1 ] || hc_fail "not one extent: $off $n"
	bh=$(fio_mibps $f 0 0)
	dh=$(fio_mibps $f 0 1)
	dv=$(fio_mibps /dev/hypercache0 "$off" 1)
	echo 3 >/proc/sys/vm/drop_caches
	mh=$(field MiBps hc_libbench mmap $f)
	oh=$(field us_per_op hc_libbench openstat $f "$opens")
	sync
	echo 3 >/proc/sys/vm/drop_caches
	wh=$(secs dd if=/tmp/bf.w of=$MNT/s3/bench/fs/w bs=4M)
	cmp -s /tmp/bf.w $MNT/s3/bench/fs/w || hc_fail "the written file reads back other bytes"
	umount $MNT
	hcctl pool stop >/dev/null
	say="bench-fs round $r buf_hc_MiBps=$bh buf_ext4_MiBps=$be dio_hc_MiBps=$dh dio_dev_MiBps=$dv"
	say="$say mmap_hc_MiBps=$mh mmap_ext4_MiBps=$me open_hc_us=$oh open_ext4_us=$oe write_hc_s=$wh write_md_s=$wm"
	echo "hc: $say" >/dev/console
	echo "$bh $be $dh $dv $mh $me $oh $oe $wh $wm" >>$B/rounds
}

hc_test bench-fs-src t_src
r=1
while [ "$r" -le "$rounds" ]; do
	hc_test bench-fs-round-$r t_round $r
	r=$((r + 1))
done
if [ -s $B/rounds ]; then
	awk -v n="$rounds" -v z="$size" -v w="$write" '
		{ for (i = 1; i <= 10; i++) s[i] += $i; k++ }
		END { if (k != n) exit 1
		for (i = 1; i <= 10; i++) s[i] /= k
		printf "hc: bench-fs result size_MiB=%d write_MiB=%d rounds=%d buf_hc_MiBps=%.1f buf_ext4_MiBps=%.1f ratio_buf_ext4=%.3f dio_hc_MiBps=%.1f dio_dev_MiBps=%.1f ratio_dio_dev=%.3f mmap_hc_MiBps=%.1f mmap_ext4_MiBps=%.1f ratio_mmap_ext4=%.3f open_hc_us=%.2f open_ext4_us=%.2f ratio_open_ext4=%.3f write_hc_s=%.3f write_md_s=%.3f ratio_write_md=%.3f\n",
			z, w, k, s[1], s[2], s[1] / s[2], s[3], s[4], s[3] / s[4],
			s[5], s[6], s[5] / s[6], s[7], s[8], s[7] / s[8],
			s[9], s[10], s[9] / s[10] }' $B/rounds >/dev/console
fi
