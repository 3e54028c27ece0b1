# bpf-token build and test pipeline. See README.md.
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
	test-build test-host test-vm check check-debug demo bench vm-shell clean distclean

all: kernel libbpf bpftool test-build

help:
	@sed -n '3,7p' $(TOP)/Makefile | sed 's/^# *//'
	@echo 'steps: deps tree kernel libbpf bpftool install test-build test-host test-vm'
	@echo 'other: export-patches bench vm-shell clean distclean'

deps:
	@$(TOP)/scripts/deps.sh

tree: deps
	@$(TOP)/scripts/tree.sh prepare

export-patches:
	@$(TOP)/scripts/tree.sh export

# Build the kernel and libbpf after each patch of the series (slow: every
# patch is a separate incremental build, in build/series + build/kobj-series).
series-check: kernel
	@$(TOP)/scripts/series-check.sh

kernel: tree
	@$(TOP)/scripts/kernel.sh

libbpf: tree
	@$(TOP)/scripts/libbpf.sh

bpftool: tree
	@$(MAKE) --no-print-directory build-bpftool

# make install [PREFIX=/usr/local] [DESTDIR=]: bpftool, its man pages and
# completion, and the shared libbpf in $(PREFIX)/lib/bpf-token/
install: bpftool libbpf
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" $(TOP)/scripts/bpftool.sh install

# Test binaries: tests/helpers/*.c -> build/tests/*, then every
# tests/<dir>/Makefile (tests/progs first: BPF programs the others may use),
# called with $(SUBMAKE_VARS) and OUTPUT=build/<dir>/.
TEST_SUBDIRS := $(notdir $(patsubst %/Makefile,%,$(wildcard $(TOP)/tests/*/Makefile)))
TEST_SUBDIRS := $(filter progs,$(TEST_SUBDIRS)) $(filter-out progs,$(TEST_SUBDIRS))
TEST_BUILD_STEPS := build-helpers $(addprefix build-tests-,$(TEST_SUBDIRS))

test-build: libbpf
	@$(MAKE) --no-print-directory $(TEST_BUILD_STEPS)

# build-* steps have no prerequisites: `make check` runs them one by one
# (scripts/run-tests.sh) and counts a failing one as a failed test instead of
# stopping before the tests.
.PHONY: build-bpftool $(TEST_BUILD_STEPS)
build-bpftool:
	@$(TOP)/scripts/bpftool.sh build

build-helpers: $(HELPERS)
	@:

$(TEST_BIN)/%: $(TOP)/tests/helpers/%.c $(LIBBPF_A)
	@mkdir -p $(TEST_BIN)
	@echo "  CC      $(@:$(TOP)/%=%)"
	@$(CC) $(TEST_CFLAGS) $< $(TEST_LDLIBS) -o $@

$(addprefix build-tests-,$(TEST_SUBDIRS)): build-tests-%:
	@$(MAKE) --no-print-directory -C $(TOP)/tests/$* $(SUBMAKE_VARS) \
		PROGS_OUTPUT=$(BUILD)/progs/ OUTPUT=$(BUILD)/$*/

test-host: bpftool test-build
	@$(TOP)/scripts/run-tests.sh host

test-vm: kernel bpftool test-build
	@$(TOP)/scripts/run-tests.sh vm

check: kernel libbpf
	@BUILD_STEPS="build-bpftool $(TEST_BUILD_STEPS)" $(TOP)/scripts/run-tests.sh all

# The VM suite on a debug kernel (kernel/config + kernel/config-debug: KASAN,
# kmemleak, lockdep, UBSAN...) built into build/kobj-debug, longer stress and
# fuzz runs, then a kmemleak scan; see scripts/check-debug.sh.
check-debug: tree libbpf
	@BUILD_STEPS="build-kernel-debug build-bpftool $(TEST_BUILD_STEPS)" \
		$(TOP)/scripts/check-debug.sh

.PHONY: build-kernel-debug
build-kernel-debug:
	@KOBJ=$(BUILD)/kobj-debug KCONFIG_EXTRA=$(TOP)/kernel/config-debug \
		nice -n 15 $(TOP)/scripts/kernel.sh

# The demo loads tests/progs' objects and passes a token with
# build/tests/token-pass: build them first.
demo: kernel bpftool libbpf
	@$(MAKE) --no-print-directory build-tests-progs build-helpers
	@$(TOP)/scripts/vm-run.sh --timeout 600 -- $(TOP)/scripts/demo.sh

# Benchmarks (not part of check): one VM boot, build/bench/results.json.
# BENCH_ARGS go to build/bench/bench (-q: a quick run). See
# Documentation/benchmarks.md.
bench: kernel bpftool libbpf
	@$(MAKE) --no-print-directory build-tests-progs build-tests-bench
	@$(TOP)/scripts/bench.sh $(BENCH_ARGS)

vm-shell: kernel bpftool
	@$(TOP)/scripts/vm-run.sh --shell

# clean keeps the tree (and its commits) and the ccache; distclean removes
# all of build/ except build/linux, which may hold unexported work.
clean:
	rm -rf $(BUILD)/libbpf $(BUILD)/bpftool $(BUILD)/bpftool-src \
		$(BUILD)/bpftool-stage $(BUILD)/tests $(BUILD)/test-results \
		$(BUILD)/vm-out $(addprefix $(BUILD)/,$(TEST_SUBDIRS))

distclean: clean
	rm -rf $(KOBJ) $(BUILD)/tree.stamp $(BUILD)/tarball.sha256

# The kernel's BPF selftests as the oracle, token parity, config matrix.
include $(TOP)/tests/oracle/oracle.mk
