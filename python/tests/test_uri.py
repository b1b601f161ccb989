# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
import errno

import pytest

from hypercache.uri import HC_URI_MAX, prefix_of, to_cache_uri, to_path


@pytest.mark.parametrize("path,uri", [
    ("hypercache://s3/my-bucket/checkpoints/epoch_1.pt",
     b"s3://my-bucket/checkpoints/epoch_1.pt"),
    ("s3/my-bucket/a", b"s3://my-bucket/a"),
    ("s3://bkt/k/e/y", b"s3://bkt/k/e/y"),
    ("hypercache://models/llama-3/weights.pt",
     b"hypercache://models/llama-3/weights.pt"),
    ("models/x", b"hypercache://models/x"),
    ("hypercache://s3/b/%41 key", b"s3://b/%41 key"),	# literal, no decoding
    ("hypercache://m/\u00e9", "hypercache://m/\u00e9".encode()),
])
def test_to_cache_uri(path, uri):
    assert to_cache_uri(path) == uri


@pytest.mark.parametrize("uri", [b"s3://my-bucket/k", b"hypercache://m/a/b"])
def test_round_trip(uri):
    assert to_cache_uri(to_path(uri)) == uri


@pytest.mark.parametrize("path", ["", "hypercache://", "s3", "s3/",
                                  "hypercache://models", "models/"])
def test_not_an_object(path):
    with pytest.raises(OSError) as e:
        to_cache_uri(path)
    assert e.value.errno == errno.EINVAL


def test_nul_and_length():
    with pytest.raises(OSError) as e:
        to_cache_uri("m/a\0b")
    assert e.value.errno == errno.EINVAL
    with pytest.raises(OSError) as e:
        to_cache_uri("m/" + "k" * 5000)
    assert e.value.errno == errno.E2BIG
    assert e.value.filename.startswith("m/")
    # exactly HC_URI_MAX bytes is fine, one more is E2BIG (it was 4096,
    # which let 1025..4096 bytes through to the library's own refusal)
    assert HC_URI_MAX == 1024
    assert len(to_cache_uri("m/" + "k" * (1024 - len("hypercache://m/")))) == 1024
    with pytest.raises(OSError) as e:
        to_cache_uri("m/" + "k" * (1025 - len("hypercache://m/")))
    assert e.value.errno == errno.E2BIG


def test_prefix_of():
    assert prefix_of("") == b""
    assert prefix_of("hypercache://") == b""
    assert prefix_of("s3") == b"s3://"
    assert prefix_of("s3/bkt") == b"s3://bkt/"
    assert prefix_of("hypercache://models/llama/") == b"hypercache://models/llama/"
