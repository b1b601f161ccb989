#!/bin/sh
# Usage (guest, via /init): stage-client.sh
#
# The Python package (python/) over libhypercache and the guest's kernel, on
# three fresh 512 MiB drives: python/tests/guest_client.py runs chrooted in
# the host's root (hc_host_run), which the guest mounts read-only over
# virtio-9p, so the host's /usr/bin/python3 and Debian's fsspec, numpy and
# torch are what it imports; the library is the tree's build/lib/.
# The torch round trips of 200 MiB and 1 GiB (by URI and through
# fsspec.open); a cold torch.load of an object only in S3 (the gateway of
# boot.sh --s3, a bucket of this boot's own), ingested by hypercached.
. /hc/tests/lib.sh
. /hc/tests/s3lib.sh

members="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

py() {
	hc_host_run env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=python \
		HYPERCACHE_LIB="$HC_HOST_TREE/build/lib/libhypercache.so.1" \
		/usr/bin/python3 python/tests/guest_client.py "$@"
}

t_create() {
	hcctl pool create $members >/dev/null || hc_fail "pool create failed"
}

t_fsspec() {
	py fsspec || hc_fail "guest_client.py fsspec failed"
}

t_safetensors() {
	py safetensors || hc_fail "guest_client.py safetensors failed"
}

t_torch() {
	py torch || hc_fail "guest_client.py torch failed"
}

t_torch_200m() {
	py torch-big 200 || hc_fail "guest_client.py torch-big 200 failed"
}

t_torch_1g() {
	py torch-big 1024 || hc_fail "guest_client.py torch-big 1024 failed"
}

t_torch_cold() {
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET at $EP"
	write_conf
	start_daemon
	py torch-cold "$BUCKET" || { tail -n 20 /tmp/hcd.out; hc_fail "guest_client.py torch-cold failed"; }
	stop_daemon
	s3curl -X DELETE "$EP/$BUCKET" >/dev/null || true
}

hc_test client-create t_create
hc_test client-py-fsspec t_fsspec
hc_test client-py-safetensors t_safetensors
hc_test client-py-torch t_torch
hc_test client-py-torch-200m t_torch_200m
hc_test client-py-torch-1g t_torch_1g
hc_test client-py-torch-cold-s3 t_torch_cold
