#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-client.sh):
#   stage-bench-client.sh [size=MiB] [rounds=R] [py=SAVE:LOAD:ST] [prof=1]
#                         [rep=N]
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
# With py= (the boot has the host's root, boot.sh --hostfs, and the S3
# gateway, --s3), one more round: python/tests/guest_bench.py with the
# host's python3, torch and numpy, the pool then ext4 over md raid0 of the
# same drives (every page cache dropped before a load):
#   torch.save of SAVE MiB to hypercache:// (durable) against torch.save to
#   ext4 + fsync (<= 1.10) and against boto3's put_object of the same bytes
#   to the gateway; warm torch.load of LOAD MiB (cached) against torch.load
#   from ext4 (>= 1.0 in speed); safetensors of ST MiB loaded zero-copy,
#   every page touched, against numpy reads of the file from ext4 (>= 1.0).
# Line: "hc: bench-client python ..." with the seconds and the ratios.
# rep=N: each Python step but boto3's runs N times, its median is the
# figure (every run's seconds on "name_runs=" lines).
# prof=1 (diagnosis: the seconds are not for comparison): each Python phase
# runs under `strace -f -c` and guest_bench.py's HC_BENCH_PROFILE=1
# (cProfile and /proc/self/io per step); "hc: bench-client-prof" lines.
. /hc/tests/lib.sh

size=256 rounds=3 py="" prof=0 rep=1
for a in "$@"; do
	case "$a" in
	size=*) size=${a#size=} ;;
	rounds=*) rounds=${a#rounds=} ;;
	py=*) py=${a#py=} ;;
	prof=*) prof=${a#prof=} ;;
	rep=*) rep=${a#rep=} ;;
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

# python/tests/guest_bench.py PHASE ARG... in the host's root: its
# "name=seconds" lines appended to $B/py
py_bench() {
	_st=""
	[ "$prof" = 1 ] && _st="strace -f -c -o /tmp/bc.strace.$1"
	# shellcheck disable=SC2086
	hc_host_run env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=python \
		HYPERCACHE_LIB="$HC_HOST_TREE/build/lib/libhypercache.so.1" \
		HC_BENCH_PROFILE=$prof HC_BENCH_REPEAT=$rep $_st \
		/usr/bin/python3 python/tests/guest_bench.py "$@" >$B/py.out 2>&1 ||
		{ cat $B/py.out; hc_fail "guest_bench.py $1 failed"; }
	cat $B/py.out >>$B/py
	# each phase's seconds on the console as they come (a later phase's
	# failure keeps them)
	grep -v '^prof ' $B/py.out | sed "s/^/hc: bench-client step $1 /" >/dev/console
	if [ "$prof" = 1 ]; then
		sed -n "s/^prof /hc: bench-client-prof $1 /p" $B/py.out >/dev/console
		head -n 14 /tmp/bc.strace.$1 | sed "s/^/hc: bench-client-prof $1 strace /" >/dev/console
	fi
}

t_python() {
	# shellcheck disable=SC2086
	set -- $(echo "$py" | tr : ' ')
	[ $# -eq 3 ] || hc_fail "py=$py: want SAVE:LOAD:ST (MiB)"
	rm -f /tmp/bc.src $B/py
	# shellcheck disable=SC2086
	hcctl pool create --force $M >/dev/null
	py_bench pool "$1" "$2" "$3"
	hcctl pool stop >/dev/null
	# shellcheck disable=SC2086
	mdadm --create /dev/md0 --run --force --level=0 --raid-devices=3 \
		--chunk=4096 --metadata=1.2 $M >/dev/null 2>&1 || hc_fail "mdadm --create failed"
	/usr/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 \
		/dev/md0 || hc_fail "mke2fs failed"
	# the chroot's /tmp is the guest's (hc_host_run's bind mount)
	mkdir -p /tmp/bcx
	mount -t ext4 /dev/md0 /host/tmp/bcx || hc_fail "mount of ext4 failed"
	py_bench ext4 /tmp/bcx "$1" "$2" "$3"
	umount /host/tmp/bcx
	mdadm --stop /dev/md0 >/dev/null 2>&1
	# shellcheck disable=SC2086
	mdadm --zero-superblock $M 2>/dev/null || true
	py_bench s3 "$1"
	line=$(awk -F= '{ v[$1] = $2 }
		END { split("torch_save_hc_s torch_save_ext4_s torch_save_boto3_s torch_load_hc_s torch_load_ext4_s st_load_hc_s st_load_ext4_s", k, " ")
		for (i in k) if (!(v[k[i]] > 0)) exit 1
		printf "hc: bench-client python torch_save_hc_s=%s torch_save_ext4_s=%s torch_save_boto3_s=%s ratio_save_ext4=%.3f ratio_boto3_save=%.3f torch_load_hc_s=%s torch_load_ext4_s=%s ratio_load_ext4=%.3f st_load_hc_s=%s st_load_ext4_s=%s ratio_st_numpy=%.3f\n",
			v["torch_save_hc_s"], v["torch_save_ext4_s"], v["torch_save_boto3_s"],
			v["torch_save_hc_s"] / v["torch_save_ext4_s"],
			v["torch_save_boto3_s"] / v["torch_save_hc_s"],
			v["torch_load_hc_s"], v["torch_load_ext4_s"],
			v["torch_load_ext4_s"] / v["torch_load_hc_s"],
			v["st_load_hc_s"], v["st_load_ext4_s"],
			v["st_load_ext4_s"] / v["st_load_hc_s"] }' $B/py) ||
		{ cat $B/py; hc_fail "a Python figure is missing"; }
	echo "$line" >/dev/console
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
if [ -n "$py" ]; then
	hc_test bench-client-python t_python
fi
