#!/bin/bash
# hcsim refuses what it cannot read, and says where and why: a trace line
# that is not of its format ends the run with FILE:LINE and the reason
# (exit status 1, no table: a trace read in part gives some other trace's
# ratios), a bad option value names the option and the value (exit status
# 2), and --policies runs exactly the policies it names, in that order.
# Before, a kv line without a size was skipped, "-5" and sizes past 2^64
# were read as sizes, extra fields were ignored, --unit 0 and --policies
# NAME matched silently (oracle ran oracle-cold too, an unknown name ran
# nothing), and --set took any value (shards_per_step=-1: 4 billion shard
# reads a step).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
make -s -C tools/hcsim >&2
sim=tools/hcsim/hcsim
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

# FORMAT STATUS WANT LINES...: the trace made of LINES must end hcsim with
# STATUS and a message containing WANT (with its file and line number),
# printing nothing on stdout; or, with STATUS 0, be read with WANT in
# hcsim's first line ("N requests, M objects").
trace() {
	local format=$1 status=$2 want=$3 out got=0
	shift 3
	printf '%b\n' "$@" > "$dir/t"
	out=$("$sim" --format "$format" --capacity 4 "$dir/t" 2>"$dir/err") || got=$?
	if [ "$got" != "$status" ] ||
	   { [ "$status" != 0 ] && { ! grep -qF -- "$want" "$dir/err" || [ -n "$out" ]; }; } ||
	   { [ "$status" = 0 ] && ! head -1 <<<"$out" | grep -qF -- "$want"; }; then
		echo "FAIL: $format trace $*: status $got (want $status), stderr: $(cat "$dir/err"), stdout: $out" >&2
		fail=1
	else
		echo "ok: $format trace $*: $(head -1 "$dir/err")${out:+$(head -1 <<<"$out")}"
	fi
}
M=4194304
trace kv 1 "t:2: key \"b\" has no size"                  "a $M" "b"
trace kv 1 "t:1: size \"-5\" of key \"a\""                 "a -5"
trace kv 1 "t:1: size \"+5\" of key \"a\""                 "a +5"
trace kv 1 "t:1: size \"1e3\" of key \"a\""                "a 1e3"
trace kv 1 "t:1: size \"99999999999999999999\""            "a 99999999999999999999"
trace kv 1 "t:1: key \"a\": 18446744073709551615 bytes is more than 2^32 units" "a 18446744073709551615"
trace kv 1 "t:3: more than three fields"                   "# comment" "" "a $M w extra"
trace kv 1 "t:1: third field \"x\" of key \"a\""           "a $M x"
trace kv 1 "no read request"                               "a $M w"
trace kv 1 "no read request"                               "# only a comment"
trace kv 0 ": 3 requests, 2 objects,"                     "# comment" "" "a $M" "a\t$M\r" "b 0"
trace arc 1 "t:1: \"7\" has no block count"                "7"
trace arc 1 "t:1: block count \"0\""                       "7 0 0 1"
trace arc 1 "t:1: start block \"x\""                       "x 1 0 1"
trace arc 1 "t:1: block count \"16777217\""                "7 16777217 0 1"
trace arc 1 "t:1: more than four fields"                   "7 1 0 1 9"
trace arc 1 "run past block 2^64 - 1"                      "18446744073709551615 2 0 1"
trace arc 0 ": 3 requests, 3 objects,"                    "# comment" "7 1 0 1" "" "8 2"

# STATUS WANT ARGS...: hcsim ARGS must exit with STATUS, WANT on stderr.
opt() {
	local status=$1 want=$2 got=0
	shift 2
	timeout 60 "$sim" "$@" >/dev/null 2>"$dir/err" || got=$?
	if [ "$got" != "$status" ] || ! grep -qF -- "$want" "$dir/err"; then
		echo "FAIL: hcsim $*: status $got (want $status), stderr: $(cat "$dir/err")" >&2
		fail=1
	else
		echo "ok: hcsim $*: $(head -1 "$dir/err")"
	fi
}
printf 'a %s\nb %s\na %s\n' $M $M $M > "$dir/ok.kv"
opt 2 '--unit: "0"'                     --unit 0 --capacity 1 "$dir/ok.kv"
opt 2 '--capacity: "-1"'                --capacity -1 "$dir/ok.kv"
opt 2 '--capacity: "99999999999999999999"' --capacity 99999999999999999999 "$dir/ok.kv"
opt 2 '--capacity: 1K is less than one unit' --capacity 1K "$dir/ok.kv"
opt 2 '--fraction: "0.5x"'              --fraction 0.5x "$dir/ok.kv"
opt 2 '--fraction: "0" is not above 0'  --fraction 0 "$dir/ok.kv"
opt 2 '--capacity or --fraction'        --capacity 1 --fraction 0.5 "$dir/ok.kv"
opt 2 'unknown policy "bogus"; the policies are ours LRU ARC GDSF GDSF-B oracle oracle-cold' \
	--policies ours,bogus --capacity 1 "$dir/ok.kv"
opt 2 '--policies: ours is named twice' --policies ours,LRU,Ours --capacity 1 "$dir/ok.kv"
opt 2 '--format: "xyz" is arc or kv'    --format xyz --capacity 1 "$dir/ok.kv"
opt 1 "$dir/none.kv: No such file"      --capacity 1 "$dir/none.kv"
opt 2 '--seed: "abc"'                   --gen ai --seed abc
opt 2 '--gen: "bogus" is zipf, ai, inference or training' --gen bogus
opt 2 'the value of shards_per_step is a whole number in 0..1000000' \
	--gen ai --set shards_per_step=-1
opt 2 'the value of alpha_x100 is a whole number'  --gen ai --set alpha_x100=1.5
opt 2 'NAME of steps models'            --gen ai --set nosuch=1
opt 2 '--gen ai: model_min_mib is above model_max_mib' --gen ai --set model_min_mib=20000
opt 2 '--gen training: shards_per_step without shards' --gen training --set shards=0
opt 2 '--alpha: "-1"'                   --gen zipf --objects 10 --requests 10 --alpha -1
opt 2 '--max-chunks: "0"'               --gen zipf --objects 10 --requests 10 --max-chunks 0
opt 2 '--threshold: "abc" is v1 or a number of bytes' capacity --threshold abc
opt 2 '--churn: "-1"'                   capacity --churn -1

# --policies: exactly the names given, case-insensitive, in that order.
rows() { "$sim" --policies "$1" --capacity 1 "$dir/ok.kv" | awk 'NR > 3 { printf "%s ", $1 }'; }
for want in "oracle:oracle " "oracle-cold:oracle-cold " "GDSF-B:GDSF-B " \
	    "gdsf,lru,OURS:GDSF LRU ours "; do
	got=$(rows "${want%%:*}")
	if [ "$got" != "${want#*:}" ]; then
		echo "FAIL: --policies ${want%%:*} ran '$got', want '${want#*:}'" >&2
		fail=1
	else
		echo "ok: --policies ${want%%:*}: $got"
	fi
done
# --help: the usage on stdout, exit 0
if ! "$sim" --help | grep -q '^usage: hcsim .*--policies LIST'; then
	echo "FAIL: hcsim --help" >&2
	fail=1
else
	echo "ok: hcsim --help"
fi
# the generator's parameters within range still generate (and 0 turns a part off)
n=$("$sim" --gen ai --seed 3 --set steps=200 --set shards_per_step=0 --set ckpt_every=0 | wc -l)
if [ "$n" -lt 1 ] || "$sim" --gen ai --seed 3 --set steps=200 --set shards_per_step=0 --set ckpt_every=0 |
	grep -q '^data/\|^ckpt/'; then
	echo "FAIL: --set steps=200 shards_per_step=0 ckpt_every=0: $n lines, or data/ckpt lines in it" >&2
	fail=1
else
	echo "ok: --gen ai --set steps=200 --set shards_per_step=0 --set ckpt_every=0: $n lines of models only"
fi
exit $fail
