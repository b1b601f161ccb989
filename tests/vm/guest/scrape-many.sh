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
#       objects (the median of the five under LIMIT_MS, and so the mean
#       of hypercached's own part: the netlink request and the page,
#       hypercache_exporter_seconds_total).  The times go to the log
#       (hc_log), with those of the empty pool before (the baseline: the
#       scrape does not walk the index, so they should not differ), the
#       fill's, and the phases measured from outside (hc_scrapetime: the
#       netlink request alone, HTTP, and an OBJ_GET dump for comparison).
#       hypercached and the pool are stopped at the end.

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
		[ $_i = 1 ] && cp /tmp/many.page /tmp/many.first
	done
	_med=$(echo $_times | tr ' ' '\n' | sort -n | sed -n 3p)
	_bad=""
	awk -v t="$_med" -v l="$1" 'BEGIN { exit !(t < l) }' || _bad=" median $_med"
	exporter_ms /tmp/many.first /tmp/many.page
}

# exporter_ms FIRST LAST: $_own = "kernel K ms, render R ms" per scrape,
# the means of the scrapes between two pages, from the exporter's own
# counters (hypercache_exporter_seconds_total{phase}), and $_own_ms = K + R
exporter_ms() {
	_own_ms=$(awk '
		$1 == "hypercache_exporter_scrapes_total" { n[FILENAME] = $2 }
		$1 == "hypercache_exporter_seconds_total{phase=\"kernel\"}" { k[FILENAME] = $2 }
		$1 == "hypercache_exporter_seconds_total{phase=\"render\"}" { r[FILENAME] = $2 }
		END {
			d = n[ARGV[2]] - n[ARGV[1]]
			if (d <= 0) { print "-1 -1"; exit }
			printf "%.2f %.2f\n", (k[ARGV[2]] - k[ARGV[1]]) * 1000 / d,
				(r[ARGV[2]] - r[ARGV[1]]) * 1000 / d
		}' "$1" "$2")
	set -- $_own_ms
	[ "$1" != -1 ] || hc_fail "the exporter did not count its scrapes"
	_own_ms=$(awk -v k="$1" -v r="$2" 'BEGIN { printf "%.2f", k + r }')
	_own="kernel $1 ms, render $2 ms"
}

# phases: the same scrape's parts measured from outside hypercached, in one
# process each (hc_scrapetime): the netlink request alone, the object dump
# (what a per-object exporter would read), and HTTP to the first byte
phases() {
	hc_log "$1: $(hc_scrapetime stats 50) / $(hc_scrapetime http 127.0.0.1 9110 10)"
	hc_log "$1: $(hc_scrapetime dump)"
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
	: >/tmp/many.out
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
	hc_log "0 objects: scrapes took$_times ms, median $_med; in hypercached: $_own"
	phases "0 objects"
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
	# as for the baseline: the writes settled, one scrape to warm up (the
	# first scrapes after a 100,000-object assembly on 6.12 took 220 ms
	# while hypercached's own part was 18 ms and hc_scrapetime's HTTP a
	# moment later 54 ms)
	sync
	sleep 2
	curl -sf --max-time 30 -o /tmp/many.page http://127.0.0.1:9110/metrics ||
		hc_fail "scrape failed"
	scrape5 "$_limit"
	grep -qx "hypercache_cached_objects_count $_n" /tmp/many.page ||
		hc_fail "the page does not count $_n objects: $(grep '^hypercache_cached_objects_count' /tmp/many.page)"
	_t0=$(cut -d' ' -f1 /proc/uptime)
	hcctl stats --json >/dev/null || hc_fail "hcctl stats failed"
	hc_log "$_n objects: scrapes took$_times ms, median $_med (limit $_limit ms); in hypercached: $_own; hcctl stats --json $(ms_since "$_t0") ms"
	phases "$_n objects"
	awk -v t="$_own_ms" -v l="$_limit" 'BEGIN { exit !(t < l) }' ||
		_bad="$_bad; hypercached's own part $_own_ms ms ($_own)"
	kill -TERM $_pid
	wait $_pid
	hcctl pool stop >/dev/null || hc_fail "pool stop failed"
	[ -z "$_bad" ] || hc_fail "scrapes of $_n objects over $_limit ms:$_bad ms (all:$_times)"
}
