#!/bin/bash
# Anonymous (unsigned) S3 access against the real gateway (scripts/rgw.sh):
# an object of a bucket whose ACL is public-read is fetched by hcfetch
#   - with `anonymous = true` in its backend, while AWS_* keys are in the
#     environment (the configuration wins: the requests carry no key);
#   - with no credentials anywhere (env -i, an empty HOME, no metadata
#     service): the chain ends in anonymous;
# and the same object of a private bucket is refused (403, AccessDenied).
# tests/run-all.sh runs this while its gateway is up; run alone, the script
# starts a gateway of its own and stops it afterwards.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
make -s -C helper hcfetch >&2

started=$(scripts/rgw.sh up)
eval "$(scripts/rgw.sh env)"
out=$PWD/build/cred-anonymous
pub=hc-pkg-anon-pub-$$ priv=hc-pkg-anon-priv-$$ key=obj
fails=0
cleanup() {
	for b in "$pub" "$priv"; do
		scripts/rgw.sh rm "s3://$b/$key" >/dev/null 2>&1 || true
		scripts/rgw.sh rb "$b" >/dev/null 2>&1 || true
	done
	rm -rf "$out"
	[ -z "$started" ] || scripts/rgw.sh stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
rm -rf "$out"
mkdir -p "$out/home"
head -c 300000 /dev/urandom >"$out/src"
sum=$(sha256sum <"$out/src" | cut -d' ' -f1)
for b in "$pub" "$priv"; do
	scripts/rgw.sh mb "$b" >/dev/null
	scripts/rgw.sh put "$out/src" "s3://$b/$key" >/dev/null
done
python3 - "$HC_S3_ENDPOINT" "$pub" "$key" <<'EOF'
import sys, boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1])
s3.put_bucket_acl(Bucket=sys.argv[2], ACL="public-read")
s3.put_object_acl(Bucket=sys.argv[2], Key=sys.argv[3], ACL="public-read")
EOF

conf() {	# conf FILE [EXTRA-LINE]
	printf '[hypercached]\ndefault_backend = rgw\n[backend rgw]\ntype = s3\nendpoint = %s\n%s' \
		"$HC_S3_ENDPOINT" "${2:+$2
}" >"$1"
}
conf "$out/anon.conf" "anonymous = true"
conf "$out/plain.conf"
fetch() {	# fetch CONF BUCKET ENV...: hcfetch under exactly ENV
	local c=$1 b=$2
	shift 2
	rm -f "$out/f"
	env -i PATH="$PATH" HOME="$out/home" AWS_EC2_METADATA_DISABLED=true "$@" \
		helper/hcfetch -c "$c" -w 2 -o "$out/f" "s3://$b/$key" \
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

# A control first: the signed fetch of the private object works.
fetch "$out/plain.conf" "$priv" AWS_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" \
	AWS_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" && check "signed, private bucket" ||
	check "signed, private bucket"
fetch "$out/anon.conf" "$pub" AWS_ACCESS_KEY_ID=WRONGKEY AWS_SECRET_ACCESS_KEY=wrong &&
	check "anonymous = true beats AWS_* keys (wrong ones here)" ||
	check "anonymous = true beats AWS_* keys (wrong ones here)"
fetch "$out/plain.conf" "$pub" && check "no credentials anywhere: anonymous" ||
	check "no credentials anywhere: anonymous"
if fetch "$out/anon.conf" "$priv"; then
	echo "FAIL: anonymous fetch of the private bucket succeeded"
	fails=$((fails + 1))
elif grep -q "AccessDenied\|HTTP 403" "$out/log"; then
	echo "ok: anonymous, private bucket: $(head -c 200 "$out/log")"
else
	echo "FAIL: anonymous, private bucket: not AccessDenied: $(cat "$out/log")"
	fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "cred-anonymous: ok"
exit $((fails > 0))
