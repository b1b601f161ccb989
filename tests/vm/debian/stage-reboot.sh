# r-systemd, second boot (the same root and member images as stage-install
# left them): the units assembled the pool with no command, the daemon came
# up registered, a member of the hypercache group reads the object cached
# before the reboot and a user outside it cannot, and a broken
# configuration given to `systemctl reload` is refused with the running one
# kept.  Sourced by run-stage.sh.

t_assembled_at_boot() {
	systemctl status --no-pager hypercache-assemble.service || true
	systemctl is-active -q hypercache-assemble.service ||
		hc_fail "hypercache-assemble.service is $(systemctl is-active hypercache-assemble.service)"
	[ -b /dev/hypercache0 ] || hc_fail "no /dev/hypercache0 after the boot"
	hcctl status --json >/tmp/status.json
	cat /tmp/status.json
	python3 -c 'import json,sys; s=json.load(open("/tmp/status.json")); sys.exit(0 if len(s["pool"]["members"]) == 3 and s["helpers"]["ingest"] else 1)' ||
		hc_fail "the pool was not assembled with its 3 members"
	journalctl -b -u hypercache-assemble.service --no-pager | grep -i 'assembl' ||
		hc_fail "the assembly unit's journal says nothing of the assembly"
}
hc_test assembled-at-boot t_assembled_at_boot

t_daemon_after_reboot() {
	systemctl is-active -q hypercached.service ||
		hc_fail "hypercached is $(systemctl is-active hypercached.service)"
	# Not necessarily after the assembly: udev queues the assembly unit
	# when it sees a member, which may be after hypercached's start job
	# was taken (After= orders only jobs queued together).  The daemon
	# does not need the pool (its registration is the module's), so only
	# log the order.
	a=$(systemctl show -p ExecMainExitTimestampMonotonic --value hypercache-assemble.service)
	d=$(systemctl show -p ExecMainStartTimestampMonotonic --value hypercached.service)
	echo "assembled at $a us, daemon started at $d us"
	hcctl status | grep 'helpers: ingest registered' ||
		hc_fail "hypercached is not registered: $(hcctl status | grep helpers)"
}
hc_test daemon-after-reboot t_daemon_after_reboot

t_group_reads_cached() {
	hcctl ls | grep 'hypercache://models/model.bin' ||
		hc_fail "the object cached before the reboot is gone"
	# a hit, read by alice (group hypercache) without root
	runuser -u alice -- hcctl get hypercache://models/model.bin -o /tmp/alice.bin
	[ "$(sha256sum /tmp/alice.bin | cut -d' ' -f1)" = "$(cat /srv/model.sha256)" ] ||
		hc_fail "alice read other bytes than the backend's"
	# bob is not in the group: the control device refuses him
	if runuser -u bob -- hcctl get hypercache://models/model.bin -o /tmp/bob.bin 2>/tmp/bob.err; then
		hc_fail "bob (not in group hypercache) read the object"
	fi
	cat /tmp/bob.err
	grep -qi 'permission denied' /tmp/bob.err || hc_fail "bob's refusal does not say permission denied"
}
hc_test group-reads-cached t_group_reads_cached

t_reload_broken_config() {
	conf=/etc/hypercache/hypercache.conf
	cp "$conf" /tmp/conf.good
	pid=$(systemctl show -p MainPID --value hypercached.service)
	printf '[backend broken\ntype = nonsense\n' >>"$conf"
	since=$(date '+%Y-%m-%d %H:%M:%S')
	systemctl reload hypercached.service || true
	sleep 2
	cp /tmp/conf.good "$conf"
	journalctl -u hypercached --since "$since" --no-pager
	systemctl is-active -q hypercached.service || hc_fail "hypercached died on a broken reload"
	[ "$(systemctl show -p MainPID --value hypercached.service)" = "$pid" ] ||
		hc_fail "hypercached was restarted (pid $pid -> $(systemctl show -p MainPID --value hypercached.service))"
	journalctl -u hypercached --since "$since" --no-pager | grep -Ei 'refus|keep|error' ||
		hc_fail "the journal does not say the configuration was refused"
	# the running configuration still serves the posix backend: a new miss
	head -c 1048576 /dev/urandom >/srv/models/after-reload.bin
	hcctl get hypercache://models/after-reload.bin -o /tmp/after.bin
	cmp /srv/models/after-reload.bin /tmp/after.bin || hc_fail "ingest after the refused reload differs"
}
hc_test reload-broken-config t_reload_broken_config
