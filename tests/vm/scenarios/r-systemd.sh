#!/bin/bash
# make check-reliability: the product on a real host, as an operator
# installs it (issue 14's guest): a Debian 12 root image built from Debian's
# packages and this tree's .debs (tests/vm/debian-image.sh, mmdebstrap,
# cached under build/vm/debian/), booted with systemd and udev
# (boot.sh --debian; the stages are tests/vm/debian/stage-*.sh, run by
# the image's hc-guest-test.service).  Three boots of one copy of the root
# image with the same three NVMe member images, each on the run's kernel
# (KVER: 6.1, or 6.12 in check-reliability's second series; the image has
# both):
#   install  the DKMS module built for both kernels and loaded at boot, the
#            control device's group, `dkms remove` and `dkms install` in the
#            guest, a pool created, hypercached (posix backend) ingesting
#            an object;
#   reboot   the pool assembled by udev + hypercache-assemble.service with
#            no command, hypercached started after it and registered, the
#            object read by a member of the hypercache group and refused to
#            a user outside it, a broken configuration refused by
#            `systemctl reload` with the running one kept;
#   missing  without the last member: the unit fails naming the missing
#            member, and the other members' images are not written (their
#            SHA-256 before and after the boot, checked here).
# Needs make deb (run here when build/deb/ lacks the packages or they are
# older than the tree's last commit) and the image (about 10 minutes the
# first time, on 2 cores; reused while the packages are unchanged).
ok_pre=1
mkdir -p "$VM_WORK"
if ! ls "$HC_ROOT"/build/deb/hypercache_*.deb >/dev/null 2>&1 ||
	[ "$(stat -c %Y "$(ls "$HC_ROOT"/build/deb/hypercache_*.deb | head -n1)")" -lt \
	  "$(git -C "$HC_ROOT" log -1 --format=%ct)" ]; then
	make -s -C "$HC_ROOT" deb >"$VM_WORK/deb.log" 2>&1 ||
		{ vm_record "not ok" make-deb "make deb failed: $(tail -n 3 "$VM_WORK/deb.log" | tr '\n' ' ')"; ok_pre=0; }
fi
if [ $ok_pre = 1 ]; then
	if "$HC_ROOT/tests/vm/debian-image.sh" >"$VM_WORK/image.out" 2>&1; then
		vm_record ok image
	else
		vm_record "not ok" image "$(tail -n 3 "$VM_WORK/image.out" | tr '\n' ' ')"
		ok_pre=0
	fi
fi
if [ $ok_pre = 1 ]; then
	ddir=$("$HC_ROOT/tests/vm/debian-image.sh" --print-dir)
	root=$VM_WORK/root.img
	cp --sparse=always "$ddir/root.img" "$root"
	# the run's kernel boots (boot.sh --debian honours KVER); the DKMS
	# module of the other one is removed and installed again in the guest
	kvers=$("$HC_ROOT/scripts/kernels.sh")
	run=${KVER:-$(cat "$ddir/kver")}
	case $run in
	6.12.*) other=$(echo "$kvers" | grep '^6\.1\.' | head -n1 || true) ;;
	*) other=$(echo "$kvers" | grep '^6\.12\.' | head -n1 || true) ;;
	esac
	vm_images 3 1024
	if vm_boot install --debian "$root" --args "$other" --timeout 1500 &&
		vm_boot reboot --debian "$root" --timeout 900; then
		before=$(sha256sum "${VM_IMAGES[0]}" "${VM_IMAGES[1]}" | cut -d' ' -f1)
		vm_boot missing --debian "$root" --drives "${VM_IMAGES[0]},${VM_IMAGES[1]}" --timeout 900
		after=$(sha256sum "${VM_IMAGES[0]}" "${VM_IMAGES[1]}" | cut -d' ' -f1)
		if [ "$before" = "$after" ]; then
			vm_record ok missing-writes-nothing
		else
			vm_record "not ok" missing-writes-nothing "a member image changed during the boot without its peer"
		fi
	fi
	rm -f "$root" "${VM_IMAGES[@]}"
fi
