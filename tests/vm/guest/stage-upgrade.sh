#!/bin/sh
# Usage (guest, via /init): stage-upgrade.sh   (3 fresh drives of 64 MiB)
#
# `hcctl pool upgrade` of a format-v1 pool to v2 in place (issue 17):
#   upgrade-busy-v1-stays  refused (EBUSY) while an object is staged,
#                      nothing written; that v1 pool, never upgraded, then
#                      assembles as v1 with every object
#   upgrade-stop-K     for K = 1 and 4 (HC_FULL=1, make check-reliability:
#                      1..4; three superblocks, then the journal's
#                      compaction): the upgrade stops after its K-th write
#                      (the upgrade_stop_after hook: the members are what a
#                      power cut between two durable writes leaves), the
#                      pool is stopped (which writes nothing) and assembled
#                      again: it is v2, the assembly finished the upgrade
#                      (every superblock has the bit, the journal is v2)
#                      and every object is byte-identical
#   upgrade-online     the whole upgrade of a running pool, then a restart:
#                      v2, every object byte-identical; a second upgrade
#                      says "already format v2" (EALREADY)
#   upgrade-journal-room  a v2 record is larger than a v1 one (the room for
#                      an ETag): a v1 pool whose objects' v1 records take
#                      75 % of a half (URIs of about 400 bytes: 512 bytes
#                      a record in v1, 1024 in v2) refuses the upgrade with
#                      ENOSPC, naming the bytes, before it writes anything
#                      (v1, no superblock bit, every object kept); with
#                      some evicted the upgrade runs, and the journal's
#                      charge is then every object's v2 record: the same
#                      journal_used after a restart
# Torn writes inside a superblock or journal header are upgrade_test's
# (tests/unit, 88 crash points); a real QEMU power cut after each write,
# of a pool made by the previous module build, is stage-compat.sh's.
. /hc/tests/lib.sh

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
HOOK=/sys/module/hypercache/parameters/upgrade_stop_after

jget() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# mkpool: a fresh v1 pool with three objects (1 B, 100 KiB, 4 MiB + 1)
mkpool() {
	hcctl pool create --force $M >/dev/null
	for n in 1 102400 4194305; do
		head -c $n /dev/urandom >/tmp/u$n
		hcctl put --clean --no-progress /tmp/u$n up/o$n >/dev/null
	done
	[ "$(hcctl status --json | jget format_version)" = 1 ] || hc_fail "not a v1 pool"
}

# objects_same: every object reads back as written
objects_same() {
	for n in 1 102400 4194305; do
		rm -f /tmp/got
		hcctl get --no-progress -o /tmp/got up/o$n || hc_fail "get up/o$n failed"
		cmp -s /tmp/got /tmp/u$n || hc_fail "up/o$n changed"
	done
}

t_busy() {
	mkpool
	hc_stage_hold up/staged 4096
	hc_expect_errno -m "ingested, staged or uploaded.*busy" hcctl pool upgrade
	hc_stage_release
	[ "$(hcctl status --json | jget format_version)" = 1 ] || hc_fail "changed by a refused upgrade"
	hcctl pool stop
	for d in $M; do
		hc_sbpoke $d show | grep -q "incompat=0$" || hc_fail "$d written by a refused upgrade"
	done
	hcctl pool assemble $M >/dev/null
	[ "$(hcctl status --json | jget format_version)" = 1 ] || hc_fail "not v1 after a restart"
	objects_same
	hcctl pool stop
}

t_stop_at() {
	mkpool
	echo "$1" >$HOOK
	hc_expect_errno -m "upgrade_stop_after" hcctl pool upgrade
	echo 0 >$HOOK
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	hc_pool_all_v2 $M
	objects_same
	hcctl pool stop
}

t_online() {
	mkpool
	hcctl pool upgrade | grep -q "format v2 now" || hc_fail "no 'format v2 now'"
	objects_same
	hc_pool_all_v2 $M
	objects_same
	hc_expect_errno -m "already format v2.*already in progress" hcctl pool upgrade
	[ "$(hcctl pool upgrade --json 2>/dev/null)" = "" ] || hc_fail "json on failure"
	hcctl pool stop
}

# t_room: the journal must hold every live object's v2 record
t_room() {
	hcctl pool create --force $M >/dev/null
	cap=$(hcctl stats --json | jget journal_capacity)
	used0=$(hcctl stats --json | jget journal_used)
	[ "$cap" -gt 65536 ] || hc_fail "journal capacity $cap"
	# 396-byte prefixes: URIs of 397..400 bytes
	pa=$(printf 'room/a/%0389d' 0)
	pb=$(printf 'room/b/%0389d' 0)
	na=$(( (cap - used0) * 40 / 100 / 512 ))
	nb=$(( (cap - used0) * 35 / 100 / 512 ))
	hcctl pool stop
	hc_jpoke objects "$pa" $na $M >/dev/null || hc_fail "hc_jpoke a"
	hc_jpoke objects "$pb" $nb $M >/dev/null || hc_fail "hc_jpoke b"
	hcctl pool assemble $M >/dev/null
	used=$(hcctl stats --json | jget journal_used)
	[ "$used" -eq $((used0 + (na + nb) * 512)) ] ||
		hc_fail "v1 charge $used, want $((used0 + (na + nb) * 512))"
	hc_expect_errno -m "no journal room for every object's v2 record; evict some.*No space left" hcctl pool upgrade
	dmesg | grep -Eq "upgrade refused: the objects' format-v2 journal records take [0-9]+ bytes, a half holds [0-9]+" ||
		hc_fail "the refusal's bytes are not in dmesg"
	[ "$(hcctl status --json | jget format_version)" = 1 ] ||
		hc_fail "changed by a refused upgrade"
	[ "$(hcctl stats --json | jget objects)" = $((na + nb)) ] ||
		hc_fail "objects lost by a refused upgrade"
	hcctl pool stop
	for d in $M; do
		hc_sbpoke $d show | grep -q "incompat=0$" ||
			hc_fail "$d written by a refused upgrade"
	done
	hcctl pool assemble $M >/dev/null
	[ "$(hcctl stats --json | jget objects)" = $((na + nb)) ] ||
		hc_fail "objects lost after a refused upgrade"
	hcctl evict --prefix room/b/ --yes >/dev/null || hc_fail "evict b"
	hcctl pool upgrade | grep -q "format v2 now" || hc_fail "no upgrade"
	used=$(hcctl stats --json | jget journal_used)
	[ "$used" -ge $((na * 1024)) ] ||
		hc_fail "after the upgrade: charged $used, v2 records take $((na * 1024))"
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	hc_pool_all_v2 $M
	[ "$(hcctl stats --json | jget objects)" = $na ] ||
		hc_fail "objects after the upgrade: $(hcctl stats --json | jget objects)"
	[ "$(hcctl stats --json | jget journal_used)" = "$used" ] ||
		hc_fail "journal_used $(hcctl stats --json | jget journal_used) after a restart, $used online"
	hcctl pool stop
}

hc_test upgrade-busy-v1-stays t_busy
ks="1 4"
[ "$HC_FULL" = 1 ] && ks="1 2 3 4"
for k in $ks; do
	hc_test upgrade-stop-$k t_stop_at $k
done
hc_test upgrade-online t_online
hc_test upgrade-journal-room t_room
