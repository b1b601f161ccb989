#!/bin/sh
# Usage (guest, via /init, booted with --s3):
#   stage-s3net.sh bucket=B big=KEY big_sha=SHA256 small=KEY small_sha=SHA256
#
# The network path to the host's S3 gateway (scenario 85-s3net):
#   s3net-eth0         eth0 is 10.0.2.15/24, default route via 10.0.2.2
#   s3net-get-big      the 5 MiB object, SigV4-signed GET, SHA-256 equal
#   s3net-get-small    the 1-byte object, the same
#   s3net-wrong-secret the same GET signed with a wrong secret: HTTP 403,
#                      SignatureDoesNotMatch, no data
#   s3net-missing-key  a key that does not exist: HTTP 404 NoSuchKey
. /hc/tests/lib.sh

bucket='' big='' big_sha='' small='' small_sha=''
for a in "$@"; do
	case "$a" in
	bucket=*) bucket=${a#bucket=} ;;
	big=*) big=${a#big=} ;;
	big_sha=*) big_sha=${a#big_sha=} ;;
	small=*) small=${a#small=} ;;
	small_sha=*) small_sha=${a#small_sha=} ;;
	*) echo "stage-s3net: unknown argument $a" >&2; exit 2 ;;
	esac
done

t_eth0() {
	[ -n "${HC_S3_ENDPOINT:-}" ] || hc_fail "HC_S3_ENDPOINT is not set (hc.s3=)"
	ip addr show dev eth0
	ip route
	ip addr show dev eth0 | grep -q 'inet 10\.0\.2\.15/24' || hc_fail "eth0 is not 10.0.2.15/24"
	ip route | grep -q '^default via 10\.0\.2\.2' || hc_fail "no default route via 10.0.2.2"
}

# get KEY SHA: a signed GET; HTTP 200 and the SHA-256 of the body
get() {
	rm -f /tmp/obj
	code=$(hc_s3_curl "/$bucket/$1" -o /tmp/obj -w '%{http_code}')
	[ "$code" = 200 ] || { cat /tmp/obj 2>/dev/null; hc_fail "GET $1: HTTP $code"; }
	got=$(sha256sum /tmp/obj | cut -d' ' -f1)
	hc_log "GET $HC_S3_ENDPOINT/$bucket/$1: $(wc -c </tmp/obj) bytes, sha256 $got"
	[ "$got" = "$2" ] || hc_fail "sha256 $got, expected $2"
}

t_get_big() { get "$big" "$big_sha"; }
t_get_small() {
	get "$small" "$small_sha"
	[ "$(wc -c </tmp/obj)" -eq 1 ] || hc_fail "not 1 byte"
}

t_wrong_secret() {
	rm -f /tmp/obj
	code=$(curl -sS --max-time 60 --aws-sigv4 "aws:amz:$AWS_DEFAULT_REGION:s3" \
		--user "$AWS_ACCESS_KEY_ID:not-$AWS_SECRET_ACCESS_KEY" \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
		-o /tmp/obj -w '%{http_code}' "$HC_S3_ENDPOINT/$bucket/$big")
	cat /tmp/obj
	echo
	[ "$code" = 403 ] || hc_fail "HTTP $code, expected 403"
	grep -q '<Code>SignatureDoesNotMatch</Code>' /tmp/obj || hc_fail "not SignatureDoesNotMatch"
}

t_missing_key() {
	rm -f /tmp/obj
	code=$(hc_s3_curl "/$bucket/no-such-key" -o /tmp/obj -w '%{http_code}')
	cat /tmp/obj
	echo
	[ "$code" = 404 ] || hc_fail "HTTP $code, expected 404"
	grep -q '<Code>NoSuchKey</Code>' /tmp/obj || hc_fail "not NoSuchKey"
}

hc_test s3net-eth0 t_eth0
hc_test s3net-get-big t_get_big
hc_test s3net-get-small t_get_small
hc_test s3net-wrong-secret t_wrong_secret
hc_test s3net-missing-key t_missing_key
