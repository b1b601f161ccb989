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

all: module tools helper

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
		cp -pu Kbuild $$d/src/; mkdir -p $$d/src/kmod/core $$d/src/uapi; \
		cp -pu kmod/*.c kmod/*.h $$d/src/kmod/; cp -pu kmod/core/*.c kmod/core/*.h $$d/src/kmod/core/; cp -pu uapi/*.h $$d/src/uapi/; \
		kd=/lib/modules/$$k/build; [ -z "$$HC_KERNEL_DIR" ] || kd=$$HC_KERNEL_DIR/build; \
		echo "  MODULE  $$k"; \
		$(MAKE) --no-print-directory -s -C $$kd M=$(CURDIR)/$$d/src W=1 modules; \
		cp $$d/src/hypercache.ko $$d/; \
	done

tools:
	$(MAKE) -C tools/hcctl
	$(MAKE) -C tools/hcsim
	$(MAKE) -C tools/hctrace

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
# 62-jmirror).
RELIABILITY_SCENARIOS ?= r-logwrites r-fuzz r-faults r-jmirror-full
check-reliability: deps
	$(MAKE) modules-all tools test-progs
	@set -e; rc=0; for k in $$(scripts/kernels.sh); do \
		series=$$(echo $$k | cut -d. -f1,2); \
		KVER=$$k VM_LABEL=$$series tests/vm/run.sh $(RELIABILITY_SCENARIOS) || rc=1; \
	done; exit $$rc

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
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/vm/prog clean
	$(MAKE) -C helper clean
