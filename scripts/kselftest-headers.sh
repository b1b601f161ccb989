#!/bin/bash
# Usage: scripts/kselftest-headers.sh
#
# Extracts, from Debian's linux-source-6.1 package, the files the tests need
# but the project must not carry:
#   build/kselftest/kselftest_harness.h, build/kselftest/kselftest.h
#   build/checkpatch/checkpatch.pl (+ spelling.txt, const_structs.checkpatch)
# The .deb is fetched with `apt-get download` into build/deps/ (or taken from
# /tmp/linux-source-6.1_*.deb if one is already there). Does nothing if the
# files are already present. Paths are relative to the repository root.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ks=$root/build/kselftest
cp_dir=$root/build/checkpatch
deps=$root/build/deps

if [ -s "$ks/kselftest_harness.h" ] && [ -s "$ks/kselftest.h" ] && [ -s "$cp_dir/checkpatch.pl" ]; then
	echo "kselftest-headers.sh: already present in build/kselftest and build/checkpatch"
	exit 0
fi

mkdir -p "$ks" "$cp_dir" "$deps"

deb=$(ls -t "$deps"/linux-source-6.1_*.deb 2>/dev/null | head -n1 || true)
if [ -z "$deb" ]; then
	deb=$(ls -t /tmp/linux-source-6.1_*.deb 2>/dev/null | head -n1 || true)
fi
if [ -z "$deb" ]; then
	echo "kselftest-headers.sh: downloading linux-source-6.1 into build/deps/"
	if ! (cd "$deps" && apt-get download linux-source-6.1); then
		# fresh machine without package lists: refresh them (tolerating
		# unreachable third-party sources) and try once more
		apt-get update || echo "kselftest-headers.sh: apt-get update reported errors (ignored)" >&2
		(cd "$deps" && apt-get download linux-source-6.1)
	fi
	deb=$(ls -t "$deps"/linux-source-6.1_*.deb | head -n1)
fi
echo "kselftest-headers.sh: extracting from $deb"

tmp=$(mktemp -d "$root/build/deps/extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

dpkg-deb --fsys-tarfile "$deb" |
	tar -xO ./usr/src/linux-source-6.1.tar.xz |
	tar -xJ -C "$tmp" --wildcards \
		'linux-source-6.1/tools/testing/selftests/kselftest_harness.h' \
		'linux-source-6.1/tools/testing/selftests/kselftest.h' \
		'linux-source-6.1/scripts/checkpatch.pl' \
		'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch' 2>/dev/null || {
	# spelling.txt / const_structs.checkpatch are optional: retry without them
	# if tar complained that one was missing, as long as the essentials exist.
	[ -f "$tmp/linux-source-6.1/scripts/checkpatch.pl" ] || {
		echo "kselftest-headers.sh: extraction failed" >&2
		exit 1
	}
}

src=$tmp/linux-source-6.1
cp "$src/tools/testing/selftests/kselftest_harness.h" "$src/tools/testing/selftests/kselftest.h" "$ks/"
cp "$src/scripts/checkpatch.pl" "$cp_dir/"
for f in spelling.txt const_structs.checkpatch; do
	if [ -f "$src/scripts/$f" ]; then cp "$src/scripts/$f" "$cp_dir/"; fi
done
chmod +x "$cp_dir/checkpatch.pl"
echo "kselftest-headers.sh: wrote build/kselftest/ and build/checkpatch/"
