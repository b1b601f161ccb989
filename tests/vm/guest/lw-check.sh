#!/bin/sh
# Usage: run by hc_logreplay --exec at each check point of the log-writes
# replay (stage-reliability.sh, part logwrites), with HC_LW_ENTRY and
# HC_LW_MARK (op-K: operation K had returned, K+1 was in flight) from
# hc_logreplay and LW_DIR, LW_MSZ, LW_REPLAY, LW_COW from the stage.
#
# Assembles the pool from a snapshot of the replay target (dm-snapshot with
# a non-persistent COW on LW_COW, so the replay target itself is never
# written by the assembly) sliced into its three members, and checks that
# every object is in the state it had after op K or after op K+1 (from
# LW_DIR/state.K: "uri state pinned"), that what is there is
# byte-identical (LW_DIR/content: "uri pattern-id size", hc_pattern), and
# that nothing else is.  Prints "ok ENTRY MARK" or the reasons; exit 1 on
# a failure.
case "$HC_LW_MARK" in
op-*) k=${HC_LW_MARK#op-} ;;
*) k=$(cat "$LW_DIR/last") ;;	# dm-log-writes-end: after the last op
esac
at="entry $HC_LW_ENTRY ($HC_LW_FLAGS) after $HC_LW_MARK"
cur=$LW_DIR/state.$k
next=$LW_DIR/state.$((k + 1))
[ -f "$next" ] || next=$cur
fail=0
bad() {
	echo "lw-check: $at: $*"
	fail=1
}

dmsetup create lwsnap --table "0 $((3 * LW_MSZ)) snapshot $LW_REPLAY $LW_COW N 8" || exit 1
for m in 0 1 2; do
	dmsetup create lwr$m --table "0 $LW_MSZ linear /dev/mapper/lwsnap $((m * LW_MSZ))" || exit 1
done
if out=$(hcctl pool assemble /dev/mapper/lwr0 /dev/mapper/lwr1 /dev/mapper/lwr2 2>&1); then
	hcctl ls --json | tr '{' '\n' |
		sed -n 's/.*"uri":"\([^"]*\)".*"state":"\([a-z]*\)".*"pinned":\([a-z]*\).*/\1 \2 \3/p' |
		sed 's/ syncing / dirty /' | sort >/tmp/lw-got
	hcctl stats --json | grep -q '"staged":0' || bad "a staged object is back"
	for u in $(cat "$cur" "$next" /tmp/lw-got | cut -d' ' -f1 | sort -u); do
		a=$(grep "^$u " "$cur" | cut -d' ' -f2-)
		b=$(grep "^$u " "$next" | cut -d' ' -f2-)
		g=$(grep "^$u " /tmp/lw-got | cut -d' ' -f2-)
		if [ "$g" != "$a" ] && [ "$g" != "$b" ]; then
			bad "$u is '${g:-absent}', expected '${a:-absent}'${b:+ or '$b'}"
			continue
		fi
		[ -n "$g" ] || continue
		set -- $(grep "^$u " "$LW_DIR/content")
		if [ $# -ne 3 ]; then
			bad "$u: no content recorded"
			continue
		fi
		if ! hcctl get --no-ingest --no-progress -o /tmp/lw-obj "$u" >/tmp/lw-err 2>&1; then
			bad "$u: get failed: $(cat /tmp/lw-err)"
		elif ! hc_pattern "$2" "$3" | cmp -s - /tmp/lw-obj; then
			bad "$u: content differs from what was committed"
		fi
		rm -f /tmp/lw-obj
	done
	hcctl pool stop || bad "pool stop failed"
else
	bad "assembly failed: $out"
	dmesg | tail -n 5
fi
for m in 0 1 2; do dmsetup remove lwr$m; done
dmsetup remove lwsnap
[ $fail = 0 ] && echo "ok $HC_LW_ENTRY $HC_LW_MARK"
exit $fail
