# Common paths for the pipeline scripts (sourced, not executed).
# Every path may be overridden from the environment.
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-$TOP/build}
KSRC=${KSRC:-$BUILD/linux}
KOBJ=${KOBJ:-$BUILD/kobj}
JOBS=${JOBS:-$(($(nproc) + 1))}
# ccache (and git) need a home even in a bare CI environment.
export HOME=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
# Keep command-line variables of the top-level make away from sub-makes
# (e.g. the kernel's own Makefile).
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

die() { echo "error: $*" >&2; exit 1; }
log() { echo ">>> [$(date +%T)] $*"; }

# The host's TSC rate in kHz, from what its kernel measured, or from
# /proc/cpuinfo where the TSC runs at a constant rate; empty if unknown.
# A TCG guest's TSC counts at this rate (scripts/vm-run.sh, scripts/bench.sh).
host_tsc_khz() {
	local mhz
	mhz=$(dmesg 2>/dev/null | sed -n -e 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' \
		-e 's/.*tsc: Detected \([0-9.]*\) MHz TSC.*/\1/p' | tail -n1)
	[[ -n $mhz ]] ||
		mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz processor.*/\1/p' | tail -n1)
	[[ -n $mhz ]] || ! grep -qw constant_tsc /proc/cpuinfo ||
		mhz=$(sed -n 's/^cpu MHz[[:space:]]*: \([0-9.]*\)$/\1/p' /proc/cpuinfo | head -n1)
	[[ $mhz =~ ^[0-9]+(\.[0-9]+)?$ ]] || return 0
	awk -v m="$mhz" 'BEGIN { printf "%d\n", m * 1000 + 0.5 }'
}
