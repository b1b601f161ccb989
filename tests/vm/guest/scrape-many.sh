#!/bin/sh
# Sourced by stage-scrape.sh (1,000,000 objects, make check-reliability) and
# stage-metrics.sh (its 10,000-object slice): the exporter's scrape time on
# a pool of many objects.
#
#   scrape_many N LIMIT_MS DRIVE DATA_OFFSET
#       create a one-member pool on DRIVE with a metadata area of
#       DATA_OFFSET (the journal's two halves share it: each object takes
#       one 512-byte record, so a half must hold N of them), start
#       hypercached with its exporter on 127.0.0.1:9110, give the pool N
#       empty READY objects (hc_jpoke objects: their journal records, then
#       an assembly replays them), and scrape /metrics 5 times: every
#       scrape must take less than LIMIT_MS milliseconds and show N cached
#       objects (the median of the five under LIMIT_MS).  The times go to the log (hc_log), with those of the
#       empty pool before (the baseline: the scrape does not walk the
#       index, so they should not differ) and the fill's.  hypercached and the
#       pool are stopped at the end.

# scrape5 LIMIT_MS: five timed scrapes of the exporter; their times (ms) in
# $_times, their median in $_med, and $_bad set when the median is not
# under LIMIT_MS.  The median, not the slowest: on a loaded host the
# emulated guest stalls now and then for hundreds of milliseconds, the empty
# pool's scrapes as much as a million objects' (r-scrape's log: 46, 342,
# 56, 860, 49 ms for none)
scrape5() {
	_times=""
	for _i in 1 2 3 4 5; do
		_t=$(curl -sf --max-time 30 -o /tmp/many.page -w '%{time_total}' \
			http://127.0.0.1:9110/metrics) || hc_fail "scrape $_i failed"
		_times="$_times $(awk -v t="$_t" 'BEGIN { printf "%.1f", t * 1000 }')"
	done
	_med=$(echo $_times | tr ' ' '\n' | sort -n | sed -n 3p)
	_bad=""
	awk -v t="$_med" -v l="$1" 'BEGIN { exit !(t < l) }' || _bad=" median $_med"
}

# ms_since T0: milliseconds since T0 (seconds from /proc/uptime)
ms_since() {
	awk -v t0="$1" '{ printf "%d\n", ($1 - t0) * 1000 }' /proc/uptime
}

scrape_many() {
	_n=$1 _limit=$2 _dev=$3 _off=$4
	hcctl pool create --force --data-offset "$_off" "$_dev" >/dev/null ||
		hc_fail "pool create --data-offset $_off $_dev failed"
	_cap=$(hcctl stats --json | grep -o '"journal_capacity": *[0-9]*' | sed 's/.*: *//')
	[ "$_cap" -ge $((_n * 512)) ] ||
		hc_fail "journal capacity $_cap bytes cannot hold $_n records of 512 bytes"
	mkdir -p /tmp/many
	cat >/tmp/many.conf <<-EOT
	[hypercached]
	metrics_listen = 127.0.0.1:9110

	[backend many]
	type = posix
	root = /tmp/many
	EOT
	hypercached -c /tmp/many.conf >/tmp/many.out 2>&1 &
	_pid=$!
	_i=0
	while ! grep -q 'metrics on http' /tmp/many.out; do
		_i=$((_i + 1))
		[ $_i -lt 300 ] || { cat /tmp/many.out; hc_fail "hypercached did not start its exporter"; }
		sleep 0.1
	done
	# the first scrape warms the exporter's page buffer; then five timed
	# of the empty pool, the baseline
	curl -sf --max-time 30 -o /tmp/many.page http://127.0.0.1:9110/metrics ||
		hc_fail "scrape failed"
	scrape5 1000000
	hc_log "0 objects: scrapes took$_times ms, median $_med"
	# the objects' records appended to the stopped pool's journal in one
	# write, then replayed by the assembly (STAGE + COMMIT take ~3 ms each
	# under TCG: 50 minutes for a million)
	hcctl pool stop >/dev/null || hc_fail "pool stop failed"
	_t0=$(cut -d' ' -f1 /proc/uptime)
	hc_jpoke objects s/ "$_n" "$_dev" >/tmp/jpoke.out 2>&1 ||
		hc_fail "hc_jpoke: $(tail -n 2 /tmp/jpoke.out)"
	_ms=$(ms_since "$_t0")
	_t0=$(cut -d' ' -f1 /proc/uptime)
	hcctl pool assemble "$_dev" >/dev/null || hc_fail "assembly of $_n objects failed"
	hc_log "$_n objects: journal written in $_ms ms, assembled in $(ms_since "$_t0") ms"
	_objs=$(hcctl stats --json | grep -o '"objects": *[0-9]*' | sed 's/.*: *//')
	[ "$_objs" = "$_n" ] || hc_fail "the pool has $_objs objects, not $_n"
	scrape5 "$_limit"
	grep -qx "hypercache_cached_objects_count $_n" /tmp/many.page ||
		hc_fail "the page does not count $_n objects: $(grep '^hypercache_cached_objects_count' /tmp/many.page)"
	_t0=$(cut -d' ' -f1 /proc/uptime)
	hcctl stats --json >/dev/null || hc_fail "hcctl stats failed"
	hc_log "$_n objects: scrapes took$_times ms, median $_med (limit $_limit ms); hcctl stats --json $(ms_since "$_t0") ms"
	kill -TERM $_pid
	wait $_pid
	hcctl pool stop >/dev/null || hc_fail "pool stop failed"
	[ -z "$_bad" ] || hc_fail "scrapes of $_n objects over $_limit ms:$_bad ms (all:$_times)"
}
