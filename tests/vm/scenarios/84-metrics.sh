#!/bin/bash
# hypercached's Prometheus exporter (stage-metrics.sh), scraped every second
# by a real Prometheus server on the host (Debian's prometheus package)
# through a forwarded port; the guest queries that server's API through
# 10.0.2.2.  A host loop keeps the newest page too, and `promtool check
# metrics` must find nothing in it but the seed's names it knowingly keeps
# (Documentation/metrics.md, "Lint").
# The scrape interval is 1 s (the seed's) on real hardware; here it is 2 s
# times HC_TIMEOUT_SCALE: the emulated guest, on a loaded host, was seen to
# take 1.2 s (scale 1) and 3.3 s (scale 3, 6.12) to answer a scrape while
# its ingest workers ran, and a scrape slower than its timeout (= the
# interval) is a failed one (up 0).
free_port() {
	/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

vm_images 3 128
fwd=$(free_port)
prom=$(free_port)
pdir=$VM_WORK/prometheus
rm -rf "$pdir"
mkdir -p "$pdir"
iv=$((2 * ${HC_TIMEOUT_SCALE:-1}))
cat >"$pdir/prometheus.yml" <<EOT
global:
  scrape_interval: ${iv}s
  scrape_timeout: ${iv}s
scrape_configs:
  - job_name: hypercache
    static_configs:
      - targets: ['127.0.0.1:$fwd']
EOT
ppid=""
if command -v prometheus >/dev/null; then
	prometheus --config.file="$pdir/prometheus.yml" --storage.tsdb.path="$pdir/data" \
		--web.listen-address="127.0.0.1:$prom" --log.level=warn >"$pdir/log" 2>&1 &
	ppid=$!
fi
# the newest page the exporter served while the pool ran, for promtool
( while :; do
	curl -sf --max-time 5 "http://127.0.0.1:$fwd/metrics" -o "$pdir/page.tmp" &&
		grep -q '^hypercache_pool_up 1' "$pdir/page.tmp" &&
		mv "$pdir/page.tmp" "$pdir/page"
	sleep 2
  done ) &
lpid=$!
vm_boot metrics --hostfwd "$fwd:9110" --args "scrape_ms=$((50 * ${HC_TIMEOUT_SCALE:-1}))${ppid:+,prom=$prom,interval=$iv}"
kill "$lpid" 2>/dev/null
wait "$lpid" 2>/dev/null
[ -n "$ppid" ] && { kill "$ppid"; wait "$ppid" 2>/dev/null; }

# promtool: only the seed's own names may break a lint rule
if ! command -v promtool >/dev/null; then
	vm_record "not ok" promtool "promtool not installed (Debian's prometheus package)"
elif [ ! -s "$pdir/page" ]; then
	vm_record "not ok" promtool "no page was scraped from the host"
else
	lint=$(promtool check metrics <"$pdir/page" 2>&1 | grep -v -E \
		'^hypercache_(active_devices_count|cached_objects_count) non-histogram and non-summary metrics should not have "_count" suffix$|^hypercache_(local_metadata_latency_us|remote_metadata_latency_us|local_ttfb_us) metric names should not contain abbreviated units$')
	if [ -z "$lint" ] && grep -q '^hypercache_pool_up 1' "$pdir/page"; then
		vm_record ok promtool
	else
		vm_record "not ok" promtool "$(echo "$lint" | head -n 3 | tr '\n' ' ')"
	fi
fi
