#!/bin/sh
# Usage (guest, via /init): stage-ingest.sh   (3 fresh drives of 128 MiB)
#
# The kernel's helper channel, served by hc_fakehelper (a stand-in for
# hypercached that fetches "file:PATH" URIs from the guest's own files):
# a cold miss is ingested and becomes a hit, byte-identical; a missing
# file is ENOENT for the reader and caches nothing; one helper at a time;
# a helper killed in the middle of an ingest leaves the request to the
# next one, and the waiting reader gets its data.
. /hc/tests/lib.sh

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

start_helper() {
	hc_fakehelper "$@" >/tmp/helper.out 2>&1 &
	echo $! >/tmp/helper.pid
	i=0
	while ! grep -q registered /tmp/helper.out; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat /tmp/helper.out; hc_fail "helper did not register"; }
		sleep 0.1
	done
}

stop_helper() {
	kill -9 "$(cat /tmp/helper.pid)" 2>/dev/null || true
	sleep 0.3
}

t_miss_ingest_hit() {
	hcctl pool create $M >/dev/null
	start_helper
	for n in 1 4194303 4194304 4194305 13000000; do
		hc_pattern $n $n >/tmp/src.$n
		out=$(hc_obj ingest 20000 file:/tmp/src.$n)
		echo "$out" | grep -q '^status=hit' || hc_fail "size $n: $out"
		hcctl get --no-progress -o /tmp/got file:/tmp/src.$n
		cmp /tmp/src.$n /tmp/got || hc_fail "size $n: data differs"
		hcctl locate --json file:/tmp/src.$n | grep -q '"state":"ready"' ||
			hc_fail "size $n: not ready"
	done
	# hcctl get itself: a cold miss through the helper, then warm
	hc_pattern 99 6000000 >/tmp/src.get
	hcctl get --no-progress --timeout 60 -o /tmp/got file:/tmp/src.get
	cmp /tmp/src.get /tmp/got || hc_fail "hcctl get of a cold object differs"
	# now a warm hit, no helper involved
	stop_helper
	hc_obj ingest 1000 file:/tmp/src.1 | grep -q '^status=hit' ||
		hc_fail "warm hit"
	hcctl get --no-progress --timeout 5 -o /tmp/got file:/tmp/src.get
	cmp /tmp/src.get /tmp/got || hc_fail "warm hcctl get differs"
	# no helper: a cold get times out with a clear message
	hc_expect_errno -m "not fetched within 2 s" \
		hcctl get --no-progress --timeout 2 -o /tmp/got file:/tmp/src.4194304x
}

t_missing_key() {
	start_helper
	out=$(hc_obj ingest 20000 file:/tmp/does-not-exist) && hc_fail "no error: $out"
	echo "$out" | grep -q "No such file" || hc_fail "not ENOENT: $out"
	hc_expect_errno -m "No such file" \
		hcctl get --no-progress --timeout 20 file:/tmp/does-not-either
	hcctl ls --json | grep -q does-not-exist && hc_fail "a failed ingest stayed cached"
	stop_helper
}

t_one_helper() {
	start_helper
	hc_expect_errno -m "busy|Device or resource busy|register" hc_fakehelper --once
	stop_helper
}

t_helper_killed() {
	hc_pattern 7 9000000 >/tmp/src.kill
	start_helper --stall
	hc_obj ingest 60000 file:/tmp/src.kill >/tmp/reader.out &
	reader=$!
	i=0
	while ! grep -q allocated /tmp/helper.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || hc_fail "the stalling helper got no request"
		sleep 0.1
	done
	stop_helper			# kill -9 in the middle of the ingest
	kill -0 $reader 2>/dev/null || hc_fail "the reader gave up when the helper died"
	start_helper			# the next helper gets the request again
	wait $reader || true
	grep -q '^status=hit' /tmp/reader.out || hc_fail "reader: $(cat /tmp/reader.out)"
	hcctl get --no-progress -o /tmp/got file:/tmp/src.kill
	cmp /tmp/src.kill /tmp/got || hc_fail "data differs after the helper restart"
	stop_helper
	hcctl pool stop
}

hc_test ingest-miss-then-hit t_miss_ingest_hit
hc_test ingest-missing-key t_missing_key
hc_test ingest-one-helper t_one_helper
hc_test ingest-helper-killed t_helper_killed
