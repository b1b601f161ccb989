# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""Errors: OSError subclasses carrying the errno and the object's URI.

``OSError(errno, message, uri)`` already picks the matching subclass
(FileNotFoundError for ENOENT, FileExistsError for EEXIST, TimeoutError for
ETIMEDOUT, ...); every error the package raises is built here, so that
``err.errno`` and ``err.filename`` (the URI) are always set.
"""
import errno as _errno
import os

__all__ = ["error", "HyperCacheError"]

# Reasons that say more than strerror() for this product.
_REASONS = {
    _errno.ENOENT: "not cached",
    _errno.EAGAIN: "being ingested or staged (not valid yet)",
    _errno.ETIMEDOUT: "timed out",
    _errno.ENODATA: "not admitted by the cache policy: read the backend",
    _errno.EHOSTDOWN: "no helper took the ingest (is hypercached running?)",
    _errno.EEXIST: "already cached",
    _errno.EBUSY: "busy: held, staged, pinned or being synced",
    _errno.EFBIG: "larger than the pool",
    _errno.ENOSPC: "no room in the pool or its journal",
    _errno.ESTALE: "replaced by a newer generation",
    # hc_reader_open() of an object marked bad (HC_LOCATE_BAD)
    _errno.EIO: "bad: a read of its data failed on a member "
                "(evict or replace it)",
}


class HyperCacheError(OSError):
    """Base of nothing in particular: isinstance checks use OSError."""


def error(err, uri=None, message=None):
    """The OSError subclass for positive or negative errno ``err``."""
    err = abs(int(err))
    text = message or _REASONS.get(err) or os.strerror(err)
    if uri is not None:
        return OSError(err, text, uri)
    return OSError(err, text)
