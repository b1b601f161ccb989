# r-systemd, first boot of a fresh image: what the packages installed and
# what systemd and udev made of it, then a pool and a cached object for the
# next boot.  Sourced by run-stage.sh (lib.sh's hc_test; hc_drive N is the
# by-id path of QEMU drive hcN).  $1: the other supported kernel's release
# (6.12 when 6.1 runs, 6.1 when 6.12 runs), whose DKMS module is removed
# and installed again in the guest ("" to skip).
OTHER=${1:-}

t_boot_units() {
	# the boot's jobs are done (run-stage.sh waited); no unit failed
	systemctl list-jobs --no-legend
	failed=$(systemctl --failed --no-legend --plain | awk '{ print $1 }')
	[ -z "$failed" ] || { systemctl status --no-pager $failed || true; hc_fail "failed units: $failed"; }
	for u in systemd-udevd.service systemd-modules-load.service; do
		systemctl is-active -q "$u" || hc_fail "$u is not active"
	done
	# no pool yet: the assembly unit was not wanted (no member appeared)
	! systemctl is-failed -q hypercache-assemble.service ||
		hc_fail "hypercache-assemble.service failed without a member"
}
hc_test boot-units t_boot_units

t_dkms_both_kernels() {
	dkms status hypercache
	for k in $(uname -r) $OTHER; do
		dkms status -m hypercache -k "$k" | grep -q ': installed' ||
			hc_fail "dkms: hypercache not installed for $k"
	done
	modinfo -n hypercache | grep -q "/lib/modules/$(uname -r)/updates/dkms/" ||
		hc_fail "modinfo: $(modinfo -n hypercache) is not the DKMS build"
}
hc_test dkms-both-kernels t_dkms_both_kernels

t_module_at_boot() {
	# modules-load.d/hypercache.conf: loaded at boot, by nobody's command
	grep -q '^hypercache ' /proc/modules || hc_fail "hypercache.ko is not loaded"
	journalctl -b -u systemd-modules-load.service --no-pager | grep -i hypercache || true
	# the control device: group hypercache, 0660 (60-hypercache.rules)
	[ "$(stat -c '%G %a' /dev/hypercache-ctl)" = "hypercache 660" ] ||
		hc_fail "/dev/hypercache-ctl is $(stat -c '%G %a' /dev/hypercache-ctl), want hypercache 660"
	getent group hypercache | grep -q alice || hc_fail "alice is not in group hypercache"
}
hc_test module-at-boot t_module_at_boot

t_dkms_remove_install() {
	[ -n "$OTHER" ] || hc_skip "no other kernel"
	v=$(dkms status hypercache | sed -n 's|^hypercache/\([^,]*\),.*|\1|p' | head -n1)
	dkms remove -m hypercache -v "$v" -k "$OTHER"
	! dkms status -m hypercache -k "$OTHER" | grep -q ': installed' ||
		hc_fail "still installed for $OTHER after dkms remove"
	[ ! -e "/lib/modules/$OTHER/updates/dkms/hypercache.ko" ] &&
		[ ! -e "/lib/modules/$OTHER/updates/dkms/hypercache.ko.xz" ] ||
		hc_fail "the module file for $OTHER is still there"
	# the running kernel's module is untouched
	grep -q '^hypercache ' /proc/modules || hc_fail "remove for $OTHER unloaded the module"
	t0=$(cut -d. -f1 /proc/uptime)
	dkms install -m hypercache -v "$v" -k "$OTHER"
	echo "dkms install -k $OTHER: $(( $(cut -d. -f1 /proc/uptime) - t0 )) s (TCG)"
	dkms status -m hypercache -k "$OTHER" | grep -q ': installed' ||
		hc_fail "not installed for $OTHER after dkms install"
}
hc_test dkms-remove-install t_dkms_remove_install

t_pool_create() {
	for i in 0 1 2; do [ -b "$(hc_drive $i)" ] || hc_fail "no $(hc_drive $i)"; done
	hcctl pool create "$(hc_drive 0)" "$(hc_drive 1)" "$(hc_drive 2)"
	hcctl status
	[ -b /dev/hypercache0 ] || hc_fail "no /dev/hypercache0"
	[ "$(stat -c '%G %a' /dev/hypercache0)" = "hypercache 640" ] ||
		hc_fail "/dev/hypercache0 is $(stat -c '%G %a' /dev/hypercache0), want hypercache 640"
}
hc_test pool-create t_pool_create

t_daemon_posix() {
	mkdir -p /srv/models
	head -c 8388608 /dev/urandom >/srv/models/model.bin
	sha256sum /srv/models/model.bin | cut -d' ' -f1 >/srv/model.sha256
	cat >/etc/hypercache/hypercache.conf <<CONF
[hypercached]
log_level = info
metrics_listen = 127.0.0.1:9110

[backend models]
type = posix
root = /srv/models
CONF
	chmod 0640 /etc/hypercache/hypercache.conf
	systemctl restart hypercached.service
	systemctl is-active -q hypercached.service || {
		journalctl -b -u hypercached --no-pager | tail -n 20
		hc_fail "hypercached is not active"
	}
	hcctl status | grep 'helpers: ingest registered' ||
		hc_fail "hypercached is not registered: $(hcctl status | grep helpers)"
	# a miss: the daemon ingests it from the posix tree
	hcctl get hypercache://models/model.bin -o /tmp/model.bin
	[ "$(sha256sum /tmp/model.bin | cut -d' ' -f1)" = "$(cat /srv/model.sha256)" ] ||
		hc_fail "the cached model differs from the backend's"
	hcctl ls | grep 'hypercache://models/model.bin'
	systemctl is-enabled hypercached.service
}
hc_test daemon-posix t_daemon_posix
