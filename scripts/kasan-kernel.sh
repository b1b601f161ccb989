#!/bin/bash
# Usage: scripts/kasan-kernel.sh [--print-dir]
#
# Builds, once, a small 6.1 guest kernel with KASAN, lockdep (PROVE_LOCKING)
# and DEBUG_ATOMIC_SLEEP from Debian's linux-source-6.1 package, for
# `make check-kasan`.  Everything the guest's initramfs loads
# (tests/vm/mkinitramfs.sh) is built in, so the modules tree holds only
# modules.builtin and the like.  Result, under build/kasan/ (paths relative
# to the repository root):
#   build/kasan/kernel/kver          the kernel release (6.1.N-hc-kasan)
#   build/kasan/kernel/vmlinuz       bzImage
#   build/kasan/kernel/vmlinux       the ELF image (PVH boot)
#   build/kasan/kernel/build         the object tree (KDIR for hypercache.ko)
#   build/kasan/kernel/lib/modules/KVER   modules_install of the build
# tests/vm/kernel.sh boots it when HC_KERNEL_DIR=build/kasan/kernel.
# A finished build (kver present) is reused; --print-dir prints the
# directory and exits non-zero if there is no finished build.  The build
# runs under `nice -n 19` with HC_KASAN_JOBS (default 2) jobs; its log is
# build/kasan/build.log.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
top=$root/build/kasan
out=$top/kernel
obj=$out/build
src=$top/src/linux-source-6.1
log=$top/build.log
jobs=${HC_KASAN_JOBS:-2}

if [ "${1:-}" = --print-dir ]; then
	[ -s "$out/kver" ] || exit 1
	echo "$out"
	exit 0
fi
# What the guest's tests need built in; a cached build that lacks one of
# them (an older fragment) is reconfigured and rebuilt incrementally.
required="KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP BLK_DEV_NVME DM_LOG_WRITES DM_SNAPSHOT DM_FLAKEY DM_DELAY BLK_DEV_DM PVH VIRTIO_NET MD_RAID0 LIBCRC32C IO_URING DEBUG_FS USER_NS"
lacks() {
	local o m=""
	for o in $required; do
		grep -q "^CONFIG_$o=y" "$1" 2>/dev/null || m+=" $o"
	done
	echo "$m"
}
if [ -s "$out/kver" ] && [ -s "$out/vmlinuz" ]; then
	stale=$(lacks "$obj/.config")
	if [ -z "$stale" ]; then
		echo "kasan-kernel.sh: $(cat "$out/kver") already built in $out"
		exit 0
	fi
	echo "kasan-kernel.sh: the cached build lacks:$stale; rebuilding it incrementally"
fi

need=()
for p in flex bison bc libelf-dev libssl-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "kasan-kernel.sh: installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends "${need[@]}" || {
		apt-get update || true
		apt-get install -y --no-install-recommends "${need[@]}"
	}
fi

mkdir -p "$top" "$obj"
if [ ! -f "$src/Makefile" ]; then
	deb=$(ls -t "$root"/build/deps/linux-source-6.1_*.deb 2>/dev/null | head -n1 || true)
	if [ -z "$deb" ]; then
		mkdir -p "$root/build/deps"
		(cd "$root/build/deps" && apt-get download linux-source-6.1)
		deb=$(ls -t "$root"/build/deps/linux-source-6.1_*.deb | head -n1)
	fi
	echo "kasan-kernel.sh: unpacking $deb"
	rm -rf "$top/src"
	mkdir -p "$top/src"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-6.1.tar.xz |
		nice -n 19 tar -xJ -C "$top/src"
fi

# The fragment: what the guest needs (tests/vm/guest/init, mkinitramfs.sh's
# REQUIRED_MODULES and extras, boot.sh's PVH boot and isa-debug-exit), the
# debugging options, and big subsystems of defconfig the guest never uses.
frag=$top/hc-kasan.config
cat >"$frag" <<'EOF'
CONFIG_LOCALVERSION="-hc-kasan"
CONFIG_LOCALVERSION_AUTO=n
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_MODULE_SIG=n
CONFIG_SYSTEM_TRUSTED_KEYRING=n
CONFIG_DEBUG_INFO_NONE=y
CONFIG_DEBUG_INFO_BTF=n
CONFIG_HYPERVISOR_GUEST=y
CONFIG_PARAVIRT=y
CONFIG_KVM_GUEST=y
CONFIG_PVH=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_ZSTD=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_CONFIGFS_FS=y
CONFIG_DEBUG_FS=y
CONFIG_DEVPORT=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_PCI=y
CONFIG_BLK_DEV_NVME=y
CONFIG_NVME_CORE=y
CONFIG_VIRTIO=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_NET_CORE=y
CONFIG_MD=y
CONFIG_BLK_DEV_MD=y
CONFIG_MD_RAID0=y
CONFIG_BLK_DEV_DM=y
CONFIG_DM_FLAKEY=y
CONFIG_DM_LOG_WRITES=y
CONFIG_DM_SNAPSHOT=y
CONFIG_DM_DELAY=y
CONFIG_BLK_DEV_LOOP=y
CONFIG_BLK_DEV_NULL_BLK=m
CONFIG_BLK_DEV_RAM=m
CONFIG_EXT4_FS=y
CONFIG_XFS_FS=n
CONFIG_FAT_FS=n
CONFIG_VFAT_FS=n
CONFIG_ISO9660_FS=n
CONFIG_QUOTA=n
CONFIG_AUTOFS_FS=n
CONFIG_NET_9P=n
CONFIG_NETLABEL=n
CONFIG_XFRM_USER=n
CONFIG_INET_ESP=n
CONFIG_IP_PNP=n
CONFIG_DM_MIRROR=n
CONFIG_PTP_1588_CLOCK=n
CONFIG_PPS=n
CONFIG_KEXEC=n
CONFIG_CRASH_DUMP=n
CONFIG_NUMA=n
CONFIG_SECURITY=n
CONFIG_CGROUPS=n
CONFIG_HW_RANDOM=n
CONFIG_PACKET=n
CONFIG_INPUT_EVDEV=n
CONFIG_SYN_COOKIES=n
CONFIG_TCP_CONG_ADVANCED=n
CONFIG_NET_VENDOR_REALTEK=n
CONFIG_DMADEVICES=n
CONFIG_WATCHDOG=n
CONFIG_GPIOLIB=n
CONFIG_MEDIA_SUPPORT=n
CONFIG_X86_CPU_RESCTRL=n
CONFIG_X86_INTEL_TSX_MODE_OFF=y
CONFIG_HIGH_RES_TIMERS=y
CONFIG_LIBCRC32C=y
CONFIG_CRYPTO_CRC32C=y
CONFIG_CRYPTO_CRC32C_INTEL=y
CONFIG_IO_URING=y
CONFIG_AIO=y
CONFIG_USER_NS=y
CONFIG_NAMESPACES=y
CONFIG_NET_NS=y
CONFIG_UNIX=y
CONFIG_INET=y
# 84-metrics' exporter listens on [::]:9110
CONFIG_IPV6=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_KASAN_VMALLOC=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_LIST=y
CONFIG_DEBUG_OBJECTS=n
CONFIG_DRM=n
CONFIG_SOUND=n
CONFIG_USB_SUPPORT=n
CONFIG_WIRELESS=n
CONFIG_WLAN=n
CONFIG_CFG80211=n
CONFIG_ETHERNET=n
CONFIG_HID=n
CONFIG_FB=n
CONFIG_AGP=n
CONFIG_NETFILTER=n
CONFIG_NETWORK_FILESYSTEMS=n
CONFIG_ATA=n
CONFIG_SCSI=n
CONFIG_MACINTOSH_DRIVERS=n
CONFIG_PCCARD=n
CONFIG_MMC=n
CONFIG_SECURITY_SELINUX=n
CONFIG_AUDIT=n
CONFIG_HIBERNATION=n
CONFIG_SUSPEND=n
CONFIG_CPU_FREQ=n
CONFIG_EFI=n
CONFIG_KVM=n
CONFIG_XEN=n
CONFIG_NET_SCHED=n
CONFIG_IP_MULTICAST=n
CONFIG_IP_ADVANCED_ROUTER=n
CONFIG_HAMRADIO=n
CONFIG_INPUT_MOUSE=n
CONFIG_INPUT_JOYSTICK=n
CONFIG_INPUT_TABLET=n
CONFIG_INPUT_TOUCHSCREEN=n
CONFIG_PROFILING=n
CONFIG_KPROBES=n
CONFIG_FTRACE=n
CONFIG_PERF_EVENTS=y
CONFIG_MICROCODE=n
CONFIG_X86_MCE=n
CONFIG_THERMAL=n
CONFIG_HWMON=n
CONFIG_I2C=n
CONFIG_RTC_CLASS=n
CONFIG_BT=n
CONFIG_RFKILL=n
CONFIG_ACPI_VIDEO=n
CONFIG_VGA_ARB=n
CONFIG_LOGO=n
EOF

{
	echo "kasan-kernel.sh: configuring in $obj ($(date -u +%FT%TZ))"
	make -s -C "$src" O="$obj" defconfig
	(cd "$src" && KCONFIG_CONFIG="$obj/.config" scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "$frag")
	make -s -C "$src" O="$obj" olddefconfig
} >>"$log" 2>&1
missing=$(lacks "$obj/.config")
if [ -n "$missing" ]; then
	echo "kasan-kernel.sh: the config lacks:$missing (see $obj/.config)" >&2
	exit 1
fi

echo "kasan-kernel.sh: building (nice -n 19, -j$jobs, log $log)"
start=$(date +%s)
nice -n 19 make -C "$src" O="$obj" -j"$jobs" bzImage modules >>"$log" 2>&1 || {
	echo "kasan-kernel.sh: kernel build failed; tail of $log:" >&2
	tail -n 30 "$log" >&2
	exit 1
}
kver=$(make -s -C "$src" O="$obj" kernelrelease)
rm -rf "$out/lib"
nice -n 19 make -C "$src" O="$obj" INSTALL_MOD_PATH="$out" modules_install >>"$log" 2>&1
# the installed tree's build link points at the object tree
ln -sfn "$obj" "$out/lib/modules/$kver/build"
cp "$obj/arch/x86/boot/bzImage" "$out/vmlinuz"
cp "$obj/vmlinux" "$out/vmlinux"
echo "$kver" >"$out/kver"
echo "kasan-kernel.sh: built $kver in $(( $(date +%s) - start )) s: $out"
