#!/bin/bash
# `make check-debug`: the whole VM suite on a debug kernel.
#
# The kernel is the same tree built into build/kobj-debug (DEBUG_KOBJ) from
# kernel/config + kernel/config-debug (KASAN, kmemleak, lockdep, PROVE_RCU,
# atomic-sleep checks, UBSAN, debug objects, fault injection); it is built as
# the first BUILD_STEPS step (make build-kernel-debug, nice 15), so a failed
# build is one failed test. Then the VMs of scripts/run-tests.sh (one per
# CPU, each booted once, sharing the files of the suite) each run:
#   tests/vm-debug/kmemleak-begin.bats  (a first scan; what boot left is
#                                        printed and set aside)
#   their share of tests/vm/*.bats      (the normal suite, with longer stress
#                                        and fuzz runs: STRESS_SECONDS,
#                                        FUZZ_SECONDS, default 60)
#   tests/vm-debug/kmemleak-end.bats    (two scans with a pause: no leak)
# and the kernel log of each must be free of KASAN, lockdep, RCU, UBSAN,
# ODEBUG, WARNING, BUG and kmemleak reports (scripts/vm-run.sh). The smoke
# test checks that the running kernel is the debug build (GNU build ID).
# Last line: `N passed, N failed`; exits non-zero on any failure.
set -euo pipefail
source "$(dirname "$0")/common.sh"

export KOBJ=${DEBUG_KOBJ:-$BUILD/kobj-debug}
export KERNEL=$KOBJ/arch/x86/boot/bzImage
export VM_TESTS=${VM_TESTS:-tests/vm}
export VM_PRE=${VM_PRE:-tests/vm-debug/kmemleak-begin.bats}
export VM_POST=${VM_POST:-tests/vm-debug/kmemleak-end.bats}
export VM_ENV="DEBUG_KERNEL=1 STRESS_SECONDS=${STRESS_SECONDS:-60} FUZZ_SECONDS=${FUZZ_SECONDS:-60} ${VM_ENV:-}"
# KASAN, lockdep and kmemleak under TCG: everything is several times slower.
export VM_TIMEOUT=${VM_TIMEOUT:-5400}
export BUILD_STEPS=${BUILD_STEPS:-build-kernel-debug build-bpftool}
# Results and the VM exchange dir apart from `make check`'s.
export TEST_RESULTS=${TEST_RESULTS:-$BUILD/test-results/debug}
export VM_OUT=${VM_OUT:-$BUILD/vm-out/check-debug}

SECONDS=0
log "check-debug: kernel $KOBJ, tests: $VM_TESTS"
mkdir -p "$TEST_RESULTS"
out=$TEST_RESULTS/check-debug.log
set +e
"$TOP/scripts/run-tests.sh" vm 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
set -e
log "check-debug: done in $((SECONDS / 60))m$((SECONDS % 60))s (step times above)"
# The summary stays the last line.
tail -n 1 "$out"
exit "$rc"
