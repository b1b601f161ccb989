# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The fsspec file system of ``hypercache://`` (see :mod:`hypercache.uri`).

Reading opens the object with a hold (``LOCATE|HOLD``; a miss is ingested
through hypercached first unless ``ingest=False``) and reads it with large
aligned O_DIRECT reads and fsspec's read-ahead cache; writing streams into a
growable stage that is committed when the file closes: ``close()`` returns
once the bytes and their journal record are on the drives (the object is
DIRTY and hypercached uploads it later); ``sync=True`` waits for the upload.
"""
import errno
import io
import os

from fsspec.spec import AbstractBufferedFile, AbstractFileSystem

from . import _lib
from .errors import error
from .uri import prefix_of, to_cache_uri, to_path

__all__ = ["HyperCacheFileSystem", "HyperCacheFile"]

# Reads of 16 MiB (4 chunks: a read in flight on several members), aligned.
DEFAULT_BLOCK = 16 << 20


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
        return {"name": to_path(o["uri"]), "size": o["size"], "type": "file",
                "state": o["state"], "generation": o["generation"],
                "bad": o.get("bad", False)}

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
        raise NotImplementedError("the cache keeps no modification time")

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
        if mode == "rb":
            self.generation = self.reader.generation

    # -- reading ----------------------------------------------------------

    def _fetch_range(self, start, end):
        buf = bytearray(end - start)
        n = self.reader.readinto(buf, start)
        return bytes(buf[:n]) if n != len(buf) else bytes(buf)

    def readinto(self, b):
        """Large reads go straight into ``b`` (no cache copy)."""
        mv = memoryview(b).cast("B")
        if self.mode != "rb":
            raise io.UnsupportedOperation("not readable")
        if len(mv) >= self.blocksize:
            n = self.reader.readinto(mv, self.loc)
            self.loc += n
            return n
        return super().readinto(b)

    # -- writing ----------------------------------------------------------

    def _initiate_upload(self):
        self.writer = self.fs.lib.create(self.uri, size=None, replace=True)

    def _upload_chunk(self, final=False):
        data = self.buffer.getbuffer()
        if len(data):
            self.writer.pwrite(data, self.offset)
        if final:
            self.generation = self.writer.commit(clean=self._clean)
            self.writer = None
            if self._sync and not self._clean:
                self.fs.lib.wait_clean(self.uri, self.generation,
                                       int(self.fs.timeout * 1000))
        return True

    def commit(self):
        pass	# COMMIT happens in the final _upload_chunk

    def discard(self):
        if self.writer is not None:
            self.writer.abort()
            self.writer = None

    def close(self):
        if self.closed:
            return
        try:
            super().close()
        except BaseException:
            self.discard()
            self.closed = True
            raise
        finally:
            if self.reader is not None:
                self.reader.close()
                self.reader = None
