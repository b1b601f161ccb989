# r-systemd, third boot without the last member's image: the assembly unit
# waits, then fails, and its journal names the missing member; no
# /dev/hypercache0.  That nothing was written to the other members is
# checked by the host (their images' SHA-256 before and after this boot).
# Sourced by run-stage.sh.

t_missing_member_named() {
	# the unit gives up after its --timeout (90 s of the guest's clock)
	i=0
	while systemctl is-active -q hypercache-assemble.service ||
		[ "$(systemctl is-active hypercache-assemble.service)" = activating ]; do
		i=$((i + 1))
		[ $i -lt $((300 * HC_TIMEOUT_SCALE)) ] || hc_fail "the assembly unit is still waiting after ${i} s"
		sleep 1
	done
	st=$(systemctl is-active hypercache-assemble.service || true)
	echo "hypercache-assemble.service: $st"
	journalctl -b -u hypercache-assemble.service --no-pager | tail -n 20 | tee /tmp/assemble.log
	[ "$st" = failed ] || hc_fail "the assembly unit is $st, want failed"
	grep -Eq 'member [0-9]+ of 3 is missing' /tmp/assemble.log ||
		hc_fail "the journal does not name the missing member"
	[ ! -e /dev/hypercache0 ] || hc_fail "/dev/hypercache0 exists without all members"
}
hc_test missing-member-named t_missing_member_named
