# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The fsspec layer against the fake library."""
import errno
import io
import os
import threading

import fsspec
import pytest

import hypercache
from hypercache import _lib
from hypercache.errors import error
from hypercache.fs import DEFAULT_BLOCK, HyperCacheFileSystem


def test_registered_on_import():
    assert fsspec.get_filesystem_class("hypercache") is HyperCacheFileSystem


def test_read_seek_readinto(fake):
    data = os.urandom(3 * DEFAULT_BLOCK + 12345)
    fake.add(b"hypercache://m/w.pt", data)
    with fsspec.open("hypercache://m/w.pt", "rb") as f:
        assert f.seekable()
        assert f.read(10) == data[:10]
        f.seek(DEFAULT_BLOCK - 5)
        assert f.tell() == DEFAULT_BLOCK - 5
        assert f.read(10) == data[DEFAULT_BLOCK - 5:DEFAULT_BLOCK + 5]
        buf = bytearray(DEFAULT_BLOCK)	# large: straight into buf
        f.seek(7)
        assert f.readinto(buf) == DEFAULT_BLOCK
        assert bytes(buf) == data[7:7 + DEFAULT_BLOCK]
        small = bytearray(100)
        assert f.readinto(small) == 100
        assert bytes(small) == data[7 + DEFAULT_BLOCK:107 + DEFAULT_BLOCK]
        f.seek(-3, 2)
        assert f.read() == data[-3:]
        assert f.read() == b""
        assert f.tell() == len(data)
    # the hold is released on close
    assert fake.objects[b"hypercache://m/w.pt"]["holds"] == 0


def test_sequential_reads_are_large(fake):
    data = os.urandom(2 * DEFAULT_BLOCK)
    fake.add(b"s3://bkt/seq", data)
    fs = HyperCacheFileSystem()
    with fs.open("s3/bkt/seq", "rb") as f:
        got = b"".join(iter(lambda: f.read(4096), b""))
        reads = f.reader.reads
    assert got == data
    # read-ahead: 4 KiB reads cost a handful of block-sized library reads
    assert len(reads) <= 4
    assert all(n >= DEFAULT_BLOCK or off + n == len(data) for off, n in reads)


def test_header_then_record_reads_each_byte_once(fake):
    """torch.load's pattern: a small read (a zip entry's header), then one
    large readinto of the record after it.  The bytes come off the device
    once, in window-aligned reads into page-aligned buffers (fsspec's
    read-ahead cache read each record twice: a block after the header,
    then the record again straight into the caller's buffer)."""
    rec = DEFAULT_BLOCK
    data = os.urandom(4 * (64 + rec))
    fake.add(b"hypercache://m/zip", data)
    with fsspec.open("hypercache://m/zip", "rb") as f:
        for i in range(4):
            assert f.read(64) == data[i * (64 + rec):i * (64 + rec) + 64]
            buf = bytearray(rec)
            assert f.readinto(buf) == rec
            assert buf == data[i * (64 + rec) + 64:(i + 1) * (64 + rec)]
        reads, addrs = f.reader.reads, f.reader.addrs
    assert sum(n for _, n in reads) <= len(data) + DEFAULT_BLOCK
    assert all(off % DEFAULT_BLOCK == 0 for off, _ in reads)
    assert all(a % 4096 == 0 for a in addrs)


def test_sequential_reader_reads_ahead(fake):
    """A read at offset 0, or of window k after window k - 1, has window
    k + 1 read meanwhile (by a worker thread); a jump elsewhere reads no
    more than it needs."""
    data = os.urandom(6 * DEFAULT_BLOCK)
    fake.add(b"hypercache://m/ra", data)
    with fsspec.open("hypercache://m/ra", "rb") as f:
        f.seek(3)
        f.read(10)		# not at 0: no read ahead
        assert [o for o, _ in f.reader.reads] == [0]
        f.seek(0)
        assert f.read(10) == data[:10]
        f.cache.wait()		# wait for the read ahead
        assert sorted(o for o, _ in f.reader.reads) == [0, DEFAULT_BLOCK]
        f.seek(DEFAULT_BLOCK)
        assert f.read(10) == data[DEFAULT_BLOCK:DEFAULT_BLOCK + 10]
        f.cache.wait()
        assert sorted(o for o, _ in f.reader.reads) == [
            0, DEFAULT_BLOCK, 2 * DEFAULT_BLOCK]
        f.seek(5 * DEFAULT_BLOCK + 1)	# not sequential: no read ahead
        assert f.read(10) == data[5 * DEFAULT_BLOCK + 1:5 * DEFAULT_BLOCK + 11]
        f.cache.wait()
        assert len(f.reader.reads) == 4


def _bytes_read(reader):
    """Every byte the reader read, and how many times (a dict)."""
    seen = {}
    for off, n in reader.reads + reader.ranges:
        for k in range(off // 4096, (off + n + 4095) // 4096):
            seen[k] = seen.get(k, 0) + 1
    return seen


def test_large_readinto_goes_straight_in(fake):
    """A read of a window or more where no window is at hand: one
    read_range straight into the caller's buffer, no window."""
    import mmap

    data = os.urandom(3 * DEFAULT_BLOCK)
    fake.add(b"hypercache://m/al", data)
    m = mmap.mmap(-1, 2 * DEFAULT_BLOCK)
    with fsspec.open("hypercache://m/al", "rb") as f:
        f.seek(4096)
        assert f.readinto(m) == 2 * DEFAULT_BLOCK
        assert f.reader.ranges == [(4096, 2 * DEFAULT_BLOCK)]
        assert f.reader.reads == []
    assert m[:] == data[4096:4096 + 2 * DEFAULT_BLOCK]


def test_large_readinto_copies_windows_at_hand(fake):
    """Windows read or in flight are copied from, never read again: a small
    read at 0 then one of 4 windows reads every byte once."""
    data = os.urandom(6 * DEFAULT_BLOCK + 333)
    fake.add(b"hypercache://m/wa", data)
    with fsspec.open("hypercache://m/wa", "rb") as f:
        assert f.read(10) == data[:10]
        buf = bytearray(4 * DEFAULT_BLOCK)
        assert f.readinto(buf) == len(buf)
        assert bytes(buf) == data[10:10 + len(buf)]
        f.cache.wait()
        assert max(_bytes_read(f.reader).values()) == 1


def test_torch_pattern_reads_each_byte_once(fake):
    """torch.load's pattern: a small header, then one readinto of a record
    into an unaligned buffer, repeated: each byte is read once, and the
    bytes come out right."""
    rec = DEFAULT_BLOCK + 64
    data = os.urandom(8 * (rec + 94))
    fake.add(b"hypercache://m/tp", data)
    with fsspec.open("hypercache://m/tp", "rb") as f:
        f.seek(len(data) - 100)	# the zip's central directory first
        assert f.read(100) == data[-100:]
        f.seek(0)
        pos = 0
        for _ in range(8):
            assert f.read(94) == data[pos:pos + 94]
            pos += 94
            buf = bytearray(rec + 1)
            mv = memoryview(buf)[1:]	# unaligned
            assert f.readinto(mv) == rec
            assert mv == data[pos:pos + rec]
            pos += rec
        f.cache.wait()
        assert max(_bytes_read(f.reader).values()) == 1
        assert sum(_bytes_read(f.reader).values()) * 4096 <= \
            len(data) + 3 * DEFAULT_BLOCK


def test_write_open_stages_at_once(fake):
    """The stage is made by open(): its refusal is open()'s error; a file
    opened and closed unwritten commits an empty object."""
    fake.fail["create"] = errno.EBUSY
    with pytest.raises(OSError) as e:
        fsspec.open("hypercache://m/busy", "wb").open()
    assert e.value.errno == errno.EBUSY
    assert not fake.writers
    del fake.fail["create"]
    f = fsspec.open("hypercache://m/empty", "wb").open()
    assert len(fake.writers) == 1 and fake.staged == {b"hypercache://m/empty"}
    f.close()
    assert fake.objects[b"hypercache://m/empty"]["data"] == b""


def test_open_miss_ingests_or_not(fake):
    fs = HyperCacheFileSystem(timeout=5)
    with pytest.raises(FileNotFoundError) as e:
        fs.open("m/none", "rb")
    assert e.value.filename == "hypercache://m/none"
    assert fake.opens[-1][1] & _lib.OPEN_AUTO_INGEST
    assert fake.opens[-1][2] == 5000
    fs = HyperCacheFileSystem(ingest=False)
    with pytest.raises(FileNotFoundError):
        fs.open("m/none", "rb")
    assert not fake.opens[-1][1] & _lib.OPEN_AUTO_INGEST


def test_write_streams_and_commits_on_close(fake):
    data = os.urandom(2 * DEFAULT_BLOCK + 999)
    with fsspec.open("hypercache://s3/bkt/ckpt/epoch_1.pt", "wb") as f:
        for i in range(0, len(data), 1 << 20):
            f.write(data[i:i + (1 << 20)])
        assert b"s3://bkt/ckpt/epoch_1.pt" not in fake.objects	# not yet
    obj = fake.objects[b"s3://bkt/ckpt/epoch_1.pt"]
    assert obj["data"] == data and obj["state"] == "dirty"
    assert f.generation == obj["generation"]


def test_writes_are_aligned_blocks(fake):
    """torch.save's writes (small headers, records of 16 MiB at 64-byte
    aligned offsets) reach the library as whole blocks at block-aligned
    offsets from page-aligned buffers, in order; only the last is short
    (they went as the BytesIO buffer's size at any offset)."""
    import torch

    sd = {"w%d" % i: torch.rand(DEFAULT_BLOCK // 4) for i in range(3)}
    with fsspec.open("hypercache://m/ckpt.pt", "wb") as f:
        torch.save(sd, f)
    w = fake.writers[-1]
    size = len(fake.objects[b"hypercache://m/ckpt.pt"]["data"])
    writes = sorted(w.writes)	# two are in flight: either may end first
    assert [off for off, _ in writes] == list(range(0, size, DEFAULT_BLOCK))
    assert all(n == DEFAULT_BLOCK for _, n in writes[:-1])
    assert all(a % 4096 == 0 for a in w.addrs)
    back = torch.load(io.BytesIO(fake.objects[b"hypercache://m/ckpt.pt"]
                                 ["data"]))
    assert all(torch.equal(back[k], sd[k]) for k in sd)


def test_failed_write_behind_raises_and_aborts(fake):
    """An error of the writer thread's pwrite is raised by a later write()
    or by close(), and the stage is aborted."""
    fake.fail["pwrite"] = errno.ENOSPC
    with pytest.raises(OSError) as e:
        with fsspec.open("hypercache://m/full", "wb") as f:
            for _ in range(3):
                f.write(b"q" * DEFAULT_BLOCK)
    assert e.value.errno == errno.ENOSPC
    assert b"hypercache://m/full" not in fake.objects
    assert not fake.staged
    del fake.fail["pwrite"]


def test_write_behind_keeps_two_in_flight(fake):
    """Two blocks are written at once (each pwrite checksums its block
    beside the other's O_DIRECT write): the first two pwrites meet at a
    barrier, which one write at a time would never pass."""
    met = threading.Barrier(2, timeout=10)
    seen = []

    def hook(w, off, n):
        seen.append(off)
        if off < 2 * DEFAULT_BLOCK:
            met.wait()
    fake.pwrite_hook = hook
    data = os.urandom(3 * DEFAULT_BLOCK + 4097)
    try:
        with fsspec.open("hypercache://m/two", "wb") as f:
            for i in range(0, len(data), 100003):	# small, unaligned
                f.write(data[i:i + 100003])
    finally:
        fake.pwrite_hook = None
    assert fake.objects[b"hypercache://m/two"]["data"] == data
    assert sorted(seen) == [0, DEFAULT_BLOCK, 2 * DEFAULT_BLOCK,
                            3 * DEFAULT_BLOCK]


def test_write_error_in_flight_commits_nothing(fake):
    """The second of two writes in flight fails while the first succeeds:
    the error is raised (by a later write() or by close()), and close()
    neither writes the rest nor commits an object with a hole."""
    def hook(w, off, n):
        if off == DEFAULT_BLOCK:
            raise error(errno.EIO, w.uri.decode())
    fake.pwrite_hook = hook
    try:
        with pytest.raises(OSError) as e:
            with fsspec.open("hypercache://m/hole", "wb") as f:
                for _ in range(5):
                    f.write(b"h" * DEFAULT_BLOCK)
    finally:
        fake.pwrite_hook = None
    assert e.value.errno == errno.EIO
    assert b"hypercache://m/hole" not in fake.objects
    assert not fake.staged
    assert fake.commits == []
    # the same error swallowed by the caller: close() raises it
    fake.pwrite_hook = hook
    try:
        f = fsspec.open("hypercache://m/hole", "wb").open()
        for _ in range(5):
            try:
                f.write(b"h" * DEFAULT_BLOCK)
            except OSError:
                pass
        with pytest.raises(OSError) as e:
            f.close()
    finally:
        fake.pwrite_hook = None
    assert e.value.errno == errno.EIO
    assert b"hypercache://m/hole" not in fake.objects
    assert not fake.staged and fake.commits == []


def test_write_sync_and_clean(fake):
    fs = HyperCacheFileSystem(sync=True)
    with fs.open("m/s", "wb") as f:
        f.write(b"x")
    assert fake.objects[b"hypercache://m/s"]["state"] == "ready"
    fs = HyperCacheFileSystem(clean=True)
    with fs.open("m/c", "wb") as f:
        f.write(b"y")
    assert fake.objects[b"hypercache://m/c"]["state"] == "ready"


def test_empty_file_is_an_empty_object(fake):
    with fsspec.open("hypercache://m/empty", "wb"):
        pass
    assert fake.objects[b"hypercache://m/empty"]["data"] == b""


def test_failed_write_leaves_nothing(fake):
    fake.fail["commit"] = errno.EIO
    with pytest.raises(OSError) as e:
        with fsspec.open("hypercache://m/bad", "wb") as f:
            f.write(b"z" * 100)
    assert e.value.errno == errno.EIO
    assert b"hypercache://m/bad" not in fake.objects
    assert not fake.staged
    del fake.fail["commit"]


def test_append_refused(fake):
    with pytest.raises(OSError) as e:
        HyperCacheFileSystem().open("m/a", "ab")
    assert e.value.errno == errno.EOPNOTSUPP


def test_info_ls_find_exists(fake):
    fake.add(b"hypercache://m/a/1", b"1")
    fake.add(b"hypercache://m/a/2", b"22")
    fake.add(b"hypercache://m/a/sub/3", b"333")
    fake.add(b"s3://bkt/x", b"4444")
    fs = HyperCacheFileSystem()
    i = fs.info("hypercache://m/a/2")
    assert i["type"] == "file" and i["size"] == 2 and i["name"] == "m/a/2"
    assert fs.info("m/a")["type"] == "directory"
    assert fs.info("")["type"] == "directory"
    with pytest.raises(FileNotFoundError):
        fs.info("m/nothing")
    assert fs.ls("m/a", detail=False) == ["m/a/1", "m/a/2", "m/a/sub"]
    assert fs.ls("", detail=False) == ["m", "s3"]
    assert fs.ls("s3", detail=False) == ["s3/bkt"]
    assert fs.ls("m/a/1", detail=False) == ["m/a/1"]
    with pytest.raises(FileNotFoundError):
        fs.ls("m/zzz")
    assert fs.find("m") == ["m/a/1", "m/a/2", "m/a/sub/3"]
    assert fs.find("hypercache://m/a/sub") == ["m/a/sub/3"]
    assert sorted(fs.find("m", detail=True)) == ["m/a/1", "m/a/2", "m/a/sub/3"]
    assert fs.exists("s3://bkt/x") and fs.exists("s3/bkt")
    assert not fs.exists("s3/bkt/y")
    assert fs.isdir("m/a") and fs.isfile("m/a/1")


def test_info_and_ls_carry_the_backend_version(fake):
    import datetime

    fake.add(b"s3://bkt/in", b"abc", etag='"900150983cd24fb0"',
             last_modified=1764577805)
    fake.add(b"s3://bkt/new", b"d", state="dirty")
    fs = HyperCacheFileSystem()
    i = fs.info("s3/bkt/in")
    assert i["ETag"] == '"900150983cd24fb0"'
    assert i["LastModified"] == datetime.datetime(
        2025, 12, 1, 8, 30, 5, tzinfo=datetime.timezone.utc)
    # not uploaded yet: both keys present, None
    n = fs.info("s3/bkt/new")
    assert n["ETag"] is None and n["LastModified"] is None
    ents = {e["name"]: e for e in fs.ls("s3/bkt")}
    assert ents["s3/bkt/in"]["ETag"] == '"900150983cd24fb0"'
    assert ents["s3/bkt/new"]["LastModified"] is None
    assert fs.find("s3", detail=True)["s3/bkt/in"]["LastModified"].year == 2025


def test_cat_get_put_rm(fake, tmp_path):
    fake.add(b"hypercache://m/f", b"0123456789")
    fs = HyperCacheFileSystem()
    assert fs.cat("m/f") == b"0123456789"
    assert fs.cat_file("m/f", start=2, end=5) == b"234"
    assert fs.cat_file("m/f", start=-3) == b"789"
    fs.get("m/f", str(tmp_path / "f"))
    assert (tmp_path / "f").read_bytes() == b"0123456789"
    (tmp_path / "g").write_bytes(b"abc")
    fs.put(str(tmp_path / "g"), "m/g")
    assert fake.objects[b"hypercache://m/g"]["data"] == b"abc"
    with fs.open("m/f", "rb") as held:
        with pytest.raises(OSError) as e:
            fs.rm("m/f")
        assert e.value.errno == errno.EBUSY
        held.read()
    fs.rm("m/f")
    assert not fs.exists("m/f")
    with pytest.raises(OSError) as e:	# DIRTY: not evictable
        fs.rm("m/g")
    assert e.value.errno == errno.EBUSY


def test_errors_are_oserror_with_uri(fake):
    fake.fail["open"] = errno.ETIMEDOUT
    with pytest.raises(TimeoutError) as e:
        fsspec.open("hypercache://m/t", "rb").open()
    assert e.value.errno == errno.ETIMEDOUT
    assert e.value.filename == "hypercache://m/t"


def test_torch_load_needs(fake):
    """What torch.load uses: seek/tell/readinto/read on a binary file."""
    f = io.BytesIO()
    import torch

    torch.save({"w": torch.arange(1000)}, f)
    fake.add(b"hypercache://m/t.pt", f.getvalue())
    with fsspec.open("hypercache://m/t.pt", "rb") as src:
        back = torch.load(src)
    assert torch.equal(back["w"], torch.arange(1000))


def test_module_open(fake):
    fake.add(b"hypercache://m/o", b"ok")
    with hypercache.open("hypercache://m/o") as f:
        assert f.read() == b"ok"


def test_bad_object_is_eio_naming_it(fake):
    """An object marked bad after a read error (HC_LOCATE_BAD): info says
    so, and opening it raises OSError(EIO) naming the object (no hold)."""
    fake.add(b"hypercache://m/b", b"x" * 10)
    fake.objects[b"hypercache://m/b"]["bad"] = True
    fs = fsspec.filesystem("hypercache")
    assert fs.info("hypercache://m/b")["bad"] is True
    with pytest.raises(OSError) as e:
        fs.cat("hypercache://m/b")
    assert e.value.errno == errno.EIO
    assert e.value.filename == "hypercache://m/b"
    assert "bad: a read of its data failed" in str(e.value)
    assert fake.objects[b"hypercache://m/b"]["holds"] == 0
