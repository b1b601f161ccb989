# SPDX-License-Identifier: GPL-2.0
#
# HyperCache top-level build.
#
#   make                 module (against KDIR) and user-space tools
#   make module          hypercache.ko only
#   make tools           tools/hcctl
#   make check           install what the tests need, then run every test
#   make demo            install what it needs, then run the demo in a VM
#   make unit            user-space unit tests only (fast)
#   make vm              VM tests only (on every supported installed kernel)
#   make check-reliability  the long fault matrices (r-* scenarios), both kernels
#   make check-kasan     build a KASAN + lockdep 6.1 kernel once, run the VM
#                        suite and the fuzzer on it (long; not in make check)
#   make modules-all     hypercache.ko for each kernel in scripts/kernels.sh
#   make KVER=6.12.…     build for another installed kernel (or KDIR=path)
#
# Without KVER/KDIR the running kernel's headers are used when installed,
# otherwise the newest installed 6.1 kernel headers (the tested target).

KVER ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
	else ls -d /lib/modules/6.1.*/build 2>/dev/null | sort -V | tail -n1 | \
	cut -d/ -f4; fi)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: all module modules-all tools helper test-progs check demo unit vm clean deps dkms-check \
	check-reliability check-kasan kasan-kernel

all: module tools helper lib

module:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)' (set KVER= or KDIR=)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# hypercache.ko for every supported installed kernel (scripts/kernels.sh),
# each built in its own copy of the sources under build/kmod/KVER/src (so
# that builds for different kernels never share objects) and left as
# build/kmod/KVER/hypercache.ko for the VM tests of that kernel.  With
# HC_KERNEL_DIR (a kernel built here, see check-kasan) the module is built
# against HC_KERNEL_DIR/build for the kernels of HC_KVERS.
modules-all:
	@set -e; for k in $$(scripts/kernels.sh); do \
		d=build/kmod/$$k; mkdir -p $$d/src; \
		cp -u Kbuild $$d/src/; mkdir -p $$d/src/kmod/core $$d/src/uapi; \
		cp -u kmod/*.c kmod/*.h $$d/src/kmod/; cp -u kmod/core/*.c kmod/core/*.h $$d/src/kmod/core/; cp -u uapi/*.h $$d/src/uapi/; \
		kd=/lib/modules/$$k/build; [ -z "$$HC_KERNEL_DIR" ] || kd=$$HC_KERNEL_DIR/build; \
		echo "  MODULE  $$k"; \
		$(MAKE) --no-print-directory -s -C $$kd M=$(CURDIR)/$$d/src W=1 modules; \
		cp $$d/src/hypercache.ko $$d/; \
	done

tools:
	$(MAKE) -C tools/hcctl
	$(MAKE) -C tools/mount.hypercache
	$(MAKE) -C tools/hcsim
	$(MAKE) -C tools/hctrace

# libhypercache (build/lib/): the C client library; `make -C lib install`.
.PHONY: lib
lib:
	$(MAKE) -C lib

# helper/lib/libhc.a (shared with hcctl), then hypercached and hcfetch.
helper:
	$(MAKE) -C helper

# Small programs the VM tests run in the guest (build/guest-bin/).
test-progs:
	$(MAKE) -C tests/vm/prog

deps:
	scripts/deps.sh

check: deps
	$(MAKE) modules-all tools test-progs
	tests/run-all.sh

# The reliability suite's long matrices (Documentation/testing.md), on
# every supported kernel; make check runs a slice of each (96-reliability,
# 62-jmirror; of r-client, check:python on the host and 45-fence's
# client-capi; of r-fs, 55-fs).
# FULL_SCENARIOS are make check's scenarios that take their full sizes with
# HC_VM_FULL=1 (the guest's HC_FULL: 300 MiB write-back, 100 MiB ingest,
# 57-fs-s3's 300 MiB files written through the view...;
# 25-upgrade and 26-compat: every step of the upgrade, not the first and last);
# check-reliability runs them so, beside the r-* matrices, through
# tests/run-all.sh --vm-only (the S3 gateway, both kernels at once).
RELIABILITY_SCENARIOS ?= r-logwrites r-fuzz r-faults r-jmirror-full r-fs r-client r-sched r-scrape r-bench-locate r-memory r-systemd
FULL_SCENARIOS ?= 84-metrics 90-s3 95-writeback 25-upgrade 26-compat 57-fs-s3
check-reliability: deps
	$(MAKE) modules-all tools test-progs
	HC_VM_FULL=1 HC_VM_SCENARIOS="$(RELIABILITY_SCENARIOS) $(FULL_SCENARIOS)" \
		tests/run-all.sh --vm-only

# A KASAN + lockdep 6.1 guest kernel, built once into build/kasan/kernel
# (scripts/kasan-kernel.sh, a long build at nice 19), then the VM suite and
# the fuzzer's long run on it, with every timeout stretched.  Not in make
# check.  The scenarios that need the S3 gateway (--s3) are left out.
KASAN_DIR := $(CURDIR)/build/kasan/kernel
KASAN_SCENARIOS ?=
kasan-kernel:
	scripts/kasan-kernel.sh

check-kasan: kasan-kernel tools test-progs
	HC_KERNEL_DIR=$(KASAN_DIR) HC_KVERS=$$(cat $(KASAN_DIR)/kver) $(MAKE) modules-all
	HC_KERNEL_DIR=$(KASAN_DIR) HC_TIMEOUT_SCALE=$${HC_TIMEOUT_SCALE:-4} \
		KVER=$$(cat $(KASAN_DIR)/kver) VM_LABEL=kasan \
		tests/vm/run.sh $(KASAN_SCENARIOS) $(if $(KASAN_SCENARIOS),,$$(cd tests/vm/scenarios && grep -L -e --s3 [0-9]*.sh) r-fuzz)

# The main job: a pool on emulated NVMe drives in a QEMU guest.
demo: deps
	$(MAKE) modules-all all test-progs
	scripts/demo.sh

unit:
	$(MAKE) -C tests/unit run

vm: modules-all tools test-progs
	tests/run-all.sh --vm-only

dkms-check:
	scripts/dkms-check.sh $(KVER)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/hcctl clean
	$(MAKE) -C tools/hcsim clean
	$(MAKE) -C tools/hctrace clean
	$(MAKE) -C tools/mount.hypercache clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/vm/prog clean
	$(MAKE) -C helper clean
	$(MAKE) -C lib clean

# --- installation ---------------------------------------------------------
# `make install` / `make uninstall` for hosts without the Debian packages
# (the packages, `make deb`, run the same install into their trees):
# hcctl and hypercached, hcctl's S3 client plugin (PLUGINDIR/hcctl-s3.so,
# default PREFIX/lib/hypercache), the mount helper /sbin/mount.hypercache
# (MOUNTHELPERDIR: mount(8) looks only there), the man pages hcctl(8),
# hypercached(8), mount.hypercache(8) and hypercache.conf(5) (each
# generated from its one page in Documentation/),
# hypercached.service, the udev rule, the sysusers.d entry of the
# `hypercache` group, bash completion, and /etc/hypercache/hypercache.conf
# (0640 root:hypercache, never overwritten).  Without DESTDIR, as root, it
# also creates the group and reloads udev and systemd.  `make install-dkms`
# installs the module's sources under /usr/src for DKMS (and, without
# DESTDIR, runs dkms install) plus the modules-load.d entry.
# PREFIX=/usr/local by default; every directory below can be overridden.
HC_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MODULESLOADDIR ?= $(PREFIX)/lib/modules-load.d
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DKMSSRCDIR ?= /usr/src/hypercache-$(HC_VERSION)
# hcctl's S3 client plugin (tools/hcctl/s3load.c); tools/hcctl bakes it in
PLUGINDIR ?= $(PREFIX)/lib/hypercache
# mount(8) runs helpers from /sbin only, whatever the PREFIX
MOUNTHELPERDIR ?= /sbin
MAN_PAGES := build/man/hcctl.8 build/man/hypercached.8 build/man/mount.hypercache.8 \
	build/man/hypercache.conf.5
HC_CONF := $(DESTDIR)$(SYSCONFDIR)/hypercache/hypercache.conf

.PHONY: man install uninstall install-dkms uninstall-dkms deb
man: $(MAN_PAGES)
build/man/%.8: Documentation/%.rst scripts/rst2man.sh dkms.conf
	@mkdir -p build/man
	scripts/rst2man.sh 8 $(HC_VERSION) < $< > $@.tmp && mv $@.tmp $@
build/man/hypercache.conf.5: Documentation/hypercached.conf.md scripts/md2man.py dkms.conf
	@mkdir -p build/man
	scripts/md2man.py hypercache.conf 5 $(HC_VERSION) < $< > $@.tmp && mv $@.tmp $@

install: tools helper man
	install -D -m 0755 tools/hcctl/hcctl $(DESTDIR)$(SBINDIR)/hcctl
	install -D -m 0755 helper/hypercached $(DESTDIR)$(SBINDIR)/hypercached
	install -D -m 0644 tools/hcctl/hcctl-s3.so $(DESTDIR)$(PLUGINDIR)/hcctl-s3.so
	install -D -m 0644 build/man/hcctl.8 $(DESTDIR)$(MANDIR)/man8/hcctl.8
	install -D -m 0644 build/man/hypercached.8 $(DESTDIR)$(MANDIR)/man8/hypercached.8
	install -D -m 0755 tools/mount.hypercache/mount.hypercache $(DESTDIR)$(MOUNTHELPERDIR)/mount.hypercache
	install -D -m 0644 build/man/mount.hypercache.8 $(DESTDIR)$(MANDIR)/man8/mount.hypercache.8
	install -D -m 0644 build/man/hypercache.conf.5 $(DESTDIR)$(MANDIR)/man5/hypercache.conf.5
	mkdir -p $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' dist/systemd/hypercached.service.in > $(DESTDIR)$(UNITDIR)/hypercached.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/hypercached.service
	install -D -m 0644 dist/udev/60-hypercache.rules $(DESTDIR)$(UDEVRULESDIR)/60-hypercache.rules
	sed 's|@SBINDIR@|$(SBINDIR)|g' dist/systemd/hypercache-assemble.service.in > $(DESTDIR)$(UNITDIR)/hypercache-assemble.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/hypercache-assemble.service
	install -D -m 0644 dist/systemd/mnt-hypercache.mount $(DESTDIR)$(UNITDIR)/mnt-hypercache.mount
	sed 's|@SBINDIR@|$(SBINDIR)|g' dist/udev/61-hypercache-member.rules.in > $(DESTDIR)$(UDEVRULESDIR)/61-hypercache-member.rules
	chmod 0644 $(DESTDIR)$(UDEVRULESDIR)/61-hypercache-member.rules
	install -D -m 0644 dist/sysusers.d/hypercache.conf $(DESTDIR)$(SYSUSERSDIR)/hypercache.conf
	install -D -m 0644 dist/bash-completion/hcctl $(DESTDIR)$(BASHCOMPDIR)/hcctl
	@if [ -e $(HC_CONF) ]; then echo "  KEEP    $(HC_CONF) (not overwritten)"; \
	else install -D -m 0640 helper/hypercache.conf $(HC_CONF); fi
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
		getent group hypercache >/dev/null || groupadd --system hypercache; \
		chgrp hypercache $(HC_CONF); \
		udevadm control --reload 2>/dev/null || true; \
		udevadm trigger --subsystem-match=misc --sysname-match=hypercache-ctl 2>/dev/null || true; \
		[ -d /run/systemd/system ] && systemctl daemon-reload || true; \
	fi

# The configuration stays unless it is the one installed (unchanged); the
# group stays (files may belong to it), as with Debian's packages.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/hcctl $(DESTDIR)$(SBINDIR)/hypercached
	rm -f $(DESTDIR)$(MANDIR)/man8/hcctl.8 $(DESTDIR)$(MANDIR)/man8/hypercached.8
	rm -f $(DESTDIR)$(MOUNTHELPERDIR)/mount.hypercache $(DESTDIR)$(MANDIR)/man8/mount.hypercache.8
	rm -f $(DESTDIR)$(MANDIR)/man5/hypercache.conf.5
	rm -f $(DESTDIR)$(UNITDIR)/hypercached.service $(DESTDIR)$(UDEVRULESDIR)/60-hypercache.rules
	rm -f $(DESTDIR)$(SYSUSERSDIR)/hypercache.conf $(DESTDIR)$(BASHCOMPDIR)/hcctl
	rm -f $(DESTDIR)$(UNITDIR)/hypercache-assemble.service $(DESTDIR)$(UDEVRULESDIR)/61-hypercache-member.rules
	rm -f $(DESTDIR)$(UNITDIR)/mnt-hypercache.mount
	rm -f $(DESTDIR)$(PLUGINDIR)/hcctl-s3.so
	rmdir $(DESTDIR)$(PLUGINDIR) 2>/dev/null || true
	@if cmp -s helper/hypercache.conf $(HC_CONF); then rm -f $(HC_CONF); \
		rmdir $(DESTDIR)$(SYSCONFDIR)/hypercache 2>/dev/null || true; \
	elif [ -e $(HC_CONF) ]; then echo "  KEEP    $(HC_CONF) (changed since installed)"; fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi

install-dkms:
	mkdir -p $(DESTDIR)$(DKMSSRCDIR)/kmod/core $(DESTDIR)$(DKMSSRCDIR)/uapi
	install -m 0644 Kbuild dkms.conf $(DESTDIR)$(DKMSSRCDIR)/
	install -m 0644 kmod/*.c kmod/*.h $(DESTDIR)$(DKMSSRCDIR)/kmod/
	install -m 0644 kmod/core/*.c kmod/core/*.h $(DESTDIR)$(DKMSSRCDIR)/kmod/core/
	install -m 0644 uapi/*.h $(DESTDIR)$(DKMSSRCDIR)/uapi/
	install -D -m 0644 dist/modules-load.d/hypercache.conf $(DESTDIR)$(MODULESLOADDIR)/hypercache.conf
	@if [ -z "$(DESTDIR)" ]; then dkms install hypercache/$(HC_VERSION); fi

uninstall-dkms:
	@if [ -z "$(DESTDIR)" ] && dkms status hypercache/$(HC_VERSION) 2>/dev/null | grep -q .; then \
		dkms remove hypercache/$(HC_VERSION) --all; fi
	rm -rf $(DESTDIR)$(DKMSSRCDIR)
	rm -f $(DESTDIR)$(MODULESLOADDIR)/hypercache.conf

# The Debian packages hypercache and hypercache-dkms (debian/), built with
# dpkg-buildpackage from a copy of the tree's files (tracked and new, not
# ignored) into build/deb/.
deb:
	scripts/deb.sh
