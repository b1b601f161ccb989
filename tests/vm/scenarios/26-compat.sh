#!/bin/bash
# Format compatibility with the previous module build (stage-compat.sh;
# tests/vm/oldmod.sh builds it from git history, cached in build/oldmod/):
# its v1 pool assembled by this module and upgraded, a v2 pool refused by
# it and written to nowhere, and a real power cut (QEMU SIGKILLed) right
# after the upgrade's K-th write for K = 1 and 4 (1..4 with HC_VM_FULL=1:
# three superblocks, then the journal's compaction), the next boot
# assembling the same drives.  A clone without the commit (shallow) is a
# skip of compat-oldmod-build with the reason on its line (there is no old
# build to test against); a build that fails is a failure.
. "$HC_ROOT/tests/vm/kernel.sh"
hc_kernel_select
mkdir -p "$VM_WORK"
if old=$("$HC_ROOT/tests/vm/oldmod.sh" "$HC_KVER" 2>"$VM_WORK/oldmod.err"); then
	export HC_OLD_DIR=$old
	vm_images 3 64
	vm_boot compat --noload --args phase=both --timeout 600
	ks="1 4"
	[ "${HC_VM_FULL:-0}" = 1 ] && ks="1 2 3 4"
	for k in $ks; do
		vm_images 3 64
		log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-cut$k.log
		vm_boot compat --noload --args "phase=cut,k=$k" --log "$log" \
			--kill-on HC-UPGRADE-POWER-CUT
		if grep -aq "HC-UPGRADE-POWER-CUT k=$k" "$log" &&
			grep -q "SIGKILL on marker" "$log"; then
			vm_boot compat --noload --args "phase=after-cut,k=$k"
		else
			vm_record "not ok" compat-cut-$k "no power cut after the upgrade's write $k (see $log)"
		fi
	done
else
	st=$?
	sed 's/^/# /' "$VM_WORK/oldmod.err"
	if [ "$st" = 3 ]; then
		# no history to build from: said loudly, counted as skipped
		vm_record skip compat-oldmod-build "the previous module's commit is not in this clone (shallow): $(grep -m1 'CANNOT' "$VM_WORK/oldmod.err")"
	else
		vm_record "not ok" compat-oldmod-build "$(grep -m1 '\*\*\*\|did not build\|no kernel' "$VM_WORK/oldmod.err" || tail -n1 "$VM_WORK/oldmod.err")"
	fi
fi
