# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The Python package against the real library and kernel (VM guest, run
chrooted in the host's root by tests/vm/guest/stage-client.sh).

    guest_client.py fsspec|safetensors|torch
    guest_client.py torch-big MIB      torch.save/torch.load of a MIB MiB
                                       state dict, by URI and through
                                       fsspec.open, tensors equal
    guest_client.py torch-cold BUCKET  torch.load of an object that is only
                                       in S3 (hypercached ingests it)

Each prints one line per check and exits 1 if any failed.  Objects are
committed READY (clean) so that they can be evicted without a helper.
"""
import errno
import gc
import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import fsspec	# noqa: E402
import numpy as np	# noqa: E402

import hypercache	# noqa: E402
from hypercache import safetensors as hst	# noqa: E402
from hypercache.fs import HyperCacheFileSystem	# noqa: E402

failures = 0


def check(what, ok):
	global failures
	print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)
	failures += not ok


def t_fsspec():
	data = os.urandom(40 << 20) + b"tail"
	with fsspec.open("hypercache://s3/bkt/py/a.bin", "wb", clean=True) as f:
		for i in range(0, len(data), 3 << 20):
			f.write(data[i:i + (3 << 20)])
	fs = HyperCacheFileSystem()
	info = fs.info("s3/bkt/py/a.bin")
	check("fsspec write: an object of 40 MiB + 4, ready",
	      info["size"] == len(data) and info["state"] == "ready")
	with fsspec.open("hypercache://s3/bkt/py/a.bin", "rb") as f:
		buf = bytearray(len(data))
		n = f.readinto(buf)
		f.seek(12345)
		part = f.read(5000)
	check("fsspec read: readinto of the whole, seek and read",
	      n == len(data) and bytes(buf) == data and
	      part == data[12345:17345])
	with fs.open("s3/bkt/py/b.bin", "wb", clean=True) as f:
		f.write(b"small")
	check("ls", fs.ls("s3/bkt/py", detail=False) ==
	      ["s3/bkt/py/a.bin", "s3/bkt/py/b.bin"])
	check("find", fs.find("s3/bkt") == ["s3/bkt/py/a.bin", "s3/bkt/py/b.bin"])
	check("exists", fs.exists("s3/bkt/py") and not fs.exists("s3/bkt/no"))
	out = subprocess.run([sys.executable, "-m", "hypercache", "cat",
			      "hypercache://s3/bkt/py/a.bin"], check=False,
			     capture_output=True, cwd=os.path.join(HERE, ".."))
	check("python -m hypercache cat", out.returncode == 0 and
	      hashlib.sha256(out.stdout).digest() ==
	      hashlib.sha256(data).digest())
	out = subprocess.run([sys.executable, "-m", "hypercache", "--no-ingest",
			      "cat", "hypercache://s3/bkt/py/none"],
			     check=False, capture_output=True,
			     cwd=os.path.join(HERE, ".."))
	check("python -m hypercache cat of a miss: exit 1 naming it",
	      out.returncode == 1 and b"s3://bkt/py/none" in out.stderr)
	try:
		HyperCacheFileSystem(ingest=False).open("s3/bkt/py/none")
		check("a miss raises", False)
	except FileNotFoundError as e:
		check("a miss: FileNotFoundError naming it",
		      e.errno == errno.ENOENT and e.filename == "s3://bkt/py/none")
	with fs.open("s3/bkt/py/b.bin", "rb"):
		try:
			fs.rm("s3/bkt/py/b.bin")
			check("rm of a held object fails", False)
		except OSError as e:
			check("rm of a held object: EBUSY", e.errno == errno.EBUSY)
	fs.rm("s3/bkt/py", recursive=True)
	check("rm: evicted", not fs.exists("s3/bkt/py/a.bin") and
	      not fs.exists("s3/bkt/py/b.bin"))


def t_safetensors():
	src = {"w": np.random.rand(1024, 1280).astype(np.float32),
	       "i": np.arange(1000, dtype=np.int64),
	       "e": np.zeros((0, 7), dtype=np.float16)}
	hst.save_file(src, "hypercache://models/py/m.safetensors", clean=True,
		      metadata={"format": "np"})
	for mapping in hst.MAPPINGS:	# private (the default), device
		f = hst.safe_open("hypercache://models/py/m.safetensors", "np",
				  mapping=mapping)
		check("safe_open (%s): keys and metadata" % mapping,
		      f.keys() == ["e", "i", "w"] and
		      f.metadata() == {"format": "np"})
		lo, hi = f._map.addr, f._map.addr + f._map.size
		ok = True
		for k, a in src.items():
			b = f.get_tensor(k)
			ok = ok and b.dtype == a.dtype and np.array_equal(a, b)
			if b.size:
				p = b.__array_interface__["data"][0]
				ok = ok and lo <= p < hi
		check("load (numpy, %s mapping): equal, and each array views "
		      "the mapping" % mapping, ok)
		del f, b	# the last view: the mapping and its hold go with it
		gc.collect()
	HyperCacheFileSystem().rm("models/py/m.safetensors")


def t_torch():
	import torch
	from hypercache import torch as hct

	sd = {"w%d" % k: torch.randn(512, 1024) for k in range(8)}	# 16 MiB
	hct.save(sd, "hypercache://s3/bkt/pt/ckpt.pt", clean=True)
	back = hct.load("hypercache://s3/bkt/pt/ckpt.pt", map_location="cpu")
	check("torch save/load: equal", all(torch.equal(back[k], sd[k])
					       for k in sd))
	with fsspec.open("hypercache://s3/bkt/pt/f.pt", "wb", clean=True) as f:
		torch.save(sd, f)
	with fsspec.open("hypercache://s3/bkt/pt/f.pt", "rb") as f:
		back = torch.load(f)
	check("torch through fsspec.open: equal",
	      all(torch.equal(back[k], sd[k]) for k in sd))
	hst.save_file(sd, "hypercache://s3/bkt/pt/m.safetensors", clean=True)
	f = hst.safe_open("hypercache://s3/bkt/pt/m.safetensors")
	lo, hi = f._map.addr, f._map.addr + f._map.size
	ok = True
	for k in sd:
		t = f.get_tensor(k)
		ok = ok and torch.equal(t, sd[k]) and lo <= t.data_ptr() < hi
	check("safetensors (torch): equal, storage inside the mapping", ok)
	del f, t
	gc.collect()
	for k in range(64):
		with fsspec.open("hypercache://s3/bkt/pt/ds/%03d" % k, "wb",
				 clean=True) as f:
			f.write(b"%03d" % k * 1000)
	ds = hct.ShardedDataset("s3/bkt/pt/ds", index=0, count=1)
	dl = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4,
					 worker_init_fn=hct.worker_init_fn)
	seen = list(dl)
	check("ShardedDataset, num_workers=4: every item once, bytes equal",
	      sorted(seen) == [b"%03d" % k * 1000 for k in range(64)])
	HyperCacheFileSystem().rm("s3/bkt/pt", recursive=True)


def big_state_dict(mib, seed):
	"""mib MiB of float32 tensors of 16 MiB, tensor k from seed + k (so
	that a check can make them again one at a time)."""
	import torch

	sd, n, k = {}, mib << 20, 0
	while n > 0:
		b = min(n, 16 << 20)
		g = torch.Generator().manual_seed(seed + k)
		sd["layer%03d" % k] = torch.rand(b // 4, generator=g)
		n -= b
		k += 1
	return sd


def equal_to_made(back, mib, seed):
	"""back equals big_state_dict(mib, seed), made again tensor by tensor
	(never two state dicts of a GiB in memory at once)."""
	import torch

	n, k, ok = mib << 20, 0, True
	while n > 0:
		b = min(n, 16 << 20)
		g = torch.Generator().manual_seed(seed + k)
		t = back.pop("layer%03d" % k, None)
		ok = ok and t is not None and torch.equal(
			t, torch.rand(b // 4, generator=g))
		n -= b
		k += 1
	return ok and not back


def t_torch_big():
	import torch
	from hypercache import torch as hct

	mib = int(sys.argv[2])
	fs = HyperCacheFileSystem()
	uri = "hypercache://s3/bkt/big/ckpt.pt"
	sd = big_state_dict(mib, 100)
	hct.save(sd, uri, clean=True)
	sd = None
	info = fs.info(uri)
	check("torch.save of %d MiB: an object, ready" % mib,
	      info["state"] == "ready" and info["size"] > mib << 20)
	check("torch.load of %d MiB: tensors equal" % mib,
	      equal_to_made(hct.load(uri, map_location="cpu"), mib, 100))
	fs.rm(uri)
	uri = "hypercache://s3/bkt/big/f.pt"
	sd = big_state_dict(mib, 200)
	with fsspec.open(uri, "wb", clean=True) as f:
		torch.save(sd, f)
	sd = None
	with fsspec.open(uri, "rb") as f:
		back = torch.load(f, map_location="cpu")
	check("torch.save/torch.load of %d MiB through fsspec.open: equal" % mib,
	      equal_to_made(back, mib, 200))
	back = None
	fs.rm(uri)


def t_torch_cold():
	"""The object is put in S3 with boto3 (never through the cache); its
	torch.load through hypercache:// is a miss that hypercached ingests."""
	import boto3
	import io
	import torch
	from hypercache import torch as hct

	bucket, key, mib = sys.argv[2], "cold/ckpt.pt", 24
	buf = io.BytesIO()
	torch.save(big_state_dict(mib, 300), buf)
	s3 = boto3.client("s3", endpoint_url=os.environ["HC_S3_ENDPOINT"])
	s3.put_object(Bucket=bucket, Key=key, Body=buf.getvalue())
	fs = HyperCacheFileSystem()
	path = "s3/%s/%s" % (bucket, key)
	check("before: not cached", not fs.exists(path))
	try:
		HyperCacheFileSystem(ingest=False).open(path)
		check("before: a miss without ingest raises", False)
	except FileNotFoundError:
		check("before: a miss without ingest is FileNotFoundError", True)
	back = hct.load("hypercache://" + path, map_location="cpu")
	check("cold torch.load of s3://%s/%s (%d MiB): equal" % (bucket, key, mib),
	      equal_to_made(back, mib, 300))
	info = fs.info(path)
	check("after: cached, ready, the object's size",
	      info["state"] == "ready" and info["size"] == len(buf.getvalue()))
	fs.rm(path)
	s3.delete_object(Bucket=bucket, Key=key)


if __name__ == "__main__":
	{"fsspec": t_fsspec, "safetensors": t_safetensors,
	 "torch": t_torch, "torch-big": t_torch_big,
	 "torch-cold": t_torch_cold}[sys.argv[1]]()
	print("%d failed" % failures)
	sys.exit(1 if failures else 0)
