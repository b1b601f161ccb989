#!/bin/sh
# Usage (guest, via /init): stage-fs.sh
#
# The file system view (mount -t hypercache, Documentation/fs.md) on a pool
# of three fresh 128 MiB drives (93 chunks of 4 MiB): the mount's refusals
# and the stop rule, statfs, cat/cp/sha256sum of objects of 0 B to several
# extents, O_DIRECT and fio, mmap, the hold of a mapped file through an
# eviction pressure wave, hostile URIs, directories' inode numbers, a
# listing of thousands of objects, permissions from the mount options.
#
# Arguments: full=1 (make check-reliability, r-fs): also the object of
# several extents (a pool filled and fragmented first), fio and the
# read-only stress (stress-ng from the host's root: boot.sh --hostfs); many=N
# objects in the listing test (default 300, 3000 with full=1).
. /hc/tests/lib.sh

FULL=0 MANY=
for a in "$@"; do
	case $a in
	full=*) FULL=${a#full=} ;;
	many=*) MANY=${a#many=} ;;
	esac
done
[ -n "$MANY" ] || { [ "$FULL" = 1 ] && MANY=3000 || MANY=300; }

MiB=1048576
CHUNK=$((4 * MiB))
MNT=/mnt/hc
# the kernel's consistency check (fsck, check_superseded)
[ -d /sys/kernel/debug/hypercache ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
members="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

jnum() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

jstr() {
	grep -o "\"$1\":\"[^\"]*\"" | head -n 1 | cut -d'"' -f4
}

mkrand() {
	head -c "$2" /dev/urandom >"$1"
	[ "$(wc -c <"$1")" -eq "$2" ] || hc_fail "could not make $1"
}

sha() {
	sha256sum "$1" | cut -d' ' -f1
}

# same A B: the two files have the same bytes
same() {
	[ "$(sha "$1")" = "$(sha "$2")" ] ||
		hc_fail "$1 ($(wc -c <"$1") bytes) differs from $2 ($(wc -c <"$2") bytes)"
}

# put FILE URI: a clean object
put() {
	hcctl put --clean --no-progress "$1" "$2" >/dev/null || hc_fail "put $2"
}

# bytes_free: the pool's free bytes (capacity - bytes used)
bytes_free() {
	hcctl stats --json >/tmp/st.json
	echo $(( $(jnum capacity </tmp/st.json) - $(jnum bytes_used </tmp/st.json) ))
}

# trace MSG: progress on the console (the test's own output is its log)
trace() {
	echo "fs: $*" >/dev/console
}

hcmount() {
	mkdir -p $MNT
	mount -t hypercache "$@" hypercache $MNT || hc_fail "mount $*"
}

t_no_pool() {
	mkdir -p $MNT
	hc_expect_errno mount -t hypercache hypercache $MNT
	dmesg | tail -n 5 | grep -q "no pool is running" ||
		hc_fail "the kernel did not say why"
	grep -q " $MNT " /proc/mounts && hc_fail "mounted without a pool"
	grep -qw hypercache /proc/filesystems || hc_fail "not in /proc/filesystems"
	# hcctl mount names the reason, and leaves no mount point it made
	hc_expect_errno -m "no pool is running" hcctl mount /mnt/hcmade
	[ -e /mnt/hcmade ] && hc_fail "hcctl mount left the mount point it created"
	hc_expect_errno -m "not mounted" hcctl umount
}

t_create() {
	hcctl pool create $members >/dev/null
	[ "$(hcctl status --json | jnum chunks)" -eq 93 ] || hc_fail "not 93 chunks"
}

# 0 B, 1 B, 4 MiB - 1, 4 MiB, 4 MiB + 1, and an object of several extents.
t_files() {
	for n in 0 1 $((CHUNK - 1)) $CHUNK $((CHUNK + 1)) $((3 * CHUNK + 12345)); do
		mkrand /tmp/src.$n $n
		put /tmp/src.$n "s3://fsb/sizes/f$n"
	done
	trace "mounting"
	hcmount
	for n in 0 1 $((CHUNK - 1)) $CHUNK $((CHUNK + 1)) $((3 * CHUNK + 12345)); do
		f=$MNT/s3/fsb/sizes/f$n
		[ "$(stat -c %s "$f")" -eq $n ] || hc_fail "$f: size $(stat -c %s "$f")"
		same "$f" /tmp/src.$n
		cat "$f" >/tmp/cat.out
		same /tmp/cat.out /tmp/src.$n
		cp "$f" /tmp/cp.out
		same /tmp/cp.out /tmp/src.$n
	done
	rm -f /tmp/cat.out /tmp/cp.out
	# inode number = generation; mode 0440 root:root by default
	gen=$(hcctl locate --json "s3://fsb/sizes/f1" | jnum generation)
	[ "$(stat -c %i $MNT/s3/fsb/sizes/f1)" = "$gen" ] ||
		hc_fail "inode $(stat -c %i $MNT/s3/fsb/sizes/f1), generation $gen"
	[ "$(stat -c '%a %u %g %F' $MNT/s3/fsb/sizes/f1)" = "440 0 0 regular file" ] ||
		hc_fail "file: $(stat -c '%a %u %g %F' $MNT/s3/fsb/sizes/f1)"
	[ "$(stat -c '%a %F' $MNT/s3/fsb)" = "550 directory" ] ||
		hc_fail "directory: $(stat -c '%a %F' $MNT/s3/fsb)"
	# statfs: the pool's capacity and use, in chunks
	stat -f $MNT
	[ "$(stat -f -c %S $MNT)" -eq $CHUNK ] || hc_fail "block size"
	[ "$(stat -f -c %b $MNT)" -eq 93 ] || hc_fail "blocks $(stat -f -c %b $MNT)"
	free=$(( $(bytes_free) / CHUNK ))
	[ "$(stat -f -c %f $MNT)" -eq $free ] || hc_fail "free $(stat -f -c %f $MNT) != $free"
	# mounted "ro": no create, write, unlink, rename, mkdir
	grep " $MNT " /proc/mounts | grep -q "hypercache rw," || hc_fail "not rw in /proc/mounts"
	umount $MNT
	hcmount -o ro
	hc_expect_errno -m "Read-only" sh -c "echo x >$MNT/s3/fsb/sizes/f1"
	hc_expect_errno -m "Read-only" sh -c "echo x >$MNT/s3/fsb/new"
	hc_expect_errno -m "Read-only" rm $MNT/s3/fsb/sizes/f1
	hc_expect_errno -m "Read-only" mv $MNT/s3/fsb/sizes/f1 $MNT/s3/fsb/sizes/f2
	hc_expect_errno -m "Read-only" mkdir $MNT/s3/fsb/d
	grep " $MNT " /proc/mounts | grep -q "hypercache ro," || hc_fail "not ro in /proc/mounts"
	same $MNT/s3/fsb/sizes/f1 /tmp/src.1
	umount $MNT
	hcmount
	# a second mount of the same pool is refused, the first stays
	mkdir -p /mnt/hc2
	hc_expect_errno mount -t hypercache hypercache /mnt/hc2
	dmesg | tail -n 5 | grep -q "already mounted" || hc_fail "no reason for the second mount"
}

# An object of several extents (full=1): the pool filled with 1-chunk
# objects and every other chunk freed first.
t_extents() {
	# fragment the free space: fill the pool with 1-chunk objects
	# (hc_churn: churn/N, not shown in the view), evict every other one,
	# then a 5-chunk object takes several extents
	free=$(( $(bytes_free) / CHUNK ))
	trace "filling $free chunks"
	hc_churn $free $free 1 >/dev/null || hc_fail "hc_churn"
	[ "$(bytes_free)" -eq 0 ] || hc_fail "the pool is not full"
	hcctl ls --json | tr '{' '\n' | awk -v chunk=$CHUNK '
		/"uri":"churn\// { split($0, a, "\""); uri = a[4] }
		/"offset":/ && uri != "" {
			split($0, b, /[:,]/); if (int(b[2] / chunk) % 2 == 0) print uri; uri = ""
		}' >/tmp/even
	while read -r u; do
		hc_obj evict "$u" || hc_fail "evict $u"
	done </tmp/even
	hc_log "evicted $(wc -l </tmp/even) of $free"
	mkrand /tmp/src.multi $((4 * CHUNK + 777))
	put /tmp/src.multi "s3://fsb/sizes/multi"
	ext=$(hcctl locate --json "s3://fsb/sizes/multi" | grep -o '"offset"' | wc -l)
	hc_log "the multi-extent object has $ext extents"
	[ "$ext" -gt 1 ] || hc_fail "s3://fsb/sizes/multi is one extent"

	same $MNT/s3/fsb/sizes/multi /tmp/src.multi
	hc_mmapcmp $MNT/s3/fsb/sizes/multi 0 /tmp/src.multi || hc_fail "mmap of multi"
	dd if=$MNT/s3/fsb/sizes/multi iflag=direct bs=4M 2>/dev/null >/tmp/direct.out
	same /tmp/direct.out /tmp/src.multi
	hc_mmapcmp $MNT/s3/fsb/sizes/multi 0 /tmp/direct.out || hc_fail "mmap != O_DIRECT"
	rm -f /tmp/direct.out
}

# A new object appears without a remount, an evicted one goes.
t_coherent() {
	[ -e $MNT/s3/fsb/late ] && hc_fail "late exists before its put"
	mkrand /tmp/late 5000
	put /tmp/late "s3://fsb/late"
	same $MNT/s3/fsb/late /tmp/late
	ls $MNT/s3/fsb | grep -qx late || hc_fail "late not listed"
	hcctl evict "s3://fsb/late"
	[ -e $MNT/s3/fsb/late ] && hc_fail "late still shown after its eviction"
	# a new generation under the same path is a new inode
	put /tmp/late "s3://fsb/late"
	gen=$(hcctl locate --json "s3://fsb/late" | jnum generation)
	[ "$(stat -c %i $MNT/s3/fsb/late)" = "$gen" ] || hc_fail "stale inode after re-put"
	rm -f /tmp/late
}

# ingest=on: opening a path that is not cached asks the ingest helper
# (hc_fakehelper serves file:PATH URIs: file://tmp/x is /tmp/x).
t_ingest() {
	umount $MNT
	hcmount -o ingest=on,ingest_timeout=60
	grep " $MNT " /proc/mounts | grep -q "ingest=on,ingest_timeout=60" || hc_fail "ingest options not shown"
	mkrand /tmp/ing $((CHUNK + 4321))
	cp /tmp/ing /tmp/ing2
	# no helper: at once, not after the timeout
	t0=$(date +%s)
	hc_expect_errno -m "not connected" cat $MNT/file/tmp/ing
	[ $(( $(date +%s) - t0 )) -lt 10 ] || hc_fail "no helper: the open waited"
	: >/tmp/helper.out
	hc_fakehelper >/tmp/helper.out 2>&1 &
	hp=$!
	trap 'kill -9 $hp 2>/dev/null' EXIT
	i=0
	until grep -q registered /tmp/helper.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /tmp/helper.out; hc_fail "hc_fakehelper did not register"; }
		sleep 0.1
	done
	# four openers at once: one ingest, the same bytes for each
	pids=
	for i in 1 2 3 4; do
		cat $MNT/file/tmp/ing >/tmp/ing.out.$i &
		pids="$pids $!"
	done
	for p in $pids; do
		wait $p || hc_fail "an opener failed"
	done
	for i in 1 2 3 4; do
		same /tmp/ing.out.$i /tmp/ing
	done
	[ "$(grep -c '^file://tmp/ing: allocated' /tmp/helper.out)" -eq 1 ] ||
		{ cat /tmp/helper.out; hc_fail "not one ingest for four openers"; }
	[ "$(objstate file://tmp/ing)" = ready ] || hc_fail "file://tmp/ing is $(objstate file://tmp/ing)"
	ls $MNT/file/tmp | grep -qx ing || hc_fail "the ingested file is not listed"
	# a create is not an ingest: the new file is stored, no request
	cat /tmp/ing2 >$MNT/s3/fsb/wing || hc_fail "create with ingest=on"
	[ "$(objstate s3://fsb/wing)" = dirty ] || hc_fail "s3://fsb/wing is $(objstate s3://fsb/wing)"
	grep -q '^s3://fsb/wing' /tmp/helper.out && hc_fail "a create asked the helper"
	same $MNT/s3/fsb/wing /tmp/ing2
	# a missing key: ENOENT, nothing cached
	hc_expect_errno -m "No such file" cat $MNT/file/tmp/nosuch
	[ "$(objstate file://tmp/nosuch)" = miss ] || hc_fail "a missing key left $(objstate file://tmp/nosuch)"
	# the helper dead: at once
	kill -9 $hp
	wait $hp 2>/dev/null || true
	trap - EXIT
	t0=$(date +%s)
	hc_expect_errno -m "not connected" cat $MNT/file/tmp/ing2
	[ $(( $(date +%s) - t0 )) -lt 10 ] || hc_fail "helper dead: the open waited"
	same $MNT/file/tmp/ing /tmp/ing
	hcctl evict file://tmp/ing
	rm -f /tmp/ing /tmp/ing2 /tmp/ing.out.* /tmp/helper.out
	umount $MNT
	hcmount
	[ -e $MNT/file/tmp/ing2 ] && hc_fail "ingest=off shows a path that is not cached"
	hc_expect_errno mount -t hypercache -o ingest_timeout=0 hypercache /mnt/hc2
	dmesg | tail -n 3 | grep -q "ingest_timeout=0: 1..3600 seconds" || hc_fail "no reason for ingest_timeout="
}

t_direct() {
	f=$MNT/s3/fsb/sizes/f$((3 * CHUNK + 12345))
	dd if=$f iflag=direct bs=4M 2>/dev/null >/tmp/direct.out
	same /tmp/direct.out /tmp/src.$((3 * CHUNK + 12345))
	# a tail that is not a whole block comes back exact
	f=$MNT/s3/fsb/sizes/f$((CHUNK + 1))
	dd if=$f iflag=direct bs=1M 2>/dev/null >/tmp/direct.out
	same /tmp/direct.out /tmp/src.$((CHUNK + 1))
	f=$MNT/s3/fsb/sizes/f1
	dd if=$f iflag=direct bs=4096 2>/dev/null >/tmp/direct.out
	same /tmp/direct.out /tmp/src.1
	rm -f /tmp/direct.out
	# misaligned O_DIRECT: EINVAL
	# misaligned O_DIRECT: EINVAL (busybox dd falls back to buffered reads)
	f=$MNT/s3/fsb/sizes/f$((3 * CHUNK + 12345))
	[ "$(hc_fsmap --odirect $f 4096 8192)" = 8192 ] || hc_fail "aligned O_DIRECT"
	hc_expect_errno -m "Invalid argument" hc_fsmap --odirect $f 0 1000
	hc_expect_errno -m "Invalid argument" hc_fsmap --odirect $f 100 4096
	hc_expect_errno -m "Invalid argument" hc_fsmap --odirect $f 0 4097
}

# fio over a file: the data carries its own offsets (verify_pattern %o).
t_fio() {
	[ "$FULL" = 1 ] || hc_skip "fio runs in r-fs (full=1)"
	f=$MNT/s3/fsb/fio/data
	# the pattern %o is the offset of each I/O unit: one source per size
	for bs in 4M 4k; do
		fio --name=gen --filename=/tmp/fio.src --rw=write --bs=$bs --size=32M \
			--verify=pattern --verify_pattern=%o --do_verify=0 >/dev/null ||
			hc_fail "fio gen"
		put /tmp/fio.src "s3://fsb/fio/data"
		rm -f /tmp/fio.src
		mode="--rw=read"
		[ $bs = 4k ] && mode="--rw=randread --number_ios=2000"
		for direct in 0 1; do
			fio --name=v --filename=$f --readonly $mode --bs=$bs --direct=$direct \
				--size=32M --verify=pattern --verify_pattern=%o \
				--verify_fatal=1 --ioengine=psync >/tmp/fio.log 2>&1 ||
				{ grep -i "verify\|fio:\|err" /tmp/fio.log | head -n 5
				  hc_fail "fio $mode bs=$bs direct=$direct"; }
			grep -q "err= 0" /tmp/fio.log || { cat /tmp/fio.log; hc_fail "fio err"; }
		done
		hcctl evict "s3://fsb/fio/data"
	done
	rm -f /tmp/fio.log
}

# A read-only stress of the mount (full=1, boot.sh --hostfs): the host's
# stress-ng (its fstat stressor: stat, lstat, open + fstat + close of every
# entry of a directory, from several workers; its other file system
# stressors write files of their own, which the view does not take) on
# the view bound into the chroot, while fio reads a file with pattern
# verification through buffered, O_DIRECT and mmap readers at once and a
# loop lists the mount and hashes the objects; then the debugfs check.
t_stress() {
	[ "$FULL" = 1 ] || hc_skip "the stress runs in r-fs (full=1)"
	hc_host_run test -x /usr/bin/stress-ng || hc_fail "no /usr/bin/stress-ng on the host (scripts/deps.sh)"
	secs=$((60 * HC_TIMEOUT_SCALE))
	fio --name=gen --filename=/tmp/fio.src --rw=write --bs=4k --size=32M \
		--verify=pattern --verify_pattern=%o --do_verify=0 >/dev/null || hc_fail "fio gen"
	put /tmp/fio.src "s3://fsb/stress/data"
	rm -f /tmp/fio.src
	mkdir -p /tmp/hcv
	mount --bind $MNT /host/tmp/hcv || hc_fail "bind the view into the chroot"
	trap 'umount /host/tmp/hcv 2>/dev/null' EXIT
	: >/tmp/fio.log
	fio --readonly --filename=$MNT/s3/fsb/stress/data --size=32M --bs=4k \
		--rw=randread --verify=pattern --verify_pattern=%o --verify_fatal=1 \
		--time_based --runtime=$secs \
		--name=buf --ioengine=psync --direct=0 \
		--name=dio --ioengine=libaio --iodepth=8 --direct=1 \
		--name=map --ioengine=mmap >/tmp/fio.log 2>&1 &
	fp=$!
	: >/tmp/stress.log
	hc_host_run /usr/bin/stress-ng --temp-path /tmp --fstat 4 \
		--fstat-dir /tmp/hcv/s3/fsb/sizes --timeout ${secs}s --metrics-brief \
		>/tmp/stress.log 2>&1 &
	sp=$!
	end=$(( $(date +%s) + secs ))
	n=0
	while [ "$(date +%s)" -lt $end ]; do
		find $MNT >/dev/null || hc_fail "find during the stress"
		same $MNT/s3/fsb/sizes/f$((CHUNK + 1)) /tmp/src.$((CHUNK + 1))
		n=$((n + 1))
	done
	wait $sp || { cat /tmp/stress.log; hc_fail "stress-ng failed"; }
	wait $fp || { grep -i "verify\|fio:\|err" /tmp/fio.log | head -n 5; hc_fail "fio during the stress"; }
	grep -q "successful run completed" /tmp/stress.log || { cat /tmp/stress.log; hc_fail "stress-ng: no successful run"; }
	[ "$(grep -c "err= 0" /tmp/fio.log)" -eq 3 ] || { cat /tmp/fio.log; hc_fail "a fio job had errors"; }
	hc_log "stress: $secs s, $n listing rounds"
	umount /host/tmp/hcv
	trap - EXIT
	hcctl evict "s3://fsb/stress/data"
	fsck
	rm -f /tmp/fio.log /tmp/stress.log
}

t_mmap() {
	for n in 1 $((CHUNK - 1)) $CHUNK $((CHUNK + 1)) $((3 * CHUNK + 12345)); do
		hc_mmapcmp $MNT/s3/fsb/sizes/f$n 0 /tmp/src.$n ||
			hc_fail "mmap of f$n differs"
	done
	# the whole mapping against O_DIRECT reads
	f=$MNT/s3/fsb/sizes/f$((3 * CHUNK + 12345))
	dd if=$f iflag=direct bs=4M 2>/dev/null >/tmp/direct.out
	hc_mmapcmp $f 0 /tmp/direct.out || hc_fail "mmap != O_DIRECT"
	rm -f /tmp/direct.out
	# past the end of the last page: zeros, not the chunk's stale bytes
	hc_fsmap --tail $MNT/s3/fsb/sizes/f$((CHUNK + 1)) || hc_fail "the last page is not zero past the end"
}

# fsmap_unmap PID: tell hc_fsmap PID (output in /tmp/fsmap.out) to munmap,
# wait until it says so, and fail unless the mapping kept its bytes.
fsmap_unmap() {
	kill -USR1 "$1"
	i=0
	until grep -q '^unmapped$' /tmp/fsmap.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /tmp/fsmap.out; hc_fail "hc_fsmap did not unmap"; }
		sleep 0.1
	done
	grep -q '^same$' /tmp/fsmap.out || { cat /tmp/fsmap.out; hc_fail "the mapping changed"; }
}

# A mapped object stays through an eviction pressure wave; unmapped it goes.
t_hold() {
	mkrand /tmp/held $((CHUNK + 99))
	put /tmp/held "s3://fsb/held"
	: >/tmp/fsmap.out
	hc_fsmap $MNT/s3/fsb/held /tmp/held >/tmp/fsmap.out 2>&1 &
	pid=$!
	trap 'kill -TERM $pid 2>/dev/null' EXIT	# a failure must not keep the mount busy
	i=0
	until grep -q '^mapped$' /tmp/fsmap.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /tmp/fsmap.out; hc_fail "hc_fsmap did not map"; }
		sleep 0.1
	done
	hc_expect_errno -m "busy" hcctl evict "s3://fsb/held"
	ev0=$(hcctl stats --json | jnum evictions)
	# a wave of 1-chunk objects larger than the pool (93 chunks)
	hc_churn 120 120 1 >/dev/null || hc_fail "the pressure wave failed"
	ev=$(hcctl stats --json | jnum evictions)
	hc_log "evictions $ev0 -> $ev"
	[ "$ev" -gt $((ev0 + 20)) ] || hc_fail "no pressure wave"
	[ "$(hcctl locate --json s3://fsb/held | jstr status)" = hit ] ||
		hc_fail "the mapped object was evicted"
	fsmap_unmap $pid
	# unmapped (the process lives on): nothing holds it any more
	hcctl evict "s3://fsb/held" || hc_fail "evict after munmap"
	kill -TERM $pid
	wait $pid || hc_fail "hc_fsmap failed"
	trap - EXIT
	[ -e $MNT/s3/fsb/held ] && hc_fail "evicted, still shown"
	rm -f /tmp/fsmap.out /tmp/held
}

# The bound of an object's holds (HC_OBJ_HOLDS_MAX, lowered to 2 with the
# module's test hook obj_holds_max): with two files open a third open is
# ENFILE and a LOCATE|HOLD EOVERFLOW, neither taking a hold; one closed, the
# file opens again; all closed, nothing is held.
t_holds_bound() {
	p=/sys/module/hypercache/parameters/obj_holds_max
	f=$MNT/s3/fsb/sizes/f1
	trap 'exec 3<&- 4<&-; echo 0 >$p' EXIT
	echo 2 >$p
	exec 3<$f 4<$f
	hc_expect_errno -m "Too many open files in system" cat $f
	# not inherited: timeout's watcher outlives hc_obj by up to a second
	hc_expect_errno -m "Value too large" \
		timeout 10 hc_obj --ro hold s3://fsb/sizes/f1 3<&- 4<&-
	exec 4<&-
	cat $f >/tmp/bound.out || hc_fail "no open below the bound again"
	same /tmp/bound.out /tmp/src.1
	exec 3<&-
	echo 0 >$p
	trap - EXIT
	[ "$(hcctl stats --json | jnum held)" -eq 0 ] || hc_fail "a hold was left"
	rm -f /tmp/bound.out
}

# Hostile URIs: nothing outside the mount, no ".", "..", empty names.
t_hostile() {
	mkrand /tmp/h 10
	for u in "s3://hb/../escape" "s3://hb/./dot" "s3://hb/.." "s3://hb//empty" \
		"s3://hb/a//b" "s3://hb/trailing/" "s3:/oneslash" "noscheme" \
		"..://hb/k" "/abs/path" "s3://hb/ok" "s3://hb/sub/ok2" \
		"$(printf 's3://hb/bin\001\177\200\377')" "s3://hb/sh" "s3://hb/sh/adowed" \
		"hypercache://store/key"; do
		put /tmp/h "$u"
	done
	long=$(printf 'x%.0s' $(seq 1 1014))
	put /tmp/h "s3://hb/$long"			# 1022 bytes, one 1014-byte name
	long2=$(printf 'abc/%.0s' $(seq 1 253))
	put /tmp/h "s3://hb/${long2}end"		# 1024 bytes of short names
	find $MNT >/tmp/find.out
	grep -q '/\.\./\|/\./\|//\|/\.\.$\|/\.$' /tmp/find.out && hc_fail "a dot name or empty name listed"
	grep -v "^$MNT" /tmp/find.out && hc_fail "a path outside the mount"
	[ "$(find $MNT/s3/hb -type f | wc -l)" -eq 5 ] ||
		{ find $MNT/s3/hb -type f | cut -c1-40; hc_fail "not 5 files under s3/hb"; }
	for p in s3/hb/ok s3/hb/sub/ok2 s3/hb/sh; do
		same $MNT/$p /tmp/h
	done
	[ -f "$MNT/s3/hb/$(printf 'bin\001\177\200\377')" ] || hc_fail "binary name not shown"
	[ -f "$MNT/s3/hb/${long2}end" ] || hc_fail "the 1024-byte URI of short names"
	[ -e "$MNT/s3/hb/$long" ] && hc_fail "a 1014-byte name shown"
	[ -e "$MNT/s3/hb/sh/adowed" ] && hc_fail "shadowed path shown"
	[ -e "$MNT/s3/escape" ] && hc_fail "s3://hb/../escape escaped"
	[ "$(ls -a $MNT/s3/hb | sort | uniq -d)" = "" ] || hc_fail "a name listed twice"
	[ "$(ls $MNT)" = "$(printf 'hypercache\ns3')" ] || hc_fail "root: $(ls $MNT)"
	rm -f /tmp/h /tmp/find.out
}

# Directories' inode numbers (fs.md "Files"): two distinct directories
# never show one number, readdir's d_ino is stat's st_ino, and a
# directory keeps its number across a remount.  The two names were found
# offline (a distinguished-point cycle search, 4e9 hashes) so that the
# bytes the kernel hashes for them, their prefixes "s3://ino/$D1/" and
# "s3://ino/$D2/" (trailing '/' included), have xxh64s (seed 0) that agree
# in the low 63 bits: 0x979ae95b40ad64e5 and 0x179ae95b40ad64e5.  With that
# public hash as the number (before), both were 10924300424276960485.
t_dir_ino() {
	D1=314ae8b74bc4ff8b D2=32cd9a5636ec8a9a
	: >/tmp/ino.0
	put /tmp/ino.0 "s3://ino/$D1/f"
	put /tmp/ino.0 "s3://ino/$D2/f"
	i1=$(stat -c %i $MNT/s3/ino/$D1) i2=$(stat -c %i $MNT/s3/ino/$D2)
	[ "$i1" != "$i2" ] || hc_fail "s3/ino/$D1 and s3/ino/$D2: one inode number $i1"
	# the top bit set (a file's number is its generation, without it)
	for i in $i1 $i2; do
		awk "BEGIN { exit !($i >= 9223372036854775808) }" ||
			hc_fail "directory inode $i: top bit clear"
	done
	# readdir's d_ino (hc_readdir: nothing stat'ed) = stat's
	hc_readdir $MNT/s3/ino >/tmp/ino.ls || hc_fail "readdir s3/ino"
	grep -qx "$i1 $D1" /tmp/ino.ls && grep -qx "$i2 $D2" /tmp/ino.ls ||
		{ cat /tmp/ino.ls; hc_fail "d_ino is not st_ino ($i1, $i2)"; }
	# the whole view: every directory's own number, d_ino = st_ino for
	# every entry (and "." of each directory)
	find $MNT -type d >/tmp/ino.dirs
	n=0
	while read -r d; do
		hc_readdir "$d" >/tmp/ino.ls || hc_fail "readdir $d"
		while read -r ino name; do
			[ "$name" = .. ] && continue
			[ "$name" = . ] && p=$d || p=$d/$name
			[ "$(stat -c %i "$p")" = "$ino" ] ||
				hc_fail "$p: d_ino $ino, st_ino $(stat -c %i "$p")"
		done </tmp/ino.ls
		stat -c %i "$d"
		n=$((n + 1))
	done </tmp/ino.dirs >/tmp/ino.nums
	[ "$(sort /tmp/ino.nums | uniq -d)" = "" ] ||
		hc_fail "directories of one number: $(sort /tmp/ino.nums | uniq -d | head -n 3)"
	hc_log "$n directories, $(sort -u /tmp/ino.nums | wc -l) numbers"
	# the same numbers after a remount (the same module load)
	umount $MNT
	hcmount
	[ "$(stat -c %i $MNT/s3/ino/$D1) $(stat -c %i $MNT/s3/ino/$D2)" = "$i1 $i2" ] ||
		hc_fail "after a remount: $(stat -c %i $MNT/s3/ino/$D1) $(stat -c %i $MNT/s3/ino/$D2), was $i1 $i2"
	hc_readdir $MNT/s3/ino | grep -qx "$i1 $D1" || hc_fail "after a remount: d_ino of $D1"
	for d in $D1 $D2; do
		hcctl evict "s3://ino/$d/f" >/dev/null || hc_fail "evict s3://ino/$d/f"
	done
	rm -f /tmp/ino.0 /tmp/ino.ls /tmp/ino.dirs /tmp/ino.nums
}

# Thousands of (empty) objects in one directory: each listed once, in order.
t_many() {
	n=$MANY
	hc_jfill new "s3://many/d/k" 24 "$n" | tail -n 2
	# find lists in readdir order (ls would sort)
	find $MNT/s3/many/d -type f | sed 's#.*/##' >/tmp/many.out
	[ "$(wc -l </tmp/many.out)" -eq "$n" ] || hc_fail "listed $(wc -l </tmp/many.out) of $n"
	[ "$(sort /tmp/many.out | uniq -d | wc -l)" -eq 0 ] || hc_fail "listed twice"
	sort -c /tmp/many.out || hc_fail "not in URI order"
	[ "$(stat -c %s $MNT/s3/many/d/k0xxxxxxxxxx)" -eq 0 ] || hc_fail "an empty object's size"
	rm -f /tmp/many.out
}

# objstate URI: the object's state (staged, dirty, ready, ...) or "miss"
objstate() {
	hcctl locate --json "$1" >/tmp/loc.json 2>/dev/null
	st=$(jstr state </tmp/loc.json)
	[ -n "$st" ] && echo "$st" || jstr status </tmp/loc.json
}

# fsck: the kernel's consistency verdict on the cache (debugfs)
fsck() {
	c=/sys/kernel/debug/hypercache/check
	[ -r $c ] || return 0
	grep -q '^ok ' $c || { cat $c; hc_fail "the cache is inconsistent"; }
}

# Writes: create + write + close stores a new DIRTY object of the bytes.
t_write() {
	held=0
	for n in 0 1 $((CHUNK - 1)) $CHUNK $((CHUNK + 1)); do
		cat /tmp/src.$n >$MNT/s3/fsb/w$n || hc_fail "write w$n"
		[ "$(objstate s3://fsb/w$n)" = dirty ] || hc_fail "w$n is $(objstate s3://fsb/w$n), not dirty"
		[ "$(jnum size </tmp/loc.json)" -eq $n ] || hc_fail "w$n: size $(jnum size </tmp/loc.json)"
		same $MNT/s3/fsb/w$n /tmp/src.$n
		[ $(( $(jnum flags </tmp/loc.json) & 2 )) -ne 0 ] || hc_fail "w$n has no data CRC"
		[ "$(stat -c %i $MNT/s3/fsb/w$n)" = "$(jnum generation </tmp/loc.json)" ] ||
			hc_fail "w$n: inode is not the generation"
		for l in $(sed 's/.*"extents":\[\([^]]*\)\].*/\1/' /tmp/loc.json |
			grep -o '"length":[0-9]*' | cut -d: -f2); do
			held=$((held + l))
		done
	done
	# the stages' unused tails went back: 0 + 1 + 1 + 1 + 2 chunks
	[ $held -eq $((5 * CHUNK)) ] || hc_fail "the objects hold $held bytes, not 5 chunks"
	# a stream of unknown size (dd, 64 KiB writes), stored by fsync
	mkrand /tmp/src.dd $((2 * CHUNK + 4321))
	dd if=/tmp/src.dd of=$MNT/s3/fsb/wdd bs=65536 conv=fsync 2>/dev/null || hc_fail "dd"
	same $MNT/s3/fsb/wdd /tmp/src.dd
	# not shown before the last close; a killed writer stores nothing
	exec 3>$MNT/s3/fsb/wopen
	echo partial >&3
	[ "$(objstate s3://fsb/wopen)" = staged ] || hc_fail "wopen is $(objstate s3://fsb/wopen)"
	[ -e $MNT/s3/fsb/wopen ] && hc_fail "wopen shown before its close"
	ls $MNT/s3/fsb | grep -qx wopen && hc_fail "wopen listed before its close"
	exec 3>&-
	[ "$(cat $MNT/s3/fsb/wopen)" = partial ] || hc_fail "wopen after its close"
	sh -c "exec 3>$MNT/s3/fsb/wkilled; echo x >&3; kill -KILL \$\$" || true
	[ "$(objstate s3://fsb/wkilled)" = miss ] || hc_fail "a killed writer left $(objstate s3://fsb/wkilled)"
	[ -e $MNT/s3/fsb/wkilled ] && hc_fail "a killed writer's file shown"
	# front to back only: a pwrite elsewhere is EINVAL, the stage aborted
	hc_expect_errno -m "Invalid argument" hc_fsmap --pwrite $MNT/s3/fsb/wseek 0 100
	[ "$(objstate s3://fsb/wseek)" = miss ] || hc_fail "a failed writer left $(objstate s3://fsb/wseek)"
	# O_TRUNC over an idle READY object: a new generation replaces it
	put /tmp/src.1 "s3://fsb/wr"
	gen0=$(hcctl locate --json s3://fsb/wr | jnum generation)
	cat /tmp/src.$CHUNK >$MNT/s3/fsb/wr || hc_fail "overwrite wr"
	[ "$(objstate s3://fsb/wr)" = dirty ] || hc_fail "wr is $(objstate s3://fsb/wr)"
	[ "$(jnum generation </tmp/loc.json)" -gt "$gen0" ] || hc_fail "wr: not a new generation"
	same $MNT/s3/fsb/wr /tmp/src.$CHUNK
	# refused: over a pinned one, over one being written, appending;
	# unlink of an open one
	hcctl pin s3://fsb/sizes/f1 >/dev/null || hc_fail "pin"
	hc_expect_errno -m "busy" sh -c "echo x >$MNT/s3/fsb/sizes/f1"
	hcctl unpin s3://fsb/sizes/f1 >/dev/null || hc_fail "unpin"
	exec 5>$MNT/s3/fsb/wbusy
	hc_expect_errno -m "busy" sh -c "echo x >$MNT/s3/fsb/wbusy"
	exec 5>&-
	exec 4<$MNT/s3/fsb/sizes/f1
	hc_expect_errno -m "busy" rm $MNT/s3/fsb/sizes/f1
	exec 4<&-
	same $MNT/s3/fsb/sizes/f1 /tmp/src.1
	hc_expect_errno -m "not permitted" sh -c "echo x >>$MNT/s3/fsb/sizes/f1"
	# unlink = evict: EBUSY for DIRTY; rename, link, mkdir, truncate: EPERM
	put /tmp/src.1 "s3://fsb/wrm"
	rm $MNT/s3/fsb/wrm || hc_fail "rm of a READY object"
	[ "$(objstate s3://fsb/wrm)" = miss ] || hc_fail "rm left $(objstate s3://fsb/wrm)"
	[ -e $MNT/s3/fsb/wrm ] && hc_fail "removed, still shown"
	hc_expect_errno -m "busy" rm $MNT/s3/fsb/w1
	hc_expect_errno -m "not empty" rmdir $MNT/s3/fsb/sizes
	hc_expect_errno -m "not permitted" mv $MNT/s3/fsb/sizes/f1 $MNT/s3/fsb/sizes/f9
	hc_expect_errno -m "not permitted" ln $MNT/s3/fsb/sizes/f1 $MNT/s3/fsb/sizes/f9
	hc_expect_errno -m "not permitted" mkdir $MNT/s3/fsb/d
	hc_expect_errno -m "not permitted" truncate -s 0 $MNT/s3/fsb/sizes/f1
	hc_expect_errno -m "not permitted" sh -c "echo x >$MNT/newscheme"
	# rmdir of a directory whose last object went
	put /tmp/src.1 "s3://fsb/gone/only"
	rm $MNT/s3/fsb/gone/only || hc_fail "rm gone/only"
	rmdir $MNT/s3/fsb/gone 2>/dev/null || true
	[ -e $MNT/s3/fsb/gone ] && hc_fail "an empty directory shown"
	fsck
}

# check_superseded N: the kernel's check passes and counts N superseded
# generations (held old objects whose URI has a new one)
check_superseded() {
	c=/sys/kernel/debug/hypercache/check
	[ -r $c ] || hc_fail "no debugfs"
	grep -q "^ok .* superseded=$1\$" $c || { cat $c; hc_fail "not ok with $1 superseded"; }
}

# Writing over a file that readers hold: a new generation.  An open file, a
# mapping and a LOCATE with HOLD keep reading the old bytes; a new open
# sees the new ones; the old chunks go with the last hold.  Over a DIRTY
# file nobody holds: replaced at once, the old never written back.
t_generations() {
	old=/tmp/src.$CHUNK new=/tmp/src.$((CHUNK + 1))
	f=$MNT/s3/fsb/gen
	# the pressure wave's objects (churn/N) go first: no eviction may
	# change the free space counted below
	hcctl ls --json | grep -o '"uri":"churn/[^"]*"' | cut -d'"' -f4 >/tmp/churn
	while read -r u; do
		hc_obj evict "$u" || hc_fail "evict $u"
	done </tmp/churn
	put $old s3://fsb/gen
	gen0=$(hcctl locate --json s3://fsb/gen | jnum generation)
	ino0=$(stat -c %i $f)
	free0=$(bytes_free)
	exec 4<$f
	: >/tmp/fsmap.out
	hc_fsmap $f $old >/tmp/fsmap.out 2>&1 &
	mp=$!
	: >/tmp/hold.out
	hc_obj hold s3://fsb/gen >/tmp/hold.out 2>&1 &
	hp=$!
	trap 'kill -TERM $mp $hp 2>/dev/null' EXIT
	i=0
	until grep -q '^mapped$' /tmp/fsmap.out && grep -q '^held$' /tmp/hold.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /tmp/fsmap.out /tmp/hold.out; hc_fail "no mapping or hold"; }
		sleep 0.1
	done
	cat $new >$f || hc_fail "writing over a held file"
	[ "$(objstate s3://fsb/gen)" = dirty ] || hc_fail "gen is $(objstate s3://fsb/gen)"
	gen1=$(jnum generation </tmp/loc.json)
	[ "$gen1" -gt "$gen0" ] || hc_fail "not a new generation: $gen1 after $gen0"
	# a new open: the new bytes, the new inode
	same $f $new
	[ "$(stat -c '%i %s' $f)" = "$gen1 $((CHUNK + 1))" ] || hc_fail "new open: $(stat -c '%i %s' $f)"
	# the reader: the old bytes, from its start
	cat <&4 >/tmp/gen.read
	same /tmp/gen.read $old
	[ "$(stat -L -c %i /proc/self/fd/4)" = "$ino0" ] || hc_fail "the reader's inode changed"
	# the old chunk stays with its holders: 1 + 2 chunks used
	[ "$(bytes_free)" -eq $((free0 - 2 * CHUNK)) ] || hc_fail "free $(bytes_free), was $free0"
	check_superseded 1
	hcctl ls | grep -c 's3://fsb/gen' | grep -qx 1 || hc_fail "listed twice"
	[ "$(ls $MNT/s3/fsb | grep -cx gen)" = 1 ] || hc_fail "the view lists gen twice"
	exec 4<&-
	fsmap_unmap $mp
	kill -TERM $mp
	wait $mp || hc_fail "hc_fsmap failed"
	check_superseded 1		# the LOCATE hold is left
	# RELEASE by URI finds the superseded generation the file holds
	kill -TERM $hp
	wait $hp || { cat /tmp/hold.out; hc_fail "RELEASE of the superseded generation"; }
	trap - EXIT
	check_superseded 0
	[ "$(bytes_free)" -eq $((free0 - CHUNK)) ] || hc_fail "the old chunk did not go: free $(bytes_free)"
	# over the DIRTY gen, unheld: replaced, the old not written back
	cat $old >$f || hc_fail "writing over a DIRTY file"
	[ "$(objstate s3://fsb/gen)" = dirty ] || hc_fail "gen is $(objstate s3://fsb/gen)"
	[ "$(jnum generation </tmp/loc.json)" -gt "$gen1" ] || hc_fail "not a new generation"
	same $f $old
	[ "$(bytes_free)" -eq "$free0" ] || hc_fail "free $(bytes_free), not $free0"
	check_superseded 0
	rm -f /tmp/gen.read /tmp/fsmap.out /tmp/hold.out
}

t_perm() {
	umount $MNT
	hcmount -o uid=0,gid=1234,mode=0440
	f=$MNT/s3/fsb/sizes/f1
	hc_expect_errno -m "Permission denied" hc_runas 65534 cat $f
	umount $MNT
	hcmount -o gid=65534
	hc_runas 65534 cat $f >/tmp/perm.out || hc_fail "a member of the group cannot read"
	same /tmp/perm.out /tmp/src.1
	hc_expect_errno hc_runas 65534 sh -c "echo x >>$f"
	hc_expect_errno -m "Permission denied" hc_runas 65534 sh -c "echo x >$MNT/s3/fsb/byuser"
	[ "$(objstate s3://fsb/byuser)" = miss ] || hc_fail "a group member created s3://fsb/byuser"
	hc_runas 65534 ls $MNT/s3/fsb >/dev/null || hc_fail "the group cannot list"
	grep " $MNT " /proc/mounts | grep -q "gid=65534,mode=0440" || hc_fail "options not shown"
	hc_expect_errno mount -t hypercache -o mode=01777 hypercache /mnt/hc2
	dmesg | tail -n 3 | grep -q "mode=1777: only permission bits" || hc_fail "no reason for mode="
	rm -f /tmp/perm.out
}

# mtime = the object's commit time (a put, a write's last close), kept
# across a remount and an inode's eviction; after a reassembly the
# assembly's time (format v1 journals no time, as for the dirty age); the
# inode number is the same throughout: the generation, replayed.
t_mtime() {
	umount $MNT
	hcmount
	sleep 2			# the mount's time is not the commit's
	t0=$(date +%s)
	put /tmp/src.1 "s3://fsb/mt/put"
	t1=$(date +%s)
	# pinned: the full pool's next stage would evict it (a pin changes no time)
	hcctl pin "s3://fsb/mt/put" >/dev/null || hc_fail "pin"
	f=$MNT/s3/fsb/mt/put
	m=$(stat -c %Y $f)
	[ "$m" -ge "$t0" ] && [ "$m" -le "$t1" ] || hc_fail "$f: mtime $m, committed in $t0..$t1"
	[ "$(stat -c %Z $f)" = "$m" ] || hc_fail "$f: ctime $(stat -c %Z $f), mtime $m"
	# written through the mount: the last close's time, not the create's
	exec 6>$MNT/s3/fsb/mt/wr
	echo data >&6
	sleep 2
	t0=$(date +%s)
	exec 6>&-
	m=$(stat -c %Y $MNT/s3/fsb/mt/wr)
	[ "$m" -ge "$t0" ] || hc_fail "written: mtime $m before its close at $t0"
	ino=$(stat -c %i $f) m=$(stat -c %Y $f) mw=$(stat -c %Y $MNT/s3/fsb/mt/wr)
	umount $MNT
	hcmount
	echo 2 >/proc/sys/vm/drop_caches
	[ "$(stat -c '%i %Y' $f)" = "$ino $m" ] || hc_fail "after a remount: $(stat -c '%i %Y' $f), was $ino $m"
	[ "$(stat -c %Y $MNT/s3/fsb/mt/wr)" = "$mw" ] || hc_fail "the written file's mtime changed"
	# a reassembly: the same inode, mtime = the assembly's time
	umount $MNT
	hcctl pool stop >/dev/null || hc_fail "pool stop"
	sleep 1
	t0=$(date +%s)
	hcctl pool assemble $members >/dev/null || hc_fail "pool assemble"
	hcmount
	[ "$(stat -c %i $f)" = "$ino" ] || hc_fail "reassembled: inode $(stat -c %i $f), was $ino"
	m=$(stat -c %Y $f)
	[ "$m" -ge "$t0" ] || hc_fail "reassembled: mtime $m, assembled at $t0"
	same $f /tmp/src.1
	hcctl unpin "s3://fsb/mt/put" >/dev/null || hc_fail "unpin"
}

# hcctl mount/umount: the reasons of the refusals, --json, names for the
# owner and group, the default group, an fstab line with mount -a; names
# in fstab through mount.hypercache (busybox's mount runs it, from PATH,
# once the kernel has refused gid=NAME), and the helper called directly.
t_hcctl() {
	f=s3/fsb/sizes/f1
	hc_expect_errno -m "already mounted on $MNT" hcctl mount /mnt/hc2
	hc_expect_errno -m "not a mount of the HyperCache view" hcctl umount /tmp
	sleep 600 <$MNT/$f &
	holder=$!
	sleep 0.5
	hc_expect_errno -m "open or mapped by $holder \\(sleep\\)" hcctl umount
	grep -q " $MNT " /proc/mounts || hc_fail "unmounted while busy"
	kill $holder
	wait $holder 2>/dev/null || true
	hcctl umount --json >/tmp/um.json || hc_fail "hcctl umount"
	grep -q "\"mountpoint\":\"$MNT\"" /tmp/um.json || hc_fail "umount --json: $(cat /tmp/um.json)"
	grep -q " $MNT " /proc/mounts && hc_fail "still mounted after hcctl umount"
	hc_expect_errno -m "not mounted" hcctl umount
	# a group by name, --mode, --ro, a mount point made
	echo "hcusers:x:4242:" >>/etc/group
	rmdir /mnt/hcnew 2>/dev/null || true
	hcctl mount --json --gid hcusers --mode 0444 --ro /mnt/hcnew >/tmp/m.json || hc_fail "hcctl mount --ro"
	cat /tmp/m.json
	[ "$(jnum gid </tmp/m.json)" = 4242 ] || hc_fail "--gid hcusers: $(cat /tmp/m.json)"
	grep -q '"mode":"0444".*"read_only":true,"created":true' /tmp/m.json ||
		hc_fail "mount --json: $(cat /tmp/m.json)"
	[ "$(stat -c '%a %g' /mnt/hcnew/$f)" = "444 4242" ] || hc_fail "$(stat -c '%a %g' /mnt/hcnew/$f)"
	grep " /mnt/hcnew " /proc/mounts | grep -q "hypercache ro," || hc_fail "not ro"
	hcctl umount /mnt/hcnew >/dev/null || hc_fail "hcctl umount /mnt/hcnew"
	# without --gid: the hypercache group when it exists
	echo "hypercache:x:4343:" >>/etc/group
	hcctl mount --ingest on --ingest-timeout 7 $MNT || hc_fail "hcctl mount"
	[ "$(stat -c '%a %g' $MNT/$f)" = "440 4343" ] || hc_fail "default group: $(stat -c '%a %g' $MNT/$f)"
	grep " $MNT " /proc/mounts | grep -q "ingest=on,ingest_timeout=7" || hc_fail "ingest options not passed"
	hcctl umount $MNT >/dev/null
	sed -i '/^hcusers:/d; /^hypercache:/d' /etc/group
	hc_expect_errno -m "bad --mode" hcctl mount --mode 01777 $MNT
	hc_expect_errno -m "no such group" hcctl mount --gid nosuchgroup $MNT
	# /etc/fstab (Documentation/fs.md's line): mount -a, then by its mount point
	echo "hypercache $MNT hypercache gid=65534,mode=0440,nofail 0 0" >/etc/fstab
	mount -a -t hypercache || hc_fail "mount -a"
	grep " $MNT " /proc/mounts | grep -q "gid=65534,mode=0440" || hc_fail "fstab: $(grep " $MNT " /proc/mounts)"
	umount $MNT
	mount $MNT || hc_fail "mount $MNT from fstab"
	same $MNT/$f /tmp/src.1
	umount $MNT
	echo "hcgroup:x:4545:" >>/etc/group
	echo "hypercache $MNT hypercache gid=hcgroup,mode=0440 0 0" >/etc/fstab
	mount $MNT || hc_fail "mount $MNT from fstab with gid=hcgroup"
	[ "$(stat -c '%a %g' $MNT/$f)" = "440 4545" ] || hc_fail "fstab gid=hcgroup: $(stat -c '%a %g' $MNT/$f)"
	grep " $MNT " /proc/mounts | grep -q "gid=4545,mode=0440" || hc_fail "fstab gid=hcgroup: $(grep " $MNT " /proc/mounts)"
	same $MNT/$f /tmp/src.1
	umount $MNT
	echo "hypercache $MNT hypercache gid=nosuchgroup,mode=0440 0 0" >/etc/fstab
	hc_expect_errno -m "mount.hypercache: $MNT: bad option 'gid=nosuchgroup' \\(no such group\\)" mount $MNT
	grep -q " $MNT " /proc/mounts && hc_fail "mounted with gid=nosuchgroup"
	# as mount(8) calls it: SPEC DIR [-sfnv] [-o OPTIONS]
	mount.hypercache hypercache $MNT -v -o uid=root,gid=hcgroup,mode=0444,ro,nofail >/tmp/mh.out ||
		hc_fail "mount.hypercache"
	grep -q "mounted hypercache on $MNT (uid=0,gid=4545,mode=0444,ingest=off,ro)" /tmp/mh.out ||
		hc_fail "mount.hypercache -v: $(cat /tmp/mh.out)"
	[ "$(stat -c '%a %g' $MNT/$f)" = "444 4545" ] || hc_fail "mount.hypercache: $(stat -c '%a %g' $MNT/$f)"
	grep " $MNT " /proc/mounts | grep -q "hypercache ro," || hc_fail "mount.hypercache -o ro: not ro"
	hc_expect_errno -m "already mounted" mount.hypercache hypercache $MNT -o gid=hcgroup
	umount $MNT
	hc_expect_errno -m "bad option 'mode=0999' \\(octal permission bits" mount.hypercache hypercache $MNT -o mode=0999
	hc_expect_errno -m "bad option 'size=1G' \\(unknown option\\)" mount.hypercache hypercache $MNT -o size=1G
	mount.hypercache -s -f hypercache $MNT -o size=1G || hc_fail "mount.hypercache -s -f"
	grep -q " $MNT " /proc/mounts && hc_fail "mount.hypercache -f mounted"
	sed -i '/^hcgroup:/d' /etc/group
	mount -t hypercache -o gid=65534,mode=0440 hypercache $MNT || hc_fail "mount -t hypercache"
	rm -f /etc/fstab /tmp/m.json /tmp/um.json /tmp/mh.out
}

# The stop rule: refused while mounted, fine after umount.
t_stop() {
	hc_expect_errno -m "mounted" hcctl pool stop
	umount $MNT
	hcctl pool stop || hc_fail "stop after umount"
	hc_expect_errno mount -t hypercache hypercache $MNT
	hc_expect_errno -m "no pool is running" hcctl mount $MNT
}

# A member's write error under a file being written: the pool on dm-linear
# devices over its drives, dm-error over every member's data area once the
# file is open.  dd fails with EIO (the write that waits for the failed
# buffer, or the fsync), nothing is stored, no write is left in flight into
# the aborted stage's chunks (fsck), and the next file is stored.
t_write_error() {
	modprobe dm_mod 2>/dev/null || true
	off=$(hcctl examine --json "$(hc_drive 0)" | jnum data_offset)
	[ -n "$off" ] || hc_fail "no data_offset from hcctl examine"
	for m in 0 1 2; do
		dmsetup create fe$m --table \
			"0 $(blockdev --getsz "$(hc_drive $m)") linear $(hc_drive $m) 0" ||
			hc_fail "dmsetup create fe$m"
	done
	hcctl pool assemble /dev/mapper/fe0 /dev/mapper/fe1 /dev/mapper/fe2 >/dev/null ||
		hc_fail "assemble on dm-linear"
	hcmount
	mkrand /tmp/werr $((3 * CHUNK + 5))
	exec 3>$MNT/s3/fsb/werr
	for m in 0 1 2; do
		d=$(hc_drive $m)
		sz=$(blockdev --getsz "$d")
		dmsetup suspend fe$m
		dmsetup load fe$m --table "0 $((off / 512)) linear $d 0
$((off / 512)) $((sz - off / 512)) error"
		dmsetup resume fe$m
	done
	rc=0
	dd if=/tmp/werr bs=1M conv=fsync >&3 2>/tmp/dd.err || rc=$?
	exec 3>&-
	state=$(objstate s3://fsb/werr)
	for m in 0 1 2; do
		d=$(hc_drive $m)
		dmsetup suspend fe$m
		dmsetup load fe$m --table "0 $(blockdev --getsz "$d") linear $d 0"
		dmsetup resume fe$m
	done
	cat /tmp/dd.err
	[ $rc -ne 0 ] || hc_fail "dd through the members' write errors succeeded"
	grep -q "Input/output error" /tmp/dd.err || hc_fail "dd did not fail with EIO"
	[ "$state" = miss ] || hc_fail "the failed file left $state"
	fsck
	cat /tmp/werr >$MNT/s3/fsb/werr || hc_fail "the next file"
	same $MNT/s3/fsb/werr /tmp/werr
	umount $MNT
	hcctl pool stop >/dev/null || hc_fail "stop"
	for m in 0 1 2; do dmsetup remove fe$m; done
	rm -f /tmp/werr /tmp/dd.err
}

hc_test fs_no_pool t_no_pool
hc_test fs_create t_create
hc_test fs_files t_files
if [ "$FULL" = 1 ]; then hc_test fs_extents t_extents; fi
hc_test fs_coherent t_coherent
hc_test fs_ingest t_ingest
hc_test fs_direct t_direct
hc_test fs_fio t_fio
hc_test fs_stress t_stress
hc_test fs_mmap t_mmap
hc_test fs_hold t_hold
hc_test fs_holds_bound t_holds_bound
hc_test fs_hostile t_hostile
hc_test fs_dir_ino t_dir_ino
hc_test fs_many t_many
hc_test fs_write t_write
hc_test fs_generations t_generations
hc_test fs_perm t_perm
hc_test fs_mtime t_mtime
hc_test fs_hcctl t_hcctl
hc_test fs_stop t_stop
hc_test fs_write_error t_write_error
