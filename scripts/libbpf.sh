#!/bin/bash
# Static libbpf from the patched tree: build/libbpf/libbpf.a and its public
# headers in build/libbpf/include/bpf/. Tests use these together with the
# tree's UAPI headers (build/linux/tools/include/uapi), never the host's.
set -euo pipefail
source "$(dirname "$0")/common.sh"

OUT=$BUILD/libbpf
[[ -d $KSRC/tools/lib/bpf ]] || die "no tree in $KSRC: run 'make tree'"
mkdir -p "$OUT"
make -C "$KSRC/tools/lib/bpf" -s -j"$JOBS" OUTPUT="$OUT/" DESTDIR="$OUT" prefix= \
	"$OUT/libbpf.a" install_headers
echo "libbpf: $OUT/libbpf.a"
