#!/bin/sh
# Usage (guest, via /init): stage-numa.sh [single=1]
# (4 fresh drives, --s3, --numa; single=1: the same without --numa)
#
# hypercached's NUMA placement (Documentation/hypercached.rst, "NUMA
# placement") against the real S3 gateway, in a guest of two nodes (vCPU 0
# on node 0, vCPU 1 on node 1; drive N behind node N % 2's PCIe expander
# bridge, the NIC behind node 1's: boot.sh --numa).  The pool stripes
# 4 MiB chunks over the 4 drives, so consecutive chunks alternate nodes;
# part_size is 4 MiB, one chunk per part.
#   numa-topology    the guest shows 2 nodes, each drive's controller and
#                    the NIC the node boot.sh put them on
#   numa-ingest      4 objects (24 MiB + 5 bytes to 64 KiB + 3) preloaded:
#                    the daemon names the NIC's node and every member's;
#                    the HEAD workers run on the NIC's node (their
#                    Cpus_allowed_list); while the parts move, part workers
#                    are seen on either node alone and part buffers bound
#                    to either node (numa_maps "prefer:N" with their pages
#                    on N, never on the other); each object's log line says
#                    all its parts' sampled buffer pages were on their
#                    member's node, every worker on its part's node for
#                    the drive write, every transfer on the NIC's node and
#                    libcurl's receive buffer there; the exporter's
#                    hypercache_numa_* counters add up to the log lines and
#                    agree with numa_maps (each node the sampler saw
#                    buffers on has local pages, none remote); every
#                    object byte-equal to S3
#   numa-reuse       hc_numaplace: a part buffer placed on one node, its
#                    pages then held by a pipe, placed again for the other
#                    node: every page of it faults in on the new node
#                    (a migration would have left them where they were)
#   numa-egress      a 21 MiB put --sync (multipart, 5 MiB parts that
#                    straddle chunks): the upload's buffer pages were all
#                    on their member's node, its 5 requests sent from the
#                    NIC's node (log line and exporter); SHA-256-equal in S3
#   numa-off         numa = off: "numa: off", nothing placed (no object
#                    line, part workers on every CPU, the exporter's
#                    hypercache_numa_placement 0), byte-equal
# single=1 (a guest of one node):
#   numa-single      nothing said above debug ("numa: one memory node" at
#                    debug), nothing placed, byte-equal
. /hc/tests/lib.sh
. /hc/tests/s3lib.sh

SINGLE=0
for a in "$@"; do
	case $a in
	single=*) SINGLE=${a#single=} ;;
	*) echo "stage-numa: unknown argument $a" >&2; exit 2 ;;
	esac
done
M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2) $(hc_drive 3)"
MB=1048576

# the kernel name of drive N (nvme0n1)
dev_name() { basename "$(readlink -f "$(hc_drive "$1")")"; }

# conf [numa=off] [KEY=VALUE...]: the tests' configuration, 4 MiB parts
conf() {
	numa=""
	if [ "${1:-}" = numa=off ]; then
		numa=off
		shift
	fi
	write_conf ingest_concurrency=4 part_size=4M max_objects_in_flight=4 \
		timeout_request=120 "$@"
	# write_conf knows only its own keys
	[ -z "$numa" ] && return 0
	awk -v n="$numa" '{ print } /^\[hypercached\]$/ { print "numa = " n }' \
		/tmp/hc.conf >/tmp/hc.conf.new && mv /tmp/hc.conf.new /tmp/hc.conf
}

# put_objects TAG: 4 objects under numa/TAG/, their "SHA-256 KEY" in /tmp/sums
put_objects() {
	: >/tmp/sums
	i=0
	for sz in $((24 * MB + 5)) $((12 * MB)) $((8 * MB + 4097)) $((65536 + 3)); do
		hc_pattern $((i + 40)) "$sz" >/tmp/src
		s3put /tmp/src "numa/$1/o$i"
		echo "$(sha /tmp/src) numa/$1/o$i" >>/tmp/sums
		i=$((i + 1))
	done
	rm -f /tmp/src
}

# check_equal: every object of /tmp/sums cached and byte-equal to S3's
check_equal() {
	while read -r sum key; do
		hcctl get --no-progress --no-ingest -o /tmp/got "s3://$BUCKET/$key" ||
			hc_fail "$key is not cached"
		[ "$(sha /tmp/got)" = "$sum" ] || hc_fail "$key: SHA-256 differs from S3's"
	done </tmp/sums
	rm -f /tmp/got
}

# preload_all TAG: preload-batch of numa/TAG/, the 4 objects of put_objects
preload_all() {
	hcctl preload-batch --config /tmp/hc.conf --no-progress -P 4 --json \
		--prefix "s3://$BUCKET/numa/$1/" >/tmp/pl.json 2>&1 ||
		{ cat /tmp/pl.json; tail -n 30 /tmp/hcd.out; hc_fail "preload-batch failed"; }
	grep -q '"ingested": *4' /tmp/pl.json || { cat /tmp/pl.json; hc_fail "not 4 ingested"; }
}

# threads NAME: "TID Cpus_allowed_list" of hypercached's threads called NAME
threads() {
	for t in /proc/"$(cat /tmp/hcd.pid)"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$1" ] || continue
		echo "${t##*/} $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status")"
	done
}

# metric SERIES: its value on the exporter's page (metrics_listen's
# default), "none" if absent
metric() {
	curl -fsS http://127.0.0.1:9110/metrics >/tmp/metrics.txt ||
		hc_fail "cannot scrape the exporter"
	awk -v s="$1" '$1 == s { v = $2 } END { print v == "" ? "none" : v }' /tmp/metrics.txt
}

# want_metric SERIES VALUE
want_metric() {
	got=$(metric "$1")
	[ "$got" = "$2" ] || { grep '^hypercache_numa' /tmp/metrics.txt; hc_fail "$1 is $got, not $2"; }
}

# sampler: until /tmp/sample.stop exists, what the part workers' CPUs and
# the bound buffers' pages are, into /tmp/cpus and /tmp/maps
sampler() {
	: >/tmp/cpus
	: >/tmp/maps
	while [ ! -e /tmp/sample.stop ]; do
		threads hc-part | cut -d' ' -f2 >>/tmp/cpus || true
		grep ' prefer:' /proc/"$(cat /tmp/hcd.pid)"/numa_maps >>/tmp/maps 2>/dev/null || true
		sleep 0.05
	done
	return 0
}

t_topology() {
	[ -d /sys/devices/system/node/node1 ] || hc_fail "the guest has no node 1"
	[ "$(cat /sys/devices/system/node/node0/cpulist)" = 0 ] ||
		hc_fail "node 0's CPUs: $(cat /sys/devices/system/node/node0/cpulist)"
	[ "$(cat /sys/devices/system/node/node1/cpulist)" = 1 ] ||
		hc_fail "node 1's CPUs: $(cat /sys/devices/system/node/node1/cpulist)"
	for n in 0 1 2 3; do
		d=$(dev_name $n)
		got=$(cat "/sys/block/$d/device/device/numa_node")
		hc_log "drive $n: $d, node $got"
		[ "$got" = $((n % 2)) ] || hc_fail "drive $n ($d) is on node $got, not $((n % 2))"
	done
	# eth0's device is virtio0; its PCI function says the node
	got=$(cat "$(dirname "$(readlink -f /sys/class/net/eth0/device)")/numa_node")
	[ "$got" = 1 ] || hc_fail "eth0 is on node $got, not 1"
	hcctl pool create $M >/dev/null || hc_fail "pool create failed"
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET at $EP"
	: >/tmp/hcd.out
}

t_ingest() {
	put_objects on
	conf
	start_daemon 1
	grep -q "numa: 2 nodes (2 with CPUs of ours); NIC eth0 on node 1" /tmp/hcd.out ||
		{ cat /tmp/hcd.out; hc_fail "no numa line naming the NIC's node"; }
	# the HEAD workers: on the NIC's node, from their start
	threads hc-head >/tmp/heads
	[ -s /tmp/heads ] || hc_fail "no hc-head threads"
	cat /tmp/heads
	! grep -qv ' 1$' /tmp/heads || hc_fail "a HEAD worker is not on node 1's CPU"
	rm -f /tmp/sample.stop
	sampler &
	spid=$!
	preload_all on
	touch /tmp/sample.stop
	wait $spid || hc_fail "the sampler failed"
	# the members, as the daemon found them
	want="numa: pool members $(dev_name 0) node 0, $(dev_name 1) node 1, $(dev_name 2) node 0, $(dev_name 3) node 1"
	grep -q "$want" /tmp/hcd.out || { grep numa /tmp/hcd.out; hc_fail "not logged: $want"; }
	sort /tmp/cpus | uniq -c
	# a worker is on its part's node only for the CRC and the write (the
	# transfer runs on the NIC's, node 1): the sampler may miss node 0,
	# the daemon's own count (below) does not
	grep -qx 1 /tmp/cpus || hc_fail "no part worker seen on node 1's CPU alone"
	# bound buffers with pages: on their node only
	sed -n 's/^[0-9a-f]* prefer:\([0-9]\).* \(N[0-9]=[0-9]*\).*/\1 \2/p' /tmp/maps |
		sort | uniq -c
	grep -q ' prefer:0 .* N0=' /tmp/maps || hc_fail "no buffer seen with its pages on node 0"
	grep -q ' prefer:1 .* N1=' /tmp/maps || hc_fail "no buffer seen with its pages on node 1"
	! grep -q ' prefer:0 .* N1=' /tmp/maps || hc_fail "a buffer bound to node 0 has pages on node 1"
	! grep -q ' prefer:1 .* N0=' /tmp/maps || hc_fail "a buffer bound to node 1 has pages on node 0"
	# each object: the kernel's own account of its parts
	parts=0
	pages=0
	while read -r sum key; do
		l=$(grep "s3://$BUCKET/$key: numa: ingest of " /tmp/hcd.out) ||
			hc_fail "$key: no numa line"
		echo "$l"
		echo "$l" | grep -Eq "of ([0-9]+) parts: buffer pages on their member's node ([0-9]+) of \2, workers on the part's node \1 of \1, transfers on the NIC's node \1 of \1, libcurl's receive buffer on the NIC's node \1 of \1$" ||
			hc_fail "$key: not every page, worker or transfer where it belongs: $l"
		parts=$((parts + $(echo "$l" | sed -n 's/.* of \([0-9]*\) parts:.*/\1/p')))
		pages=$((pages + $(echo "$l" | sed -n "s/.*member's node \([0-9]*\) of.*/\1/p")))
	done </tmp/sums
	# the exporter: the same figures per node, and numa_maps' nodes
	want_metric hypercache_numa_placement 1
	want_metric hypercache_numa_nic_node 1
	p0=$(metric 'hypercache_numa_parts_total{path="ingest",node="0"}')
	p1=$(metric 'hypercache_numa_parts_total{path="ingest",node="1"}')
	grep '^hypercache_numa' /tmp/metrics.txt
	[ "$p0" -gt 0 ] && [ "$p1" -gt 0 ] || hc_fail "parts per node: $p0, $p1"
	[ $((p0 + p1)) = "$parts" ] || hc_fail "parts on the exporter $p0 + $p1, in the log $parts"
	l0=$(metric 'hypercache_numa_buffer_pages_total{path="ingest",node="0",where="local"}')
	l1=$(metric 'hypercache_numa_buffer_pages_total{path="ingest",node="1",where="local"}')
	[ $((l0 + l1)) = "$pages" ] || hc_fail "local pages on the exporter $l0 + $l1, in the log $pages"
	for n in 0 1; do
		# numa_maps saw node n's buffers with pages there: so did the daemon
		[ "$(metric "hypercache_numa_buffer_pages_total{path=\"ingest\",node=\"$n\",where=\"local\"}")" -gt 0 ] ||
			hc_fail "numa_maps has buffers on node $n, the exporter no local page"
		want_metric "hypercache_numa_buffer_pages_total{path=\"ingest\",node=\"$n\",where=\"remote\"}" 0
		want_metric "hypercache_numa_workers_total{path=\"ingest\",node=\"$n\",where=\"off_node\"}" 0
	done
	want_metric 'hypercache_numa_workers_total{path="ingest",node="0",where="on_node"}' "$p0"
	want_metric 'hypercache_numa_workers_total{path="ingest",node="1",where="on_node"}' "$p1"
	want_metric 'hypercache_numa_net_transfers_total{path="ingest",node="1",where="on_node"}' "$parts"
	want_metric 'hypercache_numa_net_transfers_total{path="ingest",node="1",where="off_node"}' 0
	want_metric 'hypercache_numa_net_transfers_total{path="ingest",node="0",where="on_node"}' 0
	want_metric 'hypercache_numa_net_buffer_pages_total{node="1",where="local"}' "$parts"
	want_metric 'hypercache_numa_net_buffer_pages_total{node="1",where="remote"}' 0
	want_metric 'hypercache_numa_net_threads{node="1"}' "$(wc -l </tmp/heads)"
	want_metric 'hypercache_numa_net_threads{node="0"}' 0
	check_equal
}

t_egress() {
	head -c $((21 * MB)) /dev/urandom >/tmp/ck
	from=$(($(wc -l </tmp/hcd.out) + 1))
	hcctl put --sync --timeout 600 --no-progress /tmp/ck "s3://$BUCKET/numa/ck" ||
		{ tail -n 30 /tmp/hcd.out; hc_fail "put --sync failed"; }
	wait_log "numa/ck: numa: egress of "
	l=$(tail -n +"$from" /tmp/hcd.out | grep "s3://$BUCKET/numa/ck: numa: egress of ")
	echo "$l"
	echo "$l" | grep -Eq "of 5 parts: buffer pages on their member's node ([0-9]+) of \1, workers on the part's node 5 of 5, transfers on the NIC's node 5 of 5$" ||
		hc_fail "the upload's pages, workers or requests were not where they belong: $l"
	e0=$(metric 'hypercache_numa_parts_total{path="egress",node="0"}')
	e1=$(metric 'hypercache_numa_parts_total{path="egress",node="1"}')
	[ $((e0 + e1)) = 5 ] || hc_fail "egress parts on the exporter: $e0 + $e1, not 5"
	want_metric 'hypercache_numa_net_transfers_total{path="egress",node="1",where="on_node"}' 5
	want_metric 'hypercache_numa_buffer_pages_total{path="egress",node="0",where="remote"}' 0
	want_metric 'hypercache_numa_buffer_pages_total{path="egress",node="1",where="remote"}' 0
	[ "$(s3curl "$EP/$BUCKET/numa/ck" | sha256sum | cut -d' ' -f1)" = "$(sha /tmp/ck)" ] ||
		hc_fail "numa/ck in S3: SHA-256 differs"
	rm -f /tmp/ck
	stop_daemon
}

# nothing placed: no object line, part workers on every CPU
t_reuse() {
	hc_numaplace 0 1 || hc_fail "a buffer placed on node 0 then node 1 was not all on node 1"
	hc_numaplace 1 0 || hc_fail "a buffer placed on node 1 then node 0 was not all on node 0"
}

t_unplaced() {
	put_objects "$1"
	from=$(($(wc -l </tmp/hcd.out) + 1))
	rm -f /tmp/sample.stop
	sampler &
	spid=$!
	preload_all "$1"
	touch /tmp/sample.stop
	wait $spid || hc_fail "the sampler failed"
	tail -n +"$from" /tmp/hcd.out >/tmp/run.log
	! grep -q ": numa: ingest of " /tmp/run.log || hc_fail "parts placed: $(grep ': numa: ' /tmp/run.log | head -n 1)"
	[ -s /tmp/cpus ] || hc_fail "no part worker sampled"
	! grep -qvx 0-1 /tmp/cpus || hc_fail "a part worker was moved: $(sort -u /tmp/cpus | tr '\n' ' ')"
	[ ! -s /tmp/maps ] || hc_fail "a buffer was bound: $(head -n 1 /tmp/maps)"
	want_metric hypercache_numa_placement 0
	! grep -q '^hypercache_numa_parts_total' /tmp/metrics.txt ||
		hc_fail "per-node placement counters while nothing is placed"
	check_equal
	stop_daemon
}

t_off() {
	conf numa=off
	start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	grep -q "numa: off (numa = off)" /tmp/hcd.out || hc_fail "numa = off not said"
	t_unplaced off
}

t_single() {
	hcctl pool create $M >/dev/null || hc_fail "pool create failed"
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET at $EP"
	: >/tmp/hcd.out
	conf log_level=info
	start_daemon 1
	! grep -q "numa" /tmp/hcd.out || hc_fail "numa mentioned at info: $(grep numa /tmp/hcd.out)"
	stop_daemon
	conf
	start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	grep -q "numa: one memory node: no placement" /tmp/hcd.out ||
		{ cat /tmp/hcd.out; hc_fail "no debug line for one node"; }
	t_unplaced single
}

t_teardown() {
	hcctl pool stop >/dev/null || hc_fail "pool stop failed"
}

if [ "$SINGLE" = 1 ]; then
	hc_test numa-single t_single
else
	hc_test numa-topology t_topology
	hc_test numa-ingest t_ingest
	hc_test numa-reuse t_reuse
	hc_test numa-egress t_egress
	hc_test numa-off t_off
fi
hc_test numa-teardown t_teardown
