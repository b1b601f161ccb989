# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""HyperCache from Python.

``import hypercache`` registers the ``hypercache://`` protocol with fsspec
(also declared as an ``fsspec.specs`` entry point), so ``fsspec.open``,
``torch.load`` of an fsspec file, pandas and friends read and write cached
objects.  :mod:`hypercache.safetensors` loads .safetensors objects
zero-copy, :mod:`hypercache.torch` has ``save``/``load`` and a sharded
Dataset.  The bindings (:mod:`hypercache._lib`) use ctypes over
libhypercache.so.1 (``$HYPERCACHE_LIB`` overrides where it is found).
"""
from .errors import error
from .uri import to_cache_uri, to_path

__all__ = ["error", "to_cache_uri", "to_path", "open", "safetensors"]
__version__ = "1.0.0"

try:
    import fsspec as _fsspec
except ImportError:		# fsspec is optional for the C-level API
    _fsspec = None

if _fsspec is not None:
    from .fs import HyperCacheFileSystem

    _fsspec.register_implementation("hypercache", HyperCacheFileSystem,
                                    clobber=True)
    __all__.append("HyperCacheFileSystem")


def open(path, mode="rb", **kwargs):	# noqa: A001 - mirrors fsspec.open
    """``fsspec.open("hypercache://...")``, opened."""
    return HyperCacheFileSystem(**kwargs).open(path, mode)


from . import safetensors	# noqa: E402  (needs nothing but numpy lazily)
