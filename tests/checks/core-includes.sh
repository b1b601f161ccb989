#!/bin/bash
# kmod/core/ is the kernel-agnostic core: it builds unchanged in the module,
# the user-space unit tests and hcsim, so its files may include only
# core.h, each other and uapi/.  Any other #include (a <linux/...> header,
# a kmod/ glue header) is a failure naming the file and the line.  core.h
# itself is the shim that maps the kernel's headers to libc's: it is exempt.
set -uo pipefail
cd "$(dirname "$0")/../.."
rc=0
core=$(cd kmod/core && ls *.h)
for f in kmod/core/*.c kmod/core/*.h; do
	[ "$f" = kmod/core/core.h ] && continue
	while IFS= read -r line; do
		inc=$(sed -n 's/^#[[:space:]]*include[[:space:]]*\(.*\)$/\1/p' <<<"${line#*:}")
		[ -n "$inc" ] || continue
		case "$inc" in
		'"../../uapi/'*'.h"') continue ;;
		'"'*'"')
			name=${inc#\"}; name=${name%\"}
			if grep -qxF "$name" <<<"$core"; then continue; fi ;;
		esac
		echo "core-includes: $f:${line%%:*}: includes $inc (kmod/core/ may include only core.h, kmod/core/*.h and ../../uapi/)" >&2
		rc=1
	done < <(grep -n '^#[[:space:]]*include' "$f")
done
[ $rc = 0 ] && echo "core-includes: $(ls kmod/core/*.[ch] | wc -l) files in kmod/core/ include only core.h, each other and uapi/"
exit $rc
