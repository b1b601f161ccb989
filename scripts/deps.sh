#!/bin/bash
# Usage: scripts/deps.sh            (as root, on Debian 12)
#
# Idempotent installer of everything HyperCache needs to build and test:
# the Debian kernel image + headers (the VM guest kernel), QEMU, the guest
# userland (busybox-static, fio, mdadm, dmsetup), the libraries hcctl links
# against, and the toolchain. Runs `apt-get update` only when a package is
# missing, and tolerates unreachable apt sources (update errors are ignored;
# only a failed install is fatal). It adds bookworm-backports and installs
# the newest 6.12 kernel image + headers unless a 6.12 kernel is installed
# (HC_SKIP_612=1 skips that). Afterwards it extracts the kselftest
# headers and checkpatch from linux-source-6.1 (scripts/kselftest-headers.sh).
set -euo pipefail

PACKAGES=(
	linux-image-amd64 linux-headers-amd64
	qemu-system-x86 busybox-static fio mdadm dmsetup
	libnl-3-dev libnl-genl-3-dev libjson-c-dev libisal-dev zlib1g-dev
	libssl-dev libxml2-dev libblkid-dev libcurl4-openssl-dev libinih-dev
	libmicrohttpd-dev liburing-dev libnuma-dev
	zstd xz-utils gzip cpio dkms pkg-config gcc make perl kmod e2fsprogs util-linux
	# the S3 gateway of the tests and the demo (scripts/rgw.sh), and the
	# reference clients of the benchmarks
	radosgw ceph-mon ceph-osd ceph-common curl awscli
	# the benchmarks' optional tap network (boot.sh --tap: the gateway
	# reached through an nftables redirect)
	nftables
	# the guest's XFS for the discovery tests
	xfsprogs
	# r-fs's read-only stress of the file system view (run from the host's
	# root in the guest, boot.sh --hostfs)
	stress-ng
	# the systemd guest of r-systemd (tests/vm/debian-image.sh)
	mmdebstrap
	# the packages and man pages (make deb, make install, tests/checks/deb.sh,
	# install.sh): debhelper, dh-dkms, rst2man, groff, sd_notify's library
	debhelper dh-dkms python3-docutils groff-base man-db libsystemd-dev
	# the exporter's VM test (prometheus, promtool) and hctrace (libbpf)
	prometheus clang llvm bpftool libbpf-dev libelf-dev
	# the Python package and its tests (tests/checks/python.sh, r-client):
	# Debian's /usr/bin/python3 with fsspec, torch, numpy and pytest; boto3
	# for r-client's cold torch.load and bench-client's upload peer
	python3-fsspec python3-torch python3-numpy python3-pytest python3-boto3
	# the Caffeine comparison (scripts/bench-caffeine.sh, check:bench-caffeine)
	libcaffeine-java openjdk-17-jdk-headless
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

# The second supported kernel, 6.12 LTS, comes from bookworm-backports
# (same mirror and keyring as bookworm itself).
have_612() {
	for b in /lib/modules/6.12.*/build; do
		[ -d "$b" ] && [ -f "/boot/vmlinuz-$(basename "$(dirname "$b")")" ] && return 0
	done
	return 1
}
if [ "${HC_SKIP_612:-0}" != 1 ] && ! have_612; then
	if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		mirror=$(grep -rhs '^URIs:.*debian' /etc/apt/sources.list.d/*.sources 2>/dev/null |
			grep -v security | head -n1 | awk '{print $2}')
		[ -n "$mirror" ] || mirror=$(grep -hs '^deb .*debian.* bookworm ' /etc/apt/sources.list |
			head -n1 | awk '{print $2}')
		mirror=${mirror:-http://deb.debian.org/debian}
		echo "deps.sh: adding bookworm-backports from $mirror"
		cat >/etc/apt/sources.list.d/hypercache-backports.sources <<SRC
Types: deb
URIs: $mirror
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update || echo "deps.sh: apt-get update reported errors (ignored)" >&2
	# The newest 6.12 with headers and an image: the signed image, or,
	# while a new release has only its -unsigned one published (seen on
	# 2026-12-02 with 6.12.118), that one (the guest boots either).
	v='' img=''
	for cand in $(apt-cache search --names-only '^linux-headers-6\.12\..*\+deb12-amd64$' |
		awk '{print $1}' | sed 's/^linux-headers-//' | sort -rV); do
		for i in "linux-image-$cand" "linux-image-$cand-unsigned"; do
			pol=$(apt-cache policy "$i" 2>/dev/null || true)
			if [[ $pol == *"Candidate: "[0-9]* ]]; then
				v=$cand img=$i
				break 2
			fi
		done
	done
	if [ -z "$v" ]; then
		echo "deps.sh: no 6.12 kernel image found in bookworm-backports or bookworm-security" >&2
		exit 1
	fi
	echo "deps.sh: installing kernel $v ($img)"
	apt-get install -y --no-install-recommends "$img" "linux-headers-$v"
fi

"$here/kselftest-headers.sh"
