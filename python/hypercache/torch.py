# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""torch conveniences over ``hypercache://``.

``save(obj, path)`` streams ``torch.save`` into a growable stage and returns
once it is durable on the drives (``sync=True``: once uploaded);
``load(path, map_location=...)`` reads it back through the cache (a miss is
ingested first).  :class:`ShardedDataset` is a map-style Dataset over a list
or a prefix of objects that keeps this node's share and reads each item
through the cache; each DataLoader worker opens its own handles after the
fork (the library is per process).
"""
import os

import torch

from . import _lib
from .fs import HyperCacheFileSystem
from .uri import to_path

__all__ = ["save", "load", "ShardedDataset", "shard_of"]


def save(obj, path, sync=False, clean=False, **kwargs):
    """``torch.save(obj)`` into the object at ``path``; its generation."""
    fs = HyperCacheFileSystem(sync=sync, clean=clean)
    with fs.open(path, "wb") as f:
        torch.save(obj, f, **kwargs)
    return f.generation


def load(path, map_location=None, ingest=True, **kwargs):
    """``torch.load`` of the object at ``path``."""
    fs = HyperCacheFileSystem(ingest=ingest)
    with fs.open(path, "rb") as f:
        return torch.load(f, map_location=map_location, **kwargs)


# The node's place among N, from the same variables as
# `hcctl preload-batch --sharded` (tools/hcctl/shard.c): the first index
# variable set wins and names its count variable.
_SOURCES = (("SLURM_NODEID", "SLURM_NNODES"), ("RANK", "WORLD_SIZE"),
            ("JOB_COMPLETION_INDEX", "HC_NODE_COUNT"))


def shard_of(index=None, count=None, env=None):
    """(index, count) of this node: the arguments, else the environment as
    hcctl reads it, else (0, 1) when no variable is set (one machine).
    Raises ValueError naming the variable when they do not make sense."""
    env = os.environ if env is None else env
    isrc, csrc = "index", "count"
    if index is None:
        for ivar, cvar in _SOURCES:
            if env.get(ivar, "") != "":
                isrc, csrc = ivar, cvar
                index = env[ivar]
                if count is None:
                    count = env.get(cvar)
                    if count is None:
                        raise ValueError("%s is set but %s is not"
                                         % (ivar, cvar))
                break
    if count is None and env.get("HC_NODE_COUNT", "") != "":
        csrc, count = "HC_NODE_COUNT", env["HC_NODE_COUNT"]
    try:
        i = 0 if index is None else int(index)
        n = 1 if count is None else int(count)
    except ValueError:
        raise ValueError("%s %r / %s %r: not numbers" % (isrc, index, csrc,
                                                          count)) from None
    if n < 1:
        raise ValueError("%s %d: needs at least 1 node" % (csrc, n))
    if not 0 <= i < n:
        raise ValueError("%s %d is not below %s %d (indexes count from 0)"
                         % (isrc, i, csrc, n))
    return i, n


class ShardedDataset(torch.utils.data.Dataset):
    """This node's share (item k goes to node k mod N) of ``paths``.

    ``paths``: a list of object paths, or one prefix (``"s3/bucket/ds/"``:
    every cached object under it, sorted).  ``transform(bytes) -> item``
    (default: the bytes).  Items are read through the cache, ingested on a
    miss.
    """

    def __init__(self, paths, transform=None, index=None, count=None,
                 fs=None):
        self.fs = fs or HyperCacheFileSystem()
        if isinstance(paths, str):
            paths = sorted(self.fs.find(paths))
        else:
            paths = [HyperCacheFileSystem._strip_protocol(p) for p in paths]
        self.index, self.count = shard_of(index, count)
        self.paths = paths[self.index::self.count]
        self.transform = transform

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, k):
        data = self.fs.cat_file(self.paths[k])
        return self.transform(data) if self.transform else data


def worker_init_fn(_worker_id):
    """DataLoader(worker_init_fn=...): a fresh library in the worker."""
    if isinstance(_lib._state["lib"], _lib.Library):
        _lib.set_library(None)


del to_path
