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
#   make check-reliability  the long fault matrices (RELIABILITY), both kernels
#   make modules-all     hypercache.ko for each kernel in scripts/kernels.sh
#   make KVER=6.12.…     build for another installed kernel (or KDIR=path)
#
# Without KVER/KDIR the running kernel's headers are used when installed,
# otherwise the newest installed 6.1 kernel headers (the tested target).

KVER ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
	else ls -d /lib/modules/6.1.*/build 2>/dev/null | sort -V | tail -n1 | \
	cut -d/ -f4; fi)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: all module modules-all tools helper test-progs check demo unit vm clean deps dkms-check check-reliability

all: module tools helper

module:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)' (set KVER= or KDIR=)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# hypercache.ko for every supported installed kernel (scripts/kernels.sh),
# each built in its own copy of the sources under build/kmod/KVER/src (so
# that builds for different kernels never share objects) and left as
# build/kmod/KVER/hypercache.ko for the VM tests of that kernel.
modules-all:
	@set -e; for k in $$(scripts/kernels.sh); do \
		d=build/kmod/$$k; mkdir -p $$d/src; \
		cp -pu Kbuild $$d/src/; mkdir -p $$d/src/kmod/core $$d/src/uapi; \
		cp -pu kmod/*.c kmod/*.h $$d/src/kmod/; cp -pu kmod/core/*.c kmod/core/*.h $$d/src/kmod/core/; cp -pu uapi/*.h $$d/src/uapi/; \
		echo "  MODULE  $$k"; \
		$(MAKE) --no-print-directory -s -C /lib/modules/$$k/build M=$(CURDIR)/$$d/src W=1 modules; \
		cp $$d/src/hypercache.ko $$d/; \
	done

tools:
	$(MAKE) -C tools/hcctl
	$(MAKE) -C tools/hcsim

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

# The main job: a pool on emulated NVMe drives in a QEMU guest.
demo: deps
	$(MAKE) modules-all all test-progs
	scripts/demo.sh

unit:
	$(MAKE) -C tests/unit run

vm: modules-all tools test-progs
	tests/run-all.sh --vm-only

# Scenarios too long for make check (tests/vm/scenarios/r-*.sh), run on
# every supported kernel; make check runs a slice of each.
RELIABILITY ?= r-jmirror-full
check-reliability: modules-all tools test-progs
	@rc=0; for k in $$(scripts/kernels.sh); do \
		KVER=$$k VM_LABEL=$$k tests/vm/run.sh $(RELIABILITY) || rc=1; \
	done; exit $$rc

dkms-check:
	scripts/dkms-check.sh $(KVER)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/hcctl clean
	$(MAKE) -C tools/hcsim clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/vm/prog clean
	$(MAKE) -C helper clean
