#!/bin/bash
# Usage: scripts/deps.sh            (as root, on Debian 12)
#
# Idempotent installer of everything HyperCache needs to build and test:
# the Debian kernel image + headers (the VM guest kernel), QEMU, the guest
# userland (busybox-static, fio, mdadm, dmsetup), the libraries hcctl links
# against, and the toolchain. Runs `apt-get update` only when a package is
# missing, and tolerates unreachable apt sources (update errors are ignored;
# only a failed install is fatal). Afterwards it extracts the kselftest
# headers and checkpatch from linux-source-6.1 (scripts/kselftest-headers.sh).
set -euo pipefail

PACKAGES=(
	linux-image-amd64 linux-headers-amd64
	qemu-system-x86 busybox-static fio mdadm dmsetup
	libnl-3-dev libnl-genl-3-dev libjson-c-dev libisal-dev
	zstd cpio dkms pkg-config gcc make perl kmod e2fsprogs util-linux
)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: must run as root" >&2
	exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "deps.sh: all ${#PACKAGES[@]} packages already installed"
else
	echo "deps.sh: installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# A third-party source may be unreachable: do not fail on update's status.
	apt-get update || echo "deps.sh: apt-get update reported errors (ignored)" >&2
	apt-get install -y --no-install-recommends "${missing[@]}"
fi

"$here/kselftest-headers.sh"
