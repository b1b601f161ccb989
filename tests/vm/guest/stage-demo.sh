#!/bin/sh
# Usage (guest, via /init): stage-demo.sh drives=N
#
# The README's demo: create a pool on the emulated NVMe drives, write data
# through /dev/hypercache0, read it back and compare, show the pool.
. /hc/tests/lib.sh

drives=3
for a in "$@"; do
	case "$a" in
	drives=*) drives=${a#drives=} ;;
	esac
done
members=""
i=0
while [ $i -lt "$drives" ]; do
	members="$members $(hc_drive $i)"
	i=$((i + 1))
done

say() {
	echo "demo\$ $*" >/dev/console
	"$@" >/dev/console 2>&1
}

t_demo() {
	say hcctl pool create $members
	say dd if=/dev/urandom of=/tmp/data bs=1M count=64
	# the write fence admits writes only to staged objects
	hc_stage_hold demo/raw 67108864
	say cat /tmp/stage.out
	say dd if=/tmp/data of=/dev/hypercache0 bs=4M oflag=direct conv=fsync \
		seek="$(($(sed -n 1p /tmp/stage.out | cut -d' ' -f1) / 4194304))"
	hc_stage_release
	say dd if=/dev/hypercache0 of=/tmp/back bs=4M count=16 iflag=direct \
		skip="$(($(sed -n 1p /tmp/stage.out | cut -d' ' -f1) / 4194304))"
	say cmp /tmp/data /tmp/back
	echo "demo: 64 MiB written through /dev/hypercache0 and read back identical" >/dev/console
	say hcctl status
	say hcctl geometry
	say cat /sys/block/hypercache0/queue/optimal_io_size
	say hcctl pool stop
}

hc_test demo t_demo
