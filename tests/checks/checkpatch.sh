#!/bin/bash
# The kernel sources pass checkpatch.pl --strict (extracted from Debian's
# linux-source by scripts/kselftest-headers.sh).  Exceptions, each for a
# reason:
#   kmod/compat.h   is where LINUX_VERSION_CODE tests belong (and the
#                   version typedef); that is its job
#   kmod/core/core.h defines the kernel's u8..u64 for the user-space build
#   uapi/*.h        cannot use BIT() (not exported to user space)
#   kmod/trace.h    TRACE_EVENT()'s own layout (open-ended lines, arguments
#                   aligned under the macro), as every trace header has
set -uo pipefail
cd "$(dirname "$0")/../.."
cp=build/checkpatch/checkpatch.pl
[ -f $cp ] || scripts/kselftest-headers.sh >/dev/null
run() {
	perl $cp --strict --no-tree --terse --show-types --quiet "$@"
}
rc=0
run -f $(ls kmod/*.c kmod/*.h kmod/core/*.c kmod/core/*.h | grep -v -e compat.h -e /core.h -e /trace.h) || rc=1
run --ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT -f kmod/trace.h || rc=1
run --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON,NEW_TYPEDEFS -f kmod/compat.h || rc=1
run --ignore PREFER_KERNEL_TYPES -f kmod/core/core.h || rc=1
run --ignore BIT_MACRO -f uapi/*.h || rc=1
exit $rc
