#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-client.sh):
#   stage-bench-client.sh [size=MiB] [rounds=R]
#
# A BENCHMARK (its smoke run is the test 97-bench/bench-client.sh).  On
# three drives, in one boot, each figure against its peer on the same
# drives and bytes (a random file of size MiB in tmpfs):
#   put   `hcctl put --clean` (libhypercache's writer: durable when it
#         returns, each member flushed once at COMMIT) against
#         `dd bs=4M oflag=direct conv=fsync` of the same file to md raid0
#         (4 MiB chunks) over the same drives: ratio put/md (<= 1.10 is
#         the target);
#   read  hc_libbench read (hc_reader_read_all: the library's parallel
#         whole-object read) and `hcctl get -o /dev/null` against fio seq
#         4 MiB QD32 O_DIRECT over the object's extent of /dev/hypercache0:
#         ratios lib/fio (>= 0.95 is the target) and get/fio.
# Rounds alternate the pool and md; every figure is the mean of R rounds.
# Lines: "hc: bench-client round R put_hc_s=... put_md_s=... ..." and
# "hc: bench-client result ..." with the means and ratios.
. /hc/tests/lib.sh

size=256 rounds=3
for a in "$@"; do
	case "$a" in
	size=*) size=${a#size=} ;;
	rounds=*) rounds=${a#rounds=} ;;
	*) echo "stage-bench-client: unknown argument $a" >&2; exit 2 ;;
	esac
done
M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
B=$HC_RUN/bc
mkdir -p $B

say() {
	echo "hc: $*" | tee -a $B/lines >/dev/console
}

# secs CMD...: the wall seconds of CMD (stdout discarded), or fail
secs() {
	hc_libbench time "$@" >$B/t 2>$B/t.err ||
		{ cat $B/t.err; hc_fail "$* failed"; }
	sed -n 's/^seconds=//p' $B/t
}

t_src() {
	dd if=/dev/urandom of=/tmp/bc.src bs=1M count="$size" 2>/dev/null
	[ "$(stat -c %s /tmp/bc.src)" -eq $((size * 1048576)) ] || hc_fail "no source file"
}

# fio_mibps DEV OFFSET: seq 4 MiB reads QD32 O_DIRECT of size MiB at OFFSET
fio_mibps() {
	fio --name=seq --filename="$1" --direct=1 --ioengine=libaio --iodepth=32 \
		--rw=read --bs=4m --offset="$2" --size=${size}M --eta=never \
		--minimal --terse-version=3 >$B/fio.out 2>&1 ||
		{ cat $B/fio.out; hc_fail "fio on $1 failed"; }
	awk -F';' '$1 == "3" { printf "%.1f\n", $7 / 1024 }' $B/fio.out
}

t_round() {
	r=$1
	# shellcheck disable=SC2086
	hcctl pool create --force $M >/dev/null
	ph=$(secs hcctl put --clean --no-progress /tmp/bc.src bench/client/$r)
	off=$(hcctl locate --json bench/client/$r | sed -n 's/.*"extents":\[{"offset":\([0-9]*\).*/\1/p')
	n=$(hcctl locate --json bench/client/$r | grep -o '"offset"' | wc -l)
	[ -n "$off" ] && [ "$n" -eq 1 ] || hc_fail "not one extent: $off $n"
	echo 3 >/proc/sys/vm/drop_caches
	hc_libbench read bench/client/$r >$B/lib || hc_fail "hc_libbench read failed"
	lib=$(sed -n 's/.*MiBps=//p' $B/lib)
	gs=$(secs hcctl get --no-progress -o /dev/null bench/client/$r)
	fh=$(fio_mibps /dev/hypercache0 "$off")
	hcctl get --no-progress -o /tmp/bc.got bench/client/$r
	cmp -s /tmp/bc.src /tmp/bc.got || hc_fail "the object does not read back"
	rm -f /tmp/bc.got
	hcctl pool stop >/dev/null
	# shellcheck disable=SC2086
	mdadm --create /dev/md0 --run --force --level=0 --raid-devices=3 \
		--chunk=4096 --metadata=1.2 $M >/dev/null 2>&1 || hc_fail "mdadm --create failed"
	pm=$(secs dd if=/tmp/bc.src of=/dev/md0 bs=4M oflag=direct conv=fsync)
	mdadm --stop /dev/md0 >/dev/null 2>&1
	# shellcheck disable=SC2086
	mdadm --zero-superblock $M 2>/dev/null || true
	gm=$(awk -v s="$gs" -v z="$size" 'BEGIN { printf "%.1f", z / s }')
	say "bench-client round $r put_hc_s=$ph put_md_s=$pm lib_read_MiBps=$lib get_MiBps=$gm fio_hc_MiBps=$fh"
	echo "$ph $pm $lib $gm $fh" >>$B/rounds
}

hc_test bench-client-src t_src
r=1
while [ "$r" -le "$rounds" ]; do
	hc_test bench-client-round-$r t_round $r
	r=$((r + 1))
done
if [ -s $B/rounds ]; then
	awk -v n="$rounds" -v z="$size" '{ ph += $1; pm += $2; lib += $3; g += $4; f += $5; k++ }
		END { if (k != n) exit 1
		printf "hc: bench-client result size_MiB=%d rounds=%d put_hc_s=%.3f put_md_s=%.3f ratio_put_md=%.3f lib_read_MiBps=%.1f get_MiBps=%.1f fio_hc_MiBps=%.1f ratio_lib_fio=%.3f ratio_get_fio=%.3f\n",
			z, k, ph / k, pm / k, ph / pm, lib / k, g / k, f / k, lib / f, g / f }' \
		$B/rounds >/dev/console
fi
