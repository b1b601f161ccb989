# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The Python figures of scripts/bench-client.sh (VM guest, run chrooted in
the host's root by tests/vm/guest/stage-bench-client.sh, in the same boot
and on the same three drives as the C figures).

    guest_bench.py pool SAVE_MIB LOAD_MIB ST_MIB
        with the pool assembled: torch.save of a SAVE_MIB state dict to
        hypercache:// (durable when it returns), warm torch.load of a
        LOAD_MIB one (cached, the page cache dropped), zero-copy
        safetensors load of an ST_MIB file with every tensor touched
    guest_bench.py ext4 DIR SAVE_MIB LOAD_MIB ST_MIB
        the peers on ext4 over md raid0 of the same drives, mounted at DIR:
        torch.save + fsync, torch.load, numpy reads of the safetensors file
    guest_bench.py s3 SAVE_MIB
        boto3's synchronous upload of the bytes torch.save writes for the
        SAVE_MIB state dict to $HC_S3_ENDPOINT (put_object of one body;
        once, whatever HC_BENCH_REPEAT says)

Each prints "name=seconds" lines (the caller keeps them) and exits 1 on an
error.  With HC_BENCH_REPEAT=R each timed step runs R times (the page cache
dropped before each load) and prints the median, and every run's seconds as
"name_runs=S,S,...".  With HC_BENCH_PROFILE=1 (scripts/bench-client.sh --profile) each
timed step also prints "prof name ..." lines: the process's read and write
system calls and block-device bytes over the step (/proc/self/io, every
thread's) and cProfile's top functions by their own time.  The state dicts are made the same way in every phase (float32
tensors of 16 MiB filled from a seed), so the peers store the same bytes.
"""
import gc
import io
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import numpy as np	# noqa: E402
import torch	# noqa: E402

from hypercache import safetensors as hst	# noqa: E402
from hypercache import torch as hct	# noqa: E402

TENSOR = 16 << 20	# bytes per tensor
PAGE = 4096
HCCTL = os.path.join(HERE, "..", "..", "tools", "hcctl", "hcctl")


def state_dict(mib, seed):
    """mib MiB of float32 tensors of 16 MiB (the last one shorter)."""
    g = torch.Generator().manual_seed(seed)
    n, sd = mib << 20, {}
    k = 0
    while n > 0:
        b = min(n, TENSOR)
        sd["layer%03d.weight" % k] = torch.rand(b // 4, generator=g)
        n -= b
        k += 1
    return sd


def arrays(mib, seed):
    return {k: v.numpy() for k, v in state_dict(mib, seed).items()}


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def touch(a):
    """Read one byte of every page of the array (what a model load does
    before it computes: all its bytes come in); returns a checksum."""
    return int(a.reshape(-1).view(np.uint8)[::PAGE].sum())


def proc_io():
    with open("/proc/self/io") as f:
        return dict((k, int(v)) for k, v in (ln.split(": ") for ln in f))


def profiled(name, fn):
    import cProfile
    import pstats

    io0 = proc_io()
    prof = cProfile.Profile()
    out = prof.runcall(fn)
    io1 = proc_io()
    print("prof %s io %s" % (name, " ".join(
        "%s=%d" % (k, io1[k] - io0[k]) for k in
        ("syscr", "syscw", "rchar", "wchar", "read_bytes", "write_bytes"))))
    st = pstats.Stats(prof, stream=io.StringIO())
    st.sort_stats("tottime")
    for fn_ in st.fcn_list[:12]:
        cc, nc, tt, ct, _ = st.stats[fn_]
        print("prof %s fn %s:%d(%s) calls=%d tottime=%.3f cumtime=%.3f"
              % (name, os.path.basename(fn_[0]), fn_[1], fn_[2], nc, tt, ct))
    return out


def timed(name, fn, before=None):
    """Run fn HC_BENCH_REPEAT times (default 1), ``before`` ahead of each
    run untimed (say, dropping the page cache); print the median seconds
    as "name=S" and every run's as "name_runs=S,S,..."; fn's last result."""
    if os.environ.get("HC_BENCH_PROFILE") == "1":
        fn = (lambda f: lambda: profiled(name, f))(fn)
    runs = []
    out = None
    for _ in range(max(1, int(os.environ.get("HC_BENCH_REPEAT", "1")))):
        out = None	# the last run's result gone first (and collected:
        gc.collect()	# a mapping is a cycle): a mapping kept its pages out
        # of drop_caches' reach, and the next load was warm
        if before is not None:
            before()
        t0 = time.monotonic()
        out = fn()
        runs.append(time.monotonic() - t0)
    med = sorted(runs)[len(runs) // 2]
    print("%s=%.3f" % (name, med), flush=True)
    if len(runs) > 1:
        print("%s_runs=%s" % (name, ",".join("%.3f" % r for r in runs)),
              flush=True)
    return out


def same(a, b, what):
    if not all(torch.equal(a[k], b[k]) for k in a) or a.keys() != b.keys():
        sys.exit("guest_bench: %s: the tensors differ" % what)


def discard(uri):
    """Evict a DIRTY object (no helper uploads it here): the pool then has
    room for the next repetition, which is a new object as ext4's is a new
    file (a DIRTY object is not replaced: STAGE says EBUSY)."""
    import subprocess

    subprocess.run([HCCTL, "evict", "--discard-dirty", uri],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def phase_pool(save_mib, load_mib, st_mib):
    sd = state_dict(save_mib, 1)
    timed("torch_save_hc_s", lambda: hct.save(sd, "hypercache://bench/py/save.pt"),
          lambda: discard("hypercache://bench/py/save.pt"))
    # for the record (not in the result line): the write-behind with one
    # block in flight (as before 2026-12-03's change) and with three
    from hypercache import fs as hfs
    if hasattr(hfs._WriteBehind, "DEPTH"):
        depth = hfs._WriteBehind.DEPTH
        for d in (1, 3):
            hfs._WriteBehind.DEPTH = d
            timed("torch_save_hc_depth%d_s" % d,
                  lambda: hct.save(sd, "hypercache://bench/py/save.pt"),
                  lambda: discard("hypercache://bench/py/save.pt"))
        hfs._WriteBehind.DEPTH = depth
    sd = None
    sd = state_dict(load_mib, 2)
    hct.save(sd, "hypercache://bench/py/load.pt", clean=True)
    back = timed("torch_load_hc_s", lambda: hct.load(
        "hypercache://bench/py/load.pt", map_location="cpu"), drop_caches)
    same(sd, back, "torch.load from hypercache://")
    back = None
    # for the record (not in the result line): two windows read ahead
    if hasattr(hfs._ReadAhead, "AHEAD"):
        ahead = hfs._ReadAhead.AHEAD
        hfs._ReadAhead.AHEAD = 2
        timed("torch_load_hc_ahead2_s", lambda: hct.load(
            "hypercache://bench/py/load.pt", map_location="cpu"), drop_caches)
        hfs._ReadAhead.AHEAD = ahead
    sd = None
    phase_pool_st(st_mib)


def phase_pool_st(st_mib):
    src = arrays(st_mib, 3)
    hst.save_file(src, "hypercache://bench/py/m.safetensors", clean=True)

    def load():
        f = hst.safe_open("hypercache://bench/py/m.safetensors", "np")
        return f, sum(touch(f.get_tensor(k)) for k in f.keys())
    f, got = timed("st_load_hc_s", load, drop_caches)
    if got != sum(touch(a) for a in src.values()):
        sys.exit("guest_bench: safetensors from hypercache://: bytes differ")
    f = None

    def load_device():
        f = hst.safe_open("hypercache://bench/py/m.safetensors", "np",
                          mapping="device")
        return f, sum(touch(f.get_tensor(k)) for k in f.keys())
    # the other mapping (the device's page cache), for the record (not in
    # the result line), where the package has it
    import inspect
    if "mapping" not in inspect.signature(hst.safe_open).parameters:
        return
    f, got = timed("st_load_hc_device_s", load_device, drop_caches)
    if got != sum(touch(a) for a in src.values()):
        sys.exit("guest_bench: safetensors (device mapping) from "
                 "hypercache://: bytes differ")


def phase_ext4(d, save_mib, load_mib, st_mib):
    sd = state_dict(save_mib, 1)

    def save():
        with open(os.path.join(d, "save.pt"), "wb") as f:
            torch.save(sd, f)
            f.flush()
            os.fsync(f.fileno())

    def unlink():
        if os.path.exists(os.path.join(d, "save.pt")):
            os.unlink(os.path.join(d, "save.pt"))
            os.sync()
    timed("torch_save_ext4_s", save, unlink)
    sd = None
    sd = state_dict(load_mib, 2)
    p = os.path.join(d, "load.pt")
    torch.save(sd, p)
    back = timed("torch_load_ext4_s", lambda: torch.load(p, map_location="cpu"),
                 drop_caches)
    same(sd, back, "torch.load from ext4")
    sd = back = None
    src = arrays(st_mib, 3)
    head, bufs = hst.serialize(src)
    p = os.path.join(d, "m.safetensors")
    with open(p, "wb") as f:
        f.write(head)
        for b in bufs:
            f.write(b)
        f.flush()
        os.fsync(f.fileno())

    def load():
        size = os.path.getsize(p)
        out = {}
        with open(p, "rb") as f:
            head = f.read(8)
            head += f.read(int.from_bytes(head, "little"))
            _, tensors, _ = hst.parse_header(head, size, p)
            for k, (dt, shape, begin, end) in tensors.items():
                f.seek(begin)
                a = np.fromfile(f, dtype=np.dtype(hst.DTYPES[dt][1]),
                                count=(end - begin) // hst.DTYPES[dt][0])
                out[k] = a.reshape(shape)
        return sum(touch(a) for a in out.values())
    if timed("st_load_ext4_s", load, drop_caches) != sum(
            touch(a) for a in src.values()):
        sys.exit("guest_bench: safetensors from ext4: bytes differ")


def phase_s3(save_mib):
    import boto3

    os.environ["HC_BENCH_REPEAT"] = "1"	# minutes per upload under TCG
    buf = io.BytesIO()
    torch.save(state_dict(save_mib, 1), buf)
    body = buf.getvalue()
    s3 = boto3.client("s3", endpoint_url=os.environ["HC_S3_ENDPOINT"])
    bucket = "wt-client-bench-%d" % os.getpid()
    s3.create_bucket(Bucket=bucket)
    try:
        timed("torch_save_boto3_s", lambda: s3.put_object(
            Bucket=bucket, Key="save.pt", Body=body))
        if s3.head_object(Bucket=bucket, Key="save.pt")["ContentLength"] != len(body):
            sys.exit("guest_bench: boto3: the object's size differs")
    finally:
        s3.delete_object(Bucket=bucket, Key="save.pt")
        s3.delete_bucket(Bucket=bucket)


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["pool"] and len(a) == 4:
        phase_pool(*map(int, a[1:]))
    elif a[:1] == ["ext4"] and len(a) == 5:
        phase_ext4(a[1], *map(int, a[2:]))
    elif a[:1] == ["s3"] and len(a) == 2:
        phase_s3(int(a[1]))
    else:
        sys.exit(__doc__)
