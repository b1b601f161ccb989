#!/bin/bash
# make check-reliability: hypercached's scrape of a pool of 1,000,000
# objects takes under 50 ms in the guest (stage-scrape.sh); 84-metrics
# runs a 10,000-object slice.  HC_SCRAPE_N overrides the count.  The limit
# is 50 ms times HC_TIMEOUT_SCALE (a loaded host slows the emulated guest:
# 45-97 ms were seen for 10,000 objects at load 12 on 2 cores).  The pool
# is built from journal records (hc_jpoke objects) and one assembly: STAGE
# + COMMIT took 2.7 ms per object there (hc_jfill: a flushed record per
# COMMIT), about 45 minutes for 1,000,000.
vm_images 1 65536
vm_boot scrape --verbose --args "n=${HC_SCRAPE_N:-1000000},limit_ms=$((50 * ${HC_TIMEOUT_SCALE:-1}))" \
	--timeout 5400
