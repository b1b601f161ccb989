#!/bin/sh
# Usage (guest, via /init): stage-etag.sh phase=1|2 [etags=A:B:C lms=X/Y/Z bucket=B]
#   (4 drives of 128 MiB, --s3)
#
# The backend's ETag kept by a pool of format v2 (issue 17), against the
# real S3 gateway:
#   phase=1  etag-ingest   an object put into S3 with curl and read through
#                          the cache: `hcctl ls --json` shows S3's ETag
#                          and Last-Modified (HEAD; `ls --etag` the
#                          columns); a format-v1 pool shows them too until
#                          a restart, and not after (v1 journals none)
#            etag-last-modified-policy  LAST_MODIFIED of EGRESS_DONE and
#                          INGEST_ALLOC: 9999-12-31T23:59:59Z + 1 s is
#                          ERANGE, the largest reaches the handler
#            etag-upload   `hcctl put --sync`: the ETag the upload returned
#                          and the Last-Modified, which S3's HEAD also
#                          gives; a dirty object has none
#            etag-client   libhypercache's hc_ctx_object_info() and
#                          hc_ctx_list_objects(): the same ETag and
#                          Last-Modified as S3's HEAD
#            etag-restart  both ETags and Last-Modified after a pool stop
#                          and assemble
#            etag-v1-memory-only  a format-v1 pool (drive 3) shows the
#                          ETag and Last-Modified of an ingest until a
#                          restart, and none after
#            etag-verify   `hcctl verify`: three objects ingested, one
#                          replaced in S3 and one deleted: exactly those two
#                          named stale (exit 1), an object put --clean (no
#                          ETag) and a dirty one skipped; --evict refuses the
#                          replaced one while it is pinned, evicts the
#                          deleted one, then (unpinned) the replaced one,
#                          whose next get ingests the new bytes; the
#                          unchanged one keeps its generation
#            etag-verify-posix  the same over a posix backend: objects
#                          uploaded with put --sync (ETag: the CRC-32C), one
#                          file rewritten (same size), one removed: those two
#                          stale, --evict evicts them, the third is current
#            then, the v2 pool running: another `put --sync` and at once
#                          "hc: lms X/Y/Z", "hc: etags A:B:C" and
#                          HC-CRASH-NOW: QEMU is killed
#   phase=2  etag-powercut the same images after the power cut: the three
#                          ETags (without quotes) and Last-Modified times
#                          as phase 1 printed them
. /hc/tests/lib.sh
. /hc/tests/s3lib.sh

phase="" etags="" lms=""
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	etags=*) etags=${a#etags=} ;;
	lms=*) lms=${a#lms=} ;;
	bucket=*) BUCKET=${a#bucket=} ;;
	*) echo "stage-etag: unknown argument $a" >&2; exit 2 ;;
	esac
done

# etag_of URI: the ETag `hcctl ls --json URI` shows (the only object with
# that prefix here), without its quotes; "" if none
etag_of() {
	hcctl ls --json "$1" | sed -n 's/.*"etag":"\([^,}]*\)".*/\1/p' |
		tr -d '"\\'
}

# s3_etag KEY: the ETag header of S3's HEAD of BUCKET/KEY
s3_etag() {
	s3curl -I "$EP/$BUCKET/$1" | tr -d '\r"' |
		sed -n 's/^[Ee][Tt][Aa][Gg]: *//p'
}

# lm_of URI: the "last_modified" `hcctl ls --json URI` shows (ISO 8601
# UTC), "null" if it is null, "" if the key is missing
lm_of() {
	hcctl ls --json "$1" | tr ',' '\n' |
		sed -n 's/.*"last_modified":"*\([^"}]*\)"*.*/\1/p'
}

# s3_lm KEY: the Last-Modified of S3's HEAD of BUCKET/KEY as ISO 8601 UTC
s3_lm() {
	_h=$(s3curl -I "$EP/$BUCKET/$1" | tr -d '\r' |
		sed -n 's/^[Ll]ast-[Mm]odified: *//p')
	[ -n "$_h" ] || hc_fail "S3's HEAD of $1 has no Last-Modified"
	busybox date -u -D '%a, %d %b %Y %H:%M:%S GMT' -d "$_h" +%Y-%m-%dT%H:%M:%SZ ||
		hc_fail "cannot read S3's Last-Modified '$_h'"
}

t_ingest() {
	hcctl pool create --format 2 $M >/dev/null
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET"
	write_conf
	: >/tmp/hcd.out
	start_daemon
	hc_pattern 3 5000000 >/tmp/src
	s3put /tmp/src etag/in
	want=$(s3_etag etag/in)
	[ -n "$want" ] || hc_fail "S3 sent no ETag"
	hcctl get --no-progress --timeout 300 -o /tmp/got "s3://$BUCKET/etag/in" ||
		{ tail -n 20 /tmp/hcd.out; hc_fail "get failed"; }
	cmp -s /tmp/got /tmp/src || hc_fail "the ingested bytes differ"
	got=$(etag_of "s3://$BUCKET/etag/in")
	[ "$got" = "$want" ] || hc_fail "ls shows ETag '$got', S3 '$want'"
	hcctl ls --etag "s3://$BUCKET/etag/" | grep -qF "\"$want\"" ||
		hc_fail "ls --etag does not show \"$want\""
	echo "$want" >/tmp/etag.in
	# the gateway's Last-Modified of the version fetched, column and JSON
	lm=$(s3_lm etag/in)
	[ "$(lm_of "s3://$BUCKET/etag/in")" = "$lm" ] ||
		hc_fail "ls shows Last-Modified '$(lm_of "s3://$BUCKET/etag/in")', S3 '$lm'"
	hcctl ls --etag "s3://$BUCKET/etag/in" | grep -q "^ready .*\"$want\"  *$lm  *s3://" ||
		{ hcctl ls --etag "s3://$BUCKET/etag/in"; hc_fail "ls --etag does not show $lm"; }
	echo "$lm" >/tmp/lm.in
}

# The range of HC_A_*_LAST_MODIFIED (0..9999-12-31T23:59:59Z) is the
# policy's: one second more is ERANGE before any handler runs; the largest
# reaches the handler (which refuses a socket that is not the helper).
t_lm_policy() {
	max=253402300799
	# EGRESS_DONE (17), LAST_MODIFIED 14
	hc_expect_errno -m "out of range" \
		hc_nlpoke send 17 u64:2=1 hex:3=6161 u64:14=$((max + 1))
	hc_expect_errno -m "not permitted" \
		hc_nlpoke send 17 u64:2=1 hex:3=6161 u64:14=$max
	# INGEST_ALLOC (12), LAST_MODIFIED 12
	hc_expect_errno -m "out of range" \
		hc_nlpoke send 12 u64:2=1 u64:4=1 u64:12=$((max + 1))
	hc_expect_errno -m "not permitted" hc_nlpoke send 12 u64:2=1 u64:4=1 u64:12=$max
	# OBJ_GET (6): reply-only in a request
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 6 u64:19=1
}

t_upload() {
	hc_pattern 4 300000 >/tmp/up
	u=s3://$BUCKET/etag/up
	hcctl put --no-progress --sync /tmp/up "$u" >/dev/null ||
		{ tail -n 20 /tmp/hcd.out; hc_fail "put --sync failed"; }
	want=$(s3_etag etag/up)
	[ -n "$want" ] || hc_fail "S3 sent no ETag for the upload"
	got=$(etag_of "$u")
	[ "$got" = "$want" ] || hc_fail "ls shows ETag '$got' after the upload, S3 '$want'"
	echo "$want" >/tmp/etag.up
	# the uploaded version's Last-Modified: hypercached's HEAD after the PUT
	lm=$(s3_lm etag/up)
	[ "$(lm_of "$u")" = "$lm" ] ||
		{ tail -n 5 /tmp/hcd.out; hc_fail "ls shows Last-Modified '$(lm_of "$u")' after the upload, S3 '$lm'"; }
	echo "$lm" >/tmp/lm.up
	# written, not uploaded: no backend version yet
	stop_daemon
	hcctl put --no-progress --config /tmp/hc.conf /tmp/up "s3://$BUCKET/etag/dirty" >/dev/null ||
		hc_fail "put (dirty) failed"
	[ "$(lm_of "s3://$BUCKET/etag/dirty")" = null ] ||
		hc_fail "a dirty object has Last-Modified '$(lm_of "s3://$BUCKET/etag/dirty")'"
	hcctl evict --discard-dirty "s3://$BUCKET/etag/dirty" >/dev/null ||
		hc_fail "evict --discard-dirty failed"
	: >/tmp/hcd.out
	start_daemon
}

# libhypercache's hc_ctx_object_info() and hc_ctx_list_objects() (1.3,
# hc_libtest objinfo): the ingested and the uploaded object's ETag (with
# S3's quotes) and Last-Modified are S3's, as hcctl ls shows them
t_client() {
	for k in in up; do
		u=s3://$BUCKET/etag/$k
		line=$(hc_libtest objinfo "$u") || hc_fail "hc_libtest objinfo $u failed"
		e=$(echo "$line" | sed -n 's/^etag=\(.*\) last_modified=.*/\1/p')
		s=$(echo "$line" | sed -n 's/.* last_modified=\([0-9]*\) .*/\1/p')
		[ "$e" = "\"$(cat /tmp/etag.$k)\"" ] ||
			hc_fail "the library says ETag '$e' for $u, S3 '\"$(cat /tmp/etag.$k)\"'"
		[ -n "$s" ] && [ "$s" -gt 0 ] || hc_fail "the library says no Last-Modified for $u: $line"
		lm=$(busybox date -u -d "@$s" +%Y-%m-%dT%H:%M:%SZ)
		[ "$lm" = "$(cat /tmp/lm.$k)" ] ||
			hc_fail "the library says Last-Modified $lm for $u, S3 $(cat /tmp/lm.$k)"
	done
}

t_restart() {
	stop_daemon
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	a=$(cat /tmp/etag.in) b=$(cat /tmp/etag.up)
	[ "$(etag_of "s3://$BUCKET/etag/in")" = "$a" ] ||
		hc_fail "ingest ETag after a restart: '$(etag_of "s3://$BUCKET/etag/in")', want '$a'"
	[ "$(etag_of "s3://$BUCKET/etag/up")" = "$b" ] ||
		hc_fail "upload ETag after a restart: '$(etag_of "s3://$BUCKET/etag/up")', want '$b'"
	a=$(cat /tmp/lm.in) b=$(cat /tmp/lm.up)
	[ "$(lm_of "s3://$BUCKET/etag/in")" = "$a" ] ||
		hc_fail "ingest Last-Modified after a restart: '$(lm_of "s3://$BUCKET/etag/in")', want '$a'"
	[ "$(lm_of "s3://$BUCKET/etag/up")" = "$b" ] ||
		hc_fail "upload Last-Modified after a restart: '$(lm_of "s3://$BUCKET/etag/up")', want '$b'"
}

# A format-v1 pool keeps the ETag in memory only.
t_v1() {
	hcctl pool stop
	hcctl pool create --force $(hc_drive 3) >/dev/null
	: >/tmp/hcd.out
	start_daemon
	hcctl get --no-progress --timeout 300 -o /tmp/got "s3://$BUCKET/etag/in" ||
		hc_fail "get from the v1 pool failed"
	[ "$(etag_of "s3://$BUCKET/etag/in")" = "$(cat /tmp/etag.in)" ] ||
		hc_fail "v1 pool: no ETag in memory"
	[ "$(lm_of "s3://$BUCKET/etag/in")" = "$(cat /tmp/lm.in)" ] ||
		hc_fail "v1 pool: Last-Modified in memory '$(lm_of "s3://$BUCKET/etag/in")', want '$(cat /tmp/lm.in)'"
	stop_daemon
	hcctl pool stop
	hcctl pool assemble $(hc_drive 3) >/dev/null
	[ -z "$(etag_of "s3://$BUCKET/etag/in")" ] ||
		hc_fail "v1 pool: an ETag after a restart"
	[ "$(lm_of "s3://$BUCKET/etag/in")" = null ] ||
		hc_fail "v1 pool: Last-Modified '$(lm_of "s3://$BUCKET/etag/in")' after a restart, want null"
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	: >/tmp/hcd.out
	start_daemon
}

# verify_result JSON NAME: the "result" of object .../etag/v/NAME in JSON
verify_result() {
	tr '{' '\n' <"$1" | grep -F "\"uri\":\"s3://$BUCKET/etag/v/$2\"" |
		sed -n 's/.*"result":"\([a-z ]*\)".*/\1/p'
}

# gen_of URI: the generation `hcctl ls --json` shows
gen_of() {
	hcctl ls --json "$1" | sed -n 's/.*"generation":\([0-9]*\).*/\1/p'
}

t_verify() {
	p=s3://$BUCKET/etag/v
	vf="hcctl verify --no-progress --config /tmp/hc.conf"
	for k in a b c; do
		hc_pattern "$(printf %d "'$k")" 300000 >/tmp/v.$k
		s3put /tmp/v.$k etag/v/$k
		hcctl get --no-progress --timeout 300 -o /tmp/got "$p/$k" ||
			{ tail -n 20 /tmp/hcd.out; hc_fail "get $p/$k failed"; }
		cmp -s /tmp/got /tmp/v.$k || hc_fail "$p/$k: the ingested bytes differ"
	done
	$vf "$p/" >/tmp/vf.out 2>&1 || { cat /tmp/vf.out; hc_fail "verify of 3 current objects: exit $?"; }
	grep -q "^3 objects: 3 current, 0 stale" /tmp/vf.out ||
		{ cat /tmp/vf.out; hc_fail "verify does not count 3 current"; }
	gen_a=$(gen_of "$p/a")
	# b replaced in S3 (other bytes, other size), c deleted
	hc_pattern 99 123456 >/tmp/v.b2
	s3put /tmp/v.b2 etag/v/b
	s3curl -X DELETE "$EP/$BUCKET/etag/v/c" >/dev/null || hc_fail "DELETE etag/v/c failed"
	# e: stored without an upload (no ETag); d: dirty, no egress helper running
	stop_daemon
	hc_pattern 5 1000 >/tmp/v.e
	hcctl put --no-progress --clean /tmp/v.e "$p/e" >/dev/null || hc_fail "put --clean failed"
	hcctl put --no-progress --config /tmp/hc.conf /tmp/v.e "$p/d" >/dev/null || hc_fail "put (dirty) failed"
	rc=0
	$vf "$p/" >/tmp/vf.out 2>/tmp/vf.err || rc=$?
	cat /tmp/vf.out
	[ $rc = 1 ] || hc_fail "verify with 2 stale objects: exit $rc, want 1"
	[ "$(grep -c '^stale' /tmp/vf.out)" = 2 ] || hc_fail "verify does not name exactly 2 stale objects"
	grep -q "^stale    $p/b: changed: " /tmp/vf.out || hc_fail "verify does not name $p/b changed"
	grep -q "^stale    $p/c: gone: " /tmp/vf.out || hc_fail "verify does not name $p/c gone"
	grep -q "^skipped  $p/d: not uploaded yet" /tmp/vf.out || hc_fail "verify does not skip dirty $p/d"
	grep -q "^skipped  $p/e: no ETag" /tmp/vf.out || hc_fail "verify does not skip $p/e (no ETag)"
	grep -q "^5 objects: 1 current, 2 stale (1 changed, 1 gone), 1 without an ETag, 1 not uploaded yet" \
		/tmp/vf.out || hc_fail "verify's totals are wrong"
	[ ! -s /tmp/vf.err ] || { cat /tmp/vf.err; hc_fail "verify wrote to stderr"; }
	rc=0
	$vf --json "$p/" >/tmp/vf.json || rc=$?
	[ $rc = 1 ] || hc_fail "verify --json: exit $rc, want 1"
	for kv in a=current b=changed c=gone d="not uploaded" e="no etag"; do
		[ "$(verify_result /tmp/vf.json "${kv%%=*}")" = "${kv#*=}" ] ||
			{ cat /tmp/vf.json; hc_fail "verify --json: ${kv%%=*} is not ${kv#*=}"; }
	done
	grep -q '"stale":2,' /tmp/vf.json || hc_fail "verify --json: stale is not 2"
	# --evict: b pinned is refused by name, c evicted, d (dirty) never
	hcctl pin "$p/b" || hc_fail "pin failed"
	rc=0
	$vf --evict "$p/" >/tmp/vf.out 2>/tmp/vf.err || rc=$?
	cat /tmp/vf.out /tmp/vf.err
	[ $rc = 1 ] || hc_fail "verify --evict with a pinned stale object: exit $rc, want 1"
	grep -q "$p/b: stale, not evicted: pinned" /tmp/vf.err ||
		hc_fail "verify --evict does not name the pinned refusal"
	grep -q "^refused  $p/b: changed" /tmp/vf.out || hc_fail "b's line does not say refused"
	grep -q "^evicted  $p/c: gone" /tmp/vf.out || hc_fail "c's line does not say evicted"
	grep -q "; 1 evicted, 1 refused" /tmp/vf.out || hc_fail "verify --evict's totals are wrong"
	hcctl ls "$p/c" | grep -qF "$p/c" && hc_fail "$p/c is still cached"
	hcctl ls "$p/d" | grep -q "^dirty" || hc_fail "dirty $p/d was touched"
	hcctl unpin "$p/b" || hc_fail "unpin failed"
	rc=0
	$vf --evict "$p/" >/tmp/vf.out 2>&1 || rc=$?
	cat /tmp/vf.out
	[ $rc = 1 ] || hc_fail "verify --evict of b: exit $rc, want 1 (it was stale)"
	grep -q "^evicted  $p/b: changed" /tmp/vf.out || hc_fail "b was not evicted"
	hcctl ls "$p/b" | grep -qF "$p/b" && hc_fail "$p/b is still cached"
	[ "$(gen_of "$p/a")" = "$gen_a" ] || hc_fail "the unchanged $p/a was touched"
	: >/tmp/hcd.out
	start_daemon
	rm -f /tmp/got
	hcctl get --no-progress --timeout 300 -o /tmp/got "$p/b" ||
		{ tail -n 20 /tmp/hcd.out; hc_fail "get of the replaced $p/b failed"; }
	cmp -s /tmp/got /tmp/v.b2 || hc_fail "$p/b: not the new bytes after --evict"
	hcctl get --no-progress --timeout 300 -o /tmp/got "$p/a" || hc_fail "get $p/a failed"
	cmp -s /tmp/got /tmp/v.a || hc_fail "$p/a changed"
	hcctl evict --discard-dirty "$p/d" >/dev/null 2>&1 || :
	hcctl evict "$p/e" >/dev/null 2>&1 || :
	rc=0
	$vf "$p/" >/tmp/vf.out 2>&1 || rc=$?
	cat /tmp/vf.out
	[ $rc = 0 ] || hc_fail "verify after --evict and a get: exit $rc, want 0"
	grep -q " 0 stale" /tmp/vf.out || hc_fail "verify after the re-ingest: still stale"
}

t_verify_posix() {
	stop_daemon
	printf '\n[backend px]\ntype = posix\nroot = /tmp/px\n' >>/tmp/hc.conf
	mkdir -p /tmp/px
	: >/tmp/hcd.out
	start_daemon
	p=hypercache://px/v
	for k in f g h; do
		hc_pattern "$(printf %d "'$k")" 200000 >/tmp/v.$k
		hcctl put --no-progress --sync --config /tmp/hc.conf /tmp/v.$k "$p/$k" >/dev/null ||
			{ tail -n 20 /tmp/hcd.out; hc_fail "put --sync $p/$k failed"; }
	done
	cmp -s /tmp/px/v/g /tmp/v.g || hc_fail "the upload of $p/g differs"
	[ -n "$(etag_of "$p/g")" ] || hc_fail "no ETag after a posix upload"
	hc_pattern 77 200000 >/tmp/px/v/f	# same size, other bytes
	rm /tmp/px/v/h
	rc=0
	hcctl verify --no-progress --config /tmp/hc.conf "$p/" >/tmp/vf.out 2>&1 || rc=$?
	cat /tmp/vf.out
	[ $rc = 1 ] || hc_fail "verify of a posix backend with 2 stale objects: exit $rc, want 1"
	grep -q "^stale    $p/f: changed: " /tmp/vf.out || hc_fail "the rewritten $p/f is not named changed"
	grep -q "^stale    $p/h: gone: " /tmp/vf.out || hc_fail "the removed $p/h is not named gone"
	grep -q "^3 objects: 1 current, 2 stale" /tmp/vf.out || hc_fail "verify's totals are wrong"
	rc=0
	hcctl verify --no-progress --evict --config /tmp/hc.conf "$p/" >/tmp/vf.out 2>&1 || rc=$?
	cat /tmp/vf.out
	grep -q "; 2 evicted, 0 refused" /tmp/vf.out || hc_fail "--evict did not evict both"
	[ "$(hcctl ls "$p/" | grep -c "$p/")" = 1 ] || hc_fail "not exactly $p/g is left"
	hcctl get --no-progress --timeout 300 -o /tmp/got "$p/f" || hc_fail "get $p/f failed"
	cmp -s /tmp/got /tmp/px/v/f || hc_fail "$p/f: not the rewritten bytes after --evict"
}

t_powercut() {
	hcctl pool assemble $M >/dev/null
	a=${etags%%:*} b=${etags#*:} c=${b#*:} b=${b%%:*}
	[ "$(etag_of "s3://$BUCKET/etag/in")" = "$a" ] ||
		hc_fail "ingest ETag after the power cut: '$(etag_of "s3://$BUCKET/etag/in")', want '$a'"
	[ "$(etag_of "s3://$BUCKET/etag/up")" = "$b" ] ||
		hc_fail "upload ETag after the power cut: '$(etag_of "s3://$BUCKET/etag/up")', want '$b'"
	[ "$(etag_of "s3://$BUCKET/etag/last")" = "$c" ] ||
		hc_fail "ETag of the upload just before the power cut: '$(etag_of "s3://$BUCKET/etag/last")', want '$c'"
	a=${lms%%/*} b=${lms#*/} c=${b#*/} b=${b%%/*}
	[ -n "$c" ] || hc_fail "phase 1 printed no Last-Modified times"
	for kv in in=$a up=$b last=$c; do
		[ "$(lm_of "s3://$BUCKET/etag/${kv%%=*}")" = "${kv#*=}" ] ||
			hc_fail "Last-Modified of etag/${kv%%=*} after the power cut: '$(lm_of "s3://$BUCKET/etag/${kv%%=*}")', want '${kv#*=}'"
	done
	rm -f /tmp/got
	hcctl get --no-progress -o /tmp/got "s3://$BUCKET/etag/in"
	hc_pattern 3 5000000 | cmp -s - /tmp/got || hc_fail "etag/in changed"
	hcctl pool stop
}

if [ "$phase" = 1 ]; then
	hc_test etag-ingest t_ingest
	hc_test etag-last-modified-policy t_lm_policy
	hc_test etag-upload t_upload
	hc_test etag-client t_client
	hc_test etag-restart t_restart
	hc_test etag-v1-memory-only t_v1
	hc_test etag-verify t_verify
	hc_test etag-verify-posix t_verify_posix
	# an upload, and the power goes as soon as it is acknowledged
	hc_pattern 5 100000 >/tmp/last
	hcctl put --no-progress --sync /tmp/last "s3://$BUCKET/etag/last" >/dev/null
	c=$(s3_etag etag/last)
	echo "hc: lms $(cat /tmp/lm.in)/$(cat /tmp/lm.up)/$(s3_lm etag/last)" >/dev/console
	echo "hc: etags $(cat /tmp/etag.in):$(cat /tmp/etag.up):$c bucket=$BUCKET" >/dev/console
	echo "HC-CRASH-NOW" >/dev/console
	sleep 60
else
	hc_test etag-powercut t_powercut
fi
