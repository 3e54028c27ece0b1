# bpf-token build and test pipeline. `make help` lists the targets.
#
#   make demo     build everything, boot the patched kernel, run scripts/demo.sh
#   make check    build everything, host tests, VM tests, `N passed, N failed`
#
# Every step is incremental: a second `make check` with no change only reruns
# the tests.

SHELL := /bin/bash
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build
KSRC := $(BUILD)/linux
KOBJ := $(BUILD)/kobj
export TOP BUILD KSRC KOBJ

# Test programs are built against the patched libbpf and UAPI, never the
# host's <linux/bpf.h>.
LIBBPF_DIR := $(BUILD)/libbpf
LIBBPF_A := $(LIBBPF_DIR)/libbpf.a
LIBBPF_INCLUDE := $(LIBBPF_DIR)/include
UAPI_INCLUDE := $(KSRC)/tools/include/uapi
BPFTOOL := $(BUILD)/bpftool/bpftool
TEST_BIN := $(BUILD)/tests
TEST_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter \
	-I$(UAPI_INCLUDE) -I$(LIBBPF_INCLUDE)
TEST_LDLIBS := $(LIBBPF_A) -lelf -lz

# Variables handed to tests/selftests/Makefile and tests/progs/Makefile.
SUBMAKE_VARS := TOP=$(TOP) KSRC=$(KSRC) LIBBPF_A=$(LIBBPF_A) \
	LIBBPF_INCLUDE=$(LIBBPF_INCLUDE) UAPI_INCLUDE=$(UAPI_INCLUDE) \
	TOOLS_INCLUDE=$(KSRC)/tools/include BPFTOOL=$(BPFTOOL) CLANG=clang \
	LLVM_STRIP=llvm-strip

HELPER_SRCS := $(wildcard $(TOP)/tests/helpers/*.c)
HELPERS := $(patsubst $(TOP)/tests/helpers/%.c,$(TEST_BIN)/%,$(HELPER_SRCS))

.PHONY: all help deps tree export-patches series-check kernel libbpf bpftool install \
	test-build test-host test-vm check check-debug check-debug-kernel demo bench \
	fuzz-needs-long vm-shell clean distclean debian-kernel debian-libbpf test-vm-mainline

RESULTS := $(BUILD)/test-results
DEBUG_KOBJ := $(BUILD)/kobj-debug
DEBUG_RESULTS := $(RESULTS)/debug

# `make help` lists the targets of this file and of the files it includes,
# in order, each with the text of its `## ` comment.

all: kernel libbpf bpftool test-build ## build the kernel, libbpf, bpftool and the tests

help: ## list the targets
	@echo 'make TARGET, with TARGET one of:'
	@awk '/^[a-z][a-z0-9-]*:([^=]|$$)/ && !/^build-/ { \
		t = $$0; sub(/:.*/, "", t); d = ""; \
		if (index($$0, "## ")) { d = $$0; sub(/.*## /, "", d) } \
		if (!seen[t]++) printf "  %-19s %s\n", t, d }' $(MAKEFILE_LIST)

deps: ## apt-get install the missing Debian packages
	@$(TOP)/scripts/deps.sh

tree: deps ## build/linux: the Debian tarball + kernel/patches (git am)
	@$(TOP)/scripts/tree.sh prepare

export-patches: ## rewrite kernel/patches from build/linux (baseline..HEAD)
	@$(TOP)/scripts/tree.sh export

# Build the kernel and libbpf after each patch of the series (slow: every
# patch is a separate incremental build, in build/series + build/kobj-series).
series-check: kernel ## build and checkpatch each patch of the series on its own
	@$(TOP)/scripts/series-check.sh

kernel: tree ## build/kobj's bzImage (tinyconfig + kernel/config)
	@$(TOP)/scripts/kernel.sh

libbpf: tree ## build/libbpf: libbpf.a, libbpf.so.1 and headers of the patched tree
	@$(TOP)/scripts/libbpf.sh

bpftool: tree ## build/bpftool: bpftool with the token overlay, its man pages
	@$(MAKE) --no-print-directory build-bpftool

# make install [PREFIX=/usr/local] [DESTDIR=]: bpftool, its man pages and
# completion, the shared libbpf in $(PREFIX)/lib/bpf-token/, and the OCI hook
# (oci/Makefile: $(PREFIX)/libexec/bpf-token/oci-hook and its hooks.d file)
install: bpftool libbpf ## install bpftool, man pages, completion, libbpf.so.1, the OCI hook (PREFIX, DESTDIR)
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" $(TOP)/scripts/bpftool.sh install
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" $(TOP)/scripts/libbpf.sh install
	@$(MAKE) --no-print-directory -s -C $(TOP)/oci install PREFIX="$(or $(PREFIX),/usr/local)" DESTDIR="$(DESTDIR)"

# Test binaries: tests/helpers/*.c -> build/tests/*, then every
# tests/<dir>/Makefile (tests/progs first: BPF programs the others may use),
# called with $(SUBMAKE_VARS) and OUTPUT=build/<dir>/.
TEST_SUBDIRS := $(notdir $(patsubst %/Makefile,%,$(wildcard $(TOP)/tests/*/Makefile)))
TEST_SUBDIRS := $(filter progs,$(TEST_SUBDIRS)) $(filter-out progs,$(TEST_SUBDIRS))
TEST_BUILD_STEPS := build-helpers $(addprefix build-tests-,$(TEST_SUBDIRS))

test-build: libbpf ## build the test programs (tests/helpers, tests/*/Makefile)
	@$(MAKE) --no-print-directory $(TEST_BUILD_STEPS)

# build-* steps have no prerequisites: `make check` runs them one by one
# (scripts/build-steps.sh) and counts a failing one as a failed test instead
# of stopping before the tests.
.PHONY: build-bpftool $(TEST_BUILD_STEPS)
build-bpftool:
	@$(TOP)/scripts/bpftool.sh build

build-helpers: $(HELPERS)
	@:

$(TEST_BIN)/%: $(TOP)/tests/helpers/%.c $(wildcard $(TOP)/tests/helpers/*.h) $(LIBBPF_A)
	@mkdir -p $(TEST_BIN)
	@echo "  CC      $(@:$(TOP)/%=%)"
	@$(CC) $(TEST_CFLAGS) $< $(TEST_LDLIBS) -o $@

$(addprefix build-tests-,$(TEST_SUBDIRS)): build-tests-%:
	@$(MAKE) --no-print-directory -C $(TOP)/tests/$* $(SUBMAKE_VARS) \
		PROGS_OUTPUT=$(BUILD)/progs/ OUTPUT=$(BUILD)/$*/

# The suites: HOST_TESTS / VM_TESTS select bats files or directories
# (e.g. VM_TESTS=tests/vm/smoke.bats); the VM suite runs in VM_SHARDS VMs
# (default: one per CPU). See scripts/host-suite.sh, scripts/vm-suite.sh.
# The VM suite's files unless VM_TESTS says otherwise: tests/vm, and
# tests/abi (mainline's token ABI case by case, against a mainline
# kernel's results).
VM_TESTS ?= tests/vm tests/abi
test-host: bpftool test-build ## run the host tests (HOST_TESTS); summary line
	-@$(TOP)/scripts/host-suite.sh $(RESULTS)/host.tap
	@$(TOP)/scripts/tap-summary.sh $(RESULTS)/host.tap

test-vm: kernel bpftool test-build debian-libbpf ## run the VM tests (VM_TESTS, VM_SHARDS); summary line
	-@VM_OUT=$(BUILD)/vm-out/check VM_TESTS="$(VM_TESTS)" $(TOP)/scripts/vm-suite.sh $(RESULTS)/vm
	@$(TOP)/scripts/tap-summary.sh $(RESULTS)/vm

# Mainline's token ABI, on Debian's own prebuilt 6.12 kernel
# (scripts/debian-kernel.sh: build/debian-kernel/, its vmlinuz and an
# initramfs that mounts the 9p root, whose modules that kernel lacks built
# in): tests/vm-mainline and tests/abi (the cases both kernels run, the
# same results expected but for this kernel's extensions) in its VMs
# (scripts/vm-suite.sh), then
# tests/vm-mainline-host, which boots VMs of its own (a known mainline bug
# that oopses the kernel), on the host; TAP into $(RESULTS)/vm-mainline.
MAINLINE_VM := KERNEL=$(BUILD)/debian-kernel/vmlinuz VM_INITRD=$(BUILD)/debian-kernel/initrd.img
MAINLINE_RESULTS := $(RESULTS)/vm-mainline
MAINLINE_SUITE := $(MAINLINE_VM) VM_TESTS="tests/vm-mainline tests/abi" \
	VM_OUT=$(BUILD)/vm-out/mainline VM_DURATIONS=$(TOP)/tests/vm-mainline/durations \
	$(TOP)/scripts/vm-suite.sh $(MAINLINE_RESULTS)
MAINLINE_HOST := $(MAINLINE_VM) HOST_TESTS=tests/vm-mainline-host \
	$(TOP)/scripts/host-suite.sh $(MAINLINE_RESULTS)/host.tap

debian-kernel: ## build/debian-kernel: Debian's 6.12 kernel (apt-get download) and an initramfs for the VM
	@$(TOP)/scripts/debian-kernel.sh

# Debian's libbpf 1.4 (bookworm-backports; scripts/debian-libbpf.sh), and
# the application tests/abi/libbpf-token.bats runs, linked with it
# (its shared library, found through the binary's RUNPATH).
DEBIAN_LIBBPF := $(BUILD)/debian-libbpf
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
debian-libbpf: ## build/debian-libbpf: Debian's libbpf 1.4 (apt-get download) and an application linked with it
	@$(TOP)/scripts/debian-libbpf.sh
	@$(MAKE) --no-print-directory -s $(DEBIAN_LIBBPF)/libbpf-load

$(DEBIAN_LIBBPF)/libbpf-load: $(TOP)/tests/abi/libbpf-load.c $(TOP)/tests/helpers/mainline_abi.h \
		$(TOP)/tests/helpers/testutil.h $(DEBIAN_LIBBPF)/version
	@echo "  CC      $(@:$(TOP)/%=%)"
	@$(CC) -O2 -g -Wall -Wextra -Werror -I$(DEBIAN_LIBBPF)/usr/include -I$(TOP)/tests/helpers $< \
		-L$(DEBIAN_LIBBPF)/usr/lib/$(MULTIARCH) -lbpf \
		-Wl,-rpath,'$$ORIGIN/usr/lib/$(MULTIARCH)' -o $@

test-vm-mainline: debian-kernel debian-libbpf bpftool test-build ## the tests of mainline's token ABI on Debian's 6.12 kernel; summary line
	-@$(MAINLINE_SUITE)
	-@$(MAINLINE_HOST)
	@$(TOP)/scripts/tap-summary.sh $(MAINLINE_RESULTS)

# check: the kernel and libbpf first (no test can run without them), then
# each step below whatever the ones before it did; a build step that fails
# is a failed test; the last line sums everything (scripts/tap-summary.sh).
check: kernel libbpf ## build everything, run the host and VM tests; last line "N passed, N failed"
	-@$(TOP)/scripts/build-steps.sh $(RESULTS)/build.tap build-bpftool $(TEST_BUILD_STEPS) debian-kernel debian-libbpf
	-@$(TOP)/scripts/host-suite.sh $(RESULTS)/host.tap
	-@VM_OUT=$(BUILD)/vm-out/check VM_TESTS="$(VM_TESTS)" $(TOP)/scripts/vm-suite.sh $(RESULTS)/vm
	-@$(MAINLINE_SUITE)
	-@$(MAINLINE_HOST)
	@$(TOP)/scripts/tap-summary.sh $(RESULTS)/build.tap $(RESULTS)/host.tap $(RESULTS)/vm $(MAINLINE_RESULTS)

# The VM suite on a debug kernel: the same tree built into build/kobj-debug
# from kernel/config + kernel/config-debug (KASAN, kmemleak, lockdep with
# PROVE_RCU, atomic-sleep checks, UBSAN, debug objects, fault injection).
# Every VM runs tests/vm-debug/kmemleak-begin.bats first (what boot left is
# set aside) and kmemleak-end.bats last (no leak); stress and fuzzing run
# DEBUG_SECONDS each; the kernel log of each VM must stay free of KASAN,
# lockdep, RCU, UBSAN, ODEBUG, WARNING, BUG and kmemleak reports. Under TCG
# the debug kernel is four to five times slower. DEBUG_VM_TESTS: the files
# (default: all of tests/vm).
DEBUG_VM_TESTS ?= tests/vm
DEBUG_SECONDS ?= 60
check-debug: tree libbpf ## the debug kernel and the whole VM suite on it; summary line
	-@$(TOP)/scripts/build-steps.sh $(DEBUG_RESULTS)/build.tap \
		build-kernel-debug build-bpftool $(TEST_BUILD_STEPS)
	-@KERNEL=$(DEBUG_KOBJ)/arch/x86/boot/bzImage KOBJ=$(DEBUG_KOBJ) \
		VM_TESTS="$(DEBUG_VM_TESTS)" VM_TIMEOUT=5400 VM_OUT=$(BUILD)/vm-out/check-debug \
		VM_PRE=tests/vm-debug/kmemleak-begin.bats VM_POST=tests/vm-debug/kmemleak-end.bats \
		VM_DURATIONS=$(TOP)/tests/vm-debug/durations \
		VM_ENV="DEBUG_KERNEL=1 STRESS_SECONDS=$(DEBUG_SECONDS) FUZZ_SECONDS=$(DEBUG_SECONDS) $(VM_ENV)" \
		$(TOP)/scripts/vm-suite.sh $(DEBUG_RESULTS)/vm
	@$(TOP)/scripts/tap-summary.sh $(DEBUG_RESULTS)/build.tap $(DEBUG_RESULTS)/vm

# The VM files that drive the kernel's token code itself (its selftests,
# the LSM hooks and audit among them, races, fault injection, fuzzing, user
# namespaces, what a token grants, attach scope, a delegated token's
# reopen): what CI runs on the debug kernel.
# container.bats (ip, tc and bpftool in a container; over 3 minutes there)
# is left to `make check-debug`: the kernel paths it reaches, a BPF FS and
# tokens bound to a user namespace, are token-userns.bats' and the
# selftests'.
KERNEL_VM_TESTS ?= $(patsubst $(TOP)/%,%,$(sort $(wildcard $(addprefix $(TOP)/tests/vm/, \
	smoke.bats token-selftests.bats stress.bats fault-inject.bats fuzz-syscall.bats \
	token-userns.bats token-grants.bats token-audit.bats token-reopen.bats token-attacks.bats \
	attach*.bats))))
check-debug-kernel: ## check-debug on KERNEL_VM_TESTS only (CI's debug pass)
	@$(MAKE) --no-print-directory check-debug DEBUG_VM_TESTS="$(KERNEL_VM_TESTS)"

.PHONY: build-kernel-debug
build-kernel-debug:
	@KOBJ=$(DEBUG_KOBJ) KCONFIG_EXTRA=$(TOP)/kernel/config-debug \
		nice -n 15 $(TOP)/scripts/kernel.sh

# The demo loads tests/progs' objects and passes a token with
# build/tests/token-pass: build them first. (tests/vm/demo.bats runs the
# same script as a test of the VM suite.)
demo: kernel bpftool libbpf ## boot the patched kernel and run the demo (scripts/demo.sh)
	@$(MAKE) --no-print-directory build-tests-progs build-helpers
	@$(TOP)/scripts/vm-run.sh --timeout 600 -- $(TOP)/scripts/demo.sh

# Benchmarks (not part of check): one VM boot, build/bench/results.json.
# BENCH_ARGS go to build/bench/bench (-q: a quick run). See
# Documentation/benchmarks.md.
bench: kernel bpftool libbpf ## benchmarks in one VM (BENCH_ARGS); build/bench/results.json
	@$(MAKE) --no-print-directory build-tests-progs build-tests-bench
	@$(TOP)/scripts/bench.sh $(BENCH_ARGS)

# A long libFuzzer run of bpftool's parse of BPF objects (not part of check,
# whose host suite runs tests/host/fuzz-needs.bats for FUZZ_NEEDS_RUNS
# executions): FUZZ_NEEDS_SECONDS (default 1800) of the same test, from the
# committed corpus and what earlier long runs found, kept in
# build/fuzz/corpus-needs/. A crashing input stays in build/fuzz/needs-crashes/
# and the test prints its path.
FUZZ_NEEDS_SECONDS ?= 1800
fuzz-needs-long: bpftool ## a long libFuzzer run of bpftool's object parse (FUZZ_NEEDS_SECONDS); summary line
	-@FUZZ_NEEDS_SECONDS=$(FUZZ_NEEDS_SECONDS) FUZZ_NEEDS_CORPUS=$(BUILD)/fuzz/corpus-needs \
		HOST_TESTS=tests/host/fuzz-needs.bats $(TOP)/scripts/host-suite.sh $(RESULTS)/fuzz-needs.tap
	@$(TOP)/scripts/tap-summary.sh $(RESULTS)/fuzz-needs.tap

vm-shell: kernel bpftool ## an interactive root shell in the VM
	@$(TOP)/scripts/vm-run.sh --shell

# clean keeps the tree (and its commits) and the ccache; distclean removes
# all of build/ except build/linux, which may hold unexported work (the
# series check's worktree goes too: git forgets it at its next prune).
clean: ## remove the build products (keeps build/linux and kernel builds)
	rm -rf $(BUILD)/libbpf $(BUILD)/bpftool $(BUILD)/bpftool-src \
		$(BUILD)/bpftool-stage $(BUILD)/tests $(BUILD)/test-results \
		$(BUILD)/vm-out $(addprefix $(BUILD)/,$(TEST_SUBDIRS))

distclean: clean ## all of build/ but build/linux (kernel builds, Debian's kernel and libbpf)
	find $(BUILD) -mindepth 1 -maxdepth 1 ! -name linux -exec rm -rf {} +

# The kernel's BPF selftests as the oracle, token parity, config matrix.
include $(TOP)/tests/oracle/oracle.mk
