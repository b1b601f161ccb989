#!/bin/sh
# Usage (guest, via /init): stage-preload.sh   (3 fresh drives of 128 MiB)
#
# hcctl preload / preload-batch with the real daemon and a posix backend
# (/tmp/store).  Twelve shards ds/shard_000..011 of distinct content:
# preload-batch --sharded as node 0 then node 1 of 2 (one pool standing in
# for both nodes) caches 6 each, disjoint, all 12 together, each ingested
# once; an unsharded run then finds all 12 cached.  preload of three URIs,
# one missing, exits 1 naming it and caches the other two byte-identical.
. /hc/tests/lib.sh

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
PFX=hypercache://store/ds/shard_

write_conf() {
	mkdir -p /tmp/store/ds /tmp/store/p
	cat >/tmp/hc.conf <<-EOT
	[hypercached]
	log_level = debug

	[backend store]
	type = posix
	root = /tmp/store
	EOT
}

# start_daemon: as in stage-hypercached.sh
start_daemon() {
	rm -f /tmp/hcd.pid /tmp/hcd.rc
	(
		: >/tmp/hcd.out
		hypercached -c /tmp/hc.conf >/tmp/hcd.out 2>&1 &
		echo $! >/tmp/hcd.pid
		rc=0
		wait $! || rc=$?
		echo $rc >/tmp/hcd.rc
	) &
	i=0
	while [ ! -s /tmp/hcd.pid ]; do sleep 0.05; done
	while ! grep -q registered /tmp/hcd.out; do
		i=$((i + 1))
		kill -0 "$(cat /tmp/hcd.pid)" 2>/dev/null ||
			{ cat /tmp/hcd.out; hc_fail "hypercached exited"; }
		[ $i -lt 50 ] || { cat /tmp/hcd.out; hc_fail "hypercached did not register"; }
		sleep 0.1
	done
}

# cached_shards: the cached URIs under $PFX, sorted, one per line
cached_shards() {
	hcctl ls --json | grep -o '"uri":"[^"]*"' | sed 's/^"uri":"//; s/"$//' |
		grep "^$PFX" | sort
}

# json_field FILE NAME: the number NAME of the JSON object in FILE
json_field() {
	grep -o "\"$2\":[0-9]*" "$1" | head -n 1 | cut -d: -f2
}

# expect_counts FILE OBJECTS HITS INGESTED FAILED
expect_counts() {
	cat "$1"
	for kv in objects=$2 hits=$3 ingested=$4 failed=$5; do
		k=${kv%=*}
		v=$(json_field "$1" "$k")
		[ "$v" = "${kv#*=}" ] || hc_fail "$1: $k is '$v', not ${kv#*=}"
	done
}

t_setup() {
	hcctl pool create $M >/dev/null
	write_conf
	start_daemon
	i=0
	while [ $i -lt 12 ]; do
		n=$(printf %03d $i)
		hc_pattern $((100 + i)) $((200000 + i * 70001)) >/tmp/store/ds/shard_$n
		i=$((i + 1))
	done
	# not under the prefix: never listed
	hc_pattern 1 1000 >/tmp/store/ds/other.bin
	mkdir -p /tmp/store/ds/sub
	hc_pattern 2 1000 >/tmp/store/ds/sub/shard_x
	# the listing, without preloading anything
	hcctl preload-batch --config /tmp/hc.conf --prefix $PFX --list >/tmp/list
	[ "$(wc -l </tmp/list)" -eq 12 ] || { cat /tmp/list; hc_fail "listed $(wc -l </tmp/list), not 12"; }
	[ -z "$(cached_shards)" ] || hc_fail "--list cached something"
}

t_sharded() {
	hcctl preload-batch --config /tmp/hc.conf --prefix $PFX --sharded \
		--node-count 2 --node-index 0 --json >/tmp/n0.json ||
		{ cat /tmp/n0.json /tmp/hcd.out; hc_fail "node 0 failed"; }
	expect_counts /tmp/n0.json 6 0 6 0
	[ "$(json_field /tmp/n0.json listed)" = 12 ] || hc_fail "node 0: listed is not 12"
	cached_shards >/tmp/set0
	hcctl preload-batch --config /tmp/hc.conf --prefix $PFX --sharded \
		--node-count 2 --node-index 1 --json >/tmp/n1.json ||
		{ cat /tmp/n1.json /tmp/hcd.out; hc_fail "node 1 failed"; }
	expect_counts /tmp/n1.json 6 0 6 0
	cached_shards >/tmp/all
	# node 1's set: what is cached now and was not before
	grep -vxF -f /tmp/set0 /tmp/all >/tmp/set1 || true

	sed -n 'p;n' /tmp/list >/tmp/even	# items 0, 2, 4, ...
	sed -n 'n;p' /tmp/list >/tmp/odd
	cmp /tmp/set0 /tmp/even || { cat /tmp/set0; hc_fail "node 0 did not cache shards 0, 2, 4..."; }
	cmp /tmp/set1 /tmp/odd || { cat /tmp/set1; hc_fail "node 1 did not cache shards 1, 3, 5..."; }
	! grep -qxF -f /tmp/set0 /tmp/set1 || hc_fail "the two nodes' sets overlap"
	cmp /tmp/all /tmp/list || hc_fail "not every shard is cached"
	[ -z "$(uniq -d /tmp/all)" ] || hc_fail "a shard is cached twice"
	# each shard was ingested exactly once by the daemon
	grep "ds/shard_[0-9]*: ingested" /tmp/hcd.out | sed 's/.*\(shard_[0-9]*\).*/\1/' |
		sort >/tmp/ingested
	[ "$(wc -l </tmp/ingested)" -eq 12 ] || { cat /tmp/ingested; hc_fail "not 12 ingests"; }
	[ -z "$(uniq -d /tmp/ingested)" ] || hc_fail "a shard was ingested twice"
	hcctl ls --json | grep -q other.bin && hc_fail "other.bin was preloaded"
	hcctl ls --json | grep -q sub/shard_x && hc_fail "sub/shard_x was preloaded"
	# the unsharded run, with the default configuration path: all 12 hits
	mkdir -p /etc/hypercache
	cp /tmp/hc.conf /etc/hypercache/hypercache.conf
	hcctl preload-batch --prefix $PFX --json >/tmp/all.json
	expect_counts /tmp/all.json 12 12 0 0
	# the text summary
	hcctl preload-batch --prefix $PFX --sharded --node-count 3 --node-index 2 >/tmp/out
	cat /tmp/out
	grep -q "12 listed, node 2 of 3 (--node-index, --node-count): 4 to preload" /tmp/out ||
		hc_fail "no sharding line"
	grep -q "preloaded 4 objects, .* 4 already cached, 0 ingested, 0 failed" /tmp/out ||
		hc_fail "no summary line"
	# the data of every shard is the source's
	for u in $(cat /tmp/list); do
		f=/tmp/store/ds/shard_${u#$PFX}
		hcctl get --no-progress --no-ingest -o /tmp/got "$u"
		cmp "$f" /tmp/got || hc_fail "$u differs from $f"
	done
}

t_env() {
	# Slurm's variables, and a bad one named
	SLURM_NODEID=1 SLURM_NNODES=2 hcctl preload-batch --config /tmp/hc.conf \
		--prefix $PFX --sharded --json >/tmp/slurm.json
	expect_counts /tmp/slurm.json 6 6 0 0
	grep -q '"index_source":"SLURM_NODEID"' /tmp/slurm.json || hc_fail "not from Slurm"
	rc=0
	SLURM_NODEID=2 SLURM_NNODES=2 hcctl preload-batch --config /tmp/hc.conf \
		--prefix $PFX --sharded >/tmp/out 2>&1 || rc=$?
	cat /tmp/out
	[ $rc -eq 2 ] || hc_fail "exit status $rc, not 2"
	grep -q "SLURM_NODEID 2 is not below SLURM_NNODES 2" /tmp/out || hc_fail "no message"
}

t_preload() {
	hc_pattern 7 5000000 >/tmp/store/p/a.bin
	hc_pattern 8 300001 >/tmp/store/p/b.bin
	rc=0
	hcctl preload --json --timeout 60 hypercache://store/p/a.bin \
		hypercache://store/p/missing.bin hypercache://store/p/b.bin \
		>/tmp/p.json 2>/tmp/p.err || rc=$?
	cat /tmp/p.err
	[ $rc -eq 1 ] || hc_fail "exit status $rc, not 1"
	expect_counts /tmp/p.json 3 0 2 1
	grep -q "hcctl: hypercache://store/p/missing.bin: .*No such file or directory" /tmp/p.err ||
		hc_fail "the missing key is not named on stderr"
	grep -q "a.bin\|b.bin" /tmp/p.err && hc_fail "a good URI is named on stderr"
	grep -q '"failures":\[{"uri":"hypercache://store/p/missing.bin","errno":2,' /tmp/p.json ||
		hc_fail "the JSON does not name the missing key"
	[ "$(json_field /tmp/p.json bytes)" = 5300001 ] || hc_fail "bytes is not 5300001"
	for f in a b; do
		u=hypercache://store/p/$f.bin
		hcctl locate --json $u | grep -q '"status":"hit"' || hc_fail "$u not cached"
		want=$(sha256sum </tmp/store/p/$f.bin | cut -d' ' -f1)
		got=$(hcctl get --no-progress --no-ingest $u | sha256sum | cut -d' ' -f1)
		[ "$want" = "$got" ] || hc_fail "$u: SHA-256 $got, not $want"
	done
	hcctl ls --json | grep -q missing.bin && hc_fail "a failed ingest stayed cached"
	# again, one at a time: both hits, the text summary
	hcctl preload --parallel 1 hypercache://store/p/a.bin hypercache://store/p/b.bin >/tmp/out
	cat /tmp/out
	grep -q "preloaded 2 objects, .* 2 already cached, 0 ingested, 0 failed" /tmp/out ||
		hc_fail "no summary line"
	kill -0 "$(cat /tmp/hcd.pid)" || hc_fail "hypercached died"
}

# stop_daemon: end hypercached (no ingest, no egress helper until started)
stop_daemon() {
	kill "$(cat /tmp/hcd.pid)"
	i=0
	while [ ! -s /tmp/hcd.rc ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || hc_fail "hypercached did not exit"
		sleep 0.1
	done
}

# count_under PREFIX: the cached objects whose URI starts with PREFIX
count_under() {
	hcctl ls --json "$1" | grep -o '"uri":"' | wc -l
}

# issue 15: a prefix preloaded with --pin (URIs from a list file and an
# operand) survives a scan larger than the cache, which pushes out an
# object preloaded without --pin; pin --prefix of everything fills the
# cache with pinned objects, then a preload is refused with ENOSPC
# (counted in stats as refused_room) and nothing is evicted for it.
t_pin_scan() {
	P=hypercache://store/pin/ S=hypercache://store/scan/
	mkdir -p /tmp/store/pin /tmp/store/scan /tmp/store/ctl
	hc_pattern 21 9000000 >/tmp/store/pin/m1.bin
	hc_pattern 22 5000000 >/tmp/store/pin/m2.bin
	hc_pattern 23 100 >/tmp/store/pin/config.json
	hc_pattern 24 9000000 >/tmp/store/ctl/c.bin
	printf '# the model\n%s\n\n  %s  \n' "${P}m1.bin" "${P}m2.bin" >/tmp/pin.list
	hcctl preload --pin --no-progress -f /tmp/pin.list "${P}config.json" >/tmp/out ||
		{ cat /tmp/out /tmp/hcd.out; hc_fail "preload --pin failed"; }
	grep -q "preloaded 3 objects" /tmp/out || { cat /tmp/out; hc_fail "not 3 preloaded"; }
	hcctl preload --no-progress hypercache://store/ctl/c.bin >/dev/null
	[ "$(count_under $P)" = 3 ] || { hcctl ls; hc_fail "not 3 objects under $P"; }
	[ "$(hcctl ls --json $P | grep -o '"pinned":true' | wc -l)" = 3 ] ||
		{ hcctl ls $P; hc_fail "not all of $P pinned"; }
	hcctl ls --json hypercache://store/ctl/ | grep -q '"state":"ready","flags":[0-9]*,"pinned":false' ||
		{ hcctl ls; hc_fail "ctl/c.bin is not cached unpinned"; }

	# the scan: 32 MiB shards (hard links of one file), 2 more than fit
	cap=$(hcctl stats --json | grep -o '"capacity":[0-9]*' | cut -d: -f2)
	n=$((cap / 33554432 + 2))
	hc_pattern 25 33554432 >/tmp/store/scan/s000
	: >/tmp/scan.list
	i=0
	while [ $i -lt $n ]; do
		f=$(printf 's%03d' $i)
		[ $i -eq 0 ] || ln /tmp/store/scan/s000 /tmp/store/scan/$f
		echo "$S$f" >>/tmp/scan.list
		i=$((i + 1))
	done
	echo "scan: $n shards of 32 MiB, capacity $cap bytes"
	hcctl preload --no-progress --parallel 2 -f /tmp/scan.list >/tmp/out ||
		{ cat /tmp/out /tmp/hcd.out; hc_fail "the scan's preload failed"; }
	[ "$(count_under $P)" = 3 ] || { hcctl ls; hc_fail "the scan evicted a pinned object"; }
	[ "$(count_under hypercache://store/ctl/)" = 0 ] ||
		{ hcctl ls; hc_fail "the scan did not push out the unpinned object"; }
	for f in m1.bin m2.bin config.json; do
		hcctl get --no-progress --no-ingest -o /tmp/got "$P$f"
		cmp /tmp/store/pin/$f /tmp/got || hc_fail "$P$f differs"
	done

	# what the admission policy did (after the scan's admissions): its
	# window's target in bytes, its moves and the ghost's passes
	w=$(hc_stat policy_window)
	[ -n "$w" ] && [ "$w" -gt 0 ] ||
		{ hcctl stats --json; hc_fail "policy_window is not > 0: '$w'"; }
	for k in policy_window_moves policy_passes; do
		[ -n "$(hc_stat $k)" ] ||
			{ hcctl stats --json; hc_fail "hcctl stats --json has no numeric $k"; }
	done
	hcctl stats >/tmp/st.txt
	grep -q "^policy  *window [0-9.]* [KMGT]*i*B (.* of the cache), [0-9]* window moves, [0-9]* ghost passes$" /tmp/st.txt ||
		{ cat /tmp/st.txt; hc_fail "hcctl stats has no policy line"; }
	hc_log "$(grep '^policy' /tmp/st.txt) (policy_window $w)"

	# pin everything (the 3 of $P need nothing): no evictable room is left
	hcctl pin --prefix hypercache://store/ --yes >/tmp/out ||
		{ cat /tmp/out; hc_fail "pin --prefix failed"; }
	cat /tmp/out
	grep -q "^pinned [1-9][0-9]* objects .*, 0 refused, 3 with nothing to do" /tmp/out ||
		hc_fail "no pin summary"
	before=$(hcctl stats --json | grep -o '"refused_room":[0-9]*' | cut -d: -f2)
	[ -n "$before" ] || hc_fail "hcctl stats has no refused_room"
	objs=$(hcctl ls --json | grep -o '"uri":"' | wc -l)
	ln /tmp/store/scan/s000 /tmp/store/scan/extra
	rc=0
	hcctl preload --no-progress --timeout 60 ${S}extra >/tmp/out 2>/tmp/err || rc=$?
	cat /tmp/err
	[ $rc -eq 1 ] || hc_fail "preload into a pinned-full cache: exit status $rc, not 1"
	grep -q "${S}extra: .*no room in the cache" /tmp/err || hc_fail "ENOSPC not named"
	after=$(hcctl stats --json | grep -o '"refused_room":[0-9]*' | cut -d: -f2)
	[ "$after" -gt "$before" ] || hc_fail "refused_room $before -> $after"
	hcctl stats | grep -q "^refused .* no room (pinned, held, dirty)" ||
		{ hcctl stats; hc_fail "hcctl stats does not say why"; }
	[ "$(hcctl ls --json | grep -o '"uri":"' | wc -l)" = "$objs" ] ||
		hc_fail "a refused preload changed the cache"

	# unpin both prefixes: dry run first (nothing changes), then --yes
	hcctl unpin --prefix $P >/tmp/out
	grep -q "dry run" /tmp/out || { cat /tmp/out; hc_fail "no dry run"; }
	[ "$(hcctl ls --json $P | grep -o '"pinned":true' | wc -l)" = 3 ] ||
		hc_fail "a dry run unpinned"
	hcctl unpin --prefix $P --yes --json >/tmp/out
	grep -q '"done":3' /tmp/out || { cat /tmp/out; hc_fail "not 3 unpinned"; }
	hcctl unpin --prefix hypercache://store/ --yes >/dev/null
	[ "$(hcctl stats --json | grep -o '"pinned":[0-9]*' | cut -d: -f2)" = 0 ] ||
		hc_fail "objects are still pinned"
}

# issue 15: evict --prefix lists first and changes nothing, --yes evicts
# what is idle and clean, and refuses (exit 1) a pinned and a DIRTY object,
# naming each; ls PREFIX lists only what is under the prefix.
t_prefix_evict() {
	E=hypercache://store/ev/
	mkdir -p /tmp/store/ev /tmp/store/ev2
	for i in 1 2 3; do
		hc_pattern $((30 + i)) $((1000000 * i)) >/tmp/store/ev/o$i.bin
	done
	hc_pattern 39 1000 >/tmp/store/ev2/o.bin
	hcctl preload --no-progress ${E}o1.bin ${E}o2.bin ${E}o3.bin \
		hypercache://store/ev2/o.bin >/dev/null
	hcctl pin ${E}o3.bin
	# no egress helper: the object put stays DIRTY
	stop_daemon
	hc_pattern 38 3000000 >/tmp/d.bin
	hcctl put --no-progress /tmp/d.bin ${E}d.bin
	hcctl ls --dirty $E | grep -q "${E}d.bin" || { hcctl ls; hc_fail "d.bin is not dirty"; }
	[ "$(count_under $E)" = 4 ] || { hcctl ls; hc_fail "ls $E: not 4 objects"; }

	rc=0
	hcctl evict --prefix $E >/tmp/dry || rc=$?
	cat /tmp/dry
	[ $rc -eq 1 ] || hc_fail "dry run: exit status $rc, not 1 (refusals ahead)"
	grep -q "^  evict  *${E}o1.bin$" /tmp/dry || hc_fail "o1 not listed to evict"
	grep -q "^  refused  *${E}d.bin: dirty" /tmp/dry || hc_fail "d.bin not listed as dirty"
	grep -q "^  refused  *${E}o3.bin: pinned" /tmp/dry || hc_fail "o3 not listed as pinned"
	grep -q "ev2" /tmp/dry && hc_fail "the dry run lists ev2/, outside the prefix"
	grep -q "would be done: 2 objects" /tmp/dry || hc_fail "no dry-run summary"
	[ "$(count_under $E)" = 4 ] || hc_fail "the dry run evicted"

	rc=0
	hcctl evict --prefix $E --yes --json >/tmp/yes.json 2>/tmp/err || rc=$?
	cat /tmp/yes.json /tmp/err
	[ $rc -eq 1 ] || hc_fail "--yes: exit status $rc, not 1"
	grep -q '"done":2,' /tmp/yes.json || hc_fail "not 2 evicted"
	grep -q '"refused":2,' /tmp/yes.json || hc_fail "not 2 refused"
	grep -q "${E}d.bin: not evicted: dirty" /tmp/err || hc_fail "d.bin's refusal not named"
	grep -q "${E}o3.bin: not evicted: pinned" /tmp/err || hc_fail "o3's refusal not named"
	hcctl ls $E >/tmp/ls
	cat /tmp/ls
	[ "$(count_under $E)" = 2 ] || hc_fail "not 2 left under $E"
	grep -q "o3.bin" /tmp/ls && grep -q "d.bin" /tmp/ls || hc_fail "o3 or d.bin gone"
	[ "$(count_under hypercache://store/ev2/)" = 1 ] || hc_fail "ev2/ was touched"
	hcctl get --no-progress --no-ingest -o /tmp/got ${E}d.bin
	cmp /tmp/d.bin /tmp/got || hc_fail "the dirty object's data changed"

	# the helper back: d.bin is written back, then evictable
	start_daemon
	i=0
	while hcctl ls --dirty $E | grep -q d.bin; do
		i=$((i + 1))
		[ $i -lt 600 ] || hc_fail "d.bin not written back"
		sleep 0.1
	done
	hcctl unpin ${E}o3.bin
	hcctl evict --prefix $E --yes >/tmp/out || { cat /tmp/out; hc_fail "second evict failed"; }
	[ "$(count_under $E)" = 0 ] || hc_fail "objects left under $E"
	cmp /tmp/d.bin /tmp/store/ev/d.bin || hc_fail "d.bin was not written back whole"
}

# Many small objects preloaded at once (16 in flight): hypercached sends
# their DONEs from several threads (Documentation/ingest.md, "Many objects
# at once"), and the kernel writes the READY records of the DONEs that
# wait together as one batch (journal.md, "Group commit"): fewer journal
# flushes than records.  (Sent one after another by the dispatcher, each
# DONE took a write and a flush of its own: as many flushes as records.)
# Every object ingested once, READY, byte-identical.
t_done_batched() {
	mkdir -p /tmp/store/many
	i=0
	while [ $i -lt 64 ]; do
		hc_pattern $((500 + i)) $((4096 + i * 997)) >/tmp/store/many/f$i
		i=$((i + 1))
	done
	[ -s /tmp/hcd.rc ] || stop_daemon
	write_conf
	awk '{ print } /^\[hypercached\]$/ { print "max_objects_in_flight = 16" }' \
		/tmp/hc.conf >/tmp/hc.conf.new && mv /tmp/hc.conf.new /tmp/hc.conf
	start_daemon
	# room for them without a duel: what the earlier tests cached goes
	hcctl evict --prefix hypercache://store/ --yes >/dev/null || true
	r0=$(hc_stat journal_records)
	f0=$(hc_stat journal_flushes)
	hcctl preload-batch --config /tmp/hc.conf --no-progress --json -P 64 \
		--prefix hypercache://store/many/f >/tmp/many.json ||
		{ cat /tmp/many.json; tail -n 20 /tmp/hcd.out; hc_fail "preload-batch failed"; }
	r1=$(hc_stat journal_records)
	f1=$(hc_stat journal_flushes)
	expect_counts /tmp/many.json 64 0 64 0
	hc_log "64 objects: $((r1 - r0)) journal records, $((f1 - f0)) journal flushes"
	[ $((r1 - r0)) -ge 64 ] || hc_fail "$((r1 - r0)) journal records for 64 ingests"
	[ $((f1 - f0)) -lt $((r1 - r0)) ] ||
		hc_fail "$((f1 - f0)) journal flushes for $((r1 - r0)) records: no DONEs batched"
	[ "$(grep -c 'store/many/f[0-9]*: ingested' /tmp/hcd.out)" = 64 ] ||
		hc_fail "not 64 ingests in the daemon's log"
	grep "ingest: [0-9]* objects" /tmp/hcd.out || true
	for i in 0 17 63; do
		hcctl get --no-progress --no-ingest hypercache://store/many/f$i >/tmp/f.got ||
			hc_fail "many/f$i: get failed"
		cmp -s /tmp/f.got /tmp/store/many/f$i || hc_fail "many/f$i differs"
	done
	[ "$(hcctl ls --json hypercache://store/many/ | grep -o '"state":"ready"' | wc -l)" = 64 ] ||
		hc_fail "not 64 READY objects"
}

hc_test preload-setup t_setup
hc_test preload-batch-sharded t_sharded
hc_test preload-batch-env t_env
hc_test preload-uris t_preload
hc_test preload-pin-scan t_pin_scan
hc_test prefix-evict t_prefix_evict
hc_test preload-done-batched t_done_batched
