#!/bin/bash
# Usage: scripts/kernels.sh
#
# Prints, one per line, the supported kernels installed on this machine that
# have both an image (/boot/vmlinuz-K) and headers (/lib/modules/K/build):
# the newest 6.1 (Debian 12) and the newest 6.12 LTS (bookworm-backports).
# `make modules-all` builds for these; `make check` runs the VM suite on
# each.  HC_KVERS, if set, replaces the list (e.g. HC_KVERS=6.1.0-57-amd64).
set -euo pipefail
if [ -n "${HC_KVERS:-}" ]; then
	tr ' ' '\n' <<<"$HC_KVERS" | sed '/^$/d'
	exit 0
fi
for series in 6.1 6.12; do
	best=""
	for b in /lib/modules/"$series".*/build; do
		[ -d "$b" ] || continue
		k=$(basename "$(dirname "$b")")
		[ -f "/boot/vmlinuz-$k" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$k" | sed '/^$/d' | sort -V | tail -n1)
	done
	[ -z "$best" ] || echo "$best"
done
