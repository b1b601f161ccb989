#!/bin/sh
# Usage (in a guest stage script, busybox sh):
#   . /hc/tests/lib.sh
#   t_foo() { dd if=/dev/zero of=/dev/hc/drive0 bs=4k count=1; hc_log done; }
#   hc_test foo t_foo [ARGS...]
#
# hc_test NAME FUNC [ARGS...]
#     Runs FUNC in a subshell with `set -e` (so call hc_test at top level, not
#     inside `if`/`||`, where sh disables -e), captures its output and prints
#     "HCTEST ok NAME", or the last 20 output lines prefixed "# " followed by
#     "HCTEST not ok NAME: <last 3 lines joined by ' | '>". NAME is a slug
#     without spaces. Results are counted in /run/hc/{pass,fail,skip}.
#     With HC_VERBOSE=1 (boot.sh --verbose) passing tests show their output.
# hc_fail MSG          abort the current test as failed
# hc_skip MSG          abort the current test as skipped ("HCTEST ok NAME # SKIP MSG")
# hc_expect_errno [-m REGEX] CMD...
#                      CMD must fail (and, with -m, its output must match REGEX)
# hc_log MSG           print "hc: MSG" (also into dmesg, for correlation)
# hc_drive N           path of the namespace of QEMU drive N (serial hcN)
# hc_stop PID NAME [SECS]
#                      SIGTERM, wait <= SECS (60) for PID to exit, else show
#                      its threads' wait channels, SIGKILL it and fail
# hc_dmesg_bad [FROM] print the kernel log's reports that fail a boot (RCU
#                      stalls, lockups, WARNINGs...: HC_DMESG_BAD) from line
#                      FROM on; status 0 if there is one
# hc_record_pass NAME / hc_record_fail NAME MSG
#                      count a result directly (used by /init)
# hc_s3_curl /BUCKET/KEY [CURL-ARGS...]
#                      a SigV4-signed request to $HC_S3_ENDPOINT/BUCKET/KEY (curl 7.88
#                      needs the x-amz-content-sha256 header spelled out)
#
# With boot.sh --s3 (kernel argument hc.s3=URL) it exports the S3 endpoint
# and the gateway's fixed test credentials (scripts/rgw.sh):
#   HC_S3_ENDPOINT=URL (http://10.0.2.2:7480)  AWS_ACCESS_KEY_ID=RGWAK
#   AWS_SECRET_ACCESS_KEY=RGWSECRET  AWS_DEFAULT_REGION=us-east-1

HC_RUN=${HC_RUN:-/run/hc}
mkdir -p "$HC_RUN"

# The kernel reports that fail a boot (/init's dmesg scan; hc_dmesg_bad):
# warnings, BUGs (a soft lockup is "BUG: soft lockup"), oopses, list and
# refcount corruption, sanitizers, leaks, RCU stalls ("rcu: INFO: rcu_preempt
# self-detected stall on CPU", "... detected stalls on CPUs/tasks", "...
# detected expedited stalls", "rcu_preempt kthread starved") and hung tasks
# ("INFO: task X blocked for more than N seconds", "hung_task_timeout_secs").
HC_DMESG_BAD='WARNING:|BUG:|Oops|general protection|list_del corruption|refcount_t|hung_task|blocked for more than|rcu.*stall|rcu.*kthread starved|soft lockup|kernel BUG|UBSAN|KASAN|unreferenced object'

# hc_dmesg_bad [FROM]: print the kernel log's lines from line FROM (default
# 1) on that match HC_DMESG_BAD; status 0 if there is one
hc_dmesg_bad() {
	dmesg | tail -n +"${1:-1}" | grep -E "$HC_DMESG_BAD"
}

# HC_FULL=1 when the host ran with HC_VM_FULL=1 (kernel argument hc.full=1,
# make check-reliability): stages use their full sizes; 0 in make check
HC_FULL=0
# HC_TIMEOUT_SCALE: the host's (kernel argument hc.timeout_scale=N, set by
# boot.sh), 1 by default: multiply a stage's own time budgets by it
HC_TIMEOUT_SCALE=1
for _hc_w in $(cat /proc/cmdline); do
	case "$_hc_w" in
	hc.full=1) HC_FULL=1 ;;
	hc.timeout_scale=[1-9]*) HC_TIMEOUT_SCALE=${_hc_w#hc.timeout_scale=} ;;
	hc.s3=*)
		HC_S3_ENDPOINT=${_hc_w#hc.s3=}
		AWS_ACCESS_KEY_ID=RGWAK
		AWS_SECRET_ACCESS_KEY=RGWSECRET
		AWS_DEFAULT_REGION=us-east-1
		export HC_S3_ENDPOINT AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_DEFAULT_REGION
		;;
	esac
done

hc_s3_curl() {
	_hc_p=$1
	shift
	[ -n "${HC_S3_ENDPOINT:-}" ] || hc_fail "no S3 endpoint (boot with --s3)"
	curl -sS --max-time 60 --aws-sigv4 "aws:amz:$AWS_DEFAULT_REGION:s3" \
		--user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@" "$HC_S3_ENDPOINT$_hc_p"
}

hc_log() {
	echo "hc: $*"
	echo "hc: $*" >/dev/kmsg 2>/dev/null || true
}

# hc_stat_field NAME: the number NAME of an `hcctl stats --json` on stdin
hc_stat_field() {
	sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p"
}

# hc_stat KEY: one counter of `hcctl stats --json` (journal_flushes, ...)
hc_stat() {
	hcctl stats --json | hc_stat_field "$1"
}

hc_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# hc_wait_clean SECONDS [LOG]: until no object is DIRTY or SYNCING; on a
# timeout print hcctl ls (and LOG's last lines) and fail.  Both counts come
# from one stats snapshot: read apart, an upload failing between the two
# reads (SYNCING, then DIRTY again) would look clean.
hc_wait_clean() {
	_hc_i=0
	while :; do
		hcctl stats --json >/tmp/hc_wait_clean.json
		_hc_d=$(hc_stat_field dirty </tmp/hc_wait_clean.json)
		_hc_s=$(hc_stat_field syncing </tmp/hc_wait_clean.json)
		[ "$_hc_d" = 0 ] && [ "$_hc_s" = 0 ] && return 0
		_hc_i=$((_hc_i + 1))
		if [ $_hc_i -ge $(($1 * 10)) ]; then
			hcctl ls
			[ -z "${2:-}" ] || tail -n 20 "$2"
			hc_fail "still $_hc_d dirty, $_hc_s syncing after $1 s"
		fi
		sleep 0.1
	done
}

# hc_check_cache [WHEN]: the kernel's consistency verdict on the running
# pool's cache (debugfs "check": the index, allocator, fence, queues, and
# each object's struct hc_obj_transit exactly while it is busy) is "ok";
# WHEN names the moment in the failure
hc_check_cache() {
	[ -d /sys/kernel/debug/hypercache ] ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -r /sys/kernel/debug/hypercache/check ] || hc_fail "no debugfs check"
	_hc_v=$(cat /sys/kernel/debug/hypercache/check)
	case "$_hc_v" in
	ok*) ;;
	*) hc_fail "cache inconsistent${1:+ $1}: $_hc_v" ;;
	esac
}

hc_skip() {
	echo "$*" >"$HC_RUN/skip-reason"
	exit 77
}

hc_expect_errno() {
	_hc_re=
	if [ "$1" = -m ]; then
		_hc_re=$2
		shift 2
	fi
	if _hc_out=$("$@" 2>&1); then
		echo "$_hc_out" >&2
		hc_fail "expected failure, but succeeded: $*"
	fi
	if [ -n "$_hc_re" ] && ! echo "$_hc_out" | grep -Eq "$_hc_re"; then
		echo "$_hc_out" >&2
		hc_fail "failed as expected, but output does not match /$_hc_re/: $*"
	fi
	return 0
}

hc_drive() {
	echo "/dev/hc/drive$1"
}

# hc_sysblock DEV: the /sys/block directory of block device DEV (a node or
# a link to one, as hc_drive's)
hc_sysblock() {
	echo "/sys/block/$(basename "$(readlink -f "$1")")"
}

hc_record_pass() {
	echo "$1" >>"$HC_RUN/pass"
	echo "HCTEST ok $1"
}

hc_record_fail() {
	echo "$1" >>"$HC_RUN/fail"
	echo "HCTEST not ok $1: $2" | tr '\n' ' ' | sed 's/ *$//'
	echo
}

hc_test() {
	_hc_name=$1
	shift
	_hc_log=$HC_RUN/log.$_hc_name
	rm -f "$HC_RUN/skip-reason"
	read -r _hc_t0 _hc_rest </proc/uptime
	(set -e; "$@") >"$_hc_log" 2>&1 </dev/null
	_hc_rc=$?
	read -r _hc_t1 _hc_rest </proc/uptime
	# the test's guest time, for the host's test-times (tests/vm/README.md)
	echo "HCTIME $_hc_name $(awk -v a="$_hc_t0" -v b="$_hc_t1" 'BEGIN { printf "%.1f", b - a }')"
	if [ $_hc_rc -eq 0 ]; then
		[ "${HC_VERBOSE:-0}" = 1 ] && sed 's/^/# /' "$_hc_log"
		hc_record_pass "$_hc_name"
	elif [ $_hc_rc -eq 77 ]; then
		echo "$_hc_name" >>"$HC_RUN/skip"
		echo "HCTEST ok $_hc_name # SKIP $(cat "$HC_RUN/skip-reason" 2>/dev/null)"
	else
		tail -n 20 "$_hc_log" | sed 's/^/# /'
		_hc_msg=$(tail -n 3 "$_hc_log" | tr '\n' '|' | sed 's/|$//; s/|/ | /g')
		hc_record_fail "$_hc_name" "${_hc_msg:-exit status $_hc_rc}"
	fi
	return 0
}

# hc_stage_hold URI SIZE: stage an object of SIZE bytes in the background
# (the write fence then admits writes to its chunks) and wait until it is
# staged; its extents are in /tmp/stage.out.  hc_stage_release [--commit|
# --clean] ends it (ABORT by default, or commit it).
hc_stage_hold() {
	rm -f /tmp/stage.out
	hc_stage "$@" >/tmp/stage.out 2>&1 &
	echo $! >/tmp/stage.pid
	_hc_i=0
	while ! grep -q '^ready$' /tmp/stage.out 2>/dev/null; do
		kill -0 "$(cat /tmp/stage.pid)" 2>/dev/null ||
			{ cat /tmp/stage.out; hc_fail "hc_stage $* failed"; }
		_hc_i=$((_hc_i + 1))
		[ $_hc_i -lt 100 ] || hc_fail "hc_stage $* did not get ready"
		sleep 0.1
	done
}

# hc_stop PID NAME [SECS]: SIGTERM to PID and wait until it has gone
# (<= SECS, default 60 s); if it has not, its threads' kernel wait channels
# and the last lines of LOG (HC_STOP_LOG, default /tmp/hcd.out) go to the
# test's log, it is killed with SIGKILL, and the test fails naming it: a
# daemon that ignores SIGTERM must not hang the boot until its timeout.
hc_stop() {
	kill -TERM "$1" 2>/dev/null || return 0
	_hc_i=0
	while kill -0 "$1" 2>/dev/null; do
		_hc_i=$((_hc_i + 1))
		if [ $_hc_i -ge $((${3:-60} * 10)) ]; then
			for _hc_t in /proc/"$1"/task/*; do
				echo "$2 thread ${_hc_t##*/}: $(cat "$_hc_t/comm" 2>/dev/null) in $(cat "$_hc_t/wchan" 2>/dev/null)"
			done
			tail -n 30 "${HC_STOP_LOG:-/tmp/hcd.out}" 2>/dev/null
			kill -KILL "$1" 2>/dev/null
			hc_fail "$2 (pid $1) did not exit within ${3:-60} s of SIGTERM"
		fi
		sleep 0.1
	done
}

# hc_pool_all_v2 MEMBER...: the running pool is format v2, each member's
# superblock has the v2 bit and its current journal half is v2 (the pool
# is stopped to look, then assembled again from MEMBER...)
hc_pool_all_v2() {
	_hc_f=$(hcctl status --json | grep -o '"format_version":[0-9]*' | cut -d: -f2)
	[ "$_hc_f" = 2 ] || hc_fail "the pool is format '$_hc_f', not 2"
	hcctl pool stop
	for _hc_d in "$@"; do
		hc_sbpoke $_hc_d show | grep -q "incompat=0x1$" ||
			hc_fail "$_hc_d: superblock $(hc_sbpoke $_hc_d show)"
		hcctl examine --json $_hc_d | tr '{' '\n' | grep '"state":"current"' |
			grep -q '"version":2' || hc_fail "$_hc_d: journal not v2: $(hcctl examine --json $_hc_d)"
	done
	hcctl pool assemble "$@" >/dev/null
}

hc_stage_release() {
	_hc_pid=$(cat /tmp/stage.pid)
	kill -TERM "$_hc_pid"
	wait "$_hc_pid" 2>/dev/null || true
	while kill -0 "$_hc_pid" 2>/dev/null; do sleep 0.1; done
	rm -f /tmp/stage.pid
}

# hc_host_run CMD...: run CMD chrooted in the host's root (boot.sh --hostfs,
# read-only at /host), with the guest's /dev (a tmpfs on /dev/shm), /proc,
# /sys and /tmp, and
# $HC_HOST_TREE (the checkout's path on the host, from hc.tree=) as the
# working directory: the host's /usr/bin/python3 and Debian packages run
# against the guest's kernel.  The bind mounts are made once.
hc_host_run() {
	[ -d /host/usr ] || { echo "hc_host_run: no /host (boot.sh --hostfs)" >&2; return 1; }
	if [ ! -e /run/hc/hostbound ]; then
		# POSIX semaphores and shared memory (multiprocessing) need it
		mkdir -p /dev/shm
		# (busybox has no mountpoint(1))
		grep -q '^[^ ]* /dev/shm ' /proc/mounts ||
			mount -t tmpfs -o mode=1777 shm /dev/shm || return 1
		for d in dev proc sys tmp; do
			mount --bind "/$d" "/host/$d" || return 1
		done
		: >/run/hc/hostbound
	fi
	chroot /host /bin/sh -c 'cd "$0" && exec "$@"' "${HC_HOST_TREE:-/}" "$@"
}
