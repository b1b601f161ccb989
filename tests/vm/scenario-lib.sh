#!/bin/bash
# Usage (sourced by tests/vm/run.sh before each tests/vm/scenarios/NN-name.sh):
#   vm_images COUNT SIZE_MB      fresh raw images (rm + truncate) in this
#                                scenario's work dir; paths in VM_IMAGES[],
#                                comma-joined in VM_DRIVES
#   vm_images_sized SIZE_MB...   the same, one image per size given
#   vm_boot STAGE [boot.sh options...]
#                                boot the guest with stage STAGE (--drives
#                                defaults to $VM_DRIVES, --log to
#                                build/vm/logs/<scenario>-<stage>-<n>.log);
#                                records every HCTEST line, plus a failure
#                                "boot:<scenario>:<stage>" when boot.sh fails
#                                without a "not ok" explaining it. Returns
#                                boot.sh's exit status.
#   vm_record ok|"not ok"|skip NAME [MSG]   record a result by hand
# Variables: VM_SCENARIO (e.g. 00-harness), VM_WORK (work dir), HC_ROOT,
# VM_LABEL (optional prefix of every test name, e.g. the kernel series).
# Scenarios run in a subshell without `set -e`: check vm_boot's status
# yourself when a later boot depends on an earlier one.

HC_ROOT=${HC_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
VM_RESULTS=${VM_RESULTS:?run through tests/vm/run.sh}
VM_SCENARIO=${VM_SCENARIO:?run through tests/vm/run.sh}
VM_WORK=${VM_WORK:-${VM_OUT:-$HC_ROOT/build/vm}/work/$VM_SCENARIO}
VM_IMAGES=()
VM_DRIVES=""
_vm_boot_n=0

vm_record() {
	local status=$1 name=${VM_LABEL:+$VM_LABEL/}$VM_SCENARIO/$2 msg=${3:-}
	case "$status" in
	ok) echo "ok $name" ;;
	skip) echo "ok $name # SKIP${msg:+ $msg}" ;;
	*) echo "not ok $name${msg:+: $msg}" ;;
	esac
	echo "$status|$name" >>"$VM_RESULTS"
}

vm_images() {
	local count=$1 size=$2 i img
	mkdir -p "$VM_WORK"
	VM_IMAGES=()
	for ((i = 0; i < count; i++)); do
		img=$VM_WORK/nvme$i.img
		rm -f "$img"
		truncate -s "${size}M" "$img"
		VM_IMAGES+=("$img")
	done
	VM_DRIVES=$(IFS=,; echo "${VM_IMAGES[*]}")
}

vm_images_sized() {
	local i=0 img size
	mkdir -p "$VM_WORK"
	VM_IMAGES=()
	for size in "$@"; do
		img=$VM_WORK/nvme$i.img
		rm -f "$img"
		truncate -s "${size}M" "$img"
		VM_IMAGES+=("$img")
		i=$((i + 1))
	done
	VM_DRIVES=$(IFS=,; echo "${VM_IMAGES[*]}")
}

vm_boot() {
	local stage=$1
	shift
	local opts=("$@") have_drives=0 have_log=0 o
	for o in "${opts[@]}"; do
		[ "$o" = --drives ] && have_drives=1
		[ "$o" = --log ] && have_log=1
	done
	if [ $have_drives = 0 ]; then
		if [ -z "$VM_DRIVES" ]; then
			vm_record "not ok" "boot:$VM_SCENARIO:$stage" "no drives (call vm_images first)"
			return 1
		fi
		opts+=(--drives "$VM_DRIVES")
	fi
	_vm_boot_n=$((_vm_boot_n + 1))
	if [ $have_log = 0 ]; then
		opts+=(--log "$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-$stage-$_vm_boot_n.log")
	fi

	local out=$VM_WORK/boot-$_vm_boot_n.out line name rest explained=0 in_report=0
	mkdir -p "$VM_WORK"
	: >"$out" # must exist before tail -f opens it
	"$HC_ROOT/tests/vm/boot.sh" --stage "$stage" "${opts[@]}" >>"$out" 2>&1 &
	local bpid=$!
	# follow the output as it is written, so that results appear live
	while IFS= read -r line; do
		# boot.sh's failure report repeats the log's tail: not new results
		[ $in_report = 1 ] && continue
		case "$line" in
		"boot.sh: FAIL"*)
			in_report=1 ;;
		"HCTEST ok "*" # SKIP"*)
			rest=${line#HCTEST ok }
			name=${rest%% *}
			rest=${rest#* \# SKIP}
			vm_record skip "$name" "${rest# }" ;;
		"HCTEST ok "*)
			rest=${line#HCTEST ok }
			vm_record ok "${rest%% *}" ;;
		"HCTEST not ok "*)
			rest=${line#HCTEST not ok }
			name=${rest%%:*}
			vm_record "not ok" "$name" "${rest#*: }"
			explained=1 ;;
		"HCTIME "*)
			echo "$VM_SCENARIO ${line#HCTIME }" >>"${VM_OUT:-$HC_ROOT/build/vm}/test-times" ;;
		"boot.sh: stage="*"time="*)
			echo "# $VM_SCENARIO: $line"
			echo "$VM_SCENARIO $stage ${line##*time=}" >>"${VM_OUT:-$HC_ROOT/build/vm}/boot-times" ;;
		esac
	done < <(tail -n +1 -s 0.2 --pid=$bpid -f "$out" 2>/dev/null)
	local rc=0
	wait $bpid || rc=$?
	if [ $rc -ne 0 ]; then
		# show boot.sh's own account (reason + last lines of the log)
		sed -n '/^boot.sh: FAIL/,$p' "$out" | sed 's/^/#   /'
		if [ $explained = 0 ]; then
			vm_record "not ok" "boot:$VM_SCENARIO:$stage" \
				"$(grep -m1 '^boot.sh: FAIL' "$out" | sed 's/^boot.sh: FAIL stage=[^:]*: //')"
		fi
	fi
	return $rc
}
