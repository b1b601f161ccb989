# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
import json

from hypercache.__main__ import main


def test_ls_info_cat(fake, capsys):
    fake.add(b"hypercache://m/a/1", b"one")
    fake.add(b"s3://bkt/k", b"two!")
    assert main(["ls", "m/a"]) == 0
    out = capsys.readouterr().out
    assert "m/a/1" in out and "ready" in out
    assert main(["--json", "ls"]) == 0
    names = [e["name"] for e in json.loads(capsys.readouterr().out)]
    assert names == ["m", "s3"]
    assert main(["--json", "info", "s3://bkt/k"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    assert info["size"] == 4 and info["name"] == "s3/bkt/k"
    assert main(["cat", "hypercache://m/a/1", "s3/bkt/k"]) == 0
    assert capsys.readouterr().out == "onetwo!"


def test_errors_name_the_object(fake, capsys):
    assert main(["cat", "hypercache://m/none"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("hypercache: hypercache://m/none: ")
    assert "not cached" in err


def test_info_shows_the_backend_version(fake, capsys):
    fake.add(b"s3://bkt/up", b"x", etag='"9b2c"', last_modified=1764577805)
    fake.add(b"s3://bkt/new", b"y")
    assert main(["--json", "info", "s3/bkt/up", "s3/bkt/new"]) == 0
    up, new = json.loads(capsys.readouterr().out)
    assert up["ETag"] == '"9b2c"'
    assert up["LastModified"] == "2025-12-01T08:30:05Z"
    assert new["ETag"] is None and new["LastModified"] is None
    assert main(["info", "s3/bkt/up"]) == 0
    out = capsys.readouterr().out
    assert 'ETag="9b2c"' in out and "LastModified=2025-12-01T08:30:05Z" in out
    assert main(["--json", "ls", "s3/bkt"]) == 0
    ents = {e["name"]: e for e in json.loads(capsys.readouterr().out)}
    assert ents["s3/bkt/up"]["LastModified"] == "2025-12-01T08:30:05Z"
