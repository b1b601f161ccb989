#!/bin/sh
# Usage (guest, via /init): stage-etag.sh phase=1|2 [etags=A:B:C bucket=B]
#   (4 drives of 128 MiB, --s3)
#
# The backend's ETag kept by a pool of format v2 (issue 17), against the
# real S3 gateway:
#   phase=1  etag-ingest   an object put into S3 with curl and read through
#                          the cache: `hcctl ls --json` shows S3's ETag
#                          (HEAD); a format-v1 pool shows it too until a
#                          restart, and not after (v1 journals none)
#            etag-upload   `hcctl put --sync`: the ETag the upload returned,
#                          which S3's HEAD also gives
#            etag-restart  both ETags after a pool stop and assemble
#            etag-v1-memory-only  a format-v1 pool (drive 3) shows the
#                          ETag of an ingest until a restart, and none after
#            then, the v2 pool running: another `put --sync` and at once
#                          "hc: etags A:B:C" and HC-CRASH-NOW: QEMU is killed
#   phase=2  etag-powercut the same images after the power cut: the three
#                          ETags as phase 1 printed them (without quotes)
. /hc/tests/lib.sh
. /hc/tests/s3lib.sh

phase="" etags=""
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	etags=*) etags=${a#etags=} ;;
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
	stop_daemon
	hcctl pool stop
	hcctl pool assemble $(hc_drive 3) >/dev/null
	[ -z "$(etag_of "s3://$BUCKET/etag/in")" ] ||
		hc_fail "v1 pool: an ETag after a restart"
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	: >/tmp/hcd.out
	start_daemon
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
	rm -f /tmp/got
	hcctl get --no-progress -o /tmp/got "s3://$BUCKET/etag/in"
	hc_pattern 3 5000000 | cmp -s - /tmp/got || hc_fail "etag/in changed"
	hcctl pool stop
}

if [ "$phase" = 1 ]; then
	hc_test etag-ingest t_ingest
	hc_test etag-upload t_upload
	hc_test etag-restart t_restart
	hc_test etag-v1-memory-only t_v1
	# an upload, and the power goes as soon as it is acknowledged
	hc_pattern 5 100000 >/tmp/last
	hcctl put --no-progress --sync /tmp/last "s3://$BUCKET/etag/last" >/dev/null
	c=$(s3_etag etag/last)
	echo "hc: etags $(cat /tmp/etag.in):$(cat /tmp/etag.up):$c bucket=$BUCKET" >/dev/console
	echo "HC-CRASH-NOW" >/dev/console
	sleep 60
else
	hc_test etag-powercut t_powercut
fi
