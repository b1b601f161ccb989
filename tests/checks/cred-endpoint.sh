#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The S3 endpoint of a backend without `endpoint`, as the AWS SDKs choose
# it (helper/lib/cred.c), against the real gateway (scripts/rgw.sh):
# hcfetch reads one object through a configuration that names no endpoint,
# the gateway being given
#   - by AWS_ENDPOINT_URL_S3, while AWS_ENDPOINT_URL points at a closed
#     port (the service-specific variable wins);
#   - by AWS_ENDPOINT_URL alone;
#   - by the profile's endpoint_url in ~/.aws/config;
#   - by the s3 endpoint_url of the profile's [services NAME] section,
#     while its endpoint_url points at a closed port;
# and the configuration's own endpoint (a closed port) beats them all: that
# fetch fails.  tests/run-all.sh runs this while its gateway is up; run
# alone, the script starts a gateway of its own and stops it afterwards.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
make -s -C helper hcfetch >&2

started=$(scripts/rgw.sh up)
eval "$(scripts/rgw.sh env)"
out=$PWD/build/cred-endpoint
bkt=hc-cred-endpoint-$$ key=obj
closed=http://127.0.0.1:1
fails=0
cleanup() {
	scripts/rgw.sh rm "s3://$bkt/$key" >/dev/null 2>&1 || true
	scripts/rgw.sh rb "$bkt" >/dev/null 2>&1 || true
	rm -rf "$out"
	[ -z "$started" ] || scripts/rgw.sh stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
rm -rf "$out"
mkdir -p "$out/home/.aws"
head -c 200000 /dev/urandom >"$out/src"
sum=$(sha256sum <"$out/src" | cut -d' ' -f1)
scripts/rgw.sh mb "$bkt" >/dev/null
scripts/rgw.sh put "$out/src" "s3://$bkt/$key" >/dev/null

printf '[hypercached]\ndefault_backend = rgw\n[backend rgw]\ntype = s3\n' >"$out/none.conf"
printf '[hypercached]\ndefault_backend = rgw\n[backend rgw]\ntype = s3\nendpoint = %s\n' \
	"$closed" >"$out/closed.conf"

fetch() {	# fetch CONF ENV...: hcfetch under exactly ENV (and the keys)
	local c=$1
	shift
	rm -f "$out/f"
	env -i PATH="$PATH" HOME="$out/home" AWS_EC2_METADATA_DISABLED=true \
		AWS_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" \
		AWS_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" "$@" \
		helper/hcfetch -c "$c" -w 2 -o "$out/f" "s3://$bkt/$key" \
		>"$out/log" 2>&1
}
check() {	# check NAME: the fetched copy is the object
	if [ -f "$out/f" ] && [ "$(sha256sum <"$out/f" | cut -d' ' -f1)" = "$sum" ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1: $(cat "$out/log")"
		fails=$((fails + 1))
	fi
}

fetch "$out/none.conf" AWS_ENDPOINT_URL="$closed" AWS_ENDPOINT_URL_S3="$HC_S3_ENDPOINT" || true
check "AWS_ENDPOINT_URL_S3 beats AWS_ENDPOINT_URL"
fetch "$out/none.conf" AWS_ENDPOINT_URL="$HC_S3_ENDPOINT" || true
check "AWS_ENDPOINT_URL"
printf '[default]\nendpoint_url = %s\n' "$HC_S3_ENDPOINT" >"$out/home/.aws/config"
fetch "$out/none.conf" || true
check "the profile's endpoint_url"
printf '[profile hc]\nendpoint_url = %s\nservices = gw\n[services gw]\ns3 =\n  endpoint_url = %s\n' \
	"$closed" "$HC_S3_ENDPOINT" >"$out/home/.aws/config"
fetch "$out/none.conf" AWS_PROFILE=hc || true
check "the profile's [services NAME] s3 endpoint_url beats its endpoint_url"
if fetch "$out/closed.conf" AWS_ENDPOINT_URL_S3="$HC_S3_ENDPOINT"; then
	echo "FAIL: the configuration's endpoint (a closed port) was not used"
	fails=$((fails + 1))
else
	echo "ok: the configuration's endpoint beats AWS_ENDPOINT_URL_S3 (closed port: $(head -c 120 "$out/log"))"
fi
[ "$fails" = 0 ] && echo "cred-endpoint: all passed" || echo "cred-endpoint: $fails failed"
[ "$fails" = 0 ]
