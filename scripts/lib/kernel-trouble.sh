# What counts as kernel trouble in a kernel log (sourced, not executed):
# scripts/vm-run.sh fails a VM whose log has any of it, and the VM tests
# that look at the log themselves (tests/vm/lib.bash: kernel_trouble) use
# the same words. Panics, oopses, BUG:/WARNING: (KASAN, lockdep and RCU
# say these too), general protection faults, stack dumps, and the debug
# kernel's other reporters: UBSAN, debug objects, kmemleak, lockdep's INFO.
KERNEL_TROUBLE='Kernel panic|Oops|BUG:|WARNING:|general protection fault|Call Trace:'
KERNEL_TROUBLE+='|UBSAN:|ODEBUG:|suspected memory leak|kmemleak: .*disabled'
KERNEL_TROUBLE+='|INFO: (possible|suspicious|inconsistent)'

# kernel_trouble_lines [MAX]: the lines of stdin that report trouble, at
# most MAX (default 20); always exits 0.
kernel_trouble_lines() {
	{ grep -aE "$KERNEL_TROUBLE" || true; } | head -n "${1:-20}"
}
