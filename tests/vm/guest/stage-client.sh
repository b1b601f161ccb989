#!/bin/sh
# Usage (guest, via /init): stage-client.sh
#
# The Python package (python/) over libhypercache and the guest's kernel, on
# three fresh 128 MiB drives: python/tests/guest_client.py runs chrooted in
# the host's root (hc_host_run), which the guest mounts read-only over
# virtio-9p, so the host's /usr/bin/python3 and Debian's fsspec, numpy and
# torch are what it imports; the library is the tree's build/lib/.
. /hc/tests/lib.sh

members="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

py() {
	hc_host_run env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=python \
		HYPERCACHE_LIB="$HC_HOST_TREE/build/lib/libhypercache.so.1" \
		/usr/bin/python3 python/tests/guest_client.py "$1"
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

hc_test client-create t_create
hc_test client-py-fsspec t_fsspec
hc_test client-py-safetensors t_safetensors
hc_test client-py-torch t_torch
