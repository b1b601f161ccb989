# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The fsspec file system of ``hypercache://`` (see :mod:`hypercache.uri`).

Reading opens the object with a hold (``LOCATE|HOLD``; a miss is ingested
through hypercached first unless ``ingest=False``) and reads it in aligned
windows of the block size (16 MiB) with O_DIRECT, each straight into a
page-aligned buffer; while a sequential reader copies out of one window the
next is read by a thread (:class:`_ReadAhead`).  Writing copies into
page-aligned buffers of the block size that a thread writes with O_DIRECT
at aligned offsets, in order, while the next one fills (:class:`_WriteBehind`),
into a growable stage that is committed when the file closes: ``close()``
returns once the bytes and their journal record are on the drives (the
object is DIRTY and hypercached uploads it later); ``sync=True`` waits for
the upload.
"""
import concurrent.futures
import datetime
import errno
import io
import mmap
import os

from fsspec.spec import AbstractBufferedFile, AbstractFileSystem

from . import _lib
from .errors import error
from .uri import prefix_of, to_cache_uri, to_path

__all__ = ["HyperCacheFileSystem", "HyperCacheFile"]

# Windows and write buffers of 16 MiB (4 chunks: one O_DIRECT transfer is
# in flight on every member), aligned.
DEFAULT_BLOCK = 16 << 20
# A read of a window or more whose buffer is page-aligned with the object
# offset goes with O_DIRECT straight into the caller's buffer.
PAGE = 4096


class _Worker:
    """Threads that run library calls (ctypes drops the GIL during each
    call); made again after a fork.  With one thread, calls run in the
    order they are given."""

    def __init__(self, threads=1):
        self._threads = threads
        self._pool = None
        self._pid = None

    def submit(self, fn, *args):
        if self._pool is None or self._pid != os.getpid():
            self._pool = concurrent.futures.ThreadPoolExecutor(self._threads)
            self._pid = os.getpid()
        return self._pool.submit(fn, *args)

    def shutdown(self):
        if self._pool is not None and self._pid == os.getpid():
            self._pool.shutdown(wait=True)
        self._pool = None


def _aligned_buffer(size):
    """A page-aligned writable buffer (anonymous memory) and its view."""
    m = mmap.mmap(-1, max(size, 1))
    return m, memoryview(m)


class _ReadAhead:
    """Window-aligned reads of a held object with windows read ahead.

    Window k is the object's bytes [k * W, (k + 1) * W): read whole with
    one O_DIRECT pread into a page-aligned buffer (the block device splits
    it over the members), kept while it is one of the last KEEP used.  When
    a read reaches window k after window k - 1 or k (a sequential reader,
    or the first read at offset 0), window k + 1 (AHEAD windows) is started
    on a worker thread before the bytes of window k are copied out, so the
    drives work while the reader copies (two windows ahead were slower:
    1.63 s against 2.29 s for a warm torch.load of 256 MiB in one boot,
    Documentation/benchmarks.md).  A read of a window or more goes
    straight into the caller's buffer where no window holds its bytes
    (hc_reader_read_range: reads of a chunk each in flight on every
    member, O_DIRECT into the buffer where it is aligned with the object,
    else through the library's bounce buffers, copied by its threads);
    windows already read or in flight are copied from, never read again.
    """

    KEEP = 4
    AHEAD = 1

    def __init__(self, reader, size, window):
        self.reader = reader
        self.size = size
        self.W = window
        self.win = {}		# k -> [future or None, view, length]
        self.order = []		# k, least recently used first
        self.spare = []
        self.last = None
        self.cur = 0		# the window being read
        self.worker = _Worker(self.AHEAD)

    def _load(self, k, view):
        off = k * self.W
        n = min(self.W, self.size - off)
        got = self.reader.readinto(view[:n], off)
        if got != n:
            raise error(errno.EIO, self.reader.uri.decode(errors="replace"),
                        "short read of %d bytes at %d" % (got, off))
        return n

    def _start(self, k, background):
        while len(self.win) >= self.KEEP:
            # the least recently used window behind the reader, else the
            # least recently used one (ahead of it: a jump's, say the zip
            # directory at the end, that a sequential reader reaches
            # later), one in flight only if all are
            done = [o for o in self.order if self.win[o][0] is None or
                    self.win[o][0].done()]
            old = next((o for o in done if o < self.cur),
                       done[0] if done else self.order[0])
            fut, view, _ = self.win.pop(old)
            self.order.remove(old)
            if fut is not None:
                try:
                    fut.result()
                except OSError:
                    pass	# a failed read ahead is read again if needed
            self.spare.append(view)
        view = self.spare.pop() if self.spare else _aligned_buffer(self.W)[1]
        if background:
            self.win[k] = [self.worker.submit(self._load, k, view), view, 0]
        else:
            self.win[k] = [None, view, self._load(k, view)]
        self.order.append(k)

    def _window(self, k):
        """(view, length) of window k, read now if it is not at hand."""
        if k not in self.win:
            self._start(k, False)
        ent = self.win[k]
        if ent[0] is not None:
            try:
                ent[2] = ent[0].result()
                ent[0] = None
            except BaseException:
                del self.win[k]
                self.order.remove(k)
                self.spare.append(ent[1])
                raise
        self.order.remove(k)
        self.order.append(k)
        return ent[1], ent[2]

    def _ahead(self, first):
        """Start windows first .. first + AHEAD - 1 that are not at hand."""
        for j in range(first, first + self.AHEAD):
            if j * self.W >= self.size:
                break
            if j not in self.win:
                self._start(j, True)

    def readinto(self, pos, out):
        """Copy the bytes at ``pos`` into ``out``; the number copied."""
        n = max(0, min(len(out), self.size - pos))
        done = 0
        while done < n:
            p = pos + done
            k = p // self.W
            self.cur = k
            left = n - done
            seq = (self.last is None and p == 0) or (
                self.last is not None and k - 1 <= self.last <= k)
            if k not in self.win and left >= self.W:
                # straight into the caller's buffer, up to the next window
                # at hand
                j = k + 1
                while j * self.W < p + left and j not in self.win:
                    j += 1
                end = min(p + left, j * self.W)
                got = self.reader.read_range(out[done:done + end - p], p)
                done += got
                self.last = (p + max(got, 1) - 1) // self.W
                if got != end - p:
                    break
                if seq:
                    self._ahead(-(-end // self.W))
                continue
            if seq:
                if k in self.win:	# in use: not the one evicted
                    self.order.remove(k)
                    self.order.append(k)
                self._ahead(k + 1)
            view, length = self._window(k)
            a = p - k * self.W
            m = min(left, length - a)
            if m <= 0:
                break
            out[done:done + m] = view[a:a + m]
            done += m
            self.last = k
        return done

    def _fetch(self, start, end):
        """fsspec's cache interface: the bytes [start, end)."""
        buf = bytearray(max(0, min(end, self.size) - start))
        n = self.readinto(start, memoryview(buf))
        return bytes(buf) if n == len(buf) else bytes(buf[:n])

    def wait(self):
        """Wait for the reads in flight."""
        for fut, _, _ in self.win.values():
            if fut is not None:
                try:
                    fut.result()
                except OSError:
                    pass

    def close(self):
        """Wait for reads in flight (the reader may be closed next)."""
        self.wait()
        self.worker.shutdown()
        self.win.clear()
        self.spare.clear()


class _WriteBehind:
    """write() copies into a page-aligned buffer of B bytes; a full buffer
    is written at its aligned offset with O_DIRECT by one of DEPTH worker
    threads while the next ones fill.  DEPTH buffers are in flight at once
    (each pwrite computes the CRC-32C of its block beside the others'
    writes; the library folds the pieces in offset order), and write()
    waits for the oldest before it hands over another.  The first error of
    a write in flight is kept: every later write(), and finish(), raise it
    (the stage is then aborted, never committed with a hole)."""

    DEPTH = 2

    def __init__(self, writer, block):
        self.writer = writer
        self.B = block
        self.view = _aligned_buffer(block)[1]
        self.fill = 0
        self.off = 0
        self.pending = []	# [(future, view)], oldest first
        self.spare = []
        self.error = None
        self.worker = _Worker(self.DEPTH)

    def _wait(self, keep):
        """Wait until at most ``keep`` buffers are in flight."""
        while len(self.pending) > keep:
            fut, view = self.pending.pop(0)
            self.spare.append(view)
            try:
                fut.result()
            except BaseException as e:
                if self.error is None:
                    self.error = e
        if self.error is not None:
            raise self.error

    def _submit(self):
        self._wait(self.DEPTH - 1)
        fut = self.worker.submit(self.writer.pwrite, self.view[:self.fill],
                                 self.off)
        self.pending.append((fut, self.view))
        self.off += self.fill
        self.fill = 0
        self.view = self.spare.pop() if self.spare else \
            _aligned_buffer(self.B)[1]

    def write(self, mv):
        if self.error is not None:
            raise self.error
        pos, n = 0, len(mv)
        while pos < n:
            m = min(n - pos, self.B - self.fill)
            self.view[self.fill:self.fill + m] = mv[pos:pos + m]
            self.fill += m
            pos += m
            if self.fill == self.B:
                self._submit()

    def finish(self):
        """Write what is left and wait: every byte is on the drives' way."""
        try:
            if self.fill and self.error is None:
                self._submit()
            self._wait(0)
        finally:
            self.worker.shutdown()

    def cancel(self):
        for fut, _ in self.pending:
            try:
                fut.result()
            except OSError:
                pass
        self.pending = []
        self.worker.shutdown()


class HyperCacheFileSystem(AbstractFileSystem):
    """Cached objects as files; prefixes ending at "/" as directories.

    Parameters: ``ingest`` (default True): a read of an object that is not
    cached asks hypercached to fetch it and waits up to ``timeout`` seconds
    (default 600); ``sync`` (default False): a written file's close also
    waits for the upload to the backend; ``clean`` (default False): written
    objects are committed READY (the backend has the bytes already).
    """

    protocol = "hypercache"
    root_marker = ""

    def __init__(self, ingest=True, timeout=600, sync=False, clean=False,
                 lib=None, **kwargs):
        super().__init__(**kwargs)
        self.ingest = ingest
        self.timeout = timeout
        self.sync = sync
        self.clean = clean
        self._lib = lib

    @property
    def lib(self):
        return self._lib if self._lib is not None else _lib.get()

    @classmethod
    def _strip_protocol(cls, path):
        if isinstance(path, list):
            return [cls._strip_protocol(p) for p in path]
        path = str(path)
        if path.startswith("s3://"):
            return to_path(path)
        for p in (cls.protocol + "://", cls.protocol + "::"):
            if path.startswith(p):
                path = path[len(p):]
        return path.rstrip("/")

    def unstrip_protocol(self, name):
        return self.protocol + "://" + name

    # -- the index ------------------------------------------------------

    @staticmethod
    def _entry(o):
        """An object's entry: fsspec's name, size and type; the cache's
        state, generation and bad; and, named as s3fs names them, the
        backend version the object was ingested from or uploaded as:
        "ETag" (the backend's string, S3's with its double quotes) and
        "LastModified" (a timezone-aware UTC datetime), each None when the
        cache does not know it (written and not uploaded yet, committed
        clean by a writer, a format-1 pool after a restart)."""
        lm = o.get("last_modified")
        return {"name": to_path(o["uri"]), "size": o["size"], "type": "file",
                "state": o["state"], "generation": o["generation"],
                "bad": o.get("bad", False), "ETag": o.get("etag"),
                "LastModified": None if lm is None else
                datetime.datetime.fromtimestamp(lm, datetime.timezone.utc)}

    def _objects(self, path):
        return [self._entry(o) for o in self.lib.list(prefix_of(path))]

    def info(self, path, **kwargs):
        path = self._strip_protocol(path)
        try:
            return self._entry(self.lib.info(to_cache_uri(path)))
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.EINVAL):
                raise
        if path == "" or self._objects(path):
            return {"name": path, "size": 0, "type": "directory"}
        raise error(errno.ENOENT, path)

    def ls(self, path, detail=True, **kwargs):
        path = self._strip_protocol(path)
        try:
            o = self.lib.info(to_cache_uri(path))
            ent = [self._entry(o)]
            return ent if detail else [e["name"] for e in ent]
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.EINVAL):
                raise
        base = (path + "/") if path else ""
        seen = {}
        for ent in self._objects(path):
            rest = ent["name"][len(base):]
            head, sep, _ = rest.partition("/")
            if sep:
                d = base + head
                seen.setdefault(d, {"name": d, "size": 0,
                                    "type": "directory"})
            else:
                seen[ent["name"]] = ent
        if not seen and path:
            raise error(errno.ENOENT, path)
        out = sorted(seen.values(), key=lambda e: e["name"])
        return out if detail else [e["name"] for e in out]

    def find(self, path, maxdepth=None, withdirs=False, detail=False,
             **kwargs):
        path = self._strip_protocol(path)
        if maxdepth is not None or withdirs:
            return super().find(path, maxdepth=maxdepth, withdirs=withdirs,
                                detail=detail, **kwargs)
        try:
            found = {path: self.info(path)}
            if found[path]["type"] != "file":
                found = {}
        except FileNotFoundError:
            found = {}
        for ent in self._objects(path):
            found[ent["name"]] = ent
        found = dict(sorted(found.items()))
        return found if detail else list(found)

    def exists(self, path, **kwargs):
        try:
            self.info(path)
            return True
        except OSError:
            return False

    def _rm(self, path):
        self.lib.evict(to_cache_uri(self._strip_protocol(path)))

    def rm_file(self, path):
        self._rm(path)

    def rm(self, path, recursive=False, maxdepth=None):
        # a named path that is neither an object nor a prefix: ENOENT, as
        # on a local file system (a glob that matches nothing is not)
        if isinstance(path, str) and not any(c in path for c in "*?[") \
                and not self.exists(path):
            raise error(errno.ENOENT, self.unstrip_protocol(
                self._strip_protocol(path)))
        paths = self.expand_path(path, recursive=recursive,
                                 maxdepth=maxdepth)
        for p in paths:
            if self.isfile(p):
                self._rm(p)

    def put(self, lpath, rpath, recursive=False, **kwargs):
        # fsspec's convention: a file put to a target ending in "/" goes
        # inside it under its own name (fsspec 2022.11 strips the slash
        # before it looks, and a prefix exists only through its objects)
        if isinstance(lpath, str) and isinstance(rpath, str) and \
                rpath.endswith("/") and os.path.isfile(lpath):
            rpath = rpath + os.path.basename(lpath)
        return super().put(lpath, rpath, recursive=recursive, **kwargs)

    def mkdir(self, path, create_parents=True, **kwargs):
        pass	# prefixes exist through their objects

    def makedirs(self, path, exist_ok=False):
        pass

    def rmdir(self, path):
        pass

    def cp_file(self, path1, path2, **kwargs):
        with self.open(path1, "rb") as src, self.open(path2, "wb") as dst:
            while True:
                b = src.read(DEFAULT_BLOCK)
                if not b:
                    break
                dst.write(b)

    def created(self, path):
        raise NotImplementedError("the cache keeps no creation time")

    def modified(self, path):
        """The backend's Last-Modified of the cached version (a UTC
        datetime, info()'s "LastModified"); OSError(ENODATA) naming the
        object when the cache does not know it, IsADirectoryError for a
        prefix."""
        ent = self.info(path)
        if ent["type"] != "file":
            raise error(errno.EISDIR, self.unstrip_protocol(ent["name"]),
                        "a prefix, not an object")
        if ent["LastModified"] is None:
            raise error(errno.ENODATA, self.unstrip_protocol(ent["name"]),
                        "the backend's Last-Modified is not known (not "
                        "uploaded yet, committed clean by a writer, or a "
                        "format-1 pool after a restart)")
        return ent["LastModified"]

    def _not_a_file(self, path, e):
        """EISDIR for a prefix opened as a file, else the error itself."""
        if e.errno == errno.ENOENT and self.isdir(path):
            return error(errno.EISDIR, self.unstrip_protocol(
                self._strip_protocol(path)), "a prefix, not an object")
        return e

    def cat_file(self, path, start=None, end=None, **kwargs):
        try:
            f = self.open(path, "rb")
        except OSError as e:
            raise self._not_a_file(path, e) from None
        with f:
            size = f.size
            start = 0 if start is None else (start + size if start < 0
                                             else start)
            end = size if end is None else (end + size if end < 0 else end)
            start, end = max(0, min(start, size)), max(0, min(end, size))
            if end <= start:
                return b""
            buf = bytearray(end - start)
            n = f.reader.readinto(buf, start)
            return bytes(buf[:n])

    def _open(self, path, mode="rb", block_size=None, autocommit=True,
              cache_options=None, **kwargs):
        if "a" in mode or "+" in mode:
            raise error(errno.EOPNOTSUPP, path,
                        "mode %r: objects are written whole" % mode)
        return HyperCacheFile(self, path, mode=mode,
                              block_size=block_size or DEFAULT_BLOCK,
                              autocommit=autocommit,
                              cache_options=cache_options, **kwargs)


class HyperCacheFile(AbstractBufferedFile):
    """A read (held) or written (staged) object."""

    def __init__(self, fs, path, mode="rb", block_size=DEFAULT_BLOCK,
                 autocommit=True, cache_type="readahead", cache_options=None,
                 sync=None, clean=None, **kwargs):
        path = fs._strip_protocol(path)
        self.uri = to_cache_uri(path)
        self.reader = None
        self.writer = None
        self.stream = None
        self.generation = None
        self._sync = fs.sync if sync is None else sync
        self._clean = fs.clean if clean is None else clean
        if mode == "rb":
            flags = _lib.OPEN_AUTO_INGEST if fs.ingest else 0
            self.reader = fs.lib.open(self.uri, flags,
                                      int(fs.timeout * 1000))
            size = self.reader.size
            kwargs["size"] = size
        super().__init__(fs, path, mode=mode, block_size=block_size,
                         autocommit=autocommit, cache_type=cache_type,
                         cache_options=cache_options, **kwargs)
        if mode == "wb":
            # the stage now: a refusal (EBUSY, ENOSPC, ...) is open()'s
            # error, not one raised inside the caller's first write (where
            # torch.save's C++ writer loses it)
            self.offset = 0
            try:
                self._initiate_upload()
            except BaseException:
                self.closed = True	# nothing to commit at __del__
                raise
        if mode == "rb":
            self.generation = self.reader.generation
            if cache_type == "readahead":
                # fsspec's read-ahead cache would read a block after every
                # small read and copy it twice: windows instead
                self.cache = _ReadAhead(self.reader, self.size,
                                        self.blocksize)

    # -- reading ----------------------------------------------------------

    def _fetch_range(self, start, end):
        buf = bytearray(end - start)
        n = self.reader.readinto(buf, start)
        return bytes(buf[:n]) if n != len(buf) else bytes(buf)

    def readinto(self, b):
        """Into ``b`` without an intermediate bytes object."""
        if self.mode != "rb":
            raise io.UnsupportedOperation("not readable")
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        mv = memoryview(b).cast("B")
        if not isinstance(self.cache, _ReadAhead):
            return super().readinto(mv)
        n = self.cache.readinto(self.loc, mv)
        self.loc += n
        return n

    # -- writing ----------------------------------------------------------

    def write(self, data):
        """Copy ``data`` into the write-behind buffers; its length."""
        if self.mode not in {"wb", "ab"}:
            raise ValueError("File not in write mode")
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if self.forced:
            raise ValueError("This file has been force-flushed, can only "
                             "close")
        mv = memoryview(data)
        if not mv.c_contiguous:
            mv = memoryview(mv.tobytes())
        mv = mv.cast("B")
        if self.offset is None:
            self.offset = 0
            try:
                self._initiate_upload()
            except BaseException:
                self.closed = True
                raise
        self.stream.write(mv)
        self.loc += len(mv)
        return len(mv)

    def _initiate_upload(self):
        self.writer = self.fs.lib.create(self.uri, size=None, replace=True)
        self.stream = _WriteBehind(self.writer, self.blocksize)

    def _upload_chunk(self, final=False):
        if not final:
            return False	# the write-behind buffers write themselves
        self.stream.finish()
        self.generation = self.writer.commit(clean=self._clean)
        self.writer = None
        if self._sync and not self._clean:
            self.fs.lib.wait_clean(self.uri, self.generation,
                                   int(self.fs.timeout * 1000))
        return True

    def commit(self):
        pass	# COMMIT happens in the final _upload_chunk

    def discard(self):
        if self.stream is not None:
            self.stream.cancel()
        if self.writer is not None:
            self.writer.abort()
            self.writer = None

    def close(self):
        if self.closed:
            return
        try:
            if isinstance(getattr(self, "cache", None), _ReadAhead):
                self.cache.close()
            super().close()
        except BaseException:
            self.discard()
            self.closed = True
            raise
        finally:
            if self.reader is not None:
                self.reader.close()
                self.reader = None
