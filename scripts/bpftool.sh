#!/bin/bash
# bpftool from the patched tree with the project's overlay.
#
#   bpftool.sh build     -> build/bpftool/bpftool and build/bpftool/man/*.8
#   bpftool.sh install   -> $DESTDIR$PREFIX/{sbin,share/man/man8,share/bash-completion}
#
# Sources are assembled in build/bpftool-stage: the tree's tools/bpf/bpftool,
# then bpftool/*.[ch] and Documentation/bpftool-*.rst (the man page sources)
# copied on top, then bpftool/patches/*.patch applied with `patch -p1` (the
# changes to the tree's own files, its bash completion among them). The
# result is synced by content into build/bpftool-src/tools/bpf/bpftool, so an
# unchanged file keeps its mtime and make rebuilds only what changed. The
# tools/bpf/bpftool nesting keeps bpftool's `include ../../scripts/...` working
# (build/bpftool-src/tools/scripts links to the tree's).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

OVL=${BPFTOOL_OVERLAY:-$TOP/bpftool}
STAGE=$BUILD/bpftool-stage
SRC=$BUILD/bpftool-src/tools/bpf/bpftool
OUT=$BUILD/bpftool

assemble() {
	local f p
	[[ -d $KSRC/tools/bpf/bpftool ]] || die "no tree in $KSRC: run 'make tree'"
	rm -rf "$STAGE"
	mkdir -p "$STAGE"
	rsync -a "$KSRC/tools/bpf/bpftool/" "$STAGE/"
	shopt -s nullglob
	for f in "$OVL"/*.c "$OVL"/*.h; do cp -p "$f" "$STAGE/"; done
	for f in "$TOP"/Documentation/bpftool-*.rst; do cp -p "$f" "$STAGE/Documentation/"; done
	for p in "$OVL"/patches/*.patch; do
		patch -p1 -s -N --no-backup-if-mismatch -d "$STAGE" <"$p" ||
			die "bpftool/patches/$(basename "$p") does not apply to tools/bpf/bpftool (+ overlay)"
	done
	shopt -u nullglob
	mkdir -p "$SRC"
	# No -t: files whose content is unchanged keep their old mtime.
	rsync -rlp --checksum --delete "$STAGE/" "$SRC/"
	ln -sfn "$KSRC/tools/scripts" "$BUILD/bpftool-src/tools/scripts"
}

# Skeletons (bpftool prog profile, pids) need a BTF of the running kernel that
# matches 6.1's skeleton sources: off.
bmake() {
	make -C "$SRC" srctree="$KSRC" OUTPUT="$OUT/" VMLINUX_BTF= \
		feature-clang-bpf-co-re=0 "$@"
}

build() {
	assemble
	mkdir -p "$OUT/man"
	bmake -j"$JOBS" "$OUT/bpftool"
	make -C "$SRC/Documentation" -s OUTPUT="$OUT/man/" RST2MAN_OPTS=--strip-comments man
	echo "bpftool: $OUT/bpftool"
}

install_all() {
	local prefix=${PREFIX:-/usr/local} dest=${DESTDIR:-} f
	[[ -x $OUT/bpftool ]] || die "build bpftool first ('make bpftool')"
	install -D -m 0755 "$OUT/bpftool" "$dest$prefix/sbin/bpftool"
	install -d "$dest$prefix/share/man/man8" "$dest$prefix/share/bash-completion/completions"
	install -m 0644 "$OUT"/man/*.8 "$dest$prefix/share/man/man8/"
	for f in "$SRC"/bash-completion/*; do
		install -m 0644 "$f" "$dest$prefix/share/bash-completion/completions/"
	done
	echo "bpftool: installed into $dest$prefix"
}

case ${1:-} in
build) build ;;
install) install_all ;;
*) die "usage: $0 build|install" ;;
esac
