#!/bin/bash
# libbpf from the patched tree.
#
#   libbpf.sh [build]   -> build/libbpf/libbpf.a, build/libbpf/include/bpf/*.h
#                          and the shared build/libbpf/libbpf.so.1 (-> libbpf.so.X.Y.Z)
#   libbpf.sh install   -> $DESTDIR$PREFIX/lib/bpf-token/libbpf.so.1 (+ the real file)
#
# Tests link the static library together with the tree's UAPI headers
# (build/linux/tools/include/uapi), never the host's. The shared library has
# the soname libbpf.so.1 and the version nodes of libbpf.map, so it can stand
# in for a distribution's libbpf1 (1.1.x) under LD_LIBRARY_PATH: an existing,
# dynamically linked libbpf application then honours LIBBPF_BPF_TOKEN_PATH.
# It is installed in a directory of its own, never over the system's libbpf.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

OUT=$BUILD/libbpf

# The tree's version: the highest LIBBPF_X.Y.Z node of libbpf.map, as
# tools/lib/bpf/Makefile computes it.
so_version() {
	grep -oE '^LIBBPF_[0-9.]+' "$1" | cut -d_ -f2 | sort -rV | head -n1
}

# The functions of libbpf/abi-compat.c (Debian's libbpf 1.1.2 has them, the
# tree's libbpf 1.1.0 not), added to the LIBBPF_1.1.0 node of the version
# script, unless the tree has them itself.
COMPAT_SYMS="bpf_btf_get_fd_by_id_opts bpf_link_get_fd_by_id_opts
	bpf_map_get_fd_by_id_opts bpf_prog_get_fd_by_id_opts"

build() {
	local src=$KSRC/tools/lib/bpf ver map objs s tmp bad
	[[ -d $src ]] || die "no tree in $KSRC: run 'make tree'"
	ver=$(so_version "$src/libbpf.map")
	[[ -n $ver ]] || die "no LIBBPF_X.Y.Z version node in tools/lib/bpf/libbpf.map"
	mkdir -p "$OUT"
	make -C "$src" -s -j"$JOBS" OUTPUT="$OUT/" DESTDIR="$OUT" prefix= \
		"$OUT/libbpf.a" "$OUT/sharedobjs/libbpf-in.o" install_headers

	# The shared library, linked here rather than by the tree's Makefile so
	# that the compatibility functions can join it.
	map=$src/libbpf.map
	objs=("$OUT/sharedobjs/libbpf-in.o")
	if ! grep -qw bpf_prog_get_fd_by_id_opts "$map"; then
		${CC:-cc} -g -O2 -Wall -Werror -fPIC -fvisibility=hidden \
			-I"$KSRC/tools/include/uapi" -c "$TOP/libbpf/abi-compat.c" \
			-o "$OUT/abi-compat.o"
		objs+=("$OUT/abi-compat.o")
		awk -v syms="$COMPAT_SYMS" '
			{ print }
			/^LIBBPF_1\.1\.0 \{/ { node = 1 }
			node && /global:/ {
				n = split(syms, s, /[ \t\n]+/)
				for (i = 1; i <= n; i++) if (s[i] != "") print "\t\t" s[i] ";"
				node = 0; done = 1
			}
			END { if (!done) exit 1 }' "$src/libbpf.map" >"$OUT/libbpf.so.map" ||
			die "no LIBBPF_1.1.0 node with a global: line in tools/lib/bpf/libbpf.map"
		map=$OUT/libbpf.so.map
	fi
	tmp=$OUT/libbpf.so.$ver.new
	${CC:-cc} -g -O2 -shared -Wl,-soname,libbpf.so.1 -Wl,--version-script="$map" \
		"${objs[@]}" -lelf -lz -o "$tmp"
	# Every exported symbol carries a version (the tree's check_abi rule)
	bad=$(nm -D --defined-only --with-symbol-versions "$tmp" |
		awk '$2 ~ /^[TDBRVW]$/ && $3 !~ /@/ { print $3 }')
	[[ -z $bad ]] || die "unversioned symbols in libbpf.so: $bad"
	if cmp -s "$tmp" "$OUT/libbpf.so.$ver"; then rm -f "$tmp"; else mv -f "$tmp" "$OUT/libbpf.so.$ver"; fi
	ln -sfn "libbpf.so.$ver" "$OUT/libbpf.so.1"
	ln -sfn "libbpf.so.1" "$OUT/libbpf.so"
	echo "libbpf: $OUT/libbpf.a $OUT/libbpf.so.1 -> libbpf.so.$ver"
}

install_so() {
	local prefix=${PREFIX:-/usr/local} dest=${DESTDIR:-} dir real
	[[ -L $OUT/libbpf.so.1 ]] || die "build libbpf first ('make libbpf')"
	real=$(readlink "$OUT/libbpf.so.1")
	[[ -f $OUT/$real ]] || die "$OUT/libbpf.so.1 points to a missing $real: rebuild libbpf"
	dir=$dest$prefix/lib/bpf-token
	install -D -m 0755 "$OUT/$real" "$dir/$real"
	ln -sfn "$real" "$dir/libbpf.so.1"
	echo "libbpf: installed $prefix/lib/bpf-token/libbpf.so.1 into ${dest:-/}"
}

case ${1:-build} in
build) build ;;
install) install_so ;;
*) die "usage: $0 [build|install]" ;;
esac
