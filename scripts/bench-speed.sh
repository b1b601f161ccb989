#!/bin/bash
# Usage: scripts/bench-speed.sh [--part ingest|egress|drive|both] [--objects N]
#                               [--big-mb M] [--ckpts C] [--ckpt-mb M]
#                               [--one-mb M] [--drive-mb M] [--aws guest|host] [--kver K]
#                               [--net user|tap] [--no-build] [--timeout S]
#                               [--kargs 'K=V ...'] [--profile] [--smoke]
#
# hypercached at full speed against the plain S3 clients, in ONE guest boot
# (QEMU/TCG, multi-threaded, 2 vCPUs, 3 NVMe drives) against the tests'
# gateway (scripts/rgw.sh), each peer measured in the same boot
# (tests/vm/guest/stage-bench-speed.sh says how each figure is taken):
#   ingest (scripts/bench-ingest.sh = --part ingest)
#     hc-many      preload-batch of N objects of 1 MiB (default 1000)
#                  / curl -Z --parallel-max 16 -K LIST into files on ext4
#                  over md raid0 of the same drives           goal >= 1.0
#     hc-big       cold ingest of one object of M MiB (default 1024)
#                  / curl of it to a file on that ext4          goal >= 1.5
#     hc-big-vs-8  the same / 8 parallel ranged curls into that file
#                                                               goal >= 1.0
#   egress (scripts/bench-egress.sh = --part egress)
#     hc-ckpts     C checkpoints of M MiB (default 8 x 64) put --sync at
#                  once / `aws s3 cp` of the same files one after the other
#                  (Debian's awscli: the host's /usr/bin/aws, run in the
#                  guest over --hostfs)                         goal >= 1.5
#     hc-put       one checkpoint of M MiB (default 256) put --sync
#                  / curl -T                                    goal >= 1.5
#     hc-put-signed  the same with sign_payload = true (SHA-256 of every
#                  part) / curl -T: what signing the payload costs
#   (bench-speed-trace lines: where each put's time went)
#   drive (--part drive, a boot of its own, before any pool): the drive
#     I/O engines for hypercached's shape (8 threads, one 8 MiB O_DIRECT
#     request each): psync (pwrite/pread, what it does) against io_uring
#     with a ring per thread and with one ring of depth 8 and registered
#     files and buffers, over the first M MiB of the drive (--drive-mb,
#     default 512, a multiple of 64; written once untimed first); MB/s and
#     the guest's CPU seconds per GB, ratios to psync of the same round,
#     2 rounds
# --part both (the default) runs ingest and egress in the one boot.
# Each line: `hc: bench-speed NAME SECONDS s MB/s MB/s OBJ obj/s xRATIO (to
# PEER)`, RATIO = the peer's seconds / HyperCache's; then a summary of the
# ratios against their goals and the host's load average at the start and
# the end.  With ingest or egress, `hc: bench-speed-cost NAME X CPU-s/GB`
# lines (tests/vm/prog/hc_cpucost.c: a copy, hypercached's CRC-32C, an
# upload's MD5 on the guest's CPU) and, with egress, from them and curl
# -T's CPU per GB, hc-put's `ceiling` line: the best ratio the guest's
# CPU allows while HyperCache does that per-byte work and curl does not.
#
# --net tap: the guest's NIC on a host tap device (tests/vm/boot.sh --tap:
# root, /dev/net/tun, nft) instead of QEMU's user-mode network (the
# default: one host thread carries every connection of the guest); the
# same gateway, reached by the guest at the same address.  If the tap
# cannot be made, boot.sh says why and the run uses the user-mode network;
# the "network:" line says which one the figures are of.
#
# --aws host: `aws s3 cp` timed on the host instead (outside the guest, so
# not the same conditions; python under TCG needs tens of seconds to start).
# --kargs: extra guest kernel parameters, for both peers alike (e.g.
# 'clocksource=tsc tsc=reliable': the emulated HPET, the kernel's choice
# under TCG, costs an exit to QEMU per clock read; see benchmarks.md).
# --profile (diagnosis only: perf's own cost makes that run's times
# unusable): perf goes into the guest's initramfs and hc-many is sampled
# over the whole guest (perf record -a -g, cpu-clock), its shares by thread
# and by thread and symbol printed as "hc: bench-speed-prof" lines.
# --smoke is the smoke run of `make check` (tests/vm/scenarios/97-bench.sh):
# 4 objects, a 4 MiB big object, 2 checkpoints of 2 MiB, a 2 MiB put,
# --aws host, and the drive part over 64 MiB, first in the same boot, in
# build/bench-speed-smoke/.  The values are not checked.
#
# Images: build/bench-speed/nvmeN.img (zeros, deleted afterwards).  Exit
# status 0 only if the boot passed and every figure line of the parts run
# was printed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

me=${HC_BENCH_NAME:-bench-speed.sh}
part=both objects=1000 big_mb=1024 ckpts=8 ckpt_mb=64 one_mb=256 aws=guest
build=1 timeout=3600 kver="" smoke="" drive_mb=512 net=user xkargs="" profile=0
while [ $# -gt 0 ]; do
	case "$1" in
	--part) part=$2; shift 2 ;;
	--objects) objects=$2; shift 2 ;;
	--big-mb) big_mb=$2; shift 2 ;;
	--ckpts) ckpts=$2; shift 2 ;;
	--ckpt-mb) ckpt_mb=$2; shift 2 ;;
	--one-mb) one_mb=$2; shift 2 ;;
	--drive-mb) drive_mb=$2; shift 2 ;;
	--aws) aws=$2; shift 2 ;;
	--net) net=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--kargs) xkargs=$2; shift 2 ;;
	--profile) profile=1; shift ;;
	--smoke)
		objects=4 big_mb=4 ckpts=2 ckpt_mb=2 one_mb=2 aws=host timeout=900
		drive_mb=64 smoke=-smoke
		shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "$me: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in objects big_mb ckpts ckpt_mb one_mb drive_mb timeout; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "$me: --${v/_/-} needs a positive integer" >&2; exit 2; }
done
[ $((drive_mb % 64)) = 0 ] || { echo "$me: --drive-mb needs a multiple of 64" >&2; exit 2; }
case $part in
ingest | egress | drive) parts=$part ;;
both) parts=ingest:egress ;;
*) echo "$me: --part is ingest, egress, drive or both, not '$part'" >&2; exit 2 ;;
esac
# the smoke run covers the drive part too (it was written and never run)
[ -n "$smoke" ] && [ "$part" = both ] && parts=drive:ingest:egress
case $aws in
guest | host) ;;
*) echo "$me: --aws is guest or host, not '$aws'" >&2; exit 2 ;;
esac
case $net in
user) netopt=() ;;
tap) netopt=(--tap) ;;
*) echo "$me: --net is user or tap, not '$net'" >&2; exit 2 ;;
esac

[ $build = 1 ] && make modules-all tools helper test-progs >&2

. "$ROOT/tests/vm/kernel.sh"
[ -n "$kver" ] && KVER=$kver
hc_kernel_select

scripts/rgw.sh status >/dev/null 2>&1 || scripts/rgw.sh start >&2
eval "$(scripts/rgw.sh env)"
# HC_BENCH_DIR: another directory for the images and logs (two runs at once)
out=${HC_BENCH_DIR:-$ROOT/build/bench-speed$smoke}
mkdir -p "$out"
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# This run's own bucket (others share the gateway): the ingest part's
# objects, put from here (the guest's time is the benchmark's), and the
# egress part's uploads; all deleted at the end.
bucket=hcspeed-$$-$RANDOM
scripts/rgw.sh mb "$bucket" >/dev/null
s3curl() {
	curl -sS --fail --aws-sigv4 "aws:amz:$AWS_DEFAULT_REGION:s3" \
		--user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
}
cleanup() {
	local i
	# a listing returns up to 1000 keys: a few rounds for a full run
	for ((i = 0; i < 5; i++)); do
		s3curl "$HC_S3_ENDPOINT/$bucket?list-type=2" 2>/dev/null |
			grep -o '<Key>[^<]*</Key>' |
			sed "s|<Key>\\(.*\\)</Key>|url = \"$HC_S3_ENDPOINT/$bucket/\\1\"\\noutput = /dev/null|" \
			>"$out/rm.K" || true
		[ -s "$out/rm.K" ] || break
		s3curl -Z --parallel-max 16 -X DELETE -K "$out/rm.K" >/dev/null 2>&1 || true
	done
	scripts/rgw.sh rb "$bucket" >/dev/null 2>&1 || true
	rm -rf "$out/src" "$out/rm.K"
}
trap cleanup EXIT
bigsha=""
if [[ :$parts: == *:ingest:* ]]; then
	# many/mNNNN of 1 MiB of random bytes, and sums: their SHA-256s
	mkdir -p "$out/src"
	for ((i = 0; i < objects; i++)); do
		k=m$(printf %04d $i)
		head -c 1048576 /dev/urandom >"$out/src/$k"
		printf 'upload-file = "%s"\nurl = "%s"\noutput = /dev/null\n' \
			"$out/src/$k" "$HC_S3_ENDPOINT/$bucket/many/$k"
	done >"$out/put.K"
	s3curl --no-progress-meter -Z --parallel-max 16 -K "$out/put.K" ||
		{ echo "$me: putting the objects failed" >&2; exit 1; }
	(cd "$out/src" && sha256sum m*) >"$out/sums"
	scripts/rgw.sh put "$out/sums" "s3://$bucket/sums" >&2
	rm -rf "$out/src" "$out/put.K" "$out/sums"
	head -c "$((big_mb << 20))" /dev/urandom >"$out/big"
	bigsha=$(sha256sum "$out/big" | cut -d' ' -f1)
	scripts/rgw.sh put "$out/big" "s3://$bucket/big" >&2
	rm -f "$out/big"
fi
kargs=""
if [[ :$parts: == *:egress:* ]] && [ "$aws" = host ]; then
	# the host's sequential aws s3 cp of files of the same sizes
	for ((i = 0; i < ckpts; i++)); do
		head -c "$((ckpt_mb << 20))" /dev/urandom >"$out/ck$i"
	done
	t0=$EPOCHREALTIME
	for ((i = 0; i < ckpts; i++)); do
		/usr/bin/aws --endpoint-url "$HC_S3_ENDPOINT" s3 cp --only-show-errors \
			"$out/ck$i" "s3://$bucket/host/ck$i" >&2
	done
	t=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	kargs="hc.awsseq=$t"
	for ((i = 0; i < ckpts; i++)); do rm -f "$out/ck$i"; done
fi
kargs="${kargs:+$kargs }$xkargs"
kargs=${kargs% }

# each drive: a third of the pool, whose format v1 gives every object whole
# 4 MiB chunks (md's ext4 needs less: the objects and the big file)
need=0
[[ :$parts: == *:ingest:* ]] && need=$((objects * 4 + big_mb))
[[ :$parts: == *:egress:* ]] && [ $((ckpts * ckpt_mb + 2 * one_mb)) -gt $need ] &&
	need=$((ckpts * ckpt_mb + 2 * one_mb))
# drive: drive_mb MiB of fio on the first drive
[[ :$parts: == *:drive:* ]] && [ $need -lt $((2 * drive_mb)) ] && need=$((2 * drive_mb))
imgs=()
for i in 0 1 2; do
	img=$out/nvme$i.img
	rm -f "$img"
	# written out, not sparse (as bench-fs.sh's): a first write into a hole
	# costs the host an allocation, which burdens whichever peer writes a
	# region first (here the curl peers, whose ext4 runs first)
	dd if=/dev/zero of="$img" bs=1M count=$((need * 12 / 10 / 3 + 160)) status=none
	imgs+=("$img")
done
# the guest holds the checkpoints (or the big object while it puts it) in
# its tmpfs
mem=$((2048 + ckpts * ckpt_mb + one_mb))
[ $big_mb -gt $((ckpts * ckpt_mb + one_mb)) ] && mem=$((2048 + big_mb))
log=$out/bench-speed-$(date +%Y%m%d-%H%M%S).log
rc=0
hostfs=()
[ $profile = 1 ] && export HC_EXTRA_BINS="${HC_EXTRA_BINS:+$HC_EXTRA_BINS }perf"
[[ :$parts: == *:egress:* ]] && [ "$aws" = guest ] && hostfs=(--hostfs)
HC_TCG_THREAD=${HC_TCG_THREAD:-multi} \
"$ROOT/tests/vm/boot.sh" --stage bench-speed --kver "$HC_KVER" --s3 "${netopt[@]}" --verbose "${hostfs[@]}" \
	--drives "$(IFS=,; echo "${imgs[*]}")" --mem "$mem" ${kargs:+--kargs "$kargs"} \
	--args "bucket=$bucket,bigsha=$bigsha,parts=$parts,n=$objects,big=$big_mb,ck=$ckpts,ckmb=$ckpt_mb,one=$one_mb,aws=$aws,dmb=$drive_mb,profile=$profile" \
	--timeout "$timeout" --log "$log" >"$out/boot.out" 2>&1 || rc=$?
rm -f "${imgs[@]}"
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "== hypercached at full speed versus curl and aws s3 cp =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
network="user-mode network (slirp)"
tapline=$(grep -a '^boot.sh: --tap: ' "$out/boot.out" | head -n 1 || true)
case $tapline in
*"user-mode network instead"*) network="user-mode network (--net tap refused: ${tapline#boot.sh: --tap: })" ;;
?*) network="tap (${tapline#boot.sh: --tap: })" ;;
esac
echo "kernel:  $HC_KVER (guest, QEMU/TCG ${HC_TCG_THREAD:-multi}-threaded, 2 vCPUs)"
[ -n "$xkargs" ] && echo "kargs:   $xkargs (guest kernel parameters, --kargs)"
echo "network: $network"
echo "gateway: Ceph radosgw (memstore) on the host, $HC_S3_ENDPOINT"
echo "sizes:   $objects x 1 MiB, one of $big_mb MiB; $ckpts x $ckpt_mb MiB, one of $one_mb MiB; aws in the $aws; drive $drive_mb MiB"
echo "load:    $load0 at the start, $load1 at the end (host, $(nproc) CPUs)"
echo "log:     $log"
echo
grep -a 'hc: bench-speed' "$log" | tr -d '\r' | sed 's/^.*hc: bench-speed/hc: bench-speed/' |
	tee "$out/figures" || true
if [ $rc -ne 0 ]; then
	echo
	echo "$me: the boot failed:"
	grep -a -E '^(boot.sh|HCTEST not ok|HCVM-)' "$out/boot.out" | head -n 20
	sed -n '/^----- last/,$p' "$out/boot.out" | tail -n 40
	exit 1
fi
echo
missing=0
want=()
[[ :$parts: == *:ingest:* ]] && want+=(curl-many curl-1 curl-8 hc-many:1.0 hc-big:1.5 hc-big-vs-8:1.0)
[[ :$parts: == *:egress:* ]] && want+=(aws-seq curl-put hc-ckpts:1.5 hc-put:1.5 hc-put-signed)
if [[ :$parts: == *:drive:* ]]; then
	for w in psync uring-8x1 uring-1x8; do
		for rw in write read; do
			[ "$(grep -c "^hc: bench-speed-drive $w $rw [0-9.]* MB/s [0-9.]* CPU-s/GB" "$out/figures")" = 2 ] ||
				{ echo "$me: not 2 rounds of $w $rw" >&2; missing=1; }
		done
	done
fi
# The ceiling the guest's CPU sets on a put: curl -T spends P CPU-s per
# GB with its vCPUs B busy reading the file and sending it; hcctl put
# reads the file too, and HyperCache sends it too, and adds per-byte work
# curl does not do (hc_cpucost, measured in the same boot): two CRC-32Cs
# (staged, then checked as it is read back) and the upload's MD5.  Even
# with every vCPU busy it cannot pass (P / B) / (P + added) of curl.  (No
# such bound for ingest: curl writes through the page cache and md, the
# cache O_DIRECT, so the cache's own share of moving the bytes can be the
# smaller one.)
if [[ :$parts: == *:ingest:* || :$parts: == *:egress:* ]]; then
	grep -q '^hc: bench-speed-cost crc32c [0-9.]* CPU-s/GB' "$out/figures" ||
		{ echo "$me: no bench-speed-cost crc32c line" >&2; missing=1; }
	awk '$2 == "bench-speed-cost" { cost[$3] = $4 }
	$2 == "bench-speed-trace" && $3 == "curl-put" && $NF == "CPU-s/GB" {
		p = $(NF - 1); b = $7 / 100 }
	END {
		if (p == "" || !("crc32c" in cost) || !("md5" in cost))
			exit
		if (b <= 0)
			b = 1
		a = 2 * cost["crc32c"] + cost["md5"]
		printf "%-12s ceiling x%.2f with every vCPU busy: curl-put %.2f CPU-s/GB at %.0f%% busy, + %.2f added (2 CRC-32C, MD5)\n",
			"hc-put", p / b / (p + a), p, 100 * b, a }' "$out/figures"
fi
for w in "${want[@]}"; do
	name=${w%%:*}
	l=$(grep -E "^hc: bench-speed $name [0-9.]+ s [0-9.]+ MB/s [0-9.]+ obj/s" "$out/figures" || true)
	[ -n "$l" ] || { echo "$me: no figure for $name" >&2; missing=1; continue; }
	[ "$w" = "$name" ] && continue
	awk -v n="$name" -v g="${w#*:}" '{
		for (i = 1; i <= NF; i++) if ($i ~ /^x[0-9.]+$/) r = substr($i, 2)
		printf "%-12s x%s %s goal %s\n", n, r, ((r + 0 >= g + 0) ? "meets" : "MISSES"), g }' <<<"$l"
done
exit $missing
