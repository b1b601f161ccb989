#!/bin/sh
# Usage (guest, via /init): stage-flush.sh   (3 fresh drives of 256 MiB;
# with boot.sh --s3 the S3 round trip, else the posix tests)
#
# hcctl flush / restore (SCR-style dataset flush) with the real daemon.
# Objects are put with 'hcctl put --clean' under hypercache://store/ck/NAME/
# (posix backend /tmp/store) or s3://BUCKET/ck/NAME/ (the gateway):
#   flush-two          step-1 then step-2: index current=step-2, both
#                      complete, files byte-identical, again: already flushed
#   flush-crash-K      (K = 1..5) a flush of step-3 killed after step K: the
#                      current dataset verifies (restore takes step-2 for
#                      K < 4, step-3 for K >= 4), --status says interrupted
#                      while the marker is left, a rerun completes it
#   flush-sync-waits   --sync waits for a slow asynchronous flush of the
#                      same dataset, then finds it already flushed
#   restore-fallback   a corrupt file refuses the current dataset (named),
#                      restore falls back and ingests the older one; a
#                      damaged summary falls back further
#   flush-s3-*         (--s3) flush + restore round trip through the
#                      gateway, a 20 MB file uploaded in parts, a crashed
#                      flush falls back to the previous dataset
. /hc/tests/lib.sh

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

start_daemon() {
	rm -f /tmp/hcd.pid
	hypercached -c /tmp/hc.conf >>/tmp/hcd.out 2>&1 &
	echo $! >/tmp/hcd.pid
	i=0
	while ! grep -q registered /tmp/hcd.out; do
		i=$((i + 1))
		kill -0 "$(cat /tmp/hcd.pid)" 2>/dev/null ||
			{ cat /tmp/hcd.out; hc_fail "hypercached exited"; }
		[ $i -lt 50 ] || { cat /tmp/hcd.out; hc_fail "hypercached did not register"; }
		sleep 0.1
	done
}

# mk_dataset NAME SEED [NFILES]: source files /tmp/src/NAME/..., put --clean
# under $TOP/NAME/ (NFILES small extra files: f00..)
mk_dataset() {
	d=/tmp/src/$1
	rm -rf "$d"
	mkdir -p "$d/sub"
	hc_pattern "$2" 1 >"$d/one.bin"
	hc_pattern $(($2 + 1)) 1048577 >"$d/model.pt"
	hc_pattern $(($2 + 2)) 4194304 >"$d/sub/optim.pt"
	hc_pattern $(($2 + 3)) ${BIG:-300000} >"$d/sub/rng.bin"
	n=0
	while [ $n -lt "${3:-0}" ]; do
		hc_pattern $(($2 + 10 + n)) 100000 >"$d/f$(printf %02d $n)"
		n=$((n + 1))
	done
	(cd "$d" && find . -type f | sed 's|^\./||' | sort) >"/tmp/src/$1.list"
	while read -r _k; do
		hcctl put --clean --no-progress "$d/$_k" "$TOP/$1/$_k" >/dev/null ||
			hc_fail "put $TOP/$1/$_k"
	done <"/tmp/src/$1.list"
}

# status NAME: the state field of flush --status --json
status() {
	hcctl flush --config /tmp/hc.conf --status --json "$TOP/$1/" |
		sed -n 's/.*"state":"\([^"]*\)".*/\1/p'
}

# restored [ARGS]: restore, print the dataset taken
restored() {
	hcctl restore --config /tmp/hc.conf --json "$@" "$TOP/" >/tmp/rs.json 2>/tmp/rs.err ||
		{ cat /tmp/rs.err /tmp/rs.json; return 1; }
	sed -n 's/.*"dataset":"\([^"]*\)","current".*/\1/p' /tmp/rs.json
}

# ------------------------------------------------------------- posix tests

t_setup() {
	hcctl pool create $M >/dev/null
	mkdir -p /tmp/store
	cat >/tmp/hc.conf <<-EOT
	[hypercached]
	log_level = debug

	[backend store]
	type = posix
	root = /tmp/store
	EOT
	: >/tmp/hcd.out
	start_daemon
}

# same_files NAME: the backend holds the source's files, byte for byte
same_files() {
	while read -r _k; do
		cmp "/tmp/src/$1/$_k" "/tmp/store/ck/$1/$_k" || hc_fail "$1/$_k differs in the backend"
	done <"/tmp/src/$1.list"
}

t_two() {
	mk_dataset step-1 100
	mk_dataset step-2 200
	[ "$(status step-1)" = "not flushed" ] || hc_fail "step-1 is '$(status step-1)' before"
	hcctl flush --config /tmp/hc.conf --sync --parallel 2 "$TOP/step-1/" >/tmp/out ||
		{ cat /tmp/out; hc_fail "flush step-1 failed"; }
	cat /tmp/out
	grep -q "flushed $TOP/step-1/: 4 files, .* MB/s" /tmp/out || hc_fail "no summary line"
	hcctl flush --config /tmp/hc.conf --sync --json "$TOP/step-2/" >/tmp/out ||
		{ cat /tmp/out; hc_fail "flush step-2 failed"; }
	cat /tmp/out
	grep -q '"state":"flushed","already":false,"files":4' /tmp/out || hc_fail "bad JSON"
	cat /tmp/store/ck/.hypercache/index.json
	grep -q '"current":"step-2"' /tmp/store/ck/.hypercache/index.json || hc_fail "step-2 not current"
	[ "$(grep -c '"complete":true' /tmp/store/ck/.hypercache/index.json)" = 2 ] ||
		hc_fail "not both complete"
	[ -e /tmp/store/ck/.hypercache/flushing/step-2 ] && hc_fail "marker left"
	same_files step-1
	same_files step-2
	grep -q '"key":"sub/optim.pt"' /tmp/store/ck/step-2/.hypercache/summary.json ||
		hc_fail "summary lacks sub/optim.pt"
	hcctl flush --config /tmp/hc.conf --status "$TOP/step-1/" | tee /tmp/out
	grep -q "flushed (not current), 4 files, 5542882 bytes" /tmp/out || hc_fail "step-1 status"
	hcctl flush --config /tmp/hc.conf --status "$TOP/step-2/" | grep -q "flushed (current)" ||
		hc_fail "step-2 status"
	# both summaries verify (restore --dataset checks every file)
	[ "$(restored --dataset step-1)" = step-1 ] || hc_fail "step-1 does not verify"
	[ "$(restored)" = step-2 ] || hc_fail "restore did not take step-2"
	# nothing to do a second time, at once
	hcctl flush --config /tmp/hc.conf --sync "$TOP/step-2/" | tee /tmp/out
	grep -q "already flushed" /tmp/out || hc_fail "flushed again"
	hcctl flush --config /tmp/hc.conf "$TOP/step-2/" | grep -q "already flushed" ||
		hc_fail "async: flushed again"
	cp /tmp/store/ck/.hypercache/index.json /tmp/index.step2
}

t_crash() {
	k=$1
	# back to: step-1 and step-2 flushed, step-3 only cached
	cp /tmp/index.step2 /tmp/store/ck/.hypercache/index.json
	rm -rf /tmp/store/ck/step-3 /tmp/store/ck/.hypercache/flushing
	[ -e /tmp/src/step-3.list ] || mk_dataset step-3 300
	rc=0
	HC_FLUSH_CRASH_AFTER=$k hcctl flush --config /tmp/hc.conf --sync --no-progress \
		"$TOP/step-3/" >/tmp/out 2>&1 || rc=$?
	cat /tmp/out
	[ $rc = 137 ] || hc_fail "exit status $rc, not 137"
	grep -q "crashing after step" /tmp/out || hc_fail "did not crash"
	cur=$(sed -n 's/.*"current":"\([^"]*\)".*/\1/p' /tmp/store/ck/.hypercache/index.json)
	if [ "$k" -lt 4 ]; then want=step-2; else want=step-3; fi
	[ "$cur" = $want ] || hc_fail "current is '$cur', not $want"
	# the current dataset verifies against its summary: restore takes it
	[ "$(restored)" = $want ] || hc_fail "restore did not take $want"
	grep -q '"refused":\[\]' /tmp/rs.json || { cat /tmp/rs.json; hc_fail "something was refused"; }
	st=$(status step-3)
	if [ "$k" -lt 5 ]; then
		[ "$st" = interrupted ] || hc_fail "step-3 is '$st', not interrupted"
		hcctl flush --config /tmp/hc.conf --status "$TOP/step-3/" | grep -q "interrupted (the FLUSHING marker" ||
			hc_fail "no text status"
	else
		[ "$st" = flushed ] || hc_fail "step-3 is '$st', not flushed"
	fi
	# the rerun completes it
	hcctl flush --config /tmp/hc.conf --sync --no-progress "$TOP/step-3/" >/tmp/out ||
		{ cat /tmp/out; hc_fail "rerun failed"; }
	cat /tmp/out
	if [ "$k" -lt 5 ]; then
		grep -q "flushed $TOP/step-3/: 4 files" /tmp/out || hc_fail "rerun did not flush"
	else
		grep -q "already flushed" /tmp/out || hc_fail "rerun flushed again"
	fi
	[ "$(status step-3)" = flushed ] || hc_fail "step-3 not flushed after the rerun"
	[ -e /tmp/store/ck/.hypercache/flushing/step-3 ] && hc_fail "marker left"
	grep -q '"current":"step-3"' /tmp/store/ck/.hypercache/index.json || hc_fail "step-3 not current"
	grep -q '"name":"step-1"' /tmp/store/ck/.hypercache/index.json || hc_fail "step-1 lost"
	same_files step-3
	[ "$(restored)" = step-3 ] || hc_fail "restore did not take step-3"
}

t_sync_waits() {
	mk_dataset step-4 400 6
	t0=$(date +%s)
	HC_FLUSH_DELAY_MS=700 hcctl flush --config /tmp/hc.conf --parallel 1 "$TOP/step-4/" >/tmp/async.out ||
		{ cat /tmp/async.out; hc_fail "async flush failed to start"; }
	cat /tmp/async.out
	grep -q "flushing in the background (pid [0-9]*, log /run/hypercache/flush-" /tmp/async.out ||
		hc_fail "no background line"
	pid=$(sed -n 's/.*(pid \([0-9]*\),.*/\1/p' /tmp/async.out)
	log=$(sed -n 's/.*, log \([^)]*\)).*/\1/p' /tmp/async.out)
	[ "$(status step-4)" = flushing ] || hc_fail "step-4 is '$(status step-4)', not flushing"
	hcctl flush --config /tmp/hc.conf "$TOP/step-4/" | grep -q "a flush of this dataset is running" ||
		hc_fail "a second async flush started"
	hcctl flush --config /tmp/hc.conf --sync "$TOP/step-4/" >/tmp/sync.out 2>/tmp/sync.err ||
		{ cat /tmp/sync.out /tmp/sync.err; hc_fail "sync flush failed"; }
	t1=$(date +%s)
	cat /tmp/sync.err /tmp/sync.out
	grep -q "waiting for the running flush" /tmp/sync.err || hc_fail "did not wait"
	grep -q "already flushed (10 files" /tmp/sync.out || hc_fail "not 'already flushed'"
	kill -0 "$pid" 2>/dev/null && hc_fail "the async flush still runs"
	[ $((t1 - t0)) -ge 6 ] || hc_fail "returned after $((t1 - t0)) s, before the async flush"
	cat "$log"
	grep -q "flushed $TOP/step-4/: 10 files" "$log" || hc_fail "the async flush did not finish"
	[ "$(status step-4)" = flushed ] || hc_fail "step-4 not flushed"
	same_files step-4
}

t_restore() {
	# corrupt a file of the current dataset (other bytes, same size)
	hc_pattern 999 4194304 >/tmp/store/ck/step-4/sub/optim.pt
	cmp -s /tmp/store/ck/step-4/sub/optim.pt /tmp/src/step-4/sub/optim.pt &&
		hc_fail "not corrupted"
	# step-3 is not cached: restore must ingest it through hypercached
	while read -r k; do
		hcctl evict "$TOP/step-3/$k" || hc_fail "evict step-3/$k"
	done </tmp/src/step-3.list
	n0=$(grep -c "ingested" /tmp/hcd.out || true)
	rc=0
	hcctl restore --config /tmp/hc.conf "$TOP/" >/tmp/out 2>/tmp/err || rc=$?
	cat /tmp/err /tmp/out
	[ $rc = 0 ] || hc_fail "restore failed"
	grep -q "hcctl: $TOP/step-4/: refused: file sub/optim.pt: CRC32 0x[0-9a-f]*, the summary says" /tmp/err ||
		hc_fail "the bad file is not named"
	grep -q "restored dataset step-3 of $TOP/: 4 files, 5542882 bytes .*(fell back from step-4)" /tmp/out ||
		hc_fail "did not fall back to step-3"
	n1=$(grep -c "ingested" /tmp/hcd.out || true)
	[ $((n1 - n0)) -ge 4 ] || { tail -n 20 /tmp/hcd.out; hc_fail "step-3 was not ingested ($n0 -> $n1)"; }
	while read -r k; do
		hcctl get --no-progress --no-ingest -o /tmp/got "$TOP/step-3/$k" || hc_fail "step-3/$k not cached"
		cmp /tmp/got "/tmp/src/step-3/$k" || hc_fail "step-3/$k differs"
	done </tmp/src/step-3.list
	# a damaged summary: step-3 refused too, step-2 taken
	echo '{"format":1,"dataset":"step-3"' >/tmp/store/ck/step-3/.hypercache/summary.json
	[ "$(restored)" = step-2 ] || hc_fail "restore did not fall back to step-2"
	grep -q '"dataset":"step-3","reason":"its summary is invalid' /tmp/rs.json || hc_fail "step-3 not refused"
	grep -q '"fell_back":true' /tmp/rs.json || hc_fail "fell_back is not true"
	# --dataset of a refused one fails
	rc=0
	hcctl restore --config /tmp/hc.conf --dataset step-4 "$TOP/" >/tmp/out 2>&1 || rc=$?
	cat /tmp/out
	[ $rc = 1 ] || hc_fail "restore --dataset step-4: exit $rc, not 1"
	grep -q "dataset 'step-4' is not complete or does not verify" /tmp/out || hc_fail "no message"
	kill -0 "$(cat /tmp/hcd.pid)" || hc_fail "hypercached died"
}

# ---------------------------------------------------------------- S3 tests

t_s3_setup() {
	hcctl pool create $M >/dev/null
	hc_s3_curl "/$BUCKET" -X PUT >/dev/null || hc_fail "cannot create bucket $BUCKET"
	cat >/tmp/hc.conf <<-EOT
	[hypercached]
	log_level = debug
	default_backend = rgw
	part_size = 4M
	timeout_request = 60

	[backend rgw]
	type = s3
	endpoint = $HC_S3_ENDPOINT
	access_key = $AWS_ACCESS_KEY_ID
	secret_key = $AWS_SECRET_ACCESS_KEY
	EOT
	: >/tmp/hcd.out
	start_daemon
}

t_s3_round_trip() {
	BIG=20000001 mk_dataset step-1 500
	hcctl flush --config /tmp/hc.conf --sync -w 3 "$TOP/step-1/" >/tmp/out ||
		{ cat /tmp/out; hc_fail "flush failed"; }
	cat /tmp/out
	grep -q "flushed $TOP/step-1/: 4 files" /tmp/out || hc_fail "no summary line"
	hc_s3_curl "/$BUCKET/ck/.hypercache/index.json" >/tmp/index.json
	cat /tmp/index.json
	grep -q '"current":"step-1"' /tmp/index.json || hc_fail "step-1 not current"
	hc_s3_curl "/$BUCKET/ck/step-1/sub/rng.bin" -o /tmp/rng.bin
	cmp /tmp/rng.bin /tmp/src/step-1/sub/rng.bin || hc_fail "the 20 MB file differs in S3"
	[ "$(status step-1)" = flushed ] || hc_fail "status is not flushed"
	# from the gateway back into the cache
	while read -r k; do
		hcctl evict "$TOP/step-1/$k" || hc_fail "evict step-1/$k"
	done </tmp/src/step-1.list
	[ "$(restored)" = step-1 ] || { cat /tmp/rs.json /tmp/rs.err; hc_fail "restore did not take step-1"; }
	cat /tmp/rs.json
	while read -r k; do
		hcctl get --no-progress --no-ingest -o /tmp/got "$TOP/step-1/$k" || hc_fail "step-1/$k not cached"
		cmp /tmp/got "/tmp/src/step-1/$k" || hc_fail "step-1/$k differs"
	done </tmp/src/step-1.list
}

t_s3_crash() {
	BIG=300000 mk_dataset step-2 600
	rc=0
	HC_FLUSH_CRASH_AFTER=2 hcctl flush --config /tmp/hc.conf --sync "$TOP/step-2/" >/tmp/out 2>&1 || rc=$?
	cat /tmp/out
	[ $rc = 137 ] || hc_fail "exit status $rc, not 137"
	[ "$(status step-2)" = interrupted ] || hc_fail "step-2 is not interrupted"
	[ "$(restored)" = step-1 ] || hc_fail "restore did not take step-1"
	hcctl flush --config /tmp/hc.conf --sync "$TOP/step-2/" || hc_fail "rerun failed"
	[ "$(status step-2)" = flushed ] || hc_fail "step-2 is not flushed"
	[ "$(restored)" = step-2 ] || hc_fail "restore did not take step-2"
	hc_s3_curl "/$BUCKET/ck/.hypercache/index.json" | grep -q '"name":"step-1"' ||
		hc_fail "step-1 lost from the index"
}

if [ -n "${HC_S3_ENDPOINT:-}" ]; then
	BUCKET=hcflush-$(cut -c1-8 /proc/sys/kernel/random/uuid)
	TOP=s3://$BUCKET/ck
	hc_test flush-s3-setup t_s3_setup
	hc_test flush-s3-round-trip t_s3_round_trip
	hc_test flush-s3-crash t_s3_crash
else
	TOP=hypercache://store/ck
	hc_test flush-setup t_setup
	hc_test flush-two t_two
	for k in 1 2 3 4 5; do
		hc_test flush-crash-$k t_crash $k
	done
	hc_test flush-sync-waits t_sync_waits
	hc_test restore-fallback t_restore
fi
