#!/bin/bash
# Usage: scripts/rgw.sh start|up|stop|status|env
#        scripts/rgw.sh mb BUCKET
#        scripts/rgw.sh put FILE s3://BUCKET/KEY
#        scripts/rgw.sh get s3://BUCKET/KEY FILE
#        scripts/rgw.sh rm s3://BUCKET/KEY
#        scripts/rgw.sh rb BUCKET            (an empty bucket)
#        scripts/rgw.sh aws ARGS...        (/usr/bin/aws --endpoint-url ...)
#
# The S3 gateway of the tests and the demo: a single-node Ceph cluster (one
# mon, one memstore OSD, radosgw) on the loopback interface only, auth none
# inside the cluster, SigV4 verified at the gateway.
#   endpoint   http://127.0.0.1:7480 (the guest: http://10.0.2.2:7480),
#              path-style, any region (us-east-1 by convention)
#   user       access key RGWAK, secret RGWSECRET
#
#   start   idempotent: if a gateway already answers on the port and accepts
#           our credentials, it is reused (and left running by `stop`);
#           otherwise wipes the state dir, starts mon, OSD and radosgw,
#           waits until the gateway answers (HC_RGW_TIMEOUT s, default 120;
#           on failure: the log tails, the daemons stopped, exit 1), creates
#           the user and prints the time it took.
#   up      for the scripts that need a gateway for a while: reuses a
#           running one (prints nothing) or starts one (start's output to
#           stderr, then prints `started` on stdout: the caller stops it when
#           done, `[ -z "$started" ] || scripts/rgw.sh stop`).
#   stop    stops the daemons this state dir started, by their pid files
#           only (never by name), and waits for them to exit.
#   status  exit 0 if the gateway answers and accepts our credentials.
#   env     shell exports: eval "$(scripts/rgw.sh env)".
#   mb, put, get, rm, rb
#           small helpers (curl --aws-sigv4); `aws` runs Debian's awscli v2
#           (/usr/bin/aws, not a pyenv aws that may come first on PATH).
# Environment: HC_RGW_DIR (state dir, default build/rgw), HC_RGW_MEMSTORE_BYTES
# (OSD capacity in RAM, default 8 GiB; only what is stored uses memory), HC_RGW_TIMEOUT.  Needs root (or at
# least write access to the state dir) and Debian's radosgw, ceph-mon,
# ceph-osd, ceph-common, curl (scripts/deps.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
D=${HC_RGW_DIR:-$ROOT/build/rgw}
MEMSTORE_BYTES=${HC_RGW_MEMSTORE_BYTES:-8589934592}
TIMEOUT=${HC_RGW_TIMEOUT:-120}
HOST=127.0.0.1
PORT=7480
AK=RGWAK
SK=RGWSECRET
REGION=us-east-1
ENDPOINT=http://$HOST:$PORT
GUEST_ENDPOINT=http://10.0.2.2:$PORT
# the daemons, in stop order; "name:binary"
DAEMONS=(rgw:radosgw osd:ceph-osd mon:ceph-mon)

die() { echo "rgw.sh: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2; }

# Unix socket paths are limited to 107 bytes: keep the admin sockets short.
run_dir() {
	if [ ${#D} -le 60 ]; then
		echo "$D/run"
	else
		echo "/tmp/hc-rgw-$(printf '%s' "$D" | md5sum | cut -c1-12)"
	fi
}

# s3 METHOD PATH [curl args...]: a signed request; prints the HTTP status.
s3() {
	local method=$1 path=$2
	shift 2
	curl -sS -o "${S3_OUT:-/dev/null}" -w '%{http_code}' --max-time "${S3_MAX_TIME:-10}" -X "$method" \
		--aws-sigv4 "aws:amz:$REGION:s3" --user "$AK:$SK" \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@" "$ENDPOINT$path" 2>/dev/null || true
}

# answers: anything listens and speaks HTTP; ours: and it takes our credentials
answers() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$ENDPOINT/" 2>/dev/null || true)" != 000 ]; }
# ours: an S3 ListBuckets with our credentials succeeds, one with a wrong
# secret is refused (a server that verifies SigV4 and knows our user)
ours() {
	local body code
	body=$(mktemp)
	code=$(S3_OUT=$body s3 GET /)
	if [ "$code" != 200 ] || ! grep -q '<ListAllMyBucketsResult' "$body"; then
		rm -f "$body"
		return 1
	fi
	rm -f "$body"
	[ "$(SK=wrong-$SK s3 GET /)" = 403 ]
}

# pid_of NAME: the pid in NAME's pid file if that process is alive and is
# the expected binary (a recycled pid is not ours).
pid_of() {
	local name=$1 bin=$2 pid rd
	rd=$(run_dir)
	[ -s "$rd/$name.pid" ] || return 1
	pid=$(cat "$rd/$name.pid")
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	[ -r "/proc/$pid/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "$bin" || return 1
	echo "$pid"
}

our_pids() {
	local e pids=""
	for e in "${DAEMONS[@]}"; do
		pids+=" $(pid_of "${e%%:*}" "${e#*:}" || true)"
	done
	echo $pids
}

do_stop() {
	local e name bin pid i rd
	rd=$(run_dir)
	for e in "${DAEMONS[@]}"; do
		name=${e%%:*} bin=${e#*:}
		if pid=$(pid_of "$name" "$bin"); then
			kill -TERM "$pid" 2>/dev/null || true
			for ((i = 0; i < 200; i++)); do
				[ -d "/proc/$pid" ] || break
				sleep 0.1
			done
			if [ -d "/proc/$pid" ]; then
				echo "rgw.sh: $bin ($pid) still running after 20 s, SIGKILL" >&2
				kill -KILL "$pid" 2>/dev/null || true
				for ((i = 0; i < 50; i++)); do
					[ -d "/proc/$pid" ] || break
					sleep 0.1
				done
			fi
			echo "rgw.sh: stopped $bin ($pid)"
		fi
		rm -f "$rd/$name.pid"
	done
}

log_tails() {
	local f
	for f in "$D"/log/*.log; do
		[ -f "$f" ] || continue
		echo "----- last 20 lines of $f -----" >&2
		tail -n 20 "$f" >&2
	done
}

# fail_start MSG: report, show the logs, stop what was started, exit 1.
fail_start() {
	echo "rgw.sh: start failed: $*" >&2
	log_tails
	do_stop >&2
	exit 1
}

do_start() {
	local t0 rd fsid ou id i c pids
	t0=$EPOCHREALTIME
	command -v radosgw >/dev/null && command -v ceph-mon >/dev/null &&
		command -v ceph-osd >/dev/null && command -v ceph >/dev/null ||
		die "radosgw, ceph-mon, ceph-osd and ceph are needed (scripts/deps.sh)"
	command -v curl >/dev/null || die "curl is needed (scripts/deps.sh)"

	if ours; then
		pids=$(our_pids)
		if [ -n "$pids" ]; then
			echo "rgw.sh: already running at $ENDPOINT (state $D, pids $pids)"
		else
			echo "rgw.sh: reusing the gateway already answering at $ENDPOINT with our credentials (not started from $D; 'stop' leaves it alone)"
		fi
		return 0
	fi
	if answers && [ -z "$(our_pids)" ]; then
		die "something else answers on $HOST:$PORT and does not take our credentials ($AK); stop it first"
	fi
	# leftovers of an earlier start from this state dir
	do_stop >/dev/null

	rd=$(run_dir)
	rm -rf "$D" "$rd"
	mkdir -p "$D"/{mon,osd,rgw,log} "$rd"
	fsid=$(cat /proc/sys/kernel/random/uuid)
	c=(-c "$D/ceph.conf")
	cat >"$D/ceph.conf" <<-EOC
	# written by scripts/rgw.sh: a single-node test cluster on the loopback
	[global]
	fsid = $fsid
	mon host = [v2:$HOST:3300,v1:$HOST:6789]
	mon initial members = a
	public addr = $HOST
	# else the OSD binds 0.0.0.0
	cluster addr = $HOST
	# else radosgw waits 300 s for the mon
	ms mon client mode = crc secure
	ms client mode = crc secure
	auth cluster required = none
	auth service required = none
	auth client required = none
	run dir = $rd
	log file = $D/log/\$name.log
	admin socket = $rd/\$name.asok
	keyring = $D/keyring
	mon data = $D/mon/\$cluster-\$id
	osd data = $D/osd/\$cluster-\$id
	osd objectstore = memstore
	memstore device bytes = $MEMSTORE_BYTES
	osd pool default size = 1
	osd pool default min size = 1
	osd pool default pg num = 8
	osd pool default pgp num = 8
	mon allow pool size one = true
	mon warn on pool no redundancy = false
	osd crush chooseleaf type = 0
	ms bind ipv6 = false
	[client.rgw.gw]
	rgw frontends = beast endpoint=$HOST:$PORT
	rgw data = $D/rgw
	# overwritten and deleted objects are garbage-collected after 2 h by
	# default: in RAM that fills the OSD during a test run
	rgw gc obj min wait = 30
	rgw gc processor period = 30
	EOC

	ceph-authtool --create-keyring "$D/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null ||
		fail_start "ceph-authtool"
	ceph-authtool "$D/keyring" --gen-key -n client.admin --cap mon 'allow *' \
		--cap osd 'allow *' --cap mgr 'allow *' >/dev/null || fail_start "ceph-authtool"
	monmaptool --create --addv a "[v2:$HOST:3300,v1:$HOST:6789]" --fsid "$fsid" \
		"$D/monmap" >/dev/null || fail_start "monmaptool"
	ceph-mon "${c[@]}" --mkfs -i a --monmap "$D/monmap" --keyring "$D/keyring" \
		>>"$D/log/start.log" 2>&1 || fail_start "ceph-mon --mkfs"
	ceph-mon "${c[@]}" -i a --pid-file "$rd/mon.pid" >>"$D/log/start.log" 2>&1 ||
		fail_start "ceph-mon did not start"
	ou=$(cat /proc/sys/kernel/random/uuid)
	id=$(timeout 30 ceph "${c[@]}" osd new "$ou" 2>>"$D/log/start.log") ||
		fail_start "the mon does not answer ('ceph osd new' failed or took 30 s)"
	[[ "$id" =~ ^[0-9]+$ ]] || fail_start "'ceph osd new' printed '$id'"
	mkdir -p "$D/osd/ceph-$id"
	ceph-osd "${c[@]}" -i "$id" --mkfs --osd-uuid "$ou" >>"$D/log/start.log" 2>&1 ||
		fail_start "ceph-osd --mkfs"
	ceph-osd "${c[@]}" -i "$id" --pid-file "$rd/osd.pid" >>"$D/log/start.log" 2>&1 ||
		fail_start "ceph-osd did not start"
	timeout 60 radosgw "${c[@]}" -n client.rgw.gw --pid-file "$rd/rgw.pid" \
		>>"$D/log/start.log" 2>&1 || fail_start "radosgw did not start"

	for ((i = 0; i < TIMEOUT * 5; i++)); do
		answers && break
		[ -n "$(pid_of rgw radosgw || true)" ] || [ $i -lt 25 ] ||
			fail_start "radosgw exited"
		sleep 0.2
	done
	answers || fail_start "no answer on $ENDPOINT after $TIMEOUT s"

	timeout 60 radosgw-admin "${c[@]}" user create --uid tester --display-name tester \
		--access-key "$AK" --secret "$SK" >>"$D/log/start.log" 2>&1 ||
		fail_start "radosgw-admin user create failed"
	for ((i = 0; i < 50; i++)); do
		ours && break
		sleep 0.2
	done
	ours || fail_start "the gateway answers but refuses $AK/$SK"
	echo "rgw.sh: up at $ENDPOINT (guest: $GUEST_ENDPOINT) in $(awk -v a="$t0" -v b="$EPOCHREALTIME" \
		'BEGIN { printf "%.1f", b - a }') s; state $D, pids $(our_pids)"
}

# bucket_key s3://B/K -> "B/K"
s3path() {
	case "$1" in
	s3://?*/?*) echo "${1#s3://}" ;;
	*) die "expected s3://BUCKET/KEY, got '$1'" ;;
	esac
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
start)
	[ $# -eq 0 ] || usage
	do_start ;;
up)
	[ $# -eq 0 ] || usage
	ours && exit 0
	echo "rgw.sh: starting the S3 gateway (Ceph radosgw on $ENDPOINT)" >&2
	do_start >&2
	echo started ;;
stop)
	[ $# -eq 0 ] || usage
	do_stop ;;
status)
	[ $# -eq 0 ] || usage
	if ours; then
		pids=$(our_pids)
		echo "rgw.sh: up at $ENDPOINT${pids:+ (pids $pids)}"
		exit 0
	fi
	echo "rgw.sh: not answering at $ENDPOINT with our credentials"
	exit 1 ;;
env)
	[ $# -eq 0 ] || usage
	cat <<-EOF
	export HC_S3_ENDPOINT=$ENDPOINT
	export HC_S3_GUEST_ENDPOINT=$GUEST_ENDPOINT
	export AWS_ACCESS_KEY_ID=$AK
	export AWS_SECRET_ACCESS_KEY=$SK
	export AWS_DEFAULT_REGION=$REGION
	EOF
	;;
mb)
	[ $# -eq 1 ] || usage
	code=$(s3 PUT "/$1")
	[ "$code" = 200 ] || die "create bucket $1: HTTP $code" ;;
put)
	[ $# -eq 2 ] || usage
	[ -f "$1" ] || die "no file $1"
	p=$(s3path "$2")
	# a big file takes longer than a request's 10 s (1 GiB on a loaded host)
	code=$(S3_MAX_TIME=900 s3 PUT "/$p" -T "$1")
	[ "$code" = 200 ] || die "put $2: HTTP $code" ;;
get)
	[ $# -eq 2 ] || usage
	p=$(s3path "$1")
	code=$(S3_OUT=$2 S3_MAX_TIME=900 s3 GET "/$p")
	[ "$code" = 200 ] || { rm -f "$2"; die "get $1: HTTP $code"; } ;;
rm)
	[ $# -eq 1 ] || usage
	p=$(s3path "$1")
	code=$(s3 DELETE "/$p")
	[ "$code" = 204 ] || die "rm $1: HTTP $code" ;;
rb)
	[ $# -eq 1 ] || usage
	code=$(s3 DELETE "/$1")
	[ "$code" = 204 ] || die "remove bucket $1: HTTP $code" ;;
aws)
	AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK AWS_DEFAULT_REGION=$REGION \
		exec /usr/bin/aws --endpoint-url "$ENDPOINT" "$@" ;;
*) usage ;;
esac
