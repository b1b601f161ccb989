#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-ingest.sh and
# scripts/bench-egress.sh):
#   stage-bench-speed.sh parts=ingest[:egress] [n=N] [big=MiB] [ck=COUNT]
#                        [ckmb=MiB] [one=MiB] [aws=guest|host] [dmb=MiB]
# (3 fresh drives, --s3; --hostfs for aws=guest)
#
# BENCHMARKS (their smoke runs are 97-bench/bench-ingest.sh and
# 97-bench/bench-egress.sh), each figure against its peer measured in this
# boot, as
#   hc: bench-speed NAME SECONDS s MB/s MB/s OBJ obj/s xRATIO (to PEER)
# where RATIO = the peer's seconds / this one's (> 1: HyperCache faster):
# ingest (test bench-ingest):
#   curl-many   N objects of 1 MiB: curl -Z --parallel-max 16 -K LIST, to
#               files on ext4 over md raid0 of the same three drives
#   curl-1      one object of big MiB: curl to a file on that ext4
#   curl-8      the same with 8 ranged curls writing their ranges of the file
#   hc-many     preload-batch of the N objects (max_objects_in_flight 16,
#               -P 64), ratio to curl-many
#   hc-big      hcctl preload of the big object (cold ingest), ratios to
#               curl-1 (hc-big) and curl-8 (hc-big-vs-8)
# egress (test bench-egress):
#   aws-seq     ck checkpoints of ckmb MiB uploaded by `aws s3 cp` one after
#               the other (Debian's awscli, the host's /usr/bin/aws run in
#               the guest over --hostfs; aws=host: on the host, outside the
#               guest, the smoke run's shortcut, as python under TCG takes
#               tens of seconds to start)
#   hc-ckpts    the same files through the cache: ck `hcctl put --sync` at
#               once (max_objects_in_flight 16), until the last upload is
#               acknowledged, ratio to aws-seq
#   curl-put    one checkpoint of one MiB (one=): curl -T
#   hc-put      hcctl put --sync of it, ratio to curl-put; then where its
#               time went: put's commit_seconds and sync_seconds, and
#               hypercached's thread-seconds of the upload (read, crc, slot
#               wait, digest, send), as hc: bench-speed-trace lines
#   hc-put-signed  the same with the backend's sign_payload = true (the
#               SHA-256 of every part as the payload hash), ratio to
#               curl-put, and its trace
# drive (test bench-drive; before any pool or md array, on the first raw
# drive): hypercached's drive I/O shape, 8 threads each with one 8 MiB
# O_DIRECT request at a time (its part workers' pwrite and egress's
# pread), through three fio engines, reads and writes, 2 rounds, over the
# first dmb= MiB (default 512) of the drive, written once untimed first
# (the first engine would otherwise pay for the host's allocation of the
# sparse image's blocks: psync's first write measured 64 MB/s, its second
# 197 MB/s):
#   psync       pwrite/pread from 8 jobs (what hypercached does)
#   uring-8x1   io_uring, 8 jobs of iodepth 1 (a ring per thread)
#   uring-1x8   io_uring, one job of iodepth 8, registered files and
#               buffers (--fixedbufs --registerfiles: one ring for all)
# as hc: bench-speed-drive ENGINE DIR MB/s CPU-s/GB, the CPU seconds of the
# whole guest (/proc/stat) per GB moved, and each uring figure's ratio to
# psync of the same round (throughput, and psync's CPU per GB / its own).
# The objects are checked (SHA-256) in the cache or in S3 after their run
# (of the N small ones, 32 spread over the list).
. /hc/tests/lib.sh
. /hc/tests/s3lib.sh

PARTS=ingest:egress N=1000 BIG=1024 CK=8 CKMB=64 ONE=256 AWS=guest BUCKET_ARG="" BIGSUM=""
DMB=512 PROFILE=0
for a in "$@"; do
	case $a in
	bucket=*) BUCKET_ARG=${a#bucket=} ;;
	bigsha=*) BIGSUM=${a#bigsha=} ;;
	parts=*) PARTS=${a#parts=} ;;
	n=*) N=${a#n=} ;;
	big=*) BIG=${a#big=} ;;
	ck=*) CK=${a#ck=} ;;
	ckmb=*) CKMB=${a#ckmb=} ;;
	one=*) ONE=${a#one=} ;;
	aws=*) AWS=${a#aws=} ;;
	dmb=*) DMB=${a#dmb=} ;;
	profile=*) PROFILE=${a#profile=} ;;
	*) echo "stage-bench-speed: unknown argument $a" >&2; exit 2 ;;
	esac
done
MB=1048576
MD=/mnt/md
# the host's bucket: many/mNNNN (1 MiB each), sums (their "SHA-256 mNNNN"
# lines) and big (random, SHA-256 bigsha=)
BUCKET=${BUCKET_ARG:-$BUCKET}

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# fig NAME SECONDS BYTES OBJECTS [PEER PEER_SECONDS]
fig() {
	awk -v n="$1" -v t="$2" -v b="$3" -v o="$4" -v p="${5:-}" -v pt="${6:-0}" 'BEGIN {
		l = sprintf("hc: bench-speed %s %.3f s %.1f MB/s %.2f obj/s", n, t, b / t / 1e6, o / t)
		if (p != "")
			l = l sprintf(" x%.2f (to %s)", pt / t, p)
		print l }' | tee /dev/kmsg
}

# The figures a later line needs: /tmp/fig.NAME holds the seconds.
keep() { echo "$2" >"/tmp/fig.$1"; }
# metric NAME: a sample's value from hypercached's exporter (the default
# 127.0.0.1:9110), 0 if none; a scrape also starts the "since the previous
# scrape" figures anew
metric() {
	curl -s http://127.0.0.1:9110/metrics |
		awk -v n="$1" '$1 == n || index($1, n "{") == 1 { v = $2 } END { print v + 0 }'
}
# cpu_mark: the guest's CPU counters now (/proc/stat's first line);
# cpu_busy NAME MARK BYTES: the share of the vCPUs' time not idle or
# waiting since MARK, and those busy CPU-seconds per GB of BYTES, as a
# bench-speed-trace line (what bounds NAME: the CPU or the others it
# waits for; what it costs)
cpu_mark() { head -n 1 /proc/stat; }
cpu_busy() {
	echo "$2 $(cpu_mark)" | awk -v n="$1" -v b="$3" '{
		# cpu user nice system idle iowait irq softirq steal ... (twice)
		t0 = 0; for (i = 2; i <= 9; i++) t0 += $i; i0 = $5 + $6
		t1 = 0; for (i = 2 + NF / 2; i <= 9 + NF / 2; i++) t1 += $i
		i1 = $(5 + NF / 2) + $(6 + NF / 2)
		j = (t1 - t0) - (i1 - i0)	# busy jiffies, USER_HZ 100
		printf "hc: bench-speed-trace %s guest CPU busy %.0f%%, %.2f CPU-s, %.2f CPU-s/GB\n", n,
			(t1 > t0 ? 100 * j / (t1 - t0) : 0), j / 100, j / 100 / (b / 1e9) }' |
		tee /dev/kmsg
}
got() { cat "/tmp/fig.$1"; }
# prof_start; prof_report NAME: with profile=1 (scripts/bench-speed.sh
# --profile) the whole guest is sampled in between (perf record -a -g,
# cpu-clock, 499 Hz) and the shares by thread name, then by thread name
# and symbol, are printed as "hc: bench-speed-prof NAME" lines (on the
# console: /dev/kmsg refuses such a burst)
prof_start() {
	[ "$PROFILE" = 1 ] || return 0
	command -v perf >/dev/null || hc_fail "profile=1 without perf in the guest"
	perf record -q -a -g -e cpu-clock -F 499 -o /tmp/perf.data >/tmp/perf.out 2>&1 &
	echo $! >/tmp/perf.pid
	sleep 1
}
prof_report() {
	[ "$PROFILE" = 1 ] || return 0
	kill -INT "$(cat /tmp/perf.pid)"
	wait "$(cat /tmp/perf.pid)" 2>/dev/null || true
	perf report -i /tmp/perf.data --stdio --no-children --sort comm -g none \
		--percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 30 |
		sed "s/^/hc: bench-speed-prof $1 thread: /" >/dev/console
	perf report -i /tmp/perf.data --stdio --no-children --sort comm,dso,sym -g none \
		--percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 80 |
		sed "s/^/hc: bench-speed-prof $1 symbol: /" >/dev/console
	rm -f /tmp/perf.data
}
# member_flushes: the flush requests the members completed, summed (field
# 16 of /sys/block/DEV/stat; the members are $M, links to the drives)
member_flushes() {
	for d in $M; do cat "$(hc_sysblock "$d")/stat"; done |
		awk '{ n += $16 } END { print n + 0 }'
}

md_up() {
	mdadm --create /dev/md0 --run --level=0 --chunk=4096 --raid-devices=3 $M \
		>/tmp/md.out 2>&1 || { cat /tmp/md.out; hc_fail "mdadm --create failed"; }
	# busybox sh prefers its own applets: the real mke2fs by its path
	/usr/sbin/mke2fs -q -F -t ext4 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/md0 ||
		hc_fail "mke2fs on md0 failed"
	mkdir -p $MD
	mount -t ext4 /dev/md0 $MD || hc_fail "cannot mount ext4 on md0"
}

md_down() {
	umount $MD || hc_fail "cannot unmount $MD"
	mdadm --stop /dev/md0 >/dev/null 2>&1 || hc_fail "mdadm --stop failed"
	for d in $M; do
		mdadm --zero-superblock "$d" >/dev/null 2>&1 || true
		dd if=/dev/zero of="$d" bs=1M count=8 conv=fsync 2>/dev/null
	done
}

# ranges: 8 ranged curls, each writing its own part of $MD/big8
curl8() {
	sz=$((BIG * MB))
	part=$((sz / 8))
	: >$MD/big8
	i=0
	while [ $i -lt 8 ]; do
		s3curl -r "$((i * part))-$((i * part + part - 1))" "$EP/$BUCKET/big" |
			dd of=$MD/big8 bs=64k seek=$((i * part)) oflag=seek_bytes \
				conv=notrunc iflag=fullblock 2>/dev/null &
		i=$((i + 1))
	done
	wait
	sync -f $MD/big8
}

t_setup() {
	[ -n "$BUCKET_ARG" ] || hc_fail "no bucket= (the host puts the objects)"
	: >/tmp/hcd.out
}

# the pool and hypercached, once for both parts
# hc_conf: hypercached's own defaults but for max_objects_in_flight (the
# tests' short timeouts fail uploads through QEMU's user network on a
# loaded host)
hc_conf() {
	write_conf log_level=info ingest_concurrency=8 part_size=8M max_objects_in_flight=16 \
		retry_attempts=5 timeout_connect=10 timeout_request=300
}

hc_up() {
	[ -f /tmp/hcd.pid ] && return 0
	hcctl pool create $M >/dev/null || hc_fail "pool create failed"
	hc_conf
	start_daemon 1
}

# put_one NAME KEY: hcctl put --sync of /tmp/one as figure NAME, then its
# trace: put's own phases and the daemon's thread-seconds of the upload
put_one() {
	t0=$(now)
	c0=$(cpu_mark)
	hcctl put --sync --timeout 0 --no-progress --json /tmp/one "s3://$BUCKET/$2" >/tmp/put.out 2>&1 ||
		{ cat /tmp/put.out; tail -n 30 /tmp/hcd.out; hc_fail "put --sync of one failed"; }
	t=$(since "$t0")
	cpu_busy "$1" "$c0" $((ONE * MB))
	fig "$1" "$t" $((ONE * MB)) 1 curl-put "$(got curl-put)"
	wait_log "$2: upload thread-seconds"
	echo "hc: bench-speed-trace $1 put $(tr -d '\n ' </tmp/put.out |
		grep -o '"\(commit_seconds\|sync_seconds\)":[0-9.e+-]*' | tr '\n' ' ')" | tee /dev/kmsg
	echo "hc: bench-speed-trace $1 $(grep "$2: upload thread-seconds" /tmp/hcd.out |
		tail -n 1 | sed 's/^.*upload //')" | tee /dev/kmsg
	[ "$(s3curl "$EP/$BUCKET/$2" | sha256sum | cut -d' ' -f1)" = "$(sha /tmp/one)" ] ||
		hc_fail "$2 in S3: SHA-256 differs"
}

t_ingest() {
	# "SHA-256 KEY" of every object, from the host (hashing 1,000 MiB
	# under TCG would take longer than the benchmark)
	s3curl -o /tmp/sums "$EP/$BUCKET/sums" || hc_fail "no sums object in $BUCKET"
	[ "$(wc -l </tmp/sums)" = "$N" ] || hc_fail "the sums object has not $N lines"
	bigsum=$BIGSUM
	# the peers on ext4 over md raid0 of the same drives
	md_up
	mkdir -p $MD/many
	while read -r sum k; do
		echo "url = \"$EP/$BUCKET/many/$k\""
		echo "output = \"$MD/many/$k\""
	done </tmp/sums >/tmp/curl.K
	prof_start
	t0=$(now)
	c0=$(cpu_mark)
	s3curl -Z --parallel-max 16 -K /tmp/curl.K || hc_fail "curl -Z failed"
	sync -f $MD/many
	t=$(since "$t0")
	keep curl-many "$t"
	fig curl-many "$t" $((N * MB)) "$N"
	cpu_busy curl-many "$c0" $((N * MB))
	prof_report curl-many
	t0=$(now)
	c0=$(cpu_mark)
	s3curl -o $MD/big "$EP/$BUCKET/big" || hc_fail "curl of the big object failed"
	sync -f $MD/big
	t=$(since "$t0")
	keep curl-1 "$t"
	fig curl-1 "$t" $((BIG * MB)) 1
	cpu_busy curl-1 "$c0" $((BIG * MB))
	rm -f $MD/big
	t0=$(now)
	curl8
	t=$(since "$t0")
	keep curl-8 "$t"
	fig curl-8 "$t" $((BIG * MB)) 1
	[ "$(sha $MD/big8)" = "$bigsum" ] || hc_fail "8 ranged curls: SHA-256 differs"
	md_down

	# HyperCache on the same drives
	hc_up
	metric hypercache_remote_metadata_latency_us >/dev/null
	tc0=$(metric hypercache_ingest_ttfb_seconds_count)
	ts0=$(metric hypercache_ingest_ttfb_seconds_sum)
	r0=$(hc_stat journal_records)
	f0=$(hc_stat journal_flushes)
	mf0=$(member_flushes)
	prof_start
	t0=$(now)
	c0=$(cpu_mark)
	hcctl preload-batch --config /tmp/hc.conf --no-progress --json -P 64 \
		--prefix "s3://$BUCKET/many/m" >/tmp/pl.json ||
		{ cat /tmp/pl.json; tail -n 30 /tmp/hcd.out; hc_fail "preload-batch failed"; }
	t=$(since "$t0")
	grep -q "\"ingested\": *$N" /tmp/pl.json || { cat /tmp/pl.json; hc_fail "not $N ingested"; }
	fig hc-many "$t" $((N * MB)) "$N" curl-many "$(got curl-many)"
	cpu_busy hc-many "$c0" $((N * MB))
	prof_report hc-many
	# where an object's time goes before its bytes: the HEADs' mean, the
	# mean from the request to the first byte; the READY records' batches
	echo "hc: bench-speed-trace hc-many HEAD mean $(metric \
		hypercache_remote_metadata_latency_us) us, first byte mean $(awk \
		-v c0="$tc0" -v s0="$ts0" -v c1="$(metric hypercache_ingest_ttfb_seconds_count)" \
		-v s1="$(metric hypercache_ingest_ttfb_seconds_sum)" \
		'BEGIN { printf "%.3f", (c1 > c0 ? (s1 - s0) / (c1 - c0) : 0) }') s," \
		"journal records $(($(hc_stat journal_records) - r0))," \
		"flushes $(($(hc_stat journal_flushes) - f0))," \
		"member flush requests $(($(member_flushes) - mf0))" | tee /dev/kmsg
	# its own figures: the listing's time, the aggregate objects/s
	hc_log "preload-batch: $(tr -d '\n' </tmp/pl.json |
		grep -o '"\(list_seconds\|seconds\|gb_per_s\|objects_per_s\)": *[0-9.e+-]*' | tr '\n' ' ')"
	grep -q '"objects_per_s": *[0-9]' /tmp/pl.json ||
		{ cat /tmp/pl.json; hc_fail "no objects_per_s in preload-batch --json"; }
	wait_log "ingest: [0-9]* objects, [0-9]* bytes in .* GB/s, .* objects/s"
	grep "ingest: [0-9]* objects, " /tmp/hcd.out
	# every object ingested (above); 32 of them read back, spread (a
	# process start costs about a second here)
	step=$(((N + 31) / 32))
	i=0
	while read -r sum k; do
		if [ $((i % step)) = 0 ]; then
			[ "$(hcctl get --no-progress --no-ingest "s3://$BUCKET/many/$k" |
				sha256sum | cut -d' ' -f1)" = "$sum" ] || hc_fail "many/$k: SHA-256 differs"
		fi
		i=$((i + 1))
	done </tmp/sums
	t0=$(now)
	c0=$(cpu_mark)
	hcctl preload --no-progress --timeout 1800 "s3://$BUCKET/big" >/dev/null ||
		{ tail -n 30 /tmp/hcd.out; hc_fail "cold ingest of the big object failed"; }
	t=$(since "$t0")
	cpu_busy hc-big "$c0" $((BIG * MB))
	fig hc-big "$t" $((BIG * MB)) 1 curl-1 "$(got curl-1)"
	fig hc-big-vs-8 "$t" $((BIG * MB)) 1 curl-8 "$(got curl-8)"
	[ "$(hcctl get --no-progress --no-ingest "s3://$BUCKET/big" | sha256sum |
		cut -d' ' -f1)" = "$bigsum" ] || hc_fail "big: SHA-256 differs"
}

# aws_cp FILE KEY: Debian's awscli in the host's root, against the gateway
aws_cp() {
	hc_host_run /usr/bin/aws --endpoint-url "$EP" s3 cp --only-show-errors \
		"$1" "s3://$BUCKET/$2"
}

t_egress() {
	i=0
	while [ $i -lt "$CK" ]; do
		head -c $((CKMB * MB)) /dev/urandom >/tmp/ck$i
		i=$((i + 1))
	done
	head -c $((ONE * MB)) /dev/urandom >/tmp/one
	if [ "$AWS" = guest ]; then
		# the first start reads python's modules over 9p: not timed
		hc_host_run /usr/bin/aws --version >/dev/null || hc_fail "no aws in the host's root"
		t0=$(now)
		i=0
		while [ $i -lt "$CK" ]; do
			aws_cp /tmp/ck$i "aws/ck$i" || hc_fail "aws s3 cp of ck$i failed"
			i=$((i + 1))
		done
		t=$(since "$t0")
	else
		# scripts/bench-egress.sh timed it on the host: its seconds
		t=$(cat /proc/cmdline | tr ' ' '\n' | sed -n 's/^hc.awsseq=//p')
		[ -n "$t" ] || hc_fail "aws=host without the host's time (hc.awsseq=)"
	fi
	keep aws-seq "$t"
	fig aws-seq "$t" $((CK * CKMB * MB)) "$CK"
	t0=$(now)
	c0=$(cpu_mark)
	s3curl -T /tmp/one "$EP/$BUCKET/curl/one" >/dev/null || hc_fail "curl -T failed"
	t=$(since "$t0")
	cpu_busy curl-put "$c0" $((ONE * MB))
	keep curl-put "$t"
	fig curl-put "$t" $((ONE * MB)) 1

	hc_up
	t0=$(now)
	pids=""
	i=0
	while [ $i -lt "$CK" ]; do
		hcctl put --sync --timeout 0 --no-progress /tmp/ck$i "s3://$BUCKET/hc/ck$i" \
			>/tmp/put$i.out 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do
		wait "$p" || { cat /tmp/put*.out; tail -n 30 /tmp/hcd.out; hc_fail "a put --sync failed"; }
	done
	t=$(since "$t0")
	# hypercached's aggregate, once the last upload of the batch is reported
	wait_log "egress: [0-9]* objects, [0-9]* bytes in .* GB/s, .* objects/s"
	grep "egress: [0-9]* objects, " /tmp/hcd.out
	fig hc-ckpts "$t" $((CK * CKMB * MB)) "$CK" aws-seq "$(got aws-seq)"
	put_one hc-put hc/one
	# the same with the SHA-256 of every part signed (sign_payload = true)
	stop_daemon
	HC_BACKEND_KEYS=sign_payload=true hc_conf
	start_daemon $(($(grep -c registered /tmp/hcd.out) + 1))
	put_one hc-put-signed hc/one-signed
	i=0
	while [ $i -lt "$CK" ]; do
		[ "$(s3curl "$EP/$BUCKET/hc/ck$i" | sha256sum | cut -d' ' -f1)" = "$(sha /tmp/ck$i)" ] ||
			hc_fail "hc/ck$i in S3: SHA-256 differs"
		rm -f /tmp/ck$i
		i=$((i + 1))
	done
	rm -f /tmp/one
}

# busy CPU jiffies of the whole guest (user nice system irq softirq steal;
# USER_HZ is 100 on Linux)
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# drive_job NAME RW FIO-OPTIONS...: one fio run, its MB/s and CPU-s/GB
drive_job() {
	name=$1 rw=$2
	shift 2
	d=${M%% *}
	b0=$(busy)
	t0=$(now)
	# DMB MiB in all: 8 jobs of their own eighth, or one job of all
	fio --name="$name" --filename="$d" --rw="$rw" --bs=8m --direct=1 \
		--group_reporting --minimal "$@" >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; hc_fail "fio $name $rw failed"; }
	t=$(since "$t0")
	b1=$(busy)
	awk -v n="$name" -v rw="$rw" -v t="$t" -v j=$((b1 - b0)) -v hz=100 -v mb="$DMB" 'BEGIN {
		gb = mb * 1048576 / 1e9
		printf "hc: bench-speed-drive %s %s %.1f MB/s %.3f CPU-s/GB\n", n, rw, gb * 1000 / t, j / hz / gb }' |
		tee -a /tmp/drive.fig | tee /dev/kmsg
}

t_drive() {
	: >/tmp/drive.fig
	[ $((DMB % 64)) = 0 ] || hc_fail "dmb=$DMB is not a multiple of 64 MiB (8 jobs of 8 MiB requests)"
	j=$((DMB / 8))
	# every block written once before the first timed job
	dd if=/dev/zero of="${M%% *}" bs=8M count=$((DMB / 8)) oflag=direct conv=fsync 2>/dev/null ||
		hc_fail "prefilling ${M%% *} failed"
	for round in 1 2; do
		for rw in write read; do
			drive_job psync "$rw" --ioengine=psync --numjobs=8 \
				--size=64m --offset_increment=64m
			drive_job uring-8x1 "$rw" --ioengine=io_uring --iodepth=1 \
				--numjobs=8 --size=${j}m --offset_increment=${j}m
			drive_job uring-1x8 "$rw" --ioengine=io_uring --iodepth=8 \
				--numjobs=1 --size=${DMB}m --fixedbufs --registerfiles
		done
		# this round's ratios to psync
		tail -n 6 /tmp/drive.fig | awk -v r=$round '
			{ bw[$3 " " $4] = $5; cpu[$3 " " $4] = $7 }
			END { for (k in bw) { split(k, a, " ")
				if (a[1] == "psync") continue
				printf "hc: bench-speed-drive-ratio round %d %s %s throughput x%.2f cpu-per-GB x%.2f (to psync)\n",
					r, a[1], a[2], bw[k] / bw["psync " a[2]], cpu["psync " a[2]] / cpu[k] } }' |
			sort | tee /dev/kmsg
	done
}

# the per-byte work HyperCache adds to a transfer, on this (emulated) CPU:
# a copy, hypercached's CRC-32C, an upload's MD5 (hc_cpucost), as
# "hc: bench-speed-cost NAME X CPU-s/GB" lines, which bench-speed.sh weighs
# against the peers' CPU per GB
t_cost() {
	hc_cpucost 16 >/tmp/cost || hc_fail "hc_cpucost failed"
	[ "$(grep -c ' CPU-s/GB$' /tmp/cost)" = 3 ] || { cat /tmp/cost; hc_fail "hc_cpucost: not 3 figures"; }
	sed 's/^/hc: bench-speed-cost /' /tmp/cost | tee /dev/kmsg
}

t_teardown() {
	[ -f /tmp/hcd.pid ] || return 0
	stop_daemon
	hcctl pool stop >/dev/null || hc_fail "pool stop failed"
}

case ":$PARTS:" in *:drive:*) hc_test bench-drive t_drive ;; esac
hc_test bench-setup t_setup
case ":$PARTS:" in *:ingest:*) hc_test bench-ingest t_ingest ;; esac
case ":$PARTS:" in *:egress:*) hc_test bench-egress t_egress ;; esac
case ":$PARTS:" in *:ingest:* | *:egress:*) hc_test bench-cost t_cost ;; esac
hc_test bench-teardown t_teardown
