#!/bin/bash
# The demo, run inside the VM by `make demo` (as root, cwd = project dir).
# Each command is echoed before its output.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BPFTOOL=${BPFTOOL:-$TOP/build/bpftool/bpftool}

run() {
	printf '\n$ %s\n' "$*"
	"$@"
}

bpftool() { "$BPFTOOL" "$@"; }

run uname -a
run bpftool version
run sh -c 'mount | grep bpf'
