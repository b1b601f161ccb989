#!/bin/sh
# Usage (guest, via /init):
#   stage-fswrite.sh phase=main bucket=B   (3 drives of 512 MiB, boot.sh
#                                          --s3 --hostfs; scenario 57-fs-s3)
#   fsw-dd       a 100 MiB file (300 MiB with HC_FULL=1: make
#                check-reliability) of unknown size written through the view by
#                dd from a pipe (64 KiB writes), closed: DIRTY, its size,
#                SHA-256-equal read back through the view
#   fsw-python   the same size written by the host's Python (open/write of
#                varying sizes, close) in the chroot of boot.sh --hostfs
#   fsw-generation  a DIRTY file written over while a reader holds it: the
#                reader reads the old bytes to the end, a new open the new
#                ones (no daemon yet: nothing is written back before)
#   fsw-upload   hypercached started: the three are written back to the S3
#                gateway (multipart for the two big ones), READY, each
#                uploaded once (the superseded generation never), and the
#                gateway's copies are SHA-256-equal to what was written
#   stage-fswrite.sh phase=crash1          (3 drives of 256 MiB; 56-fs-crash)
#       a pool, objects written through the view and closed (a: cat, b: dd
#       conv=fsync), "hc: fs closed a|b" after each close returned; then c
#       is written 12 MiB + 5 bytes deep and kept open, and "HC-CRASH-NOW"
#       on the console: the host kills QEMU with c half-written
#   stage-fswrite.sh phase=crash2
#   fsw-crash    the same drives assembled and mounted: a and b are back,
#                DIRTY, byte-identical; c is not an object, not shown, not
#                listed; nothing staged; the pool holds exactly the chunks of
#                seed, a and b; the kernel's consistency check passes; c
#                written again through the view is stored whole
. /hc/tests/lib.sh

phase="" BUCKET=""
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	bucket=*) BUCKET=${a#bucket=} ;;
	*) echo "stage-fswrite: unknown argument $a" >&2; exit 2 ;;
	esac
done
[ -n "$BUCKET" ] || BUCKET=hcfw-$(cut -c1-8 /proc/sys/kernel/random/uuid)
B=$BUCKET
. /hc/tests/s3lib.sh
BUCKET=$B

MiB=1048576
CHUNK=$((4 * MiB))
# the kernel's consistency check (fsck, check_superseded)
[ -d /sys/kernel/debug/hypercache ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
BIG=$((100 * MiB))
[ "$HC_FULL" = 1 ] && BIG=$((300 * MiB))
MNT=/mnt/hc

jnum() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# objstate URI: the object's state (staged, dirty, ready, ...) or "miss";
# its LOCATE answer is left in /tmp/loc.json
objstate() {
	hcctl locate --json "$1" >/tmp/loc.json 2>/dev/null
	st=$(sed -n 's/.*"state": *"\([a-z]*\)".*/\1/p' /tmp/loc.json)
	[ -n "$st" ] && echo "$st" || sed -n 's/.*"status": *"\([a-z_]*\)".*/\1/p' /tmp/loc.json
}

# wait_ready URI SECONDS: until the object is READY (written back)
wait_ready() {
	i=0
	while [ "$(objstate "$1")" != ready ]; do
		i=$((i + 1))
		[ $i -lt $(($2 * 10 * HC_TIMEOUT_SCALE)) ] ||
			{ tail -n 30 /tmp/hcd.out; hc_fail "$1: not clean after $2 s ($(objstate "$1"))"; }
		sleep 0.1
	done
}

# stored URI SIZE: the object is DIRTY (stored, not yet written back) and
# SIZE bytes
stored() {
	[ "$(objstate "$1")" = dirty ] || hc_fail "$1 is $(objstate "$1"), not dirty"
	[ "$(jnum size </tmp/loc.json)" = "$2" ] || hc_fail "$1: size $(jnum size </tmp/loc.json), not $2"
}

# patsha SEED SIZE: the SHA-256 of hc_pattern SEED SIZE
patsha() {
	hc_pattern "$1" "$2" | sha256sum | cut -d' ' -f1
}

chunks_used() {
	hcctl stats --json >/tmp/st.json
	echo $(( $(jnum bytes_used </tmp/st.json) / CHUNK ))
}

fsck() {
	c=/sys/kernel/debug/hypercache/check
	[ -r $c ] || return 0
	grep -q '^ok ' $c || { cat $c; hc_fail "the cache is inconsistent"; }
}

t_setup() {
	hcctl pool create $M >/dev/null
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET at $EP"
	# the directory s3/BUCKET/ckpt exists while an object lies under it
	echo seed >/tmp/seed
	hcctl put --clean --no-progress /tmp/seed "s3://$BUCKET/ckpt/seed" >/dev/null || hc_fail "put seed"
	mkdir -p $MNT
	mount -t hypercache hypercache $MNT || hc_fail "mount"
}

t_dd() {
	f=$MNT/s3/$BUCKET/ckpt/dd
	read -r t0 _ </proc/uptime
	hc_pattern 300 $BIG | dd of=$f bs=1M 2>/tmp/dd.err || { cat /tmp/dd.err; hc_fail "dd"; }
	read -r t1 _ </proc/uptime
	hc_log "dd of $((BIG / MiB)) MiB through the view: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	stored "s3://$BUCKET/ckpt/dd" $BIG
	[ "$(stat -c %s $f)" = $BIG ] || hc_fail "$f: size $(stat -c %s $f)"
	[ "$(sha256sum $f | cut -d' ' -f1)" = "$(patsha 300 $BIG)" ] || hc_fail "$f reads back other bytes"
}

# The host's Python writes in the chroot: the view bound into it at
# /tmp/hcv (the chroot's /tmp is the guest's /tmp, hc_host_run's bind).
t_python() {
	hc_host_run true || hc_fail "no host root (boot.sh --hostfs)"
	mkdir -p /tmp/hcv
	mount --bind $MNT /host/tmp/hcv || hc_fail "bind the view into the chroot"
	# writes of 1 B to 3 MiB + 7, as a streaming serialiser makes them; it
	# prints the bytes written and their SHA-256
	hc_host_run /usr/bin/python3 -c '
import hashlib, sys
path, total = sys.argv[1], int(sys.argv[2])
sizes = [1, 4095, 65536, 1048576 + 7, 3 * 1048576 + 7, 333]
h, left, i = hashlib.sha256(), total, 0
with open(path, "wb") as f:
    while left:
        n = min(sizes[i % len(sizes)], left)
        b = (hashlib.sha256(b"%d" % i).digest() * (n // 32 + 1))[:n]
        f.write(b)
        h.update(b)
        left -= n
        i += 1
print(total, h.hexdigest())
' /tmp/hcv/s3/$BUCKET/ckpt/py $BIG >/tmp/py.out 2>&1 || { cat /tmp/py.out; hc_fail "python"; }
	umount /host/tmp/hcv
	cat /tmp/py.out
	read -r n want </tmp/py.out
	[ "$n" = $BIG ] || hc_fail "python wrote $n bytes"
	stored "s3://$BUCKET/ckpt/py" $BIG
	[ "$(sha256sum $MNT/s3/$BUCKET/ckpt/py | cut -d' ' -f1)" = "$want" ] ||
		hc_fail "the Python file reads back other bytes"
}

G1=$((5 * MiB + 1)) G2=$((3 * MiB + 7))

t_generation() {
	f=$MNT/s3/$BUCKET/ckpt/gen
	hc_pattern 11 $G1 >$f || hc_fail "write gen 1"
	stored "s3://$BUCKET/ckpt/gen" $G1
	exec 4<$f
	hc_pattern 12 $G2 >$f || hc_fail "write gen 2 over gen 1"
	stored "s3://$BUCKET/ckpt/gen" $G2
	[ "$(sha256sum $f | cut -d' ' -f1)" = "$(patsha 12 $G2)" ] || hc_fail "a new open: not gen 2"
	[ "$(sha256sum <&4 | cut -d' ' -f1)" = "$(patsha 11 $G1)" ] || hc_fail "the reader: not gen 1"
	exec 4<&-
}

# s3sha KEY: the SHA-256 of the gateway's copy of BUCKET/KEY
s3sha() {
	s3curl --max-time 600 "$EP/$BUCKET/$1" | sha256sum | cut -d' ' -f1
}

t_upload() {
	write_conf part_size=8M timeout_request=60
	: >/tmp/hcd.out
	start_daemon
	for k in dd py; do
		wait_ready "s3://$BUCKET/ckpt/$k" 600
		[ "$(grep -c "s3://$BUCKET/ckpt/$k: uploaded $BIG bytes" /tmp/hcd.out)" = 1 ] ||
			{ grep "ckpt/$k" /tmp/hcd.out | tail -n 5; hc_fail "$k: not uploaded once"; }
		grep -q "s3://$BUCKET/ckpt/$k: multipart upload" /tmp/hcd.out ||
			hc_fail "$k: not a multipart upload"
	done
	[ "$(s3sha ckpt/dd)" = "$(patsha 300 $BIG)" ] || hc_fail "the gateway's ckpt/dd differs"
	# the superseded generation is never written back, the new one once
	wait_ready "s3://$BUCKET/ckpt/gen" 120
	grep "ckpt/gen: uploaded" /tmp/hcd.out
	[ "$(grep -c "s3://$BUCKET/ckpt/gen: uploaded" /tmp/hcd.out)" = 1 ] ||
		hc_fail "gen: not uploaded once"
	grep -q "s3://$BUCKET/ckpt/gen: uploaded $G2 bytes" /tmp/hcd.out || hc_fail "gen: not the new generation uploaded"
	[ "$(s3sha ckpt/gen)" = "$(patsha 12 $G2)" ] || hc_fail "the gateway's ckpt/gen differs"
	[ "$(s3sha ckpt/py)" = "$(cut -d' ' -f2 /tmp/py.out)" ] || hc_fail "the gateway's ckpt/py differs"
	grep -q "ckpt/seed: uploaded" /tmp/hcd.out && hc_fail "the clean seed was uploaded"
	stop_daemon
	# the gateway is shared and holds its data in RAM
	for k in dd py gen; do
		s3curl -X DELETE "$EP/$BUCKET/ckpt/$k" >/dev/null || true
	done
	fsck
}

A=$((5 * CHUNK + 77))
Bsz=$((2 * CHUNK + 4321))
C=$((12 * MiB + 5))

t_crash1() {
	hcctl pool create $M >/dev/null
	echo seed >/tmp/seed
	hcctl put --clean --no-progress /tmp/seed s3://fsc/seed >/dev/null || hc_fail "put seed"
	mkdir -p $MNT
	mount -t hypercache hypercache $MNT || hc_fail "mount"
	hc_pattern 1 $A >$MNT/s3/fsc/a || hc_fail "write a"
	echo "hc: fs closed a" >/dev/console
	hc_pattern 2 $Bsz | dd of=$MNT/s3/fsc/b bs=65536 conv=fsync 2>/dev/null || hc_fail "write b"
	echo "hc: fs closed b" >/dev/console
	# c: 12 MiB + 5 bytes written (three chunks on the members, 5 bytes in
	# the buffer), then the writer keeps it open
	used=$(chunks_used)
	{ hc_pattern 3 $C; sleep 600; } | dd of=$MNT/s3/fsc/c bs=65536 2>/dev/null &
	i=0
	until [ "$(objstate s3://fsc/c)" = staged ] && [ "$(chunks_used)" -ge $((used + 4)) ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || hc_fail "c did not grow to 4 chunks ($(chunks_used) used, was $used)"
		sleep 0.1
	done
	[ -e $MNT/s3/fsc/c ] && hc_fail "c shown before its close"
	echo "HC-CRASH-NOW" >/dev/console
	sleep 600
	hc_fail "the host did not kill the guest"
}

t_crash2() {
	hcctl pool assemble $M >/dev/null || hc_fail "assemble"
	hcctl ls
	hcctl stats --json | grep -q '"staged":0' || hc_fail "a staged object survived"
	mkdir -p $MNT
	mount -t hypercache hypercache $MNT || hc_fail "mount"
	stored s3://fsc/a $A
	stored s3://fsc/b $Bsz
	[ "$(sha256sum $MNT/s3/fsc/a | cut -d' ' -f1)" = "$(patsha 1 $A)" ] || hc_fail "a is back with other bytes"
	[ "$(sha256sum $MNT/s3/fsc/b | cut -d' ' -f1)" = "$(patsha 2 $Bsz)" ] || hc_fail "b is back with other bytes"
	[ "$(objstate s3://fsc/c)" = miss ] || hc_fail "the half-written c is $(objstate s3://fsc/c)"
	[ -e $MNT/s3/fsc/c ] && hc_fail "the half-written c is shown"
	[ "$(ls $MNT/s3/fsc | tr '\n' ' ')" = "a b seed " ] || hc_fail "listed: $(ls $MNT/s3/fsc)"
	# seed 1 chunk, a 6, b 3: c's chunks went back with its stage
	[ "$(chunks_used)" = 10 ] || hc_fail "$(chunks_used) chunks used, not 10"
	fsck
	hc_pattern 3 $C | dd of=$MNT/s3/fsc/c bs=65536 2>/dev/null || hc_fail "write c again"
	stored s3://fsc/c $C
	[ "$(sha256sum $MNT/s3/fsc/c | cut -d' ' -f1)" = "$(patsha 3 $C)" ] || hc_fail "c written again differs"
	fsck
	umount $MNT
}

case $phase in
main)
	hc_test fsw-setup t_setup
	hc_test fsw-dd t_dd
	hc_test fsw-python t_python
	hc_test fsw-generation t_generation
	hc_test fsw-upload t_upload
	umount $MNT 2>/dev/null || true
	;;
crash1) hc_test fsw-crash-write t_crash1 ;;
crash2) hc_test fsw-crash t_crash2 ;;
*) echo "stage-fswrite: phase=main|crash1|crash2" >&2; exit 2 ;;
esac
