#!/bin/sh
# Usage (guest, via /init):
#   stage-crash.sh phase=1
#       create a pool and put objects crash/1, crash/2, ... (deterministic
#       contents, sizes from 1 byte to 3 chunks) one after the other in the
#       background; print "hc: committed N" when the put of object N
#       returned, and "HC-CRASH-NOW" after the 6th, while puts go on: the
#       host kills QEMU there (power loss)
#   stage-crash.sh phase=2 committed=K
#       assemble the same drives: objects 1..K are all back, byte-identical,
#       in their committed state; object K+1 is there complete or not at all
#       (its COMMIT may have returned before the line was printed); no
#       object beyond, and nothing staged
. /hc/tests/lib.sh

phase="" committed=0
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	committed=*) committed=${a#committed=} ;;
	*) echo "stage-crash: unknown argument $a" >&2; exit 2 ;;
	esac
done
M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

# size N: the size of object N (1 byte .. a bit over 3 chunks)
size() {
	case $(($1 % 5)) in
	0) echo 1 ;;
	1) echo 4194303 ;;
	2) echo 4194305 ;;
	3) echo 12595245 ;;
	4) echo 777777 ;;
	esac
}

# object N: clean (READY) when N is even, DIRTY when odd
put_one() {
	hc_pattern "$1" "$(size "$1")" >/tmp/p$1
	if [ $(($1 % 2)) -eq 0 ]; then clean=--clean; else clean=; fi
	hcctl put --no-progress $clean /tmp/p$1 crash/$1 >/dev/null
	rm -f /tmp/p$1
}

t_phase1() {
	hcctl pool create $M >/dev/null
	(
		n=1
		while [ $n -le 200 ]; do
			put_one $n || exit 1
			echo "hc: committed $n" >/dev/console
			[ $n -eq 6 ] && echo "HC-CRASH-NOW" >/dev/console
			n=$((n + 1))
		done
	) &
	wait
	hc_fail "the host did not kill the guest"
}

t_phase2() {
	[ "$committed" -ge 6 ] || hc_fail "phase 1 committed only $committed objects"
	hcctl pool assemble $M >/dev/null
	hcctl ls
	hcctl stats --json | grep -q '"staged":0' || hc_fail "a staged object survived"
	n=1
	while [ $n -le $((committed + 1)) ]; do
		if hcctl get --no-ingest --no-progress -o /tmp/got crash/$n 2>/tmp/err; then
			hc_pattern $n "$(size $n)" | cmp -s - /tmp/got ||
				hc_fail "crash/$n is back with other contents"
			want=dirty
			[ $((n % 2)) -eq 0 ] && want=ready
			hcctl locate --json crash/$n | grep -q "\"state\":\"$want\"" ||
				hc_fail "crash/$n is back in the wrong state"
		elif [ $n -le "$committed" ]; then
			cat /tmp/err
			hc_fail "crash/$n was committed but is lost"
		fi
		n=$((n + 1))
	done
	extra=$(hcctl ls --json | tr '{' '\n' | sed -n 's/.*"uri":"crash\/\([0-9]*\)".*/\1/p' |
		awk -v k="$committed" '$1 > k + 1')
	[ -z "$extra" ] || hc_fail "objects never committed are back: $extra"
	hcctl pool stop
}

case "$phase" in
1) hc_test crash-put-stream t_phase1 ;;
2) hc_test crash-recover t_phase2 ;;
*) echo "stage-crash: phase=1 or phase=2" >&2; exit 2 ;;
esac
