#!/bin/sh
# Usage (guest, via /init): stage-demo.sh drives=N
#
# The README's demo: create a pool on the emulated NVMe drives, store a
# "model file" as an object (hcctl put), read it back (hcctl get), compare,
# and show the object's layout over the drives, the cache and the pool.
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
	dd if=/dev/urandom of=/tmp/model.safetensors bs=1M count=40 2>/dev/null
	say hcctl put --no-progress --clean /tmp/model.safetensors \
		s3://models/llama/model.safetensors
	dd if=/dev/urandom of=/tmp/ckpt.pt bs=1M count=9 2>/dev/null
	say hcctl put --no-progress /tmp/ckpt.pt s3://ckpt/run1/step-100.pt
	say hcctl get --no-progress -o /tmp/back.safetensors \
		s3://models/llama/model.safetensors
	say cmp /tmp/model.safetensors /tmp/back.safetensors
	echo "demo: 40 MiB object written through /dev/hypercache0 and read back identical" >/dev/console
	say hcctl locate --layout s3://models/llama/model.safetensors
	say hcctl ls
	say hcctl stats
	say hcctl status
	say hcctl evict s3://models/llama/model.safetensors
	say hcctl ls
}

hc_test demo t_demo
