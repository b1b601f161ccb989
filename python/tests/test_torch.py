# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
import pytest
import torch

from hypercache import torch as hct


def test_save_load(fake):
    sd = {"w": torch.randn(64, 32), "b": torch.arange(10)}
    gen = hct.save(sd, "hypercache://s3/bkt/ckpt.pt")
    obj = fake.objects[b"s3://bkt/ckpt.pt"]
    assert obj["generation"] == gen and obj["state"] == "dirty"
    back = hct.load("hypercache://s3/bkt/ckpt.pt", map_location="cpu")
    assert torch.equal(back["w"], sd["w"]) and torch.equal(back["b"], sd["b"])
    hct.save(sd, "m/c.pt", sync=True)
    assert fake.objects[b"hypercache://m/c.pt"]["state"] == "ready"


@pytest.mark.parametrize("env,want", [
    ({}, (0, 1)),
    ({"SLURM_NODEID": "2", "SLURM_NNODES": "4"}, (2, 4)),
    ({"RANK": "1", "WORLD_SIZE": "3"}, (1, 3)),
    ({"JOB_COMPLETION_INDEX": "5", "HC_NODE_COUNT": "8"}, (5, 8)),
    # the first index variable wins, with its own count variable
    ({"SLURM_NODEID": "0", "SLURM_NNODES": "2", "RANK": "7",
      "WORLD_SIZE": "9"}, (0, 2)),
])
def test_shard_of(env, want):
    assert hct.shard_of(env=env) == want


@pytest.mark.parametrize("env,msg", [
    ({"RANK": "1"}, "WORLD_SIZE is not"),
    ({"RANK": "3", "WORLD_SIZE": "3"}, "not below"),
    ({"RANK": "x", "WORLD_SIZE": "3"}, "not numbers"),
    ({"RANK": "0", "WORLD_SIZE": "0"}, "at least 1"),
])
def test_shard_of_errors(env, msg):
    with pytest.raises(ValueError, match=msg):
        hct.shard_of(env=env)


def _items(fake, n):
    for k in range(n):
        fake.add(b"s3://bkt/ds/%03d" % k, b"item-%03d-" % k * 100)


def test_sharded_dataset_takes_its_share(fake):
    _items(fake, 10)
    ds = hct.ShardedDataset("s3/bkt/ds", index=1, count=3)
    assert ds.paths == ["s3/bkt/ds/%03d" % k for k in (1, 4, 7)]
    assert ds[1] == b"item-004-" * 100
    ds = hct.ShardedDataset(["hypercache://s3/bkt/ds/%03d" % k
                             for k in range(10)], index=0, count=5)
    assert len(ds) == 2 and ds[1] == b"item-005-" * 100


def test_sharded_dataset_num_workers_4(fake):
    _items(fake, 64)
    ds = hct.ShardedDataset("s3/bkt/ds", transform=lambda b: b[:8],
                            index=0, count=1)
    dl = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4,
                                     worker_init_fn=hct.worker_init_fn)
    for _epoch in range(2):
        seen = sorted(dl)
        assert seen == [b"item-%03d" % k for k in range(64)]
