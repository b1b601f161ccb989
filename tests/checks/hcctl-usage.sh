#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Command-line checks for tools/hcctl/hcctl that need neither root nor the
# hypercache module: help, version, usage errors (exit 2), argument checks
# (exit 1), and "module not loaded" when the module is absent.
#
#   tests/checks/hcctl-usage.sh          (expects tools/hcctl/hcctl built)
#   HCCTL=/path/to/hcctl tests/checks/hcctl-usage.sh
#
# Exit 0 if every check passes; prints each failure.

top=$(cd "$(dirname "$0")/../.." && pwd)
HCCTL=${HCCTL:-$top/tools/hcctl/hcctl}

if [ ! -x "$HCCTL" ]; then
	echo "hcctl-usage: $HCCTL not built (make -C tools/hcctl)" >&2
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
: > "$tmp/regular-file"

failed=0
passed=0

# expect RC STREAM PATTERN -- ARGS...
#   RC: expected exit status; STREAM: out or err; PATTERN: fixed string that
#   must appear in that stream ("" for none).
expect() {
	want_rc=$1 stream=$2 pattern=$3
	shift 4
	"$HCCTL" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	why=
	if [ "$rc" -ne "$want_rc" ]; then
		why="exit status $rc, want $want_rc"
	elif [ -n "$pattern" ] && ! grep -qF -- "$pattern" "$tmp/$stream"; then
		why="std$stream lacks '$pattern'"
	fi
	if [ -n "$why" ]; then
		failed=$((failed + 1))
		echo "FAIL: hcctl $*: $why"
		sed 's/^/  stdout: /' "$tmp/out" | head -5
		sed 's/^/  stderr: /' "$tmp/err" | head -5
	else
		passed=$((passed + 1))
	fi
}

# lacks STREAM PATTERN: the previous expect's stream must not contain PATTERN
lacks() {
	if grep -qF -- "$2" "$tmp/$1"; then
		failed=$((failed + 1))
		echo "FAIL: std$1 of the previous check has '$2'"
		sed "s/^/  std$1: /" "$tmp/$1" | head -5
	else
		passed=$((passed + 1))
	fi
}

# help and version
expect 0 out "COMMANDS"               -- --help
expect 0 out "pool create"            -- --help
expect 0 out "hcctl "                 -- --version
expect 0 out "hcctl "                 -- version
expect 0 out "pool assemble"          -- help
expect 0 out "pool stop"              -- help pool
expect 0 out "pool stop"              -- pool --help
for c in "pool create" "pool assemble" "pool stop" status monitor geometry \
	 put get locate preload preload-batch flush restore ls evict pin unpin \
	 stats verify inspect help version; do
	# shellcheck disable=SC2086
	expect 0 out "SYNOPSIS"       -- $c --help
	# shellcheck disable=SC2086
	expect 0 out "hcctl $c"       -- help $c
done
expect 0 out "--data-offset"          -- pool create --help
expect 0 out "--count"                -- monitor --help
expect 0 out "EXIT STATUS"            -- status --help
expect 0 out "--replace"              -- put --help
expect 0 out "--no-progress"          -- get --help
expect 0 out "--layout"               -- locate --help
expect 0 out "--parallel P"           -- preload --help
expect 0 out "JOB_COMPLETION_INDEX"   -- preload-batch --help
expect 0 out "HC_CMD_STATS_GET"       -- help stats
expect 0 out "--root DIR"             -- inspect --help
expect 0 out "use --force to overwrite" -- pool create --help

# one set of flags (opt.c): --json after the verb on every verb (it was
# refused by get, pool stop, evict, pin, unpin, help and version) ...
for c in "pool create" "pool assemble" "pool stop" status monitor geometry \
	 put get locate preload preload-batch flush restore ls evict pin unpin \
	 stats verify inspect help version; do
	# shellcheck disable=SC2086
	expect 0 out "SYNOPSIS"       -- $c --json --help
	# shellcheck disable=SC2086
	expect 0 out "SYNOPSIS"       -- $c -j -h
	# shellcheck disable=SC2086
	expect 0 out "--json"         -- $c --help
done
expect 0 out '"family":"hypercache"'  -- version --json
expect 0 out '"family":"hypercache"'  -- --json version
# ... one name for parallelism, -P/--parallel (flush's --width/-w, the old
# spelling, still works, with a note) ...
for c in preload preload-batch flush; do
	expect 0 out "-P, --parallel P"   -- $c --help
done
expect 2 err "flush: bad --parallel '0'"          -- flush --parallel 0 s3://bkt/a/b/
expect 2 err "flush: bad --parallel '65'"         -- flush -P 65 s3://bkt/a/b/
expect 2 err "flush: --width is deprecated, use --parallel" -- flush --width 2 --bogus s3://bkt/a/b/
expect 2 err "flush: --width is deprecated, use --parallel" -- flush -w 2 --bogus s3://bkt/a/b/
expect 2 err "flush: unrecognized option '--bogus'" -- flush --parallel 2 --bogus s3://bkt/a/b/
lacks err "deprecated"
# ... and -o is the output file (get); pool create's -o still works, noted
expect 2 err "get: missing URI operand"           -- get -o "$tmp/out-file"
expect 2 err "pool create: -o is deprecated, use --data-offset" -- pool create -o 4M --bogus /dev/null
expect 2 err "pool create: unrecognized option '--bogus'" -- pool create --data-offset 4M --bogus /dev/null
lacks err "deprecated"

# usage errors: exit 2, message on stderr, nothing on stdout
expect 2 err "no command given"       --
expect 2 err "unknown command 'frob'" -- frob
expect 2 err "unrecognized option '--bogus'" -- --bogus
expect 2 err "no command given"       -- pool
expect 2 err "unknown command 'frob'" -- pool frob
expect 2 err "unknown command"        -- help frob
expect 2 err "pool create: missing DEV operand"   -- pool create
expect 2 err "pool create: missing DEV operand"   -- pool create --force
expect 2 err "pool assemble: missing DEV operand" -- pool assemble
expect 2 err "pool assemble: missing DEV operand" -- pool assemble --force-empty-journal
expect 2 err "unrecognized option '--force-empty-journal'" -- pool create --force-empty-journal /dev/null
expect 0 out "--force-empty-journal"  -- pool assemble --help
expect 2 err "unrecognized option '--bogus'"      -- pool create --bogus /dev/null
expect 2 err "invalid option -- 'x'"              -- pool create -x /dev/null
# a flag given a value: named as such (it was "invalid option -- ''" for a
# long-only flag, "invalid option -- 'j'" for --json)
expect 2 err "evict: option '--discard-dirty' doesn't allow an argument" -- evict --discard-dirty=1 s3://b/o
expect 2 err "ls: option '--json' doesn't allow an argument" -- ls --json=yes
expect 2 err "option '--json' doesn't allow an argument" -- --json=1 ls
expect 2 err "evict: unrecognized option '--dirty=1'" -- evict --dirty=1 s3://b/o
expect 2 err "option '--data-offset' requires an argument" -- pool create --data-offset
expect 2 err "invalid --data-offset '12Q'"        -- pool create --data-offset 12Q /dev/null
expect 2 err "invalid --data-offset 'lots'"       -- pool create --data-offset lots /dev/null
expect 2 err "invalid --data-offset '-1'"         -- pool create --data-offset -1 /dev/null
expect 2 err "invalid --data-offset"              -- pool create --data-offset 99999999999999999999 /dev/null
expect 2 err "invalid --data-offset"              -- pool create --data-offset 20000000T /dev/null
expect 2 err "Usage: hcctl pool create"           -- pool create --bogus
expect 2 err "unexpected argument 'extra'"        -- status extra
expect 2 err "unexpected argument 'extra'"        -- pool stop extra
expect 2 err "unrecognized option '--bogus'"      -- status --bogus
expect 2 err "invalid --count '0'"                -- monitor --count 0
expect 2 err "invalid --count 'x'"                -- monitor --count x
expect 2 err "unexpected argument"                -- geometry /dev/a /dev/b
expect 2 err "too many devices"                   -- pool create $(seq -f /dev/x%g 65)

expect 2 err "inspect: unrecognized option '--bogus'" -- inspect --bogus
expect 2 err "inspect: option '--root' requires an argument" -- inspect --root
expect 2 err "inspect: empty --root"             -- inspect --root ""
expect 2 err "inspect: invalid DEV 'nvme0n1'"    -- inspect nvme0n1
expect 2 err "inspect: --all makes no sense with DEV operands" -- inspect --all /dev/null

# object commands: operands, options, URIs (1..HC_URI_MAX bytes)
long_uri=$(printf 's3://%01020d' 0)	# 1025 bytes
max_uri=$(printf 's3://%01019d' 0)	# 1024 bytes
expect 2 err "put: missing FILE operand"          -- put
expect 2 err "put: missing URI operand"           -- put "$tmp/regular-file"
expect 2 err "put: missing FILE operand"          -- put --clean --crc
expect 2 err "put: unexpected argument 'extra'"   -- put "$tmp/regular-file" s3://b/o extra
expect 2 err "put: unrecognized option '--bogus'" -- put --bogus "$tmp/regular-file" s3://b/o
expect 2 err "put: invalid option -- 'x'"         -- put -x "$tmp/regular-file" s3://b/o
expect 2 err "put: empty URI"                     -- put "$tmp/regular-file" ""
expect 2 err "put: URI too long: 1025 bytes (at most 1024)" -- put "$tmp/regular-file" "$long_uri"
expect 2 err "Usage: hcctl put"                   -- put
expect 2 err "get: missing URI operand"           -- get
expect 2 err "get: missing URI operand"           -- get -o "$tmp/out-file"
expect 2 err "get: option requires an argument -- 'o'" -- get -o
expect 2 err "get: option '--output' requires an argument" -- get --output
expect 2 err "get: unexpected argument 'b'"       -- get a b
expect 2 err "get: empty URI"                     -- get --json ""
expect 2 err "get: empty URI"                     -- get ""
expect 2 err "get: URI too long"                  -- get "$long_uri"
expect 2 err "locate: missing URI operand"        -- locate
expect 2 err "locate: missing URI operand"        -- locate --layout --json
expect 2 err "locate: unrecognized option '--bogus'" -- locate --bogus s3://b/o
expect 2 err "locate: unexpected argument 'b'"    -- locate a b
expect 2 err "locate: empty URI"                  -- locate ""
expect 2 err "locate: URI too long"               -- locate "$long_uri"
expect 2 err "preload: missing URI operand"       -- preload
expect 2 err "preload: missing URI operand"       -- preload --parallel 2 --json
expect 2 err "preload: bad --parallel '0'"        -- preload --parallel 0 s3://b/o
expect 2 err "preload: bad --parallel '65'"       -- preload -P 65 s3://b/o
expect 2 err "preload: bad --timeout 'x'"         -- preload --timeout x s3://b/o
expect 2 err "preload: empty URI"                 -- preload s3://b/o ""
expect 2 err "preload: URI too long"              -- preload s3://b/o "$long_uri"
expect 2 err "preload: unrecognized option '--bogus'" -- preload --bogus s3://b/o
expect 2 err "preload-batch: missing --prefix URI_PREFIX" -- preload-batch
expect 2 err "preload-batch: empty --prefix"      -- preload-batch --prefix ""
expect 2 err "preload-batch: unexpected argument 'x'" -- preload-batch --prefix s3://b/o x
expect 2 err "need --sharded"                     -- preload-batch --prefix s3://b/o --node-count 2
expect 2 err "preload-batch: --node-index 2 is not below --node-count 2" -- \
	preload-batch --prefix s3://b/o --sharded --node-count 2 --node-index 2
expect 2 err "preload-batch: --node-count 'two'" -- \
	preload-batch --prefix s3://b/o --sharded --node-count two --node-index 0
env -u SLURM_NODEID -u RANK -u JOB_COMPLETION_INDEX \
	SLURM_NNODES=4 "$HCCTL" preload-batch --prefix s3://b/o --sharded >/dev/null 2>"$tmp/err"
if [ $? -eq 2 ] && grep -qF "this node's index is not known" "$tmp/err"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: preload-batch --sharded without an index"
fi
expect 1 err "hcctl: /nonexistent.conf: cannot load the configuration: No such file or directory" -- \
	preload-batch --config /nonexistent.conf --prefix s3://bkt/o
# listing a posix tree needs neither the module nor root
mkdir -p "$tmp/store/ds/sub" "$tmp/store/dsx"
for i in 0 1 2 3 4; do echo "$i" > "$tmp/store/ds/shard_$i"; done
echo x > "$tmp/store/ds/sub/shard_9"
echo x > "$tmp/store/dsx/shard_8"
ln -s shard_0 "$tmp/store/ds/shard_link"
printf '[backend store]\ntype = posix\nroot = %s/store\n\n[backend s3]\ntype = s3\nendpoint = http://127.0.0.1:9\n' \
	"$tmp" > "$tmp/hc.conf"
pb="preload-batch --config $tmp/hc.conf --list"
# shellcheck disable=SC2086
expect 0 out '"uris":["hypercache://store/ds/shard_1","hypercache://store/ds/shard_3"]' -- \
	$pb --json --prefix hypercache://store/ds/shard_ --sharded --node-count 2 --node-index 1
# shellcheck disable=SC2086
expect 0 out '"listed":7' -- $pb --json --prefix hypercache://store/
# shellcheck disable=SC2086
expect 1 err "hypercache://store/ds/nope: no objects under this prefix" -- \
	$pb --prefix hypercache://store/ds/nope
# shellcheck disable=SC2086
expect 1 err "hypercache://zzz/a: no [backend zzz]" -- $pb --prefix hypercache://zzz/a
# shellcheck disable=SC2086
expect 1 err "bad prefix" -- $pb --prefix ftp://x/y
# one resolver (helper/lib/resolve.c): a prefix is quoted as given (it was
# parsed as PREFIX + "x", and the message said 's3://bktx'), the bucket of
# an s3 backend's hypercache:// prefix is required and checked
# shellcheck disable=SC2086
expect 1 err "'s3://bkt': no '/' before the key" -- $pb --prefix s3://bkt
lacks err "bktx"
# shellcheck disable=SC2086
expect 1 err "the URI is hypercache://s3/BUCKET/PREFIX" -- $pb --prefix hypercache://s3/bkt
# shellcheck disable=SC2086
expect 1 err "bucket 'Bkt': upper-case" -- $pb --prefix hypercache://s3/Bkt/a
# posix listing: the prefix's directory obeys the key rule (no ..)
# shellcheck disable=SC2086
expect 1 err "has a \"..\" component" -- $pb --prefix hypercache://store/ds/../
# flush and restore: operands, options; --status of a posix tree needs
# neither the module nor root
expect 0 out "HC_FLUSH_CRASH_AFTER"               -- flush --help
expect 0 out "fell back from"                     -- restore --help
expect 2 err "flush: missing PREFIX operand"      -- flush
expect 2 err "flush: missing PREFIX operand"      -- flush --sync --width 2
expect 2 err "flush: bad --width '0'"             -- flush --width 0 s3://bkt/a/b/
expect 2 err "flush: bad --width '65'"            -- flush -w 65 s3://bkt/a/b/
expect 2 err "flush: unexpected argument 'x'"     -- flush s3://bkt/a/b/ x
expect 2 err "flush: unrecognized option '--bogus'" -- flush --bogus s3://bkt/a/b/
expect 2 err "flush: --status makes no sense with --sync" -- flush --status --sync s3://bkt/a/b/
expect 2 err "a dataset prefix ends in '/'"       -- flush --config "$tmp/hc.conf" hypercache://store/ds
expect 2 err "restore: missing PARENT_PREFIX operand" -- restore
expect 2 err "restore: PARENT_PREFIX must end in '/'" -- restore s3://bkt/a
expect 2 err "restore: bad --dataset 'a/b'"       -- restore --dataset a/b s3://bkt/a/
expect 0 out "hypercache://store/ck/s1/: not flushed" -- \
	flush --status --config "$tmp/hc.conf" hypercache://store/ck/s1/
expect 0 out '"state":"not flushed"'              -- \
	flush --status --json --config "$tmp/hc.conf" hypercache://store/ck/s1/
expect 1 err "no dataset was flushed here"        -- restore --config "$tmp/hc.conf" hypercache://store/ck/
expect 1 err "hcctl: /nonexistent.conf: cannot load the configuration" -- \
	restore --config /nonexistent.conf s3://bkt/ck/
expect 2 err "ls: unexpected argument 'extra'"    -- ls s3://b/ extra
expect 2 err "ls: empty PREFIX"                   -- ls ''
expect 2 err "ls: unrecognized option '--bogus'"  -- ls --bogus
expect 2 err "verify: unexpected argument 'extra'" -- verify s3://b/ extra
expect 2 err "verify: empty PREFIX"               -- verify ''
expect 2 err "verify: bad --parallel '0'"         -- verify --parallel 0
expect 2 err "verify: bad --parallel '65'"        -- verify -P 65 s3://b/
expect 2 err "verify: unrecognized option '--bogus'" -- verify --bogus
expect 0 out "EXIT STATUS"                        -- verify --help
expect 1 err "hcctl: /nonexistent.conf: cannot load hypercached's configuration" -- \
	verify --config /nonexistent.conf s3://b/
expect 2 err "stats: unexpected argument 'extra'" -- stats extra
expect 2 err "stats: invalid option -- 'x'"       -- stats -x
# issue 15: the prefix forms and preload's list file
expect 2 err "evict: empty --prefix"              -- evict --prefix ''
expect 2 err "pin: unexpected argument 'x'"       -- pin --prefix s3://b/ x
expect 2 err "unpin: option '--prefix' requires an argument" -- unpin --prefix
# --yes is the prefix form's: said so (it was "unrecognized option")
expect 2 err "evict: --yes goes with --prefix PREFIX" -- evict --yes s3://b/k
expect 2 err "pin: -y goes with --prefix PREFIX"  -- pin -y s3://b/k
expect 2 err "unpin: --yes goes with --prefix PREFIX" -- unpin s3://b/k --yes
expect 2 err "preload: missing URI operand"       -- preload
expect 1 err "cannot open the list file"          -- preload -f /nonexistent.list
printf '# none\n\n' >"$tmp/empty.list"
expect 1 err "the list file names no URI"         -- preload -f "$tmp/empty.list"
for c in evict pin unpin; do
	expect 2 err "$c: missing URI operand"    -- $c
	expect 2 err "$c: unexpected argument 'b'" -- $c a b
	expect 2 err "$c: unrecognized option '--bogus'" -- $c --bogus a
	expect 2 err "$c: empty URI"              -- $c ""
	expect 2 err "$c: URI too long"           -- $c "$long_uri"
done
expect 1 err "hcctl: /nonexistent/model.bin: cannot open: No such file or directory" -- \
	put /nonexistent/model.bin s3://b/o
expect 1 err "hcctl: /dev/null: not a regular file" -- put /dev/null s3://b/o

# argument checks: exit 1, the device is named
expect 1 err "hcctl: /nonexistent/nvme9n1: cannot resolve path: No such file or directory" -- \
	pool create /nonexistent/nvme9n1
expect 1 err "hcctl: $tmp/regular-file: not a block device" -- \
	pool create --data-offset 4M "$tmp/regular-file"
expect 1 err "hcctl: /dev/null: not a block device" -- pool assemble /dev/null
expect 1 err "hcctl: /nonexistent: cannot open: No such file or directory" -- \
	geometry /nonexistent
expect 1 err "hcctl: /dev/null: not a HyperCache device" -- geometry /dev/null

# inspect against a fake root: a blank NVMe drive and one with an ext4
# superblock magic (0xEF53 at byte 1080, extents + journal features)
fake=$tmp/fake
for d in nvme0n1 nvme1n1; do
	mkdir -p "$fake/sys/class/block/$d/holders" "$fake/sys/class/block/$d/device"
	echo 32768 > "$fake/sys/class/block/$d/size"
	echo "FAKE MODEL $d" > "$fake/sys/class/block/$d/device/model"
done
echo 259:0 > "$fake/sys/class/block/nvme0n1/dev"
echo 259:1 > "$fake/sys/class/block/nvme1n1/dev"
mkdir -p "$fake/proc/self" "$fake/dev"
: > "$fake/proc/self/mountinfo"
dd if=/dev/zero of="$fake/dev/nvme0n1" bs=1k count=64 2>/dev/null
dd if=/dev/zero of="$fake/dev/nvme1n1" bs=1k count=64 2>/dev/null
printf '\123\357' | dd of="$fake/dev/nvme1n1" bs=1 seek=1080 conv=notrunc 2>/dev/null
printf '\004\000\000\000' | dd of="$fake/dev/nvme1n1" bs=1 seek=1116 conv=notrunc 2>/dev/null
printf '\100\000\000\000' | dd of="$fake/dev/nvme1n1" bs=1 seek=1120 conv=notrunc 2>/dev/null
expect 0 out "/dev/nvme0n1     safe"               -- inspect --root "$fake"
expect 0 out "FAKE MODEL nvme0n1"                 -- inspect --root "$fake"
expect 0 out "carries an ext4 file system"        -- inspect --root "$fake"
expect 0 out '"verdict":"safe"'                   -- inspect --root "$fake" --json
expect 0 out '"signature":"ext4"'                 -- --json inspect --root "$fake"
expect 0 out '"reason":"signature"'               -- inspect --json --root "$fake" /dev/nvme1n1
expect 1 err "hcctl: /dev/nvme7n1: cannot inspect: No such file or directory" -- \
	inspect --root "$fake" /dev/nvme7n1
expect 1 err "hcctl: inspect: cannot list block devices in /nonexistent/sys/class/block" -- \
	inspect --root /nonexistent

# without the module: netlink commands say so
if [ ! -d /sys/module/hypercache ]; then
	nl='hypercache module not loaded (genl family "hypercache" not found)'
	expect 1 err "hcctl: status: $nl"      -- status
	expect 1 err "hcctl: status: $nl"      -- status --json
	expect 1 err "hcctl: status: $nl"      -- --json status
	expect 1 err "hcctl: pool stop: $nl"   -- pool stop
	expect 1 err "hcctl: monitor: $nl"     -- monitor --count 1
	expect 1 err "hcctl: ls: $nl"          -- ls
	expect 1 err "hcctl: verify: $nl"      -- verify --config "$tmp/hc.conf"
	expect 1 err "hcctl: stats: $nl"       -- stats --json
	expect 1 err "hcctl: evict: $nl"       -- evict s3://b/o
	expect 1 err "hcctl: pin: $nl"         -- pin s3://b/o
	expect 1 err "hcctl: unpin: $nl"       -- unpin s3://b/o
fi

# without /dev/hypercache-ctl: the ioctl commands say so (a URI of exactly
# HC_URI_MAX bytes is accepted)
if [ ! -e /dev/hypercache-ctl ]; then
	ctl='hypercache module not loaded or no /dev/hypercache-ctl: No such file or directory'
	expect 1 err "hcctl: get: $ctl"        -- get s3://b/o
	expect 1 err "hcctl: get: $ctl"        -- get -o "$tmp/out-file" s3://b/o
	expect 1 err "hcctl: locate: $ctl"     -- locate s3://b/o
	expect 1 err "hcctl: preload: $ctl"    -- preload s3://b/o s3://b/p
	# no run, no summary: --json prints nothing (it printed "{}")
	expect 1 err "hcctl: preload: $ctl"    -- preload --json s3://b/o
	lacks out "{"
	expect 1 err "hcctl: locate: $ctl"     -- locate --layout --json "$max_uri"
	expect 1 err "hcctl: put: $ctl"        -- put "$tmp/regular-file" s3://b/o
	expect 1 err "hcctl: put: $ctl"        -- put --clean --replace --crc --no-progress "$tmp/regular-file" "$max_uri"
	if [ -e "$tmp/out-file" ]; then
		failed=$((failed + 1))
		echo "FAIL: hcctl get -o: created the output file although it failed"
	else
		passed=$((passed + 1))
	fi
fi

# put checks the URI against the configuration's backends before staging
# (without --clean), so these fail before the control device is opened
printf '[backend store]\ntype = posix\nroot = /tmp\n' >"$tmp/put.conf"
expect 1 err "hypercache://nfs2/a: no [backend nfs2] in the configuration ($tmp/put.conf): its upload could never succeed" -- \
	put --config "$tmp/put.conf" /etc/hostname hypercache://nfs2/a
expect 1 err "s3://bkt/a: no [backend s3] in the configuration" -- put --config "$tmp/put.conf" /etc/hostname s3://bkt/a
expect 1 err "put: $tmp/none.conf: No such file or directory" -- put --config "$tmp/none.conf" /etc/hostname hypercache://store/a
expect 1 err "hypercache-ctl" -- put --config "$tmp/put.conf" /etc/hostname hypercache://store/a
lacks err "backend"
expect 1 err "hypercache-ctl" -- put --clean --config "$tmp/put.conf" /etc/hostname hypercache://nfs2/a
lacks err "backend"

# "did you mean": a command or a noun's command one typo away, nothing for
# a word far from every command (tools/hcctl/suggest.c, suggest_test)
expect 2 err "unknown command 'lcoate' (did you mean 'locate'?)" -- lcoate
expect 2 err "unknown command 'pol' (did you mean 'pool'?)" -- pol create
expect 2 err "pool: unknown command 'craete' (did you mean 'create'?)" -- pool craete /dev/null
expect 2 err "pool: unknown command 'asemble' (did you mean 'assemble'?)" -- pool asemble
expect 2 err "unknown command 'frob'" -- frob
lacks err "did you mean"

echo "hcctl-usage: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
