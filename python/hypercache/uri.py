# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""Paths of the ``hypercache://`` file system and the cache's URIs.

The cache's index is keyed by the URIs the helper understands:
``s3://BUCKET/KEY`` (the default S3 backend) and ``hypercache://NAME/KEY``
(a backend named in hypercached.conf).  The file system's paths mirror the
file view (``/mnt/hypercache/s3/BUCKET/KEY``):

===================================  ====================================
fsspec path                          cache URI
===================================  ====================================
``hypercache://s3/BUCKET/KEY``       ``s3://BUCKET/KEY``
``hypercache://NAME/KEY``            ``hypercache://NAME/KEY``
``s3://BUCKET/KEY`` (given as is)    ``s3://BUCKET/KEY``
===================================  ====================================

so the backend name ``s3`` is reserved for the default S3 backend: a
``[backend s3]`` that is not hypercached's ``default_backend`` cannot be
reached through these paths (name it otherwise; Documentation/client.md
says why).  Paths are taken literally (no percent-decoding), as the helper
takes keys.
"""
import errno

from .errors import error

__all__ = ["to_cache_uri", "to_path", "HC_URI_MAX"]

# uapi/hypercache_format.h HC_URI_MAX: the kernel refuses longer URIs
# (tests/test_uri.py checks the two agree)
HC_URI_MAX = 1024
PROTOCOL = "hypercache"


def _strip(path):
    for p in (PROTOCOL + "://", PROTOCOL + "::"):
        if path.startswith(p):
            return path[len(p):]
    return path


def to_cache_uri(path):
    """The cache URI (bytes) of an fsspec path or of a cache URI."""
    if isinstance(path, bytes):
        path = path.decode("utf-8", "surrogateescape")
    if not isinstance(path, str):
        raise TypeError("a path is a str, not %s" % type(path).__name__)
    if path.startswith("s3://"):
        uri = path
    else:
        rest = _strip(path).lstrip("/")
        head, sep, tail = rest.partition("/")
        if not head or not sep or not tail:
            raise error(errno.EINVAL, path,
                        "not an object path: hypercache://s3/BUCKET/KEY "
                        "or hypercache://NAME/KEY")
        uri = ("s3://" + tail) if head == "s3" else (
            PROTOCOL + "://" + rest)
    b = uri.encode("utf-8", "surrogateescape")
    if b"\0" in b:
        raise error(errno.EINVAL, path, "a NUL byte in the path")
    if len(b) > HC_URI_MAX:
        raise error(errno.E2BIG, path,
                    "URI of %d bytes: longer than %d" % (len(b), HC_URI_MAX))
    return b


def to_path(uri):
    """The fsspec path (without the protocol) of a cache URI (bytes/str)."""
    if isinstance(uri, bytes):
        uri = uri.decode("utf-8", "surrogateescape")
    if uri.startswith("s3://"):
        return "s3/" + uri[len("s3://"):]
    if uri.startswith(PROTOCOL + "://"):
        return uri[len(PROTOCOL + "://"):]
    return uri


def prefix_of(path):
    """The cache-URI prefix (bytes) of a directory-like fsspec path.

    ``""`` (the root) has none (everything); ``s3`` is ``s3://``; ``NAME``
    is ``hypercache://NAME/``; deeper paths end with ``/``.
    """
    rest = _strip(path).strip("/")
    if not rest:
        return b""
    if rest == "s3":
        return b"s3://"
    head, _, tail = rest.partition("/")
    if head == "s3":
        uri = "s3://" + tail + "/"
    else:
        uri = PROTOCOL + "://" + rest + "/"
    return uri.encode("utf-8", "surrogateescape")
