#!/bin/sh
# Usage (guest, via /init, booted with --noload):
#   stage-compat.sh phase=both        3 fresh drives of 64 MiB
#   stage-compat.sh phase=cut k=K     3 fresh drives of 64 MiB
#   stage-compat.sh phase=after-cut k=K   the drives of phase=cut
#
# Format compatibility between this module and the previous module build,
# which knows format v1 only (/hc/old/hypercache.ko and its own
# /hc/old/hcctl: tests/vm/oldmod.sh names the commit and why).  Objects of
# 1 B, 100 KiB, 4 MiB + 1 and 3 x 4 MiB + 12345 B (more than one chunk),
# contents from hc_pattern (so a later boot knows them too):
#   compat-old-v1-upgrade   the old module creates a v1 pool and puts the
#                       objects; rmmod; this module assembles it as v1,
#                       every object byte-identical; `hcctl pool upgrade`;
#                       a restart: v2 (every superblock with the bit, every
#                       member's journal v2), every object byte-identical,
#                       and a new object put and read back
#   compat-v2-refused-by-old  this module creates a v2 pool (create
#                       --format 2) and puts the objects; rmmod; the old
#                       module refuses to assemble it ("unknown incompatible
#                       feature", EOPNOTSUPP) and writes nothing to any
#                       member (each member's checksum before and after);
#                       rmmod; this module assembles it: v2, every object
#   compat-cut-K-setup  (phase=cut) the old module creates and fills a v1
#                       pool; rmmod; this module assembles it and upgrades
#                       it with upgrade_pause_after=K: right after the
#                       upgrade's K-th durable write (three superblocks,
#                       then the journal's compaction) the guest prints
#                       HC-UPGRADE-POWER-CUT and the host kills QEMU (a
#                       real power cut; this test never ends by itself)
#   compat-cut-K        (phase=after-cut, the same drives) the members are
#                       as the cut left them (K superblocks with the bit
#                       (at most 3), the journal v1 until write 4, v2 after);
#                       the old module refuses them (EOPNOTSUPP) writing
#                       nothing; this module assembles them as v2 and the
#                       assembly finishes the upgrade (its kernel line, for
#                       K < 3; every superblock with the bit, every journal
#                       v2: on-disk-format.md, "Upgrading a v1 pool", steps
#                       1 and 2), every object byte-identical
# Both modules' kernel log is /init's dmesg scan's.
. /hc/tests/lib.sh

phase="" k=0
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	k=*) k=${a#k=} ;;
	*) echo "stage-compat: unknown argument $a" >&2; exit 2 ;;
	esac
done

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
OLD=/hc/old
SIZES="1 102400 4194305 12595507"
MARKER=HC-UPGRADE-POWER-CUT

jget() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# load_old / load_new: insmod a module build (the dependencies first:
# /init loads them only with the module it loads itself)
load_old() {
	[ ! -s $OLD/hypercache.deps ] || modprobe -a $(cat $OLD/hypercache.deps)
	insmod $OLD/hypercache.ko
}

load_new() {
	[ ! -s /hc/hypercache.deps ] || modprobe -a $(cat /hc/hypercache.deps)
	insmod /hc/hypercache.ko
}

# unload: stop whatever pool runs (either hcctl) and rmmod either module
unload() {
	grep -q '^hypercache ' /proc/modules || return 0
	hcctl pool stop >/dev/null 2>&1 || $OLD/hcctl pool stop >/dev/null 2>&1 || true
	rmmod hypercache
}

# put_all HCCTL: the objects, each from hc_pattern (seed: its index)
put_all() {
	i=1
	for n in $SIZES; do
		hc_pattern $i $n >/tmp/c$n
		"$1" put --clean --no-progress /tmp/c$n compat/o$n >/dev/null
		rm -f /tmp/c$n
		i=$((i + 1))
	done
}

# objects_same HCCTL: every object reads back as written
objects_same() {
	i=1
	for n in $SIZES; do
		rm -f /tmp/got
		"$1" get --no-progress -o /tmp/got compat/o$n || hc_fail "get compat/o$n failed"
		hc_pattern $i $n | cmp -s - /tmp/got || hc_fail "compat/o$n changed"
		i=$((i + 1))
	done
	rm -f /tmp/got
}

format_is() {
	f=$(hcctl status --json | jget format_version)
	[ "$f" = "$1" ] || hc_fail "the pool is format '$f', not $1"
}

# members_sum: a checksum of every member, read past the page cache
members_sum() {
	for d in $M; do
		dd if=$d bs=1M iflag=direct 2>/dev/null | md5sum
	done
}

# old_v1_pool: the old module's v1 pool with the objects, stopped, the
# old module unloaded
old_v1_pool() {
	unload
	load_old
	$OLD/hcctl pool create --force $M >/dev/null
	put_all $OLD/hcctl
	objects_same $OLD/hcctl
	$OLD/hcctl pool stop
	rmmod hypercache
	for d in $M; do
		hc_sbpoke $d show | grep -q "incompat=0$" || hc_fail "$d: not a v1 superblock"
	done
}

t_old_v1_upgrade() {
	old_v1_pool
	load_new
	hcctl pool assemble $M >/dev/null
	format_is 1
	objects_same hcctl
	hcctl pool upgrade | grep -q "format v2 now" || hc_fail "no 'format v2 now'"
	objects_same hcctl
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	hc_pool_all_v2 $M
	objects_same hcctl
	hc_pattern 99 5000 >/tmp/cnew
	hcctl put --clean --no-progress /tmp/cnew compat/new >/dev/null
	hcctl get --no-progress -o /tmp/got compat/new
	cmp -s /tmp/cnew /tmp/got || hc_fail "compat/new reads back changed"
	rm -f /tmp/cnew /tmp/got
	unload
}

t_v2_refused_by_old() {
	unload
	load_new
	hcctl pool create --force --format 2 $M >/dev/null
	format_is 2
	put_all hcctl
	hcctl pool stop
	rmmod hypercache
	before=$(members_sum)
	load_old
	hc_expect_errno -m "unknown incompatible feature.*(Operation not supported|Not supported)" \
		$OLD/hcctl pool assemble $M
	[ "$(members_sum)" = "$before" ] || hc_fail "the old module wrote to a member it refused"
	rmmod hypercache
	load_new
	hcctl pool assemble $M >/dev/null
	format_is 2
	objects_same hcctl
	unload
}

# The power cut: never returns (the host kills QEMU on the marker); fails
# if the upgrade does not reach its K-th write
t_cut_setup() {
	old_v1_pool
	load_new
	echo "$k" >/sys/module/hypercache/parameters/upgrade_pause_after
	hcctl pool assemble $M >/dev/null
	format_is 1
	: >/tmp/upgrade.out
	hcctl pool upgrade >/tmp/upgrade.out 2>&1 &
	i=0
	while ! dmesg | grep -q "upgrade paused after $k writes"; do
		kill -0 $! 2>/dev/null || { cat /tmp/upgrade.out; hc_fail "the upgrade ended before its write $k"; }
		[ $i -lt $((600 * HC_TIMEOUT_SCALE)) ] || hc_fail "no pause after write $k in 60 s"
		sleep 0.1
		i=$((i + 1))
	done
	# /init's dmesg scan never runs in this boot: both modules' log here
	if hc_dmesg_bad >/tmp/bad; then
		cat /tmp/bad
		hc_fail "the kernel log before the power cut is not clean"
	fi
	hc_log "upgrade paused after write $k: the power cut"
	echo "$MARKER k=$k" >/dev/console
	sleep $((300 * HC_TIMEOUT_SCALE))
	hc_fail "QEMU was not killed on $MARKER"
}

# journal_version DEV: the version of DEV's current journal half
journal_version() {
	hcctl examine --json $1 | tr '{' '\n' | grep '"state":"current"' |
		grep -o '"version":[0-9]*' | cut -d: -f2
}

t_after_cut() {
	# what the power cut left: the first K superblocks with the bit, the
	# v1 journal until the compaction (write 4) committed the v2 one
	nsb=0
	for d in $M; do
		if hc_sbpoke $d show | grep -q "incompat=0x1$"; then
			nsb=$((nsb + 1))
		fi
	done
	want=$k
	[ "$k" -le 3 ] || want=3
	[ $nsb = $want ] || hc_fail "$nsb superblocks with the v2 bit after a cut after write $k"
	jv=1
	[ "$k" -le 3 ] || jv=2
	for d in $M; do
		[ "$(journal_version $d)" = $jv ] ||
			hc_fail "$d: journal version $(journal_version $d) after a cut after write $k"
	done
	# the previous build refuses the interrupted upgrade, writing nothing
	before=$(members_sum)
	load_old
	hc_expect_errno -m "unknown incompatible feature.*(Operation not supported|Not supported)" \
		$OLD/hcctl pool assemble $M
	rmmod hypercache
	[ "$(members_sum)" = "$before" ] || hc_fail "the old module wrote to a member it refused"
	# this one assembles it as v2 and finishes the upgrade
	load_new
	n0=$(dmesg | wc -l)
	hcctl pool assemble $M >/dev/null
	# members differing in the bit (K < 3): the assembly says it finishes
	# the upgrade; K = 3: every superblock has it, and the compaction every
	# assembly does is step 2
	if [ "$k" -lt 3 ]; then
		dmesg | tail -n +$((n0 + 1)) | grep -q "upgrade to format v2 was interrupted: finishing it" ||
			hc_fail "the assembly did not say it finishes the upgrade"
	fi
	hc_pool_all_v2 $M
	objects_same hcctl
	hcctl pool stop
	rmmod hypercache
}

case "$phase" in
both)
	hc_test compat-old-v1-upgrade t_old_v1_upgrade
	hc_test compat-v2-refused-by-old t_v2_refused_by_old
	;;
cut)
	hc_test compat-cut-$k-setup t_cut_setup
	;;
after-cut)
	hc_test compat-cut-$k t_after_cut
	;;
*)
	echo "stage-compat: phase=both|cut|after-cut" >&2
	exit 2
	;;
esac
