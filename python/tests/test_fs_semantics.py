# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""fsspec's conventions for an implementation, checked against the fake.

Debian 12's fsspec (2022.11) does not ship ``fsspec.tests.abstract`` (the
suite implementations run against themselves, added in 2023.x); these
tests check, one by one, the behaviours of that suite and of fsspec's
documented contract that users of ``hypercache://`` rely on: ``ls``,
``info``, ``find``, ``glob``, ``open``, ``cat``, ``get``, ``put``,
``copy``, ``rm``, ``exists``/``isfile``/``isdir`` and their path forms
(protocol or not, a trailing slash, ``s3://`` given as is).  What cannot
apply to an object cache is said where it is checked: there are no empty
directories (a prefix exists through its objects), no append, no
modification times.
"""
import errno

import fsspec
import pytest

from hypercache.fs import HyperCacheFileSystem


@pytest.fixture
def tree(fake):
    """m/d/{a,b.pt,c.pt}, m/d/sub/{x.pt,deep/y}, m/top, s3://bkt/k"""
    for uri, data in [(b"hypercache://m/d/a", b"A"),
                      (b"hypercache://m/d/b.pt", b"BB"),
                      (b"hypercache://m/d/c.pt", b"CCC"),
                      (b"hypercache://m/d/sub/x.pt", b"XXXX"),
                      (b"hypercache://m/d/sub/deep/y", b"YYYYY"),
                      (b"hypercache://m/top", b"T"),
                      (b"s3://bkt/k", b"K")]:
        fake.add(uri, data)
    return HyperCacheFileSystem()


# -- names and paths ------------------------------------------------------

@pytest.mark.parametrize("p", ["m/d/a", "hypercache://m/d/a", "m/d/a/",
                               "hypercache://m/d/a/", "/m/d/a"])
def test_path_forms_name_the_same_object(tree, p):
    assert tree.info(p)["name"] == "m/d/a"
    assert tree.cat(p) == b"A"


def test_s3_uri_as_is_and_as_path(tree):
    assert tree.cat("s3://bkt/k") == tree.cat("hypercache://s3/bkt/k") == b"K"
    assert tree.info("s3://bkt/k")["name"] == "s3/bkt/k"


def test_unstrip_protocol_round_trips(tree):
    assert tree.unstrip_protocol("m/d/a") == "hypercache://m/d/a"
    assert fsspec.open("hypercache://m/d/a").path == "m/d/a"


# -- ls and info ----------------------------------------------------------

def test_ls_detail_entries(tree):
    ents = {e["name"]: e for e in tree.ls("m/d", detail=True)}
    assert sorted(ents) == ["m/d/a", "m/d/b.pt", "m/d/c.pt", "m/d/sub"]
    assert ents["m/d/b.pt"]["type"] == "file"
    assert ents["m/d/b.pt"]["size"] == 2
    assert ents["m/d/sub"]["type"] == "directory"
    # every entry has name, size, type (fsspec's minimum)
    assert all({"name", "size", "type"} <= set(e) for e in ents.values())


def test_ls_trailing_slash_and_protocol(tree):
    want = tree.ls("m/d", detail=False)
    assert tree.ls("m/d/", detail=False) == want
    assert tree.ls("hypercache://m/d/", detail=False) == want


def test_ls_of_a_missing_path_is_filenotfound(tree):
    with pytest.raises(FileNotFoundError):
        tree.ls("m/nope")
    with pytest.raises(FileNotFoundError):
        tree.info("m/d/nope")


def test_a_name_prefix_is_not_a_directory(tree):
    # "m/d/su" is a prefix of "m/d/sub/..." by bytes, not a directory
    assert not tree.exists("m/d/su")
    with pytest.raises(FileNotFoundError):
        tree.ls("m/d/su")


def test_isfile_isdir_exists(tree):
    assert tree.isfile("m/d/a") and not tree.isdir("m/d/a")
    assert tree.isdir("m/d/sub") and not tree.isfile("m/d/sub")
    assert tree.isdir("") and tree.isdir("m")
    assert not tree.exists("m/d/zzz")


# -- find and glob --------------------------------------------------------

def test_find_files_only_sorted(tree):
    assert tree.find("m/d") == ["m/d/a", "m/d/b.pt", "m/d/c.pt",
                                "m/d/sub/deep/y", "m/d/sub/x.pt"]


def test_find_maxdepth_and_withdirs(tree):
    assert tree.find("m/d", maxdepth=1) == ["m/d/a", "m/d/b.pt", "m/d/c.pt"]
    got = tree.find("m/d", withdirs=True)
    assert "m/d/sub" in got and "m/d/sub/deep" in got
    assert "m/d/sub/deep/y" in got


def test_find_of_a_file_is_that_file(tree):
    assert tree.find("m/d/a") == ["m/d/a"]


def test_find_detail(tree):
    d = tree.find("m/d/sub", detail=True)
    assert sorted(d) == ["m/d/sub/deep/y", "m/d/sub/x.pt"]
    assert d["m/d/sub/x.pt"]["size"] == 4


def test_find_of_nothing_is_empty(tree):
    assert tree.find("m/nothing") == []


def test_glob(tree):
    assert tree.glob("m/d/*.pt") == ["m/d/b.pt", "m/d/c.pt"]
    assert tree.glob("m/d/?") == ["m/d/a"]
    # "**" is fsspec's own: one or more levels in 2022.11, zero or more
    # later; either way it reaches below the prefix through find()
    deep = tree.glob("m/d/**/*.pt")
    assert "m/d/sub/x.pt" in deep
    assert set(deep) <= {"m/d/b.pt", "m/d/c.pt", "m/d/sub/x.pt"}
    assert tree.glob("hypercache://m/d/*.pt") == ["m/d/b.pt", "m/d/c.pt"]
    assert tree.glob("m/d/*.none") == []


def test_expand_path_recursive(tree):
    got = tree.expand_path("m/d/sub", recursive=True)
    assert "m/d/sub/x.pt" in got and "m/d/sub/deep/y" in got


# -- open and cat ---------------------------------------------------------

def test_read_past_the_end_and_seek_whence(tree):
    with tree.open("m/d/c.pt", "rb") as f:
        assert f.size == 3
        assert f.read(100) == b"CCC"
        assert f.read(1) == b""
        f.seek(1)
        assert f.read() == b"CC"
        f.seek(-1, 2)
        assert f.read() == b"C"
        f.seek(-2, 1)
        assert f.read(1) == b"C"
        with pytest.raises(ValueError):
            f.seek(-10)


def test_open_text_mode(tree):
    with fsspec.open("hypercache://m/d/c.pt", "rt") as f:
        assert f.read() == "CCC"


def test_cat_many_and_on_error(tree):
    got = tree.cat(["m/d/a", "m/d/b.pt"])
    assert got == {"m/d/a": b"A", "m/d/b.pt": b"BB"}
    got = tree.cat(["m/d/a", "m/d/none"], on_error="return")
    assert got["m/d/a"] == b"A"
    assert isinstance(got["m/d/none"], FileNotFoundError)
    with pytest.raises(FileNotFoundError):
        tree.cat(["m/d/a", "m/d/none"])


def test_cat_glob_and_recursive(tree):
    assert tree.cat("m/d/*.pt") == {"m/d/b.pt": b"BB", "m/d/c.pt": b"CCC"}
    # fsspec 2022.11's recursive cat also expands to the prefixes: they
    # are IsADirectoryError (as on a local fs), the objects their bytes
    got = tree.cat("m/d/sub", recursive=True, on_error="omit")
    assert got == {"m/d/sub/x.pt": b"XXXX", "m/d/sub/deep/y": b"YYYYY"}
    with pytest.raises(IsADirectoryError):
        tree.cat_file("m/d/sub")


def test_cat_file_ranges(tree):
    assert tree.cat_file("m/d/sub/deep/y", start=1, end=3) == b"YY"
    assert tree.cat_file("m/d/sub/deep/y", start=-2) == b"YY"
    assert tree.cat_file("m/d/sub/deep/y", end=-4) == b"Y"
    assert tree.cat_file("m/d/sub/deep/y", start=4, end=2) == b""
    assert tree.cat_file("m/d/sub/deep/y", start=10) == b""


def test_head_tail(tree):
    assert tree.head("m/d/sub/deep/y", 2) == b"YY"
    assert tree.tail("m/d/sub/deep/y", 2) == b"YY"


# -- writing: open wb, pipe, put, copy ------------------------------------

def test_pipe_and_overwrite(tree, fake):
    tree.pipe("m/new", b"one")
    assert tree.cat("m/new") == b"one"
    fake.objects[b"hypercache://m/new"]["state"] = "ready"
    tree.pipe("m/new", b"two")	# "wb" replaces, as on every fs
    assert tree.cat("m/new") == b"two"


def test_put_file_to_a_name_and_into_a_directory(tree, fake, tmp_path):
    (tmp_path / "f.bin").write_bytes(b"data")
    tree.put(str(tmp_path / "f.bin"), "m/up/f2.bin")
    assert tree.cat("m/up/f2.bin") == b"data"
    # a target ending in "/" is a directory: the file keeps its name
    tree.put(str(tmp_path / "f.bin"), "m/up/dir/")
    assert tree.cat("m/up/dir/f.bin") == b"data"


def test_put_recursive_keeps_the_tree(tree, tmp_path):
    src = tmp_path / "src"
    (src / "s").mkdir(parents=True)
    (src / "1").write_bytes(b"1")
    (src / "s" / "2").write_bytes(b"22")
    tree.put(str(src) + "/", "m/rec/", recursive=True)
    assert tree.find("m/rec") == ["m/rec/1", "m/rec/s/2"]
    assert tree.cat("m/rec/s/2") == b"22"


def test_get_file_and_recursive(tree, tmp_path):
    tree.get("m/d/b.pt", str(tmp_path / "b"))
    assert (tmp_path / "b").read_bytes() == b"BB"
    out = tmp_path / "out"
    out.mkdir()
    tree.get("m/d/sub/", str(out) + "/", recursive=True)
    assert (out / "x.pt").read_bytes() == b"XXXX"
    assert (out / "deep" / "y").read_bytes() == b"YYYYY"


def test_get_glob(tree, tmp_path):
    out = tmp_path / "g"
    out.mkdir()
    tree.get("m/d/*.pt", str(out) + "/")
    assert sorted(p.name for p in out.iterdir()) == ["b.pt", "c.pt"]


def test_copy_between_objects(tree):
    tree.copy("m/d/c.pt", "m/copy/c.pt")
    assert tree.cat("m/copy/c.pt") == b"CCC"
    tree.copy("m/d/sub", "m/copy/sub", recursive=True)
    assert sorted(tree.find("m/copy/sub")) == ["m/copy/sub/deep/y",
                                               "m/copy/sub/x.pt"]


def test_no_append_no_update(tree):
    for mode in ("ab", "r+b"):
        with pytest.raises(OSError) as e:
            tree.open("m/d/a", mode)
        assert e.value.errno == errno.EOPNOTSUPP


# -- removing -------------------------------------------------------------

def test_rm_file_and_recursive(tree):
    tree.rm("m/d/a")
    assert not tree.exists("m/d/a")
    tree.rm("m/d/sub", recursive=True)
    assert tree.find("m/d/sub") == []
    assert not tree.exists("m/d/sub")	# a prefix with no objects is gone
    assert tree.exists("m/d/b.pt")


def test_rm_missing_is_filenotfound(tree):
    with pytest.raises(FileNotFoundError):
        tree.rm("m/d/none")


def test_mkdir_is_a_no_op(tree):
    # no empty directories in a cache: mkdir succeeds and creates nothing
    tree.mkdir("m/empty")
    tree.makedirs("m/empty2/x", exist_ok=True)
    assert not tree.exists("m/empty")


def test_modified_is_the_backends_last_modified(tree, fake):
    import datetime

    # an object written and not uploaded: its backend version is unknown
    with pytest.raises(OSError) as e:
        tree.modified("m/d/a")
    assert e.value.errno == errno.ENODATA and "m/d/a" in e.value.filename
    fake.add(b"hypercache://m/d/up", b"x", etag='"e1"',
             last_modified=1764577805)
    assert tree.modified("m/d/up") == datetime.datetime(
        2025, 12, 1, 8, 30, 5, tzinfo=datetime.timezone.utc)
    with pytest.raises(IsADirectoryError):
        tree.modified("m/d")
    with pytest.raises(FileNotFoundError):
        tree.modified("m/d/none")


def test_creation_times_are_not_kept(tree):
    with pytest.raises(NotImplementedError):
        tree.created("m/d/a")
