#!/bin/sh
# Usage (guest, via /init): stage-reval.sh   (3 drives of 128 MiB, --s3)
#
# Revalidation against the real S3 gateway (issue 17, point 3;
# Documentation/ingest.md, "Revalidation").  Three backends on the same
# gateway: rgw (the default, s3:// URIs) with revalidate = on-open-after
# $TTL, alw with always, nev with never (the default).  A GET is counted
# as an ingest in hypercached's log ("URI: ingested"): a revalidation that
# finds the object unchanged fetches nothing.
#   reval-policy     the netlink policies: a TTL past ten years, a mode
#                    past always, a result past failed are ERANGE; a rule
#                    without a mode, a period for a mode without one or
#                    none for on-open-after, a prefix twice EINVAL, 65
#                    rules E2BIG; rules or an answer from a socket that is
#                    not the helper EPERM
#   reval-after-ttl  an object replaced in S3 (same size, other bytes) is
#                    served as cached before the TTL, and re-ingested on
#                    the first open after it (the new bytes, a new
#                    generation, one more ingest); an unchanged one is not
#                    (the same generation, no second ingest; counted
#                    unchanged)
#   reval-always     each open of an alw object is checked (one more
#                    revalidation per get, no GET), and a replacement is
#                    seen by the very next open
#   reval-holder     a reader that holds the old version (a file of the
#                    view opened before the replacement) keeps reading the
#                    old bytes while a new open, through hcctl and through
#                    the view, gets the new ones
#   reval-never      a nev object replaced in S3 is served stale, and no
#                    revalidation is counted
#   reval-reload     a SIGHUP that changes nev's revalidate to always
#                    sends the kernel the rules again (4 now): the next
#                    open of the stale nev object gets the new bytes;
#                    changed back to never, 3 rules again
#   reval-posix      a posix backend with always: an unchanged file is
#                    not fetched again; rewritten (same size, another
#                    second) or resized it is; removed, the reader gets
#                    the ingest's error and nothing stays cached
#   reval-no-helper  hypercached stopped: a due object is served at once
#                    from the cache and the check is counted as failed
#   reval-stats      hcctl stats (text and --json) and the exporter's
#                    hypercache_revalidations_total agree with the checks
. /hc/tests/lib.sh
. /hc/tests/s3lib.sh

TTL=15
[ -d /sys/kernel/debug/hypercache ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

# counter NAME: a counter of `hcctl stats --json`
counter() {
	hcctl stats --json | tr ',{}' '\n\n\n' |
		sed -n "s/^ *\"$1\": *\([0-9]*\)$/\1/p"
}

# ingests URI: how many times hypercached ingested URI
ingests() {
	grep -cF "$1: ingested " /tmp/hcd.out || :
}

# gen_of URI: the generation `hcctl ls --json` shows
gen_of() {
	hcctl ls --json "$1" | sed -n 's/.*"generation":\([0-9]*\).*/\1/p'
}

# get URI FILE: read URI through the cache into FILE
get() {
	rm -f "$2"
	hcctl get --no-progress --timeout 120 -o "$2" "$1" ||
		{ tail -n 20 /tmp/hcd.out; hc_fail "get $1 failed"; }
}

setup() {
	hcctl pool create --format 2 $M >/dev/null
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET"
	write_conf
	echo "revalidate = on-open-after $TTL" >>/tmp/hc.conf
	for b in alw:always nev:never; do
		printf '\n[backend %s]\ntype = s3\nendpoint = %s\naccess_key = %s\nsecret_key = %s\nrevalidate = %s\n' \
			"${b%%:*}" "$EP" "$AK" "$SK" "${b#*:}" >>/tmp/hc.conf
	done
	: >/tmp/hcd.out
	start_daemon
	grep -q "revalidation: 3 rules" /tmp/hcd.out ||
		{ cat /tmp/hcd.out; hc_fail "hypercached did not send its 3 rules"; }
}

# rule PREFIX-HEX MODE [TTL]: a RULE (10) nest: PREFIX 1, MODE 2, TTL 3
rule() {
	echo "nest:10 hex:1=$1 u8:2=$2 ${3:+u32:3=$3} end"
}

t_policy() {
	# REVAL_RULES (20): validated before the sender is looked at; a set
	# the kernel accepts, from a socket that is not the helper, is EPERM
	hc_expect_errno -m "not permitted" hc_nlpoke send 20
	hc_expect_errno -m "not permitted" hc_nlpoke send 20 $(rule 7333 1 60) $(rule 7334 2)
	hc_expect_errno -m "out of range" hc_nlpoke send 20 $(rule 7333 1 315360001)
	hc_expect_errno -m "out of range" hc_nlpoke send 20 $(rule 7333 3)
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 20 nest:10 hex:1=7333 end
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 20 $(rule 7333 1)
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 20 $(rule 7333 2 5)
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 20 $(rule 7333 2) $(rule 7333 0)
	many=""
	for i in $(seq 0 64); do many="$many $(rule "$(printf '%04x' "$i")" 2)"; done
	hc_expect_errno -m "Argument list too long" hc_nlpoke send 20 $many
	# REVALIDATE_DONE (22): ID 2, RESULT 8 (1..3), ERRNO 9
	hc_expect_errno -m "out of range" hc_nlpoke send 22 u64:2=1 u8:8=4
	hc_expect_errno -m "out of range" hc_nlpoke send 22 u64:2=1 u8:8=0
	hc_expect_errno -m "not permitted" hc_nlpoke send 22 u64:2=1 u8:8=1
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 22 u64:2=1
	# a reply-only attribute (SIZE 5) in a request
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 22 u64:2=1 u8:8=1 u64:5=1
}

t_after_ttl() {
	hc_pattern 11 3000000 >/tmp/a1
	hc_pattern 12 3000000 >/tmp/a2	# same size, other bytes
	hc_pattern 13 1000000 >/tmp/u1
	s3put /tmp/a1 r/a
	s3put /tmp/u1 r/u
	get "s3://$BUCKET/r/a" /tmp/got
	cmp -s /tmp/got /tmp/a1 || hc_fail "r/a: not the first bytes"
	get "s3://$BUCKET/r/u" /tmp/got
	ga=$(gen_of "s3://$BUCKET/r/a") gu=$(gen_of "s3://$BUCKET/r/u")
	ch0=$(counter reval_changed) un0=$(counter reval_unchanged)
	s3put /tmp/a2 r/a
	# before the TTL: not due, the cached copy, nothing checked
	get "s3://$BUCKET/r/a" /tmp/got
	cmp -s /tmp/got /tmp/a1 || hc_fail "r/a: checked before its TTL"
	[ "$(counter reval_changed)" = "$ch0" ] || hc_fail "a revalidation before the TTL"
	sleep $((TTL + 1))
	get "s3://$BUCKET/r/a" /tmp/got
	cmp -s /tmp/got /tmp/a2 || hc_fail "r/a: the old bytes after the TTL (replaced in S3)"
	[ "$(ingests "s3://$BUCKET/r/a")" = 2 ] ||
		hc_fail "r/a ingested $(ingests "s3://$BUCKET/r/a") times, want 2"
	[ "$(gen_of "s3://$BUCKET/r/a")" != "$ga" ] || hc_fail "r/a: the same generation after a change"
	[ "$(counter reval_changed)" = $((ch0 + 1)) ] ||
		hc_fail "reval_changed $(counter reval_changed), want $((ch0 + 1))"
	grep -qF "s3://$BUCKET/r/a: revalidated: changed" /tmp/hcd.out ||
		hc_fail "hypercached did not log the change"
	# the unchanged one: checked (304), served, not fetched again
	get "s3://$BUCKET/r/u" /tmp/got
	cmp -s /tmp/got /tmp/u1 || hc_fail "r/u: other bytes"
	[ "$(ingests "s3://$BUCKET/r/u")" = 1 ] ||
		hc_fail "unchanged r/u ingested $(ingests "s3://$BUCKET/r/u") times, want 1"
	[ "$(gen_of "s3://$BUCKET/r/u")" = "$gu" ] || hc_fail "unchanged r/u got a new generation"
	[ "$(counter reval_unchanged)" = $((un0 + 1)) ] ||
		hc_fail "reval_unchanged $(counter reval_unchanged), want $((un0 + 1))"
	# checked now: the next open within the TTL is not checked again
	get "s3://$BUCKET/r/u" /tmp/got
	[ "$(counter reval_unchanged)" = $((un0 + 1)) ] || hc_fail "r/u checked twice within its TTL"
}

t_always() {
	u=hypercache://alw/$BUCKET/r/w
	hc_pattern 21 500000 >/tmp/w1
	hc_pattern 22 500000 >/tmp/w2
	s3put /tmp/w1 r/w
	get "$u" /tmp/got
	n0=$(counter revalidations) un0=$(counter reval_unchanged)
	for i in 1 2 3; do
		get "$u" /tmp/got
		cmp -s /tmp/got /tmp/w1 || hc_fail "$u: other bytes at open $i"
	done
	[ "$(counter revalidations)" = $((n0 + 3)) ] ||
		hc_fail "always: $(( $(counter revalidations) - n0 )) checks for 3 opens"
	[ "$(counter reval_unchanged)" = $((un0 + 3)) ] || hc_fail "always: not 3 unchanged"
	[ "$(ingests "$u")" = 1 ] || hc_fail "always: $u fetched again while unchanged"
	s3put /tmp/w2 r/w
	get "$u" /tmp/got
	cmp -s /tmp/got /tmp/w2 || hc_fail "always: the next open after a replacement got the old bytes"
}

t_holder() {
	u=s3://$BUCKET/r/h
	hc_pattern 31 2000000 >/tmp/h1
	hc_pattern 32 2000000 >/tmp/h2
	hc_pattern 33 2000000 >/tmp/h3
	s3put /tmp/h1 r/h
	get "$u" /tmp/got
	mkdir -p /mnt/hc
	hcctl mount --ingest on /mnt/hc >/dev/null || hc_fail "hcctl mount failed"
	f=/mnt/hc/s3/$BUCKET/r/h
	exec 3<"$f" || hc_fail "cannot open $f"
	s3put /tmp/h2 r/h
	sleep $((TTL + 1))
	get "$u" /tmp/got
	cmp -s /tmp/got /tmp/h2 || hc_fail "a new open got the old bytes"
	cat <&3 >/tmp/held || hc_fail "the held file cannot be read"
	exec 3<&-
	cmp -s /tmp/held /tmp/h1 || hc_fail "the reader holding the old version did not read the old bytes"
	# an open of the view revalidates too
	s3put /tmp/h3 r/h
	sleep $((TTL + 1))
	cat "$f" >/tmp/got || { dmesg | tail -n 5; hc_fail "open of $f after a change failed"; }
	cmp -s /tmp/got /tmp/h3 || hc_fail "an open of the view after the TTL got the old bytes"
	hcctl umount /mnt/hc || umount /mnt/hc
}

t_never() {
	u=hypercache://nev/$BUCKET/r/n
	hc_pattern 41 400000 >/tmp/n1
	hc_pattern 42 400000 >/tmp/n2
	s3put /tmp/n1 r/n
	get "$u" /tmp/got
	n0=$(counter revalidations)
	s3put /tmp/n2 r/n
	sleep $((TTL + 1))
	get "$u" /tmp/got
	cmp -s /tmp/got /tmp/n1 || hc_fail "never: not served stale"
	[ "$(counter revalidations)" = "$n0" ] || hc_fail "never: a revalidation was made"
	[ "$(ingests "$u")" = 1 ] || hc_fail "never: fetched again"
}

# rules_sent N: the daemon's "revalidation: N rules" lines
rules_sent() {
	grep -c "revalidation: $1 rules" /tmp/hcd.out || :
}

# reload_to N: SIGHUP, and wait for "revalidation: N rules" once more
reload_to() {
	before=$(rules_sent "$1")
	kill -HUP "$(cat /tmp/hcd.pid)"
	i=0
	while [ "$(rules_sent "$1")" -le "$before" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { tail -n 5 /tmp/hcd.out; hc_fail "a reload did not send $1 rules"; }
		sleep 0.1
	done
}

t_reload() {
	u=hypercache://nev/$BUCKET/r/n
	# t_never left the cached copy stale (n1; S3 has n2)
	sed -i 's/^revalidate = never$/revalidate = always/' /tmp/hc.conf
	reload_to 4
	grep -q "changed but needing a restart" /tmp/hcd.out &&
		hc_fail "revalidate was taken for a key that needs a restart"
	get "$u" /tmp/got
	cmp -s /tmp/got /tmp/n2 || hc_fail "after the reload: the stale bytes (the rules were not sent again)"
	[ "$(ingests "$u")" = 2 ] || hc_fail "after the reload: $(ingests "$u") ingests, want 2"
	sed -i '/^\[backend nev\]/,$ s/^revalidate = always$/revalidate = never/' /tmp/hc.conf
	reload_to 3
}

t_posix() {
	stop_daemon
	mkdir -p /tmp/px/p
	printf '\n[backend px]\ntype = posix\nroot = /tmp/px\nrevalidate = always\n' >>/tmp/hc.conf
	: >/tmp/hcd.out
	start_daemon
	grep -q "revalidation: 4 rules" /tmp/hcd.out || hc_fail "not 4 rules with the posix backend"
	u=hypercache://px/p/f
	hc_pattern 51 300000 >/tmp/px/p/f
	cp /tmp/px/p/f /tmp/f1
	get "$u" /tmp/got
	get "$u" /tmp/got	# checked: same size and mtime
	[ "$(ingests "$u")" = 1 ] || hc_fail "posix: an unchanged file fetched again"
	sleep 2			# another st_mtime second
	hc_pattern 52 300000 >/tmp/px/p/f	# same size, other bytes
	get "$u" /tmp/got
	cmp -s /tmp/got /tmp/px/p/f || hc_fail "posix: a rewritten file served stale"
	hc_pattern 53 1000 >/tmp/px/p/f		# another size
	get "$u" /tmp/got
	cmp -s /tmp/got /tmp/px/p/f || hc_fail "posix: a resized file served stale"
	[ "$(ingests "$u")" = 3 ] || hc_fail "posix: $(ingests "$u") ingests, want 3"
	# removed: the check says gone, the new ingest ENOENT reaches the reader
	rm /tmp/px/p/f
	hc_expect_errno hcctl get --no-progress --timeout 60 -o /tmp/got "$u"
	hcctl ls "$u" | grep -qF "$u" && hc_fail "posix: a removed file is still cached"
	:
}

t_no_helper() {
	u=s3://$BUCKET/r/u
	sleep $((TTL + 1))
	stop_daemon
	f0=$(counter reval_failed)
	t0=$(cut -d. -f1 /proc/uptime)
	get "$u" /tmp/got
	t1=$(cut -d. -f1 /proc/uptime)
	cmp -s /tmp/got /tmp/u1 || hc_fail "no helper: not the cached bytes"
	[ $((t1 - t0)) -le 3 ] || hc_fail "no helper: the open waited $((t1 - t0)) s"
	[ "$(counter reval_failed)" = $((f0 + 1)) ] ||
		hc_fail "no helper: reval_failed $(counter reval_failed), want $((f0 + 1))"
	start_daemon
}

t_stats() {
	n=$(counter revalidations)
	s=$(( $(counter reval_unchanged) + $(counter reval_changed) + $(counter reval_failed) ))
	[ "$n" -gt 0 ] && [ "$n" = "$s" ] || hc_fail "revalidations $n, their results add up to $s"
	hcctl stats | grep -q "^revalidate  *$n checks: $(counter reval_unchanged) unchanged, $(counter reval_changed) changed, $(counter reval_failed) failed" ||
		{ hcctl stats; hc_fail "hcctl stats does not show the revalidations"; }
	# the exporter (metrics_listen's default, 127.0.0.1:9110)
	curl -sS -o /tmp/metrics http://127.0.0.1:9110/metrics ||
		hc_fail "no metrics page"
	grep -q "^hypercache_revalidations_total{result=\"changed\"} $(counter reval_changed)$" /tmp/metrics ||
		{ grep revalid /tmp/metrics; hc_fail "the exporter's changed count differs"; }
	grep -q "^hypercache_revalidations_total{result=\"unchanged\"} $(counter reval_unchanged)$" /tmp/metrics ||
		hc_fail "the exporter's unchanged count differs"
	# the cache's consistency verdict (the revalidation list included)
	v=$(cat /sys/kernel/debug/hypercache/check)
	case "$v" in ok*) ;; *) hc_fail "inconsistent: $v" ;; esac
}

hc_test reval-setup setup
hc_test reval-policy t_policy
hc_test reval-after-ttl t_after_ttl
hc_test reval-always t_always
hc_test reval-holder t_holder
hc_test reval-never t_never
hc_test reval-reload t_reload
hc_test reval-posix t_posix
hc_test reval-no-helper t_no_helper
hc_test reval-stats t_stats
stop_daemon 2>/dev/null || :
hcctl pool stop >/dev/null 2>&1 || :
