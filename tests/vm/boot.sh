#!/bin/bash
# Usage: tests/vm/boot.sh --stage NAME --drives IMG[,IMG...] [--kver K]
#            [--args A,B] [--timeout SECONDS] [--log FILE] [--mem MB]
#            [--kill-on MARKER] [--keep] [--noload] [--verbose] [--net] [--s3]
#            [--kargs 'K=V ...'] [--hostfwd HOSTPORT:GUESTPORT]
#            [--debian ROOT.IMG] [--numa] [--tap]
#
# Boots the test guest once under QEMU/TCG and runs /hc/tests/stage-NAME.sh.
#   --drives    raw images, one emulated NVMe controller each (serial hc0, hc1,
#               ... in the order given; the guest sees them as /dev/hc/driveN)
#   --kver      guest kernel (default: $KVER or the newest installed 6.1)
#   --args      extra stage arguments, comma separated (hc.args=)
#   --timeout   seconds before QEMU is killed (default 300)
#   --log       serial log (default build/vm/logs/NAME-<timestamp>.log)
#   --mem       guest memory in MiB (default 2048)
#   --kargs     extra guest kernel parameters (e.g. init_on_free=1)
#   --kill-on   SIGKILL QEMU as soon as MARKER appears on the console (power
#               loss); the boot is then judged only by the output before it
#   --keep      do not rmmod hypercache after the stage (hc.keep=1)
#   --noload    do not insmod hypercache.ko (hc.noload=1)
#   --verbose   the guest prints the output of passing tests too (hc.verbose=1)
#   --net       a QEMU user-mode NIC (virtio-net-pci) instead of -nic none; the
#               guest's eth0 is 10.0.2.15/24, default route via 10.0.2.2, and
#               the host's 127.0.0.1:PORT is 10.0.2.2:PORT (hc.net=1)
#   --s3        --net, and the S3 gateway of scripts/rgw.sh for the guest
#               (hc.s3=$HC_S3_GUEST_ENDPOINT, default http://10.0.2.2:7480;
#               the guest's lib.sh exports HC_S3_ENDPOINT and the credentials)
#   --hostfwd   --net, and the host's 127.0.0.1:HOSTPORT forwarded to the
#               guest's TCP GUESTPORT (a host-side scraper reaching the guest)
#   --tap       --net over a host tap device instead of QEMU's user-mode
#               network (for benchmarks: slirp is one host thread for all the
#               guest's connections).  The guest keeps its addresses; the tap
#               (hctap<PID>) is the host's 10.0.2.2/24, and TCP to 10.0.2.2:PORT
#               is DNATed (nftables, route_localnet) to the host's
#               127.0.0.1:PORT, so the gateway of scripts/rgw.sh answers
#               there as under user-mode networking.  Needs root,
#               /dev/net/tun and nft; one tap guest at a time (a lock in
#               build/vm); without them, or with --hostfwd, the boot says why
#               and uses the user-mode network.  Removed when QEMU ends
#   --hostfs    the host's root file system, read-only over virtio-9p
#               (mount_tag hchost), mounted by the guest at /host
#               (hc.hostfs=1): the guest runs the host's /usr/bin/python3
#               and its Debian packages chrooted there (lib.sh hc_host_run)
#   --numa      two NUMA nodes (q35; vCPU 0 and half the memory on node 0,
#               vCPU 1 and the other half on node 1), a PCIe expander bridge
#               (pxb-pcie) per node with a root port per device: drive N
#               behind node N % 2's bridge, the NIC (with --net) behind
#               node 1's, so that /sys/block/nvme*/device and the NIC's
#               numa_node say their node (hc.numa=1)
#   --debian    the systemd guest instead (r-systemd): boot the kernel and
#               initrd of tests/vm/debian-image.sh with ROOT.IMG (a copy of
#               its root.img, written by the guest) as /dev/vda, systemd as
#               init, this tree read-only over virtio-9p (tag hctree); the
#               image's hc-guest-test.service runs tests/vm/debian/
#               stage-NAME.sh and powers off (tests/vm/debian/hc-exit.shutdown
#               ends QEMU through isa-debug-exit, as the busybox guest does)
# Environment: HC_KO, HC_BIN_DIRS, HC_OLD_DIR (see mkinitramfs.sh), HC_QEMU_EXTRA (extra
# QEMU arguments, word-split), HC_S3_GUEST_ENDPOINT (with --s3).
# HCTEST/HCVM lines are echoed to stdout. Exit 0 only if QEMU exited with 1
# (isa-debug-exit 0), "HCVM-RESULT" said fail=0 and dmesg=clean; otherwise
# exit 1 with the reason and the last 60 lines of the log.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

kargs=""
hostfwd=""
stage="" drives="" args="" timeout=300 log="" mem=2048 kill_on="" keep=0 noload=0 verbose=0
net=0 s3="" hostfs=0 debian="" numa=0 tap=0
while [ $# -gt 0 ]; do
	case "$1" in
	--stage) stage=$2; shift 2 ;;
	--drives) drives=$2; shift 2 ;;
	--kver) KVER=$2; shift 2 ;;
	--args) args=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--kargs) kargs=$2; shift 2 ;;
	--kill-on) kill_on=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--noload) noload=1; shift ;;
	--verbose) verbose=1; shift ;;
	--net) net=1; shift ;;
	--hostfwd) net=1; hostfwd=$2; shift 2 ;;
	--hostfs) hostfs=1; shift ;;
	--debian) debian=$2; shift 2 ;;
	--numa) numa=1; shift ;;
	--tap) net=1; tap=1; shift ;;
	--s3) net=1; s3=${HC_S3_GUEST_ENDPOINT:-http://10.0.2.2:7480}; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "boot.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
if [ -z "$stage" ] || [ -z "$drives" ]; then
	echo "boot.sh: --stage and --drives are required" >&2
	exit 2
fi

if [ -n "$debian" ]; then
	[ -f "$debian" ] || { echo "boot.sh: no root image $debian" >&2; exit 2; }
	ddir=$("$ROOT/tests/vm/debian-image.sh" --print-dir) ||
		{ echo "boot.sh: no systemd guest image: run tests/vm/debian-image.sh" >&2; exit 2; }
	HC_KVER=${KVER:-$(cat "$ddir/kver")}
	kernel=$ddir/vmlinuz-$HC_KVER
	initrd=$ddir/initrd.img-$HC_KVER
	[ -f "$kernel" ] && [ -f "$initrd" ] ||
		{ echo "boot.sh: the systemd guest's image has no kernel $HC_KVER" >&2; exit 2; }
else
	. "$ROOT/tests/vm/kernel.sh"
	hc_kernel_select
	kernel=$(hc_kernel_image "$HC_KVER")
	initrd=$ROOT/build/vm/$HC_KVER/initramfs.cpio
	# HC_OLD_DIR (tests/vm/oldmod.sh): the previous build in /hc/old/, in
	# an initramfs of its own (the common one stays cached as it is)
	[ -z "${HC_OLD_DIR:-}" ] || initrd=$ROOT/build/vm/$HC_KVER/initramfs-old.cpio
	"$ROOT/tests/vm/mkinitramfs.sh" "$HC_KVER" "$initrd" >&2
fi

if [ -z "$log" ]; then
	log=$ROOT/build/vm/logs/$stage-$(date +%Y%m%d-%H%M%S.%3N).log
fi
mkdir -p "$(dirname "$log")"

# thread=single: one host thread runs both vCPUs in turn.  With multi-
# threaded TCG (the default) a 6.12 guest was seen, once in CI, to execute a
# stale int3 left by the kernel's own boot-time text patching
# (text_poke_bp, "Oops: int3" in sched_clock_cpu before any module was
# loaded): cross-modifying code is not reliably coherent between MTTCG
# threads.  Round-robin TCG keeps two vCPUs (SMP paths are still exercised)
# and makes code patching coherent.  Benchmarks may set HC_TCG_THREAD=multi
# (one host thread per vCPU) to give the guest both host cores.
# --numa: a socket per node (two CPUs of one package on two nodes share a
# last-level cache, which the kernel WARNs about: topology_sane())
smp=2
[ $numa = 1 ] && smp=2,sockets=2,cores=1,threads=1
qemu=(qemu-system-x86_64 -accel "tcg,thread=${HC_TCG_THREAD:-single}" -m "$mem" -smp "$smp" -nographic -no-reboot
	-kernel "$kernel" -initrd "$initrd"
	-device isa-debug-exit,iobase=0xf4,iosize=0x04)
# --numa: the nodes, their bridges, and a root port per device
if [ $numa = 1 ]; then
	half=$((mem / 2))
	qemu+=(-machine q35
		-object "memory-backend-ram,id=mem0,size=${half}M"
		-object "memory-backend-ram,id=mem1,size=$((mem - half))M"
		-numa node,nodeid=0,cpus=0,memdev=mem0 -numa node,nodeid=1,cpus=1,memdev=mem1
		-device pxb-pcie,id=pxb0,bus_nr=64,numa_node=0,bus=pcie.0
		-device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0)
	# numa_port ID NODE: a root port for one device behind NODE's bridge
	nports=0
	numa_port() {
		nports=$((nports + 1))
		qemu+=(-device "pcie-root-port,id=$1,bus=pxb$2,chassis=$nports,slot=0")
	}
fi
# --tap: the host's side (tap_up), undone by tap_down (cleanup, below)
tapdev=""
tap_down() {
	[ -n "$tapdev" ] || return 0
	nft delete table ip "hc_$tapdev" 2>/dev/null || true
	ip link del "$tapdev" 2>/dev/null || true
	tapdev=""
}
# tap_up: 0 with $tapdev ready, or 1 with the reason on stderr
tap_up() {
	local dev=hctap$$ lock=$ROOT/build/vm/tap.lock
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; } >&2
	[ -c /dev/net/tun ] || { echo "no /dev/net/tun"; return 1; } >&2
	command -v nft >/dev/null || { echo "no nft (Debian's nftables)"; return 1; } >&2
	[ -z "$hostfwd" ] || { echo "--hostfwd is user-mode only"; return 1; } >&2
	mkdir -p "$(dirname "$lock")"
	exec 9>"$lock"
	flock -n 9 || { echo "another tap guest runs ($lock)"; return 1; } >&2
	ip tuntap add dev "$dev" mode tap >&2 || return 1
	tapdev=$dev
	ip addr add 10.0.2.2/24 dev "$dev" >&2 && ip link set "$dev" up >&2 &&
		sysctl -qw "net.ipv4.conf.$dev.route_localnet=1" >&2 &&
		nft -f - >&2 <<-EOF || { tap_down; return 1; }
		table ip hc_$dev {
			chain pre {
				type nat hook prerouting priority dstnat;
				iifname "$dev" ip daddr 10.0.2.2 meta l4proto tcp dnat to 127.0.0.1
			}
		}
		EOF
}
if [ $tap = 1 ]; then
	trap tap_down EXIT	# until cleanup's trap, below
	why=$(mktemp)
	if ! tap_up 2>"$why"; then
		echo "boot.sh: --tap: $(tr '\n' ' ' <"$why")- the user-mode network instead" >&2
		tap=0
	else
		echo "boot.sh: --tap: $tapdev, the host's 10.0.2.2" >&2
	fi
	rm -f "$why"
fi
if [ $net = 1 ]; then
	fwd=${hostfwd:+,hostfwd=tcp:127.0.0.1:${hostfwd%%:*}-:${hostfwd#*:}}
	nd="user,id=net0$fwd"
	[ $tap = 1 ] && nd="tap,id=net0,ifname=$tapdev,script=no,downscript=no"
	if [ $numa = 1 ]; then
		numa_port rpnic 1
		qemu+=(-netdev "$nd" -device virtio-net-pci,netdev=net0,bus=rpnic)
	else
		qemu+=(-nic "${nd/,id=net0/},model=virtio-net-pci")
	fi
else
	qemu+=(-nic none)
fi
IFS=, read -r -a imgs <<<"$drives"
n=0
for img in "${imgs[@]}"; do
	[ -f "$img" ] || { echo "boot.sh: no image $img" >&2; exit 2; }
	bus=""
	if [ $numa = 1 ]; then
		numa_port "rp$n" $((n % 2))
		bus=",bus=rp$n"
	fi
	qemu+=(-drive "file=$img,if=none,id=n$n,format=raw" -device "nvme,serial=hc$n,drive=n$n$bus")
	n=$((n + 1))
done
# no_timer_check: under TCG on a loaded host the kernel's check that the
# IO-APIC timer ticks can fail ("IO-APIC + timer doesn't work!", a panic
# at boot seen once with ten guests on two cores); the timer works.
cmdline="console=ttyS0 panic=-1 loglevel=4 no_timer_check hc.stage=$stage hc.drives=$n"
if [ -n "$debian" ]; then
	qemu+=(-drive "file=$debian,if=virtio,format=raw"
		-virtfs "local,path=$ROOT,mount_tag=hctree,security_model=none,readonly=on,multidevs=remap")
	cmdline+=" root=/dev/vda rw"
fi
[ -n "$args" ] && cmdline+=" hc.args=$args"
[ -n "$kargs" ] && cmdline+=" $kargs"
[ $keep = 1 ] && cmdline+=" hc.keep=1"
[ $noload = 1 ] && cmdline+=" hc.noload=1"
[ $verbose = 1 ] && cmdline+=" hc.verbose=1"
[ $net = 1 ] && cmdline+=" hc.net=1"
[ $numa = 1 ] && cmdline+=" hc.numa=1"
if [ $hostfs = 1 ]; then
	qemu+=(-virtfs local,path=/,mount_tag=hchost,security_model=none,readonly=on,multidevs=remap)
	cmdline+=" hc.hostfs=1 hc.tree=$ROOT"
fi
[ -n "$s3" ] && cmdline+=" hc.s3=$s3"
# HC_VM_FULL=1 (make check-reliability): the stages' full sizes (lib.sh's
# HC_FULL); make check runs the same tests at smaller sizes
[ "${HC_VM_FULL:-0}" = 1 ] && cmdline+=" hc.full=1"
# HC_TIMEOUT_SCALE: the guest's own time budgets stretch too (lib.sh's
# HC_TIMEOUT_SCALE)
[ "${HC_TIMEOUT_SCALE:-1}" != 1 ] && cmdline+=" hc.timeout_scale=$HC_TIMEOUT_SCALE"
qemu+=(-append "$cmdline")
# shellcheck disable=SC2206
qemu+=(${HC_QEMU_EXTRA:-})

tmp=$(mktemp -d)
qpid=""
cleanup() {
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then kill -9 "$qpid" 2>/dev/null || true; fi
	tap_down
	rm -rf "$tmp"
}
trap cleanup EXIT
mkfifo "$tmp/serial"

echo "boot.sh: stage=$stage kver=$HC_KVER drives=$n${s3:+ s3=$s3}$([ $net = 1 ] && echo ' net=user') log=$log" >&2
{
	echo "# ${qemu[*]}"
} >"$log"
start=$EPOCHREALTIME
"${qemu[@]}" </dev/null >"$tmp/serial" 2>&1 &
qpid=$!
exec 3<"$tmp/serial"

# Read the console line by line: log it, echo result lines, watch for the
# kill marker and the deadline.
# HC_TIMEOUT_SCALE (an integer, default 1) stretches every timeout, for
# slow guest kernels (make check-kasan)
timeout=$((timeout * ${HC_TIMEOUT_SCALE:-1}))
deadline=$((SECONDS + timeout))
partial="" killed_on_marker=0 timed_out=0
while :; do
	line=""
	if IFS= read -r -t 1 line <&3; then
		line=$partial$line
		partial=""
	else
		rc=$?
		if [ $rc -gt 128 ]; then
			# timeout: keep any partial line for the next read
			partial+=$line
			if [ $SECONDS -ge $deadline ]; then
				timed_out=1
				kill -9 "$qpid" 2>/dev/null || true
				break
			fi
			continue
		fi
		# EOF (QEMU exited): flush a last unterminated line
		line=$partial$line
		[ -n "$line" ] && printf '%s\n' "${line%$'\r'}" >>"$log"
		break
	fi
	line=${line%$'\r'}
	printf '%s\n' "$line" >>"$log"
	# a result line may follow unterminated console output (e.g. the BIOS's
	# "Booting from ROM.."): echo it from its marker on
	case "$line" in
	"# "*) [ $verbose = 1 ] && printf '%s\n' "$line" ;;
	*HCTEST\ *) printf 'HCTEST %s\n' "${line#*HCTEST }" ;;
	*HCTIME\ *) printf 'HCTIME %s\n' "${line#*HCTIME }" ;;
	*HCVM-*) printf 'HCVM-%s\n' "${line#*HCVM-}" ;;
	esac
	if [ -n "$kill_on" ] && [[ "$line" == *"$kill_on"* ]]; then
		kill -9 "$qpid" 2>/dev/null || true
		killed_on_marker=1
		echo "HCVM-KILLED on marker '$kill_on'"
		echo "### boot.sh: SIGKILL on marker '$kill_on'" >>"$log"
		break
	fi
	if [ $SECONDS -ge $deadline ]; then
		timed_out=1
		kill -9 "$qpid" 2>/dev/null || true
		break
	fi
done
exec 3<&-
qrc=0
{ wait "$qpid"; } 2>/dev/null || qrc=$? # no "Killed" job message
qpid=""
elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
echo "boot.sh: stage=$stage qemu-exit=$qrc time=${elapsed}s"

# --- verdict ----------------------------------------------------------------
why=""
if [ $killed_on_marker = 1 ]; then
	# judged by what came before the marker only
	if grep -aq 'HCTEST not ok' "$log"; then
		why="a test failed before the kill marker"
	elif grep -Eq 'Kernel panic|BUG:|Oops|general protection|rcu.*stall|blocked for more than' "$log"; then
		why="kernel error on the console before the kill marker"
	fi
elif [ $timed_out = 1 ]; then
	why="timeout after ${timeout}s"
elif grep -q 'Kernel panic' "$log"; then
	why="kernel panic"
else
	result=$(grep -ao 'HCVM-RESULT .*' "$log" | tail -n1 || true)
	if [ -z "$result" ]; then
		why="no HCVM-RESULT line (qemu exit status $qrc)"
	elif [[ "$result" != *" fail=0 "* ]]; then
		why="guest reported failures: $result"
	elif [[ "$result" != *"dmesg=clean"* ]]; then
		why="dmesg is dirty: $result"
	elif [ "$qrc" != 1 ]; then
		why="qemu exit status $qrc (expected 1)"
	fi
fi

if [ -n "$why" ]; then
	echo "boot.sh: FAIL stage=$stage: $why"
	echo "----- last 60 lines of $log -----"
	tail -n 60 "$log"
	echo "-----"
	exit 1
fi
echo "boot.sh: PASS stage=$stage"
exit 0
