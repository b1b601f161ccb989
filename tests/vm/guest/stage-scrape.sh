#!/bin/sh
# Usage (guest, via /init): stage-scrape.sh [n=N] [limit_ms=MS]
#   (one drive of 64 GiB, sparse: its 16,384 chunks size the index's hash
#   table at 2^16 buckets, so that N STAGEs do not walk long chains)
#
#   scrape-million   a pool of N (default 1,000,000) empty objects (their
#                    journal records written by hc_jpoke, then assembled); five scrapes of hypercached's /metrics:
#                    their median under MS (default 50) ms (issue 13, point 2)
. /hc/tests/lib.sh
. /hc/tests/scrape-many.sh

N=1000000 LIMIT=50
for a in $HC_ARGS; do
	case "$a" in
	n=*) N=${a#n=} ;;
	limit_ms=*) LIMIT=${a#limit_ms=} ;;
	esac
done

t_million() {
	# 1 GiB + 256 MiB of metadata: two journal halves of 640 MiB, room
	# for 1.3 million records of 512 bytes
	scrape_many "$N" "$LIMIT" "$(hc_drive 0)" 1280M
}

hc_test scrape-million t_million
