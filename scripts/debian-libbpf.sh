#!/bin/bash
# Debian's own libbpf with mainline's BPF tokens, for tests/vm-mainline:
# the newest libbpf1 and libbpf-dev of bookworm-backports (1.4 or later:
# a token made implicitly from LIBBPF_BPF_TOKEN_PATH or /sys/fs/bpf),
# downloaded, never installed (the system keeps its libbpf 1.1), and
# extracted into build/debian-libbpf/:
#   usr/lib/MULTIARCH/libbpf.so.1 ...   the shared library, unmodified
#   usr/include/bpf/*.h                 its headers
#   version                             the Debian version of both
#
#   debian-libbpf.sh
#
# bookworm-backports, the lists and the cache are scripts/lib/debian-apt.sh's
# (DEBIAN_SOURCES, DEBIAN_APT_CACHE). One line and nothing else when
# build/debian-libbpf already holds the newest version. The top-level
# Makefile then links tests/abi/libbpf-load.c with it (`make
# debian-libbpf`).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$TOP/scripts/lib/debian-apt.sh"

out=$BUILD/debian-libbpf
apt_backports

# the newest version bookworm-backports has of libbpf1
ver=$(apt-cache madison libbpf1 | awk -F' *[|] *' '$3 ~ / bookworm-backports\// { print $2 }' |
	sort -V | tail -n 1 || true)
[[ -n $ver ]] || die "no libbpf1 in bookworm-backports' package lists"
dpkg --compare-versions "$ver" ge 1:1.4 || die "bookworm-backports' libbpf1 is $ver: mainline's tokens need 1.4"

if [[ -f $out/version && $(<"$out/version") == "$ver" && $out/version -nt ${BASH_SOURCE[0]} ]]; then
	echo "debian-libbpf: libbpf $ver, up to date"
	exit 0
fi

debs=()
for p in libbpf1 libbpf-dev; do
	debs+=("$(apt_fetch "$p" "$ver")")
done
mkdir -p "$BUILD"
new=$(mktemp -d "$BUILD/debian-libbpf.tmp.XXXXXX")
trap 'rm -rf "$new"' EXIT
for d in "${debs[@]}"; do
	dpkg-deb -x "$d" "$new" || die "dpkg-deb -x $d failed"
done
if ! compgen -G "$new/usr/lib/*/libbpf.so.1" >/dev/null || [[ ! -f $new/usr/include/bpf/libbpf.h ]]; then
	die "libbpf1/libbpf-dev $ver: no libbpf.so.1 or bpf/libbpf.h"
fi
echo "$ver" >"$new/version"
rm -rf "$out"
mv "$new" "$out"
trap - EXIT
echo "debian-libbpf: libbpf $ver in ${out#"$TOP"/}"
