# Common paths for the pipeline scripts (sourced, not executed).
# Every path may be overridden from the environment.
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
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
