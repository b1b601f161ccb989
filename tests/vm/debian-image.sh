#!/bin/bash
# Usage: tests/vm/debian-image.sh [--print-dir]
#
# Builds, once, the root image of the systemd guest (r-systemd,
# Documentation/testing.md "A real host: the systemd guest"): Debian 12
# from Debian's packages with mmdebstrap, systemd and udev as PID 1 and
# device manager, the guest kernel's image and headers for both supported
# kernels (6.1 and 6.12 from bookworm-backports), dkms and its compiler,
# and this tree's packages (make deb: hypercache, hypercache-dkms,
# libhypercache1) installed by apt as an operator would.  The DKMS
# module is built, in the image, for both kernels by the package's
# postinst and `dkms install -k`.  Result, under build/vm/debian/:
#   root.img       raw ext4 image (the guest's /dev/vda), never written by
#                  the tests (each run boots a copy)
#   vmlinuz-KVER, initrd.img-KVER   each kernel and its initramfs-tools
#                  initrd, taken from the image (boot.sh --debian boots the
#                  one of the run's KVER, else the 6.1 one)
#   kver           the 6.1 kernel release (the default boot)
#   key            what the image was built from (the packages' list and
#                  the .debs' SHA-256): a different key rebuilds
# Packages come from the host's apt sources (deb.debian.org), .debs already
# in the host's apt cache are reused.  Needs root, mmdebstrap, e2fsprogs.
# --print-dir prints the directory and exits non-zero without a finished
# image.  Log: build/vm/debian/build.log.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/build/vm/debian
if [ "${1:-}" = --print-dir ]; then
	[ -s "$out/kver" ] && [ -s "$out/root.img" ] || exit 1
	echo "$out"
	exit 0
fi
[ $# -eq 0 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "debian-image.sh: must run as root" >&2; exit 1; }
command -v mmdebstrap >/dev/null ||
	{ echo "debian-image.sh: mmdebstrap is not installed (scripts/deps.sh)" >&2; exit 1; }

# The kernels: the newest installed 6.1 and 6.12 of the host (the ones the
# rest of the VM suite boots), by package name: the image package the host
# has (6.12's is linux-image-KVER or linux-image-KVER-unsigned, scripts/deps.sh).
kvers=$("$root/scripts/kernels.sh")
k61=$(echo "$kvers" | grep '^6\.1\.' | head -n1)
k612=$(echo "$kvers" | grep '^6\.12\.' | head -n1)
[ -n "$k61" ] || { echo "debian-image.sh: no 6.1 kernel installed" >&2; exit 1; }
image_pkg() {
	dpkg-query -S "/boot/vmlinuz-$1" 2>/dev/null | cut -d: -f1 | head -n1
}
img61=$(image_pkg "$k61")
img612=${k612:+$(image_pkg "$k612")}
[ -n "$img61" ] && { [ -z "$k612" ] || [ -n "$img612" ]; } ||
	{ echo "debian-image.sh: no package owns /boot/vmlinuz-$k61${k612:+ or -$k612}" >&2; exit 1; }

debs=$(ls "$root"/build/deb/hypercache_*.deb "$root"/build/deb/hypercache-dkms_*.deb \
	"$root"/build/deb/libhypercache1_*.deb 2>/dev/null || true)
[ "$(echo "$debs" | grep -c .)" = 3 ] ||
	{ echo "debian-image.sh: build/deb/ lacks the packages: run make deb first" >&2; exit 1; }

pkgs="systemd systemd-sysv udev dbus kmod procps iproute2 util-linux e2fsprogs
	initramfs-tools $img61 linux-headers-$k61
	${k612:+$img612 linux-headers-$k612} dkms gcc make libc6-dev
	python3 ca-certificates less"
key=$( { echo $pkgs; sha256sum $debs | cut -d' ' -f1; sha256sum "$0" "$root/tests/vm/debian/hc-guest-test.service" | cut -d' ' -f1; } | sha256sum | cut -c1-16)
if [ -s "$out/kver" ] && [ -s "$out/root.img" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	echo "$out"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out"
log=$out/build.log
tree=$out/tree
debdir=$out/debs
mkdir -p "$debdir"
cp $debs "$debdir/"
echo "debian-image.sh: building the systemd guest's image (log $log)" >&2

# Sources: the host's Debian lines (bookworm, -updates, -security and the
# backports deps.sh added), in one-line form for mmdebstrap's stdin.
sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		case $f in
		*.list) grep -E '^deb .*debian' "$f" || true ;;
		*.sources)
			awk '/^Types:/ { t = $2 } /^URIs:/ { u = $2 }
				/^Suites:/ { s = ""; for (i = 2; i <= NF; i++) s = s " " $i }
				/^Components:/ { c = ""; for (i = 2; i <= NF; i++) c = c " " $i }
				/^$/ { if (t == "deb" && u ~ /debian/) { n = split(s, a, " "); for (i = 1; i <= n; i++) print "deb", u, a[i] c }; t = u = s = c = "" }
				END { if (t == "deb" && u ~ /debian/) { n = split(s, a, " "); for (i = 1; i <= n; i++) print "deb", u, a[i] c } }' "$f" ;;
		esac
	done | sort -u
}
src=$(sources)
echo "$src" | grep -q bookworm ||
	{ echo "debian-image.sh: no bookworm source in the host's apt configuration" >&2; exit 1; }
# 6.12's headers come from bookworm-backports.
apt_opts=()
[ -z "$k612" ] || echo "$src" | grep -q bookworm-backports ||
	{ echo "debian-image.sh: no bookworm-backports source for linux-headers-$k612" >&2; exit 1; }

{
	# --include takes the packages, apt resolves their dependencies;
	# the hooks reuse the host's downloaded .debs, install this tree's
	# packages (their postinst creates the group and builds the DKMS
	# module), build it for the other kernel too, and set the guest up.
	echo "$src" | mmdebstrap --mode=root --variant=apt --format=directory \
		--include="$(echo $pkgs | tr ' ' ,)" \
		--aptopt='APT::Install-Recommends "false"' \
		--setup-hook='mkdir -p "$1"/var/cache/apt/archives' \
		--setup-hook='cp /var/cache/apt/archives/*.deb "$1"/var/cache/apt/archives/ 2>/dev/null || true' \
		--skip=download/empty \
		--customize-hook="copy-in $debdir /tmp" \
		--customize-hook='chroot "$1" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/debs/*.deb"' \
		--customize-hook="chroot \"\$1\" sh -c 'for k in $k61 $k612; do v=\$(dkms status hypercache | sed -n \"s|^hypercache/\\([^,]*\\),.*|\\1|p\" | head -n1); dkms status -m hypercache -k \$k | grep -q installed || dkms install -m hypercache -v \$v -k \$k || exit 1; done'" \
		--customize-hook='rm -rf "$1"/tmp/debs "$1"/var/cache/apt/archives/*.deb' \
		--customize-hook='echo hcguest > "$1"/etc/hostname' \
		--customize-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" > "$1"/etc/fstab' \
		--customize-hook='chroot "$1" passwd -d root' \
		--customize-hook='chroot "$1" useradd -m -s /bin/sh -G hypercache alice' \
		--customize-hook='chroot "$1" useradd -m -s /bin/sh bob' \
		--customize-hook="copy-in $root/tests/vm/debian/hc-guest-test.service /etc/systemd/system" \
		--customize-hook='chroot "$1" systemctl enable hc-guest-test.service' \
		--customize-hook='chroot "$1" systemctl mask systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer e2scrub_reap.service e2scrub_all.timer fstrim.timer man-db.timer' \
		bookworm "$tree" -
} >"$log" 2>&1 || {
	tail -n 40 "$log" >&2
	echo "debian-image.sh: mmdebstrap failed (log: $log)" >&2
	exit 1
}
for k in $k61 $k612; do
	cp "$tree/boot/vmlinuz-$k" "$tree/boot/initrd.img-$k" "$out/"
done
# A 3 GiB ext4 file system made from the tree (mke2fs -d: no loop device).
size=$(du -sm "$tree" | cut -f1)
truncate -s $(( (size + 1024 > 3072 ? size + 1024 : 3072) ))M "$out/root.img"
mke2fs -q -t ext4 -L hcroot -d "$tree" "$out/root.img" >>"$log" 2>&1
rm -rf "$tree"
echo "$k61" >"$out/kver"
echo "$key" >"$out/key"
echo "$out"
