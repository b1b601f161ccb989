#!/bin/sh
# Usage (guest, via /init): stage-objects.sh
#
# The object cache on a pool of three fresh 64 MiB drives (45 chunks of
# 4 MiB): put/get round trips, placement by CRC-32 of the URI, the write
# fence, eviction under pressure (held, pinned and DIRTY objects stay),
# ENOSPC, what a killed application leaves behind, the ioctl contract of
# /dev/hypercache-ctl, permissions, and LOCATE with WAIT.
. /hc/tests/lib.sh

MiB=1048576
CHUNK=$((4 * MiB))
DEV=/dev/hypercache0
CTL=/dev/hypercache-ctl
members="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

# jnum KEY: the first numeric "KEY":N in stdin
jnum() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# jstr KEY: the first string "KEY":"V" in stdin
jstr() {
	grep -o "\"$1\":\"[^\"]*\"" | head -n 1 | cut -d'"' -f4
}

# st KEY: a counter of hcctl stats --json (netlink)
st() {
	hcctl stats --json | jnum "$1"
}

# mkrand FILE BYTES
mkrand() {
	head -c "$2" /dev/urandom >"$1"
	[ "$(wc -c <"$1")" -eq "$2" ] || hc_fail "could not make $1"
}

sha() {
	sha256sum "$1" | cut -d' ' -f1
}

# status URI: hit, miss, pending (hcctl locate --json)
status() {
	hcctl locate --json "$1" | jstr status
}

# get_same URI FILE: the object reads back byte-identical to FILE
get_same() {
	rm -f /tmp/get.out
	hcctl get --no-progress -o /tmp/get.out "$1" ||
		hc_fail "get $1 failed"
	[ "$(sha /tmp/get.out)" = "$(sha "$2")" ] ||
		hc_fail "$1 does not read back as $2 ($(wc -c </tmp/get.out) bytes)"
	rm -f /tmp/get.out
}

t_create() {
	hcctl pool create $members >/dev/null
	[ "$(hcctl status --json | jnum chunks)" -eq 45 ] || hc_fail "not 45 chunks"
	[ "$(st capacity)" -eq $((45 * CHUNK)) ] || hc_fail "capacity $(st capacity)"
	[ "$(st objects)" -eq 0 ] || hc_fail "objects on a new pool"
	[ "$(st bytes_used)" -eq 0 ] || hc_fail "bytes used on a new pool"
	hc_obj stat | grep -qx "capacity $((45 * CHUNK))" || hc_fail "STAT capacity"
}

# On an empty pool a 5-chunk object is one extent starting on member
# s = crc32(URI) mod 3: chunk i on member (s + i) mod 3, at pool chunk s + i,
# and the bytes really are at that member offset.
t_layout() {
	uri=obj/layout/five
	size=$((4 * CHUNK + MiB + 123))
	[ "$(st bytes_used)" -eq 0 ] || hc_fail "the pool is not empty"
	s=$(hc_crc32 "$uri" 3)
	hc_log "crc32($uri) mod 3 = $s"
	mkrand /tmp/layout $size
	hcctl put --clean --no-progress /tmp/layout "$uri" >/dev/null
	hcctl locate --layout --json "$uri" >/tmp/loc.json
	cat /tmp/loc.json
	[ "$(jnum chunk_size </tmp/loc.json)" -eq $CHUNK ] || hc_fail "chunk_size"
	[ "$(jnum size </tmp/loc.json)" -eq $size ] || hc_fail "size"
	data_offset=$(hcctl status --json | jnum data_offset)
	tr '{' '\n' </tmp/loc.json | grep '^"chunk":' >/tmp/layout.lines
	[ "$(wc -l </tmp/layout.lines)" -eq 5 ] || hc_fail "not 5 chunks"
	i=0
	while read -r line; do
		m=$(echo "$line" | jnum member)
		moff=$(echo "$line" | jnum member_offset)
		doff=$(echo "$line" | jnum dev_offset)
		len=$(echo "$line" | jnum length)
		v=$((s + i))
		[ "$(echo "$line" | jnum chunk)" -eq $i ] || hc_fail "chunk $i: order"
		[ "$m" -eq $((v % 3)) ] || hc_fail "chunk $i on member $m, want $((v % 3))"
		[ "$doff" -eq $((v * CHUNK)) ] || hc_fail "chunk $i at device offset $doff"
		[ "$moff" -eq $((data_offset + v / 3 * CHUNK)) ] ||
			hc_fail "chunk $i at member offset $moff"
		want=$CHUNK
		[ $i -eq 4 ] && want=$((MiB + 123))
		[ "$len" -eq $want ] || hc_fail "chunk $i length $len, want $want"
		[ "$(echo "$line" | jstr device)" = "$(basename "$(readlink -f "$(hc_drive "$m")")")" ] ||
			hc_fail "chunk $i: device name"
		dd if="$(hc_drive "$m")" of=/tmp/member.chunk bs=4M skip=$((moff / CHUNK)) \
			count=1 iflag=direct 2>/dev/null
		dd if=/tmp/layout of=/tmp/file.chunk bs=4M skip=$i count=1 2>/dev/null
		head -c "$len" /tmp/member.chunk >/tmp/member.part
		cmp /tmp/file.chunk /tmp/member.part ||
			hc_fail "chunk $i is not at member $m offset $moff"
		i=$((i + 1))
	done </tmp/layout.lines
	get_same "$uri" /tmp/layout
	rm -f /tmp/layout /tmp/member.* /tmp/file.chunk /tmp/layout.lines
}

# put/get round trips around the chunk size, READY (--clean) and DIRTY
t_roundtrip() {
	for variant in clean dirty; do
		for size in 1 $((CHUNK - 1)) $CHUNK $((CHUNK + 1)) $((3 * CHUNK + 12345)); do
			uri=obj/rt/$variant/$size
			mkrand /tmp/rt $size
			if [ $variant = clean ]; then
				hcctl put --clean --no-progress --json /tmp/rt "$uri" >/tmp/put.json
				state=ready
			else
				hcctl put --no-progress --json /tmp/rt "$uri" >/tmp/put.json
				state=dirty
			fi
			[ "$(jnum size </tmp/put.json)" -eq $size ] || hc_fail "$uri: put size"
			[ "$(jstr state </tmp/put.json)" = $state ] || hc_fail "$uri: put state"
			get_same "$uri" /tmp/rt
			# and to stdout
			[ "$(hcctl get --no-progress "$uri" | sha256sum | cut -d' ' -f1)" = "$(sha /tmp/rt)" ] ||
				hc_fail "$uri: get to stdout differs"
			hcctl locate --layout --json "$uri" >/tmp/loc.json
			[ "$(jstr status </tmp/loc.json)" = hit ] || hc_fail "$uri: not a hit"
			[ "$(jstr state </tmp/loc.json)" = $state ] || hc_fail "$uri: state"
			[ "$(jnum size </tmp/loc.json)" -eq $size ] || hc_fail "$uri: size"
			chunks=$(((size + CHUNK - 1) / CHUNK))
			total=0
			for e in $(tr '{' '\n' </tmp/loc.json | grep '^"offset":' | tr -d '},]'); do
				off=$(echo "{$e" | jnum offset)
				len=$(echo "{$e" | jnum length)
				[ $((off % CHUNK)) -eq 0 ] && [ $((len % CHUNK)) -eq 0 ] ||
					hc_fail "$uri: extent $off+$len not chunk-aligned"
				total=$((total + len))
			done
			[ $total -eq $((chunks * CHUNK)) ] ||
				hc_fail "$uri: extents cover $total bytes, want $((chunks * CHUNK))"
			[ "$(grep -o '"member":' /tmp/loc.json | wc -l)" -eq $chunks ] ||
				hc_fail "$uri: layout is not $chunks chunks"
			if [ $chunks -ge 3 ]; then
				for m in 0 1 2; do
					grep -q "\"member\":$m," /tmp/loc.json ||
						hc_fail "$uri: no chunk on member $m"
				done
			fi
		done
	done
	# the same URI again: EEXIST without --replace
	hc_expect_errno -m "already cached.*File exists" \
		hcctl put --clean --no-progress /tmp/rt obj/rt/clean/1
	rm -f /tmp/rt /tmp/put.json /tmp/loc.json
}

# The write fence: the stager may write inside its staged extent; another
# process may not (stage-fence.sh tests the owner further), nor into a
# committed object (nor across the end of the stage).
t_fence() {
	mkrand /tmp/victim $CHUNK
	hcctl put --clean --no-progress /tmp/victim obj/fence/victim >/dev/null
	voff=$(hcctl locate --json obj/fence/victim | jnum offset)
	dd if=/dev/urandom of=/tmp/blk bs=4k count=1 2>/dev/null
	hc_stage_hold --fill /tmp/blk obj/fence/staged $((2 * CHUNK))
	cat /tmp/stage.out
	soff=$(sed -n 1p /tmp/stage.out | cut -d' ' -f1)
	slen=$(sed -n 1p /tmp/stage.out | cut -d' ' -f2)
	[ "$slen" -eq $((2 * CHUNK)) ] || hc_fail "staged extent $slen"
	dd if=$DEV of=/tmp/blk.back bs=4k skip=$((soff / 4096)) count=1 \
		iflag=direct 2>/dev/null
	cmp /tmp/blk /tmp/blk.back || hc_fail "the stager's write inside the stage did not land"
	hc_expect_errno -m "I/O error|Input/output error" \
		dd if=/tmp/blk of=$DEV bs=4k seek=$((soff / 4096 + 1029)) count=1 \
		oflag=direct conv=notrunc
	hc_expect_errno -m "I/O error|Input/output error" \
		dd if=/tmp/blk of=$DEV bs=4k seek=$((voff / 4096 + 7)) count=1 \
		oflag=direct conv=notrunc
	hc_expect_errno -m "I/O error|Input/output error" \
		dd if=/dev/zero of=$DEV bs=4M seek=$((voff / CHUNK)) count=1 \
		oflag=direct conv=notrunc
	# 8 KiB from the last 4 KiB of the stage: the second half is outside
	hc_expect_errno -m "I/O error|Input/output error" \
		dd if=/dev/zero of=$DEV bs=8k count=1 oflag=seek_bytes,direct \
		seek=$((soff + slen - 4096)) conv=notrunc
	hc_stage_release
	# aborted: the fence has closed over it again
	hc_expect_errno dd if=/tmp/blk of=$DEV bs=4k seek=$((soff / 4096)) count=1 \
		oflag=direct conv=notrunc
	get_same obj/fence/victim /tmp/victim
	dd if=$DEV of=/tmp/raw bs=4M skip=$((voff / CHUNK)) count=1 iflag=direct 2>/dev/null
	cmp /tmp/raw /tmp/victim || hc_fail "the victim's chunk changed on the device"
	rm -f /tmp/victim /tmp/blk /tmp/blk.back /tmp/raw
}

# A stager killed with SIGKILL leaks nothing.
t_crash_stage() {
	used=$(st bytes_used)
	objects=$(st objects)
	: >/tmp/crash.out
	hc_stage obj/crash/staged $((3 * CHUNK)) >/tmp/crash.out 2>&1 &
	pid=$!
	i=0
	until grep -q '^ready$' /tmp/crash.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || hc_fail "hc_stage did not get ready"
		sleep 0.1
	done
	[ "$(st staged)" -eq 1 ] || hc_fail "not one staged object"
	[ "$(st bytes_used)" -eq $((used + 3 * CHUNK)) ] || hc_fail "stage took no space"
	[ "$(status obj/crash/staged)" = pending ] || hc_fail "a stage is not pending"
	kill -KILL $pid
	wait $pid 2>/dev/null || true
	[ "$(st staged)" -eq 0 ] || hc_fail "a staged object survived its stager"
	[ "$(st bytes_used)" -eq "$used" ] || hc_fail "space leaked: $(st bytes_used) != $used"
	[ "$(st objects)" -eq "$objects" ] || hc_fail "objects $(st objects) != $objects"
	[ "$(status obj/crash/staged)" = miss ] || hc_fail "the killed stage is not a miss"
	soff=$(sed -n 1p /tmp/crash.out | cut -d' ' -f1)
	hc_expect_errno dd if=/dev/zero of=$DEV bs=4k seek=$((soff / 4096)) count=1 \
		oflag=direct conv=notrunc
	rm -f /tmp/crash.out
}

# A holder killed with SIGKILL drops its hold.
t_crash_hold() {
	mkrand /tmp/held 4096
	hcctl put --clean --no-progress /tmp/held obj/crash/held >/dev/null
	held=$(st held)
	: >/tmp/hold.out
	hc_obj hold obj/crash/held >/tmp/hold.out 2>&1 &
	pid=$!
	i=0
	until grep -q '^held$' /tmp/hold.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /tmp/hold.out; hc_fail "hc_obj hold did not get ready"; }
		sleep 0.1
	done
	[ "$(st held)" -eq $((held + 1)) ] || hc_fail "held count did not rise"
	hcctl ls --json | grep -o '"uri":"obj/crash/held"[^}]*' | grep -q '"holds":1' ||
		hc_fail "ls does not show the hold"
	hc_expect_errno -m "busy" hcctl evict obj/crash/held
	kill -KILL $pid
	wait $pid 2>/dev/null || true
	[ "$(st held)" -eq "$held" ] || hc_fail "held count $(st held) after the holder died"
	[ "$(st held)" -eq 0 ] || hc_fail "held count not back to 0"
	hcctl evict obj/crash/held
	[ "$(status obj/crash/held)" = miss ] || hc_fail "evicted object still there"
	rm -f /tmp/held /tmp/hold.out
}

# LOCATE with HC_LOCATE_F_WAIT on an object another process stages.
# waiting FILE: until hc_obj wait has said "waiting" in FILE (<= 60 s)
waiting() {
	_w=0
	while ! grep -q '^waiting$' "$1" 2>/dev/null; do
		_w=$((_w + 1))
		[ $_w -lt 600 ] || hc_fail "hc_obj wait did not start in 60 s"
		sleep 0.1
	done
}

t_wait() {
	out=$(hc_obj wait 300 obj/wait/none) || hc_fail "WAIT on a miss failed: $out"
	echo "$out" | grep -q '^status=miss ' || hc_fail "WAIT on a miss: $out"

	hc_stage_hold --clean obj/wait/x $CHUNK
	[ "$(status obj/wait/x)" = pending ] || hc_fail "staged object not pending"
	hc_expect_errno -m "not yet valid" hcctl get --no-ingest --no-progress -o /tmp/w obj/wait/x
	if out=$(hc_obj wait 300 obj/wait/x); then
		hc_fail "WAIT 300 ms on a staged object succeeded: $out"
	fi
	echo "$out"
	echo "$out" | grep -q '^error=ETIMEDOUT ' || hc_fail "not ETIMEDOUT: $out"
	ms=${out##*elapsed_ms=}
	[ "$ms" -ge 300 ] || hc_fail "ETIMEDOUT after $ms ms, before 300 ms"
	[ "$ms" -lt 3000 ] || hc_fail "ETIMEDOUT only after $ms ms"

	: >/tmp/wait.out
	hc_obj wait 20000 obj/wait/x >/tmp/wait.out 2>&1 &
	wpid=$!
	# its clock runs once it says "waiting" (a loaded host may take long
	# to start it): 0.5 s after that it must still be waiting
	waiting /tmp/wait.out
	sleep 0.5
	kill -0 $wpid 2>/dev/null || { cat /tmp/wait.out; hc_fail "the waiter did not wait"; }
	hc_stage_release	# commits (READY)
	rc=0
	wait $wpid || rc=$?
	cat /tmp/wait.out
	[ $rc -eq 0 ] || hc_fail "the waiter failed"
	grep -q '^status=hit ' /tmp/wait.out || hc_fail "the waiter did not get a hit"
	ms=$(sed -n 's/.*elapsed_ms=//p' /tmp/wait.out)
	[ "$ms" -ge 400 ] || hc_fail "the waiter returned after $ms ms, before the commit"
	[ "$(hcctl locate --json obj/wait/x | jstr state)" = ready ] || hc_fail "not READY"

	# a stage that is aborted wakes the waiter with a miss
	hc_stage_hold obj/wait/y $CHUNK
	: >/tmp/wait.out
	hc_obj wait 20000 obj/wait/y >/tmp/wait.out 2>&1 &
	wpid=$!
	waiting /tmp/wait.out
	sleep 0.3
	hc_stage_release	# aborts
	rc=0
	wait $wpid || rc=$?
	cat /tmp/wait.out
	[ $rc -eq 0 ] && grep -q '^status=miss ' /tmp/wait.out ||
		hc_fail "the waiter on an aborted stage did not get a miss"
	hcctl evict obj/wait/x
	rm -f /tmp/wait.out
}

t_ioctl_abi() {
	hc_ioctl_abi --ctl
	hc_ioctl_abi_grown --ctl
	[ "$(st staged)" -eq 0 ] || hc_fail "the ABI checks left a stage"
	[ "$(st held)" -eq 0 ] || hc_fail "the ABI checks left a hold"
	[ "$(status abi/obj)" = miss ] || hc_fail "the ABI checks left abi/obj"
}

# An unprivileged user may LOCATE and STAT, not PIN, UNPIN or EVICT.
t_perm() {
	mkrand /tmp/perm 4096
	hcctl put --clean --no-progress /tmp/perm obj/perm/x >/dev/null
	mode=$(stat -c %a $CTL)
	trap "chmod $mode $CTL" EXIT
	chmod 666 $CTL
	for op in pin unpin evict; do
		hc_expect_errno -m "$op: obj/perm/x: Operation not permitted" \
			hc_runas 65534 hc_obj $op obj/perm/x
		hc_expect_errno -m "Operation not permitted" \
			hc_runas 65534 hcctl $op obj/perm/x
	done
	hc_runas 65534 hcctl locate --json obj/perm/x | grep -q '"status":"hit"' ||
		hc_fail "an unprivileged LOCATE failed"
	hc_runas 65534 hc_obj --ro locate obj/perm/x | grep -q '^status=hit ' ||
		hc_fail "an unprivileged read-only LOCATE failed"
	hc_runas 65534 hc_obj --ro stat | grep -q '^objects [1-9]' ||
		hc_fail "an unprivileged STAT failed"
	# Who may see what: netlink reads follow the control device's rule.
	# Not without a descriptor of it, nor with a descriptor of another file
	uri=6f626a2f7065726d2f78	# obj/perm/x
	hc_expect_errno -m "not permitted" hc_runas 65534 hc_nlpoke send 6 hex:2=$uri
	hc_expect_errno -m "not permitted" hc_runas 65534 hc_nlpoke send 9 u32:21=0
	hc_expect_errno -m "not permitted" hc_runas 65534 hc_nlpoke send 6 hex:2=$uri u32:11=0
	# nor when the device is not the user's (0660, root's group)
	chmod 660 $CTL
	hc_expect_errno -m "Operation not permitted" hc_runas 65534 hcctl ls
	hc_expect_errno -m "Operation not permitted" hc_runas 65534 hcctl stats
	hc_expect_errno -m "Permission denied" hc_runas 65534 hc_obj --ro stat
	# the device's group may, through the ioctls and netlink alike
	chgrp 65534 $CTL
	hc_runas 65534 hcctl ls --json | grep -q '"uri":"obj/perm/x"' ||
		hc_fail "the control device's group cannot list"
	hc_runas 65534 hcctl stats --json | grep -q '"objects":' ||
		hc_fail "the control device's group cannot read the counters"
	hc_runas 65534 hc_obj --ro stat | grep -q '^objects [1-9]' ||
		hc_fail "the control device's group cannot STAT"
	chgrp 0 $CTL
	chmod 666 $CTL
	hc_runas 65534 hcctl stats --json | grep -q '"objects":' ||
		hc_fail "unprivileged hcctl stats failed"
	hc_runas 65534 hcctl ls --json | grep -q '"uri":"obj/perm/x"' ||
		hc_fail "unprivileged hcctl ls failed"
	# nothing changed; root may pin and unpin
	[ "$(status obj/perm/x)" = hit ] || hc_fail "the object went away"
	hcctl locate --json obj/perm/x | grep -q '"pinned":false' || hc_fail "pinned"
	hcctl pin obj/perm/x
	hcctl locate --json obj/perm/x | grep -q '"pinned":true' || hc_fail "not pinned"
	hc_expect_errno -m "Operation not permitted" hc_runas 65534 hc_obj unpin obj/perm/x
	hc_expect_errno -m "busy" hcctl evict obj/perm/x
	hc_obj unpin obj/perm/x
	hc_obj evict obj/perm/x
	[ "$(status obj/perm/x)" = miss ] || hc_fail "root could not evict"
	chmod "$mode" $CTL
	[ "$(stat -c %a $CTL)" = "$mode" ] || hc_fail "mode not restored"
	rm -f /tmp/perm
}

# Fill the pool with --clean objects until admission must evict: the
# held, pinned and DIRTY objects stay whatever is put after them.
t_evict_pressure() {
	cap=$(st capacity)
	mkrand /tmp/ev.held 4096
	mkrand /tmp/ev.pinned $((CHUNK + 1))
	mkrand /tmp/ev.dirty 12345
	hcctl put --clean --no-progress /tmp/ev.held obj/ev/held >/dev/null
	hcctl put --clean --no-progress /tmp/ev.pinned obj/ev/pinned >/dev/null
	hcctl pin obj/ev/pinned
	hcctl put --no-progress /tmp/ev.dirty obj/ev/dirty >/dev/null
	: >/tmp/ev.hold
	hc_obj hold obj/ev/held >/tmp/ev.hold 2>&1 &
	echo $! >/tmp/ev.hold.pid
	i=0
	until grep -q '^held$' /tmp/ev.hold; do
		i=$((i + 1))
		[ $i -lt 100 ] || hc_fail "hc_obj hold did not get ready"
		sleep 0.1
	done
	ev0=$(st evictions)
	mkrand /tmp/ev.small 4096
	mkrand /tmp/ev.big $((CHUNK + 1))
	n=$((cap / CHUNK + 20))
	i=0
	while [ $i -lt $n ]; do
		f=/tmp/ev.small
		[ $((i % 6)) -eq 5 ] && f=/tmp/ev.big
		hcctl put --clean --no-progress $f obj/ev/fill/$i >/dev/null ||
			hc_fail "put $i failed"
		# the later objects are hot (LOCATE hits; hcctl locate peeks and
		# would not count): the policy keeps them over the cold
		# early ones
		if [ $i -ge $((n / 2)) ]; then
			hc_obj locate obj/ev/fill/$i >/dev/null
			hc_obj locate obj/ev/fill/$i >/dev/null
		fi
		used=$(hc_obj stat | sed -n 's/^bytes_used //p')
		[ "$used" -le "$cap" ] || hc_fail "bytes used $used above capacity $cap after put $i"
		i=$((i + 1))
	done
	hcctl stats
	ev=$(st evictions)
	[ "$ev" -gt "$ev0" ] || hc_fail "nothing was evicted"
	get_same obj/ev/held /tmp/ev.held
	get_same obj/ev/pinned /tmp/ev.pinned
	get_same obj/ev/dirty /tmp/ev.dirty
	[ "$(hcctl locate --json obj/ev/dirty | jstr state)" = dirty ] || hc_fail "not DIRTY"
	gone=0 early=0
	i=0
	while [ $i -lt $n ]; do
		if [ "$(status obj/ev/fill/$i)" = miss ]; then
			gone=$((gone + 1))
			[ $i -lt 10 ] && early=$((early + 1))
		fi
		i=$((i + 1))
	done
	hc_log "evictions $ev0 -> $ev, $gone of $n fill objects gone, $early of the first 10"
	[ $gone -gt 0 ] || hc_fail "no fill object was evicted"
	[ $early -gt 0 ] || hc_fail "none of the early, cold fill objects was evicted"
	[ "$(st objects)" -eq "$(hcctl ls --json | grep -o '"uri":' | wc -l)" ] ||
		hc_fail "stats objects differ from ls"
	rm -f /tmp/ev.small /tmp/ev.big
}

# When only unevictable objects remain, a put fails with ENOSPC and leaves
# nothing staged.  (Continues from t_evict_pressure.)
t_enospc() {
	cap=$(st capacity)
	# chunks of unevictable objects: DIRTY, pinned or held
	hcctl ls --json | tr '{' '\n' | grep '"uri":' >/tmp/ls.lines
	unev=0
	while read -r line; do
		case "$line" in
		*'"state":"dirty"'* | *'"pinned":true'* | *'"holds":'[1-9]*)
			unev=$((unev + $(echo "$line" | jnum chunks))) ;;
		esac
	done </tmp/ls.lines
	rest=$((cap / CHUNK - unev))
	hc_log "$unev unevictable chunks; staging the other $rest"
	[ $rest -gt 0 ] || hc_fail "no evictable room left at all"
	# admission evicts every evictable object for it; committed DIRTY
	hc_stage_hold --commit obj/ev/rest $((rest * CHUNK))
	hc_stage_release
	[ "$(status obj/ev/rest)" = hit ] || hc_fail "the filler did not commit"
	[ "$(st bytes_used)" -eq "$cap" ] || hc_fail "the pool is not full"
	objects=$(st objects)
	ev=$(st evictions)
	mkrand /tmp/one 1
	for clean in --clean ""; do
		hc_expect_errno -m "No space left on device" \
			hcctl put $clean --no-progress /tmp/one obj/ev/nospace
		[ "$(st staged)" -eq 0 ] || hc_fail "a refused put left a stage"
		[ "$(st bytes_used)" -eq "$cap" ] || hc_fail "bytes used changed"
		[ "$(st objects)" -eq "$objects" ] || hc_fail "objects changed"
		[ "$(st evictions)" -eq "$ev" ] || hc_fail "something was evicted"
		[ "$(status obj/ev/nospace)" = miss ] || hc_fail "the refused object exists"
	done
	get_same obj/ev/held /tmp/ev.held
	get_same obj/ev/pinned /tmp/ev.pinned
	get_same obj/ev/dirty /tmp/ev.dirty
	# let go of the held and the pinned one: a put fits again, by evicting
	kill "$(cat /tmp/ev.hold.pid)"
	wait "$(cat /tmp/ev.hold.pid)" 2>/dev/null || true
	[ "$(st held)" -eq 0 ] || hc_fail "hold not released"
	hcctl unpin obj/ev/pinned
	hcctl put --clean --no-progress /tmp/one obj/ev/nospace >/dev/null
	[ "$(st evictions)" -gt "$ev" ] || hc_fail "the put evicted nothing"
	get_same obj/ev/nospace /tmp/one
	get_same obj/ev/dirty /tmp/ev.dirty
	rm -f /tmp/one /tmp/ev.* /tmp/ls.lines
}

# Objects of 0 bytes have no chunk: they take no room, so they neither
# evict nor get evicted for room, nor make the cache "full" (ENOSPC).
# On a fresh pool.
t_zero_size() {
	hcctl pool stop
	hcctl pool create --force $members >/dev/null
	n=$(($(st capacity) / CHUNK + 7))
	out=$(hc_obj stage-zero obj/zero/clean/ $n --clean) ||
		hc_fail "STAGE/COMMIT of 0-byte objects failed: $out"
	[ "$(st bytes_used)" -eq 0 ] || hc_fail "0-byte objects use $(st bytes_used) bytes"
	[ "$(st evictions)" -eq 0 ] ||
		hc_fail "$n 0-byte objects evicted $(st evictions) of each other (no chunk is used)"
	[ "$(st objects)" -eq $n ] || hc_fail "$(st objects) of $n 0-byte objects indexed"
	out=$(hc_obj stage-zero obj/zero/dirty/ $n) ||
		hc_fail "0-byte DIRTY objects refused on an empty pool ($out, bytes used $(st bytes_used))"
	mkrand /tmp/one 1
	hcctl put --clean --no-progress /tmp/one obj/zero/one >/dev/null ||
		hc_fail "no room for 1 chunk with $(st bytes_used) bytes used"
	rm -f /tmp/one
}

# The index is a resizable hash table (rhltable): it grows with the objects
# and shrinks when they go (debugfs's index_buckets), and a dump (hcctl ls:
# an OBJ_GET netlink dump of many messages, the pool lock taken again for
# each) taken while objects are added or evicted and the table resizes
# lists every object that existed throughout exactly once (the dump's
# cursor is a URI in the ordered view, not a place in the table).  0-byte
# objects, on a fresh pool whose journal half (8 MiB) holds them all.
ix_buckets() {
	grep -o 'index_buckets=[0-9]*' /sys/kernel/debug/hypercache/check | cut -d= -f2
}

# ix_settle: index_buckets once the kernel's resize worker is done (the
# same figure twice, 0.2 s apart, up to 5 s)
ix_settle() {
	a=$(ix_buckets) i=0
	while [ $i -lt 25 ]; do
		sleep 0.2
		b=$(ix_buckets)
		[ "$a" = "$b" ] && break
		a=$b i=$((i + 1))
	done
	echo "$a"
}

# ix_dumps PID: hcctl ls while PID runs; every obj/ix/a/ object listed
# once in each, no URI twice; sets dumps to the number of dumps taken
ix_dumps() {
	dumps=0
	while kill -0 "$1" 2>/dev/null; do
		hcctl ls --json | tr '{' '\n' | grep -o '"uri":"[^"]*"' >/tmp/ix.ls ||
			hc_fail "hcctl ls failed"
		n=$(grep -c '"uri":"obj/ix/a/' /tmp/ix.ls)
		[ "$n" -eq 300 ] || hc_fail "a dump during a resize listed $n of the 300 objects that stayed"
		dup=$(sort /tmp/ix.ls | uniq -d | head -n 3)
		[ -z "$dup" ] || hc_fail "a dump during a resize listed twice: $dup"
		dumps=$((dumps + 1))
		sleep 0.1	# leave the CPU to the writer
	done
}

t_index_resize() {
	c=/sys/kernel/debug/hypercache/check
	[ -d /sys/kernel/debug/hypercache ] ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -r $c ] || hc_fail "no debugfs"
	hcctl pool stop
	hcctl pool create --force --data-offset 16M $members >/dev/null
	b0=$(ix_buckets)
	[ -n "$b0" ] || { cat $c; hc_fail "no index_buckets in $c"; }
	out=$(hc_obj stage-zero obj/ix/a/ 300 --clean) ||
		hc_fail "STAGE/COMMIT of 300 0-byte objects failed: $out"
	: >/tmp/ix.out
	hc_obj stage-zero obj/ix/b/ 500 --clean >/tmp/ix.out 2>&1 &
	pid=$!
	ix_dumps $pid
	wait $pid || hc_fail "STAGE/COMMIT of 500 more failed: $(cat /tmp/ix.out)"
	[ "$dumps" -ge 2 ] || hc_fail "only $dumps dumps while the objects were added"
	grep -q '^ok objects=800 ' $c || { cat $c; hc_fail "check after the growth"; }
	b1=$(ix_settle)
	[ "$b1" -gt "$b0" ] && [ "$b1" -ge 800 ] ||
		hc_fail "the table did not grow with the objects: $b0 buckets, $b1 for 800 objects"
	echo "index: $b0 buckets empty, $b1 for 800 objects ($dumps dumps while growing)"
	: >/tmp/ix.out
	hcctl evict --prefix obj/ix/b/ --yes >/tmp/ix.out 2>&1 &
	pid=$!
	ix_dumps $pid
	wait $pid || hc_fail "evict --prefix failed: $(cat /tmp/ix.out)"
	grep -q '^ok objects=300 ' $c || { cat $c; hc_fail "check after the evictions"; }
	b2=$(ix_settle)
	[ "$b2" -lt "$b1" ] ||
		hc_fail "the table did not shrink: $b1 buckets for 800 objects, $b2 for 300"
	echo "index: $b2 buckets for 300 objects ($dumps dumps while shrinking)"
	rm -f /tmp/ix.ls /tmp/ix.out
}

# The index keys on the URI's 64-bit keyed hash, one object a key: two
# URIs of one key come by chance once in 2^64 / n inserts, and the second
# is refused with ENOMEM, named in the kernel log.  The test hook
# index_key_bits=1 gives a pool created meanwhile 1-bit keys, so that of
# four URIs at least two collide: each refused put fails with ENOMEM and
# leaves nothing (a lookup of its URI does not answer with the object of
# its key), the others read back intact, the cache stays consistent, and
# an assembly (full keys again) brings back exactly the objects put.
t_key_collision() {
	p=/sys/module/hypercache/parameters/index_key_bits
	hcctl pool stop
	trap 'echo 0 >$p' EXIT
	echo 1 >$p
	hcctl pool create --force --data-offset 16M $members >/dev/null ||
		hc_fail "pool create with 1-bit keys failed"
	echo 0 >$p
	trap - EXIT
	n=$(dmesg | wc -l)
	mkrand /tmp/kc 8192
	put_ok="" refused=""
	for u in obj/kc/a obj/kc/b obj/kc/c obj/kc/d; do
		if hcctl put --clean --no-progress /tmp/kc "$u" >/tmp/kc.out 2>&1; then
			put_ok="$put_ok $u"
			continue
		fi
		grep -q "Cannot allocate memory" /tmp/kc.out ||
			hc_fail "put $u failed, not with ENOMEM: $(cat /tmp/kc.out)"
		dmesg | tail -n +$((n + 1)) | grep -q "object '$u': another URI of the index has its 64-bit key" ||
			hc_fail "the refusal of $u is not in the kernel log: $(dmesg | tail -n 5)"
		refused="$refused $u"
	done
	set -- $put_ok
	[ $# -ge 1 ] && [ $# -le 2 ] && [ -n "$refused" ] ||
		hc_fail "four URIs on two keys: put$put_ok, refused$refused"
	[ "$(st objects)" -eq $# ] || hc_fail "$(st objects) objects, $# put"
	for u in $put_ok; do get_same "$u" /tmp/kc; done
	for u in $refused; do
		[ "$(status "$u")" = miss ] || hc_fail "$u, refused, is $(status "$u")"
	done
	hc_check_cache "with 1-bit keys"
	hcctl pool stop >/dev/null
	hcctl pool assemble $members >/dev/null || hc_fail "assemble failed"
	[ "$(st objects)" -eq $# ] || hc_fail "$(st objects) objects after the assembly, $# put"
	for u in $put_ok; do get_same "$u" /tmp/kc; done
	hc_check_cache "after the assembly"
	echo "1-bit keys: put$put_ok; refused$refused"
	rm -f /tmp/kc /tmp/kc.out
}

# A dump scoped to a prefix (HC_A_OBJ_PREFIX): the kernel sends the
# objects whose URI starts with it, in URI order, and nothing else: one
# under a prefix that is also an object's whole URI, none for a prefix
# nothing starts with, 600 of 1000 across many dump messages (the cursor
# resumes and the prefix still ends the walk), and a prefix longer than
# any URI (HC_URI_MAX + 1 bytes) refused.  hcctl ls PREFIX gives the same.
t_ls_prefix() {
	hcctl pool stop
	hcctl pool create --force --data-offset 16M $members >/dev/null
	# hc_obj stage-zero names them PREFIX00000000, PREFIX00000001, ...
	hc_obj stage-zero obj/lp/a/ 3 --clean >/dev/null || hc_fail "stage obj/lp/a/"
	for u in obj/lp/ab obj/lp/b/ obj/lq obj/lo; do
		hc_obj stage-zero "$u" 1 --clean >/dev/null || hc_fail "stage $u"
	done
	hc_obj stage-zero obj/lp/m/ 600 --clean >/dev/null || hc_fail "600 objects"
	hc_obj stage-zero obj/lr/ 393 --clean >/dev/null || hc_fail "393 objects"
	hc_nlpoke dump-objects obj/lp/a/ >/tmp/lp.out || hc_fail "dump: $(cat /tmp/lp.out)"
	printf '%s\n' obj/lp/a/00000000 obj/lp/a/00000001 obj/lp/a/00000002 "objects 3" ok |
		cmp -s - /tmp/lp.out ||
		hc_fail "dump of obj/lp/a/: $(cat /tmp/lp.out)"
	hc_nlpoke dump-objects obj/lp/a >/tmp/lp.out || hc_fail "dump: $(cat /tmp/lp.out)"
	printf '%s\n' obj/lp/a/00000000 obj/lp/a/00000001 obj/lp/a/00000002 obj/lp/ab00000000 \
		"objects 4" ok | cmp -s - /tmp/lp.out ||
		hc_fail "dump of obj/lp/a: $(cat /tmp/lp.out)"
	hc_nlpoke dump-objects obj/lq00000000 >/tmp/lp.out || hc_fail "dump: $(cat /tmp/lp.out)"
	printf '%s\n' obj/lq00000000 "objects 1" ok | cmp -s - /tmp/lp.out ||
		hc_fail "dump of obj/lq00000000, an object's whole URI: $(cat /tmp/lp.out)"
	hc_nlpoke dump-objects obj/lz >/tmp/lp.out || hc_fail "dump: $(cat /tmp/lp.out)"
	printf '%s\n' "objects 0" ok | cmp -s - /tmp/lp.out ||
		hc_fail "dump of obj/lz: $(cat /tmp/lp.out)"
	hc_nlpoke dump-objects obj/lp/m/ >/tmp/lp.out || hc_fail "dump: $(cat /tmp/lp.out)"
	grep -qx "objects 600" /tmp/lp.out || hc_fail "dump of obj/lp/m/: $(tail -n 2 /tmp/lp.out)"
	grep '^obj/' /tmp/lp.out >/tmp/lp.uris
	[ "$(grep -c '^obj/lp/m/' /tmp/lp.uris)" -eq 600 ] &&
		[ "$(sort -u /tmp/lp.uris | wc -l)" -eq 600 ] &&
		LC_ALL=C sort /tmp/lp.uris | cmp -s - /tmp/lp.uris ||
		hc_fail "dump of obj/lp/m/: not the 600 objects once each in URI order"
	hc_nlpoke dump-objects >/tmp/lp.out || hc_fail "dump: $(cat /tmp/lp.out)"
	grep -qx "objects 1000" /tmp/lp.out || hc_fail "unscoped dump: $(tail -n 2 /tmp/lp.out)"
	hc_expect_errno hc_nlpoke dump-objects "$(head -c 1025 /dev/zero | tr '\0' x)"
	[ "$(hcctl ls --json obj/lp/a | tr '{' '\n' | grep -c '"uri"')" -eq 4 ] ||
		hc_fail "hcctl ls obj/lp/a: $(hcctl ls obj/lp/a)"
	hc_check_cache "after the dumps"
	rm -f /tmp/lp.out /tmp/lp.uris
}

hc_test obj-create t_create
hc_test obj-layout t_layout
hc_test obj-roundtrip t_roundtrip
hc_test obj-fence t_fence
hc_test obj-crash-stage t_crash_stage
hc_test obj-crash-hold t_crash_hold
hc_test obj-wait t_wait
hc_test obj-ioctl-abi t_ioctl_abi
hc_test obj-perm t_perm
hc_test obj-evict-pressure t_evict_pressure
hc_test obj-enospc t_enospc
hc_test obj-zero-size t_zero_size
hc_test obj-index-resize t_index_resize
hc_test obj-key-collision t_key_collision
hc_test obj-ls-prefix t_ls_prefix
