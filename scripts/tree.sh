#!/bin/bash
# The patched kernel tree in build/linux.
#
#   tree.sh prepare   make build/linux = pristine Debian tarball as a git repo
#                     (commit tagged `baseline`) + kernel/patches/*.patch (git am)
#   tree.sh export    regenerate kernel/patches/ from baseline..HEAD
#   tree.sh verify    check that build/linux is exactly the series, committed
#
# build/tree.stamp records what the tree was made from (tarball and series
# hashes, plus the HEAD it produced). `prepare` does nothing while the stamp
# matches; it never throws away uncommitted or unexported work.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$TOP/kernel/BASE"
export LC_ALL=C

TARBALL=${TARBALL:-$BASE_TARBALL}
PATCHDIR=$TOP/kernel/patches
STAMP=$BUILD/tree.stamp
IDENT=(-c user.name="bpf-token developers" -c user.email=bpf-token@example.org)

shopt -s nullglob
PATCHES=("$PATCHDIR"/*.patch)
shopt -u nullglob

warn() { echo "warning: $*" >&2; }
gk() { git -C "$KSRC" "$@"; }

# sha256 of the tarball, cached by (path, size, mtime): hashing 140 MB each
# run would cost more than the rest of a no-op `make tree`.
tarball_sha() {
	local id cache=$BUILD/tarball.sha256
	id=$(stat -L -c '%n %s %Y' "$TARBALL")
	if [[ -f $cache && $(sed -n 1p "$cache") == "$id" ]]; then
		sed -n 2p "$cache"
	else
		local sha
		sha=$(sha256sum <"$TARBALL" | cut -d' ' -f1)
		mkdir -p "$BUILD"
		printf '%s\n%s\n' "$id" "$sha" >"$cache"
		echo "$sha"
	fi
}

series_sha() {
	local p
	for p in "${PATCHES[@]}"; do
		basename "$p"
		cat "$p"
	done | sha256sum | cut -d' ' -f1
}

wanted() { printf 'tarball %s\npatches %s\n' "$TAR_SHA" "$(series_sha)"; }
stamp_field() { [[ -f $STAMP ]] && sed -n "s/^$1 //p" "$STAMP" || true; }
write_stamp() { { wanted; echo "head $(gk rev-parse HEAD)"; } >"$STAMP"; }

# Compare the tarball and the installed package with kernel/BASE. A newer
# Debian point release is reported, not fatal: `git am` decides if the series
# still applies.
check_base() {
	local v
	[[ $TAR_SHA == "$BASE_TARBALL_SHA256" ]] ||
		warn "$TARBALL sha256 $TAR_SHA differs from kernel/BASE ($BASE_TARBALL_SHA256)"
	v=$(dpkg-query -W -f='${Version}' "$BASE_PACKAGE" 2>/dev/null || true)
	[[ -z $v || $v == "$BASE_DEBIAN_VERSION" ]] ||
		warn "$BASE_PACKAGE is $v, the series was made on $BASE_DEBIAN_VERSION (kernel/BASE)"
}

# VERSION.PATCHLEVEL.SUBLEVEL of a Makefile read on stdin.
make_version() {
	awk -F' *= *' '$1=="VERSION"{v=$2} $1=="PATCHLEVEL"{p=$2} $1=="SUBLEVEL"{s=$2}
		END{print v "." p "." s}'
}

# The series exactly as `export` writes it; options pinned so that a user's
# git config cannot change the bytes.
format_series() {
	gk "${IDENT[@]}" -c core.abbrev=12 -c format.useAutoBase=false \
		-c format.signature= -c diff.noprefix=false \
		-c diff.mnemonicPrefix=false -c diff.renames=true \
		format-patch -q --zero-commit --no-signature --no-numbered \
		--no-thread -o "$1" baseline..HEAD >/dev/null
	add_patch_notes "$1"
}

# Reviewer notes (e.g. why a checkpatch warning stays) live in
# kernel/patch-notes/SLUG.txt, SLUG being the patch file name without its
# number; they go below the patch's `---`, where `git am` ignores them.
add_patch_notes() {
	local p note
	for p in "$1"/*.patch; do
		note=$TOP/kernel/patch-notes/$(basename "$p" .patch | cut -c6-).txt
		[[ -f $note ]] || continue
		awk -v note="$note" '
			!done && $0 == "---" {
				print; while ((getline l < note) > 0) print l; print ""
				done = 1; next
			}
			{ print }' "$p" >"$p.tmp" && mv "$p.tmp" "$p"
	done
}

# True when baseline..HEAD exports to exactly kernel/patches/*.patch.
tree_carries_series() {
	local tmp p rc=0
	gk rev-parse -q --verify baseline >/dev/null || return 1
	tmp=$(mktemp -d)
	format_series "$tmp"
	[[ $(cd "$tmp" && ls) == "$(printf '%s\n' "${PATCHES[@]##*/}")" ]] || rc=1
	for p in "${PATCHES[@]}"; do
		[[ $rc == 0 ]] && cmp -s "$tmp/${p##*/}" "$p" || rc=1
	done
	rm -rf "$tmp"
	return $rc
}

apply_series() {
	local p n=0
	for p in "${PATCHES[@]}"; do
		if ! gk "${IDENT[@]}" am -q --committer-date-is-author-date "$p"; then
			gk am --abort >/dev/null 2>&1 || true
			# Record the partial tree so that the next `prepare` may redo it.
			printf 'tarball %s\npatches failed\nhead %s\n' "$TAR_SHA" "$(gk rev-parse HEAD)" >"$STAMP"
			die "patch kernel/patches/$(basename "$p") does not apply to build/linux" \
				"(the tree is left with the $n patches before it; fix it, then 'make export-patches')"
		fi
		n=$((n + 1))
	done
	log "tree: applied $n patches on baseline"
}

extract() {
	local tmp="$KSRC.tmp.$$" ver date
	log "tree: extracting $TARBALL into ${KSRC#"$TOP"/}"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	trap 'rm -rf "$tmp"' EXIT
	tar -xf "$TARBALL" -C "$tmp" --strip-components=1 --no-same-owner
	ver=$(make_version <"$tmp/Makefile")
	[[ $ver == "$BASE_KERNEL_VERSION" ]] ||
		warn "tarball holds Linux $ver, the series was made on $BASE_KERNEL_VERSION (kernel/BASE)"
	git -C "$tmp" init -q
	git -C "$tmp" config user.name "bpf-token developers"
	git -C "$tmp" config user.email bpf-token@example.org
	git -C "$tmp" config gc.auto 0
	# The baseline's 78k files are hashed once, and live here only: storing
	# them uncompressed makes `git add` about 40% faster than with zlib.
	git -C "$tmp" config core.looseCompression 0
	# Debian's top-level .gitignore is `/*`: force-add everything.
	git -C "$tmp" add -A -f
	# A fixed date (the tarball's mtime) makes the baseline commit id reproducible.
	date="@$(stat -L -c %Y "$TARBALL") +0000"
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date git -C "$tmp" commit -q \
		-m "Linux $ver (Debian $BASE_PACKAGE $(dpkg-query -W -f='${Version}' "$BASE_PACKAGE" 2>/dev/null || echo '?')) baseline" \
		-m "Tarball-SHA256: $TAR_SHA"
	git -C "$tmp" tag baseline
	mv "$tmp" "$KSRC"
	trap - EXIT
}

prepare() {
	[[ -f $TARBALL ]] || die "$TARBALL not found (apt-get install $BASE_PACKAGE, or 'make deps')"
	TAR_SHA=$(tarball_sha)
	check_base

	if [[ -d $KSRC/.git ]]; then
		if [[ -f $STAMP && $(head -2 "$STAMP") == "$(wanted)" ]]; then
			return 0
		fi
		if tree_carries_series; then
			write_stamp
			log "tree: build/linux already carries kernel/patches; stamp refreshed"
			return 0
		fi
		# The series or the tarball changed: the tree must be re-made.
		if [[ -d $KSRC/.git/rebase-apply ]] || ! gk diff --quiet HEAD --; then
			die "build/linux has uncommitted changes (or a git am in progress) and does not" \
				"match kernel/patches; commit them and 'make export-patches', or clean the tree"
		fi
		if [[ $(gk rev-parse HEAD) != "$(stamp_field head)" && ${FORCE_TREE:-0} != 1 ]]; then
			die "build/linux has commits that are not in kernel/patches." \
				"Run 'make export-patches' to keep them, or 'make tree FORCE_TREE=1' to drop them"
		fi
		if [[ $(stamp_field tarball) == "${TAR_SHA}" || ! -f $STAMP ]] &&
			gk rev-parse -q --verify baseline >/dev/null; then
			log "tree: series changed, re-applying it on baseline"
			gk reset -q --hard baseline
			apply_series
			write_stamp
			return 0
		fi
		log "tree: tarball changed, re-extracting"
		rm -rf "$KSRC"
	elif [[ -e $KSRC ]]; then
		die "$KSRC exists but is not a git repository; move it away"
	fi

	mkdir -p "$BUILD"
	extract
	apply_series
	write_stamp
}

export_series() {
	[[ -d $KSRC/.git ]] || die "no tree in $KSRC: run 'make tree' first"
	gk rev-parse -q --verify baseline >/dev/null || die "build/linux has no 'baseline' tag"
	gk diff --quiet HEAD -- || warn "build/linux has uncommitted changes: they are NOT exported"
	TAR_SHA=$(tarball_sha)
	mkdir -p "$PATCHDIR"
	rm -f "$PATCHDIR"/*.patch
	format_series "$PATCHDIR"
	shopt -s nullglob
	PATCHES=("$PATCHDIR"/*.patch)
	shopt -u nullglob
	write_stamp
	log "exported ${#PATCHES[@]} patches (baseline..HEAD) to kernel/patches/"
}

# Exit 0 when build/linux is exactly baseline + kernel/patches, committed.
verify() {
	[[ -d $KSRC/.git ]] || die "no tree in $KSRC"
	gk diff --quiet HEAD -- || die "build/linux has uncommitted changes"
	tree_carries_series ||
		die "build/linux (baseline..HEAD) differs from kernel/patches: run 'make export-patches'"
	echo "build/linux = baseline + ${#PATCHES[@]} patches of kernel/patches"
}

case ${1:-} in
prepare) prepare ;;
export) export_series ;;
verify) verify ;;
*) die "usage: $0 prepare|export|verify" ;;
esac
