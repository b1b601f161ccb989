#!/bin/bash
# libhypercache's packaging: `make -C lib install` into a scratch DESTDIR
# puts the shared library (soname libhypercache.so.1, only hc_* exported,
# versioned HYPERCACHE_1.0), the static archive, the header, hypercache.pc
# and the man pages (one per function) where they belong; a program built
# with `pkg-config --cflags --libs hypercache` against the installed copy
# links both ways and runs (hc_crc32c's check value).
set -euo pipefail
cd "$(dirname "$0")/../.."
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
make -s -C lib install DESTDIR="$d" PREFIX=/usr >/dev/null
lib=$d/usr/lib
so=libhypercache.so.1.3.0
fail() { echo "libhypercache: $*" >&2; exit 1; }
[ -f "$lib/$so" ] || fail "no $so"
[ "$(readlink "$lib/libhypercache.so.1")" = "$so" ] || fail "bad .so.1 link"
[ "$(readlink "$lib/libhypercache.so")" = libhypercache.so.1 ] || fail "bad .so link"
readelf -d "$lib/$so" | grep -q 'SONAME.*\[libhypercache.so.1\]' ||
	fail "soname is not libhypercache.so.1"
bad=$(nm -D --defined-only "$lib/$so" | awk '$2 == "T" && $3 !~ /^hc_/')
[ -z "$bad" ] || fail "exports more than hc_*: $bad"
nm -D --defined-only "$lib/$so" | grep -q 'hc_reader_open@@HYPERCACHE_1.0' ||
	fail "symbols are not versioned HYPERCACHE_1.0"
nm -D --defined-only "$lib/$so" | grep -q 'hc_ctx_locate@@HYPERCACHE_1.1' ||
	fail "hc_ctx_locate is not versioned HYPERCACHE_1.1"
nm -D --defined-only "$lib/$so" | grep -q 'hc_writer_crc32c@@HYPERCACHE_1.2' ||
	fail "hc_writer_crc32c is not versioned HYPERCACHE_1.2"
nm -D --defined-only "$lib/$so" | grep -q 'hc_ctx_object_info@@HYPERCACHE_1.3' ||
	fail "hc_ctx_object_info is not versioned HYPERCACHE_1.3"
[ -f "$lib/libhypercache.a" ] || fail "no static archive"
[ -f "$d/usr/include/hypercache/hypercache.h" ] || fail "no header"
for f in $(sed -n 's/.*\(hc_[a-z0-9_]*\)(.*/\1/p' lib/include/hypercache/hypercache.h | sort -u); do
	[ -f "$d/usr/share/man/man3/$f.3" ] || fail "no man page for $f"
	grep -q "$f" lib/man/libhypercache.3 || fail "libhypercache.3 does not describe $f"
done
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d \
	PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
cat >"$d/t.c" <<'C'
#include <hypercache/hypercache.h>
#include <stdio.h>
int main(void)
{
	return hc_crc32c(0, "123456789", 9) == 0xe3069283u ? 0 : 1;
}
C
# shellcheck disable=SC2046
cc -Wall -Werror -o "$d/t-shared" "$d/t.c" $(pkg-config --cflags --libs hypercache)
LD_LIBRARY_PATH=$lib "$d/t-shared" || fail "the shared build gives a wrong CRC"
# shellcheck disable=SC2046
cc -Wall -Werror -o "$d/t-static" "$d/t.c" $(pkg-config --cflags hypercache) \
	"$lib/libhypercache.a" $(pkg-config --libs-only-l --static hypercache | sed 's/-lhypercache//')
"$d/t-static" || fail "the static build gives a wrong CRC"
echo "libhypercache: install, soname, exports, pkg-config, man pages: ok"
