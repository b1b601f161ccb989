# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""python -m hypercache {ls,cat,info} PATH... (smoke tests, scripts).

Paths are those of the hypercache:// file system (hypercache://s3/BUCKET/KEY,
hypercache://NAME/KEY, or s3://BUCKET/KEY).  Errors go to stderr as
"hypercache: URI: reason" and exit 1; a usage error exits 2.
"""
import argparse
import datetime
import json
import sys

from .fs import HyperCacheFileSystem


def _plain(v):
    """A value of an entry for JSON and text: datetimes as ISO 8601 UTC
    ("2026-12-01T08:30:05Z", as hcctl --json shows them)."""
    if isinstance(v, datetime.datetime):
        return v.astimezone(datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
    return v


def _plain_all(entries):
    return [{k: _plain(v) for k, v in e.items()} for e in entries]


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m hypercache",
                                description="read the HyperCache index and "
                                "objects")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.add_argument("--no-ingest", action="store_true",
                   help="cat: a miss fails instead of being ingested")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name, what in (("ls", "list objects and prefixes"),
                       ("cat", "write objects' bytes to stdout"),
                       ("info", "size, state, generation, ETag and Last-Modified")):
        s = sub.add_parser(name, help=what)
        s.add_argument("paths", nargs="*" if name == "ls" else "+")
    a = p.parse_args(argv)
    fs = HyperCacheFileSystem(ingest=not a.no_ingest)
    try:
        if a.cmd == "ls":
            out = []
            for path in a.paths or [""]:
                out += fs.ls(path, detail=True)
            if a.json:
                json.dump(_plain_all(out), sys.stdout)
                print()
            else:
                for e in out:
                    if e["type"] == "directory":
                        print("%12s  %-9s %s/" % ("-", "-", e["name"]))
                    else:
                        print("%12d  %-9s %s" % (e["size"], e["state"],
                                                 e["name"]))
        elif a.cmd == "info":
            out = _plain_all(fs.info(path) for path in a.paths)
            if a.json:
                json.dump(out, sys.stdout)
                print()
            else:
                for e in out:
                    print(" ".join("%s=%s" % kv for kv in sorted(e.items())))
        else:
            for path in a.paths:
                with fs.open(path, "rb") as f:
                    while True:
                        b = f.read(16 << 20)
                        if not b:
                            break
                        sys.stdout.buffer.write(b)
            sys.stdout.buffer.flush()
    except OSError as e:
        print("hypercache: %s: %s" % (e.filename or "-", e.strerror),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
