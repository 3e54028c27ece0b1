# Debian packages fetched, never installed, for the tests of mainline's BPF
# token ABI (sourced by scripts/debian-kernel.sh and
# scripts/debian-libbpf.sh, after common.sh).
#
# DEBIAN_SOURCES (default /etc/apt/sources.list.d/debian.sources, deb822):
# the file whose entry with bookworm in its Suites gets bookworm-backports,
# with that entry's URIs, unless a source of the machine has it already.
# DEBIAN_APT_CACHE (default /var/cache/bpf-token): where the .deb files go,
# outside the clone, so that every clone on the machine reuses them.

DEBIAN_SOURCES=${DEBIAN_SOURCES:-/etc/apt/sources.list.d/debian.sources}
DEBIAN_APT_CACHE=${DEBIAN_APT_CACHE:-/var/cache/bpf-token}

# Whether an apt source of the machine (one-line or deb822) has the suite.
apt_has_backports() {
	grep -qsE '^[^#]*[[:space:]]bookworm-backports([[:space:]]|$)' /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources
}

# apt_backports: bookworm-backports in the sources, and its package lists
# updated within the last day (`apt-get update` otherwise: the lists are
# missing, or the last update that this made, DEBIAN_APT_CACHE's stamp, is
# older).
apt_backports() {
	local lists=/var/lib/apt/lists stamp=$DEBIAN_APT_CACHE/backports-update.stamp tmp
	if ! apt_has_backports; then
		[[ -f $DEBIAN_SOURCES ]] ||
			die "no $DEBIAN_SOURCES: add bookworm-backports to the machine's Debian source by hand"
		[[ -w $DEBIAN_SOURCES ]] || die "can't add bookworm-backports to $DEBIAN_SOURCES: run as root"
		tmp=$(mktemp "$DEBIAN_SOURCES.XXXXXX")
		# the first entry whose Suites has bookworm gets bookworm-backports
		if ! awk '!done && /^Suites:/ {
				sub(/[[:space:]]+$/, "")
				n = split($0, s, /[[:space:]]+/)
				for (i = 2; i <= n; i++)
					if (s[i] == "bookworm") { $0 = $0 " bookworm-backports"; done = 1; break }
			}
			{ print }
			END { exit !done }' "$DEBIAN_SOURCES" >"$tmp"; then
			rm -f "$tmp"
			die "$DEBIAN_SOURCES has no entry with 'Suites: bookworm' to add bookworm-backports to"
		fi
		chmod --reference="$DEBIAN_SOURCES" "$tmp"
		mv "$tmp" "$DEBIAN_SOURCES"
		log "added the suite bookworm-backports to $DEBIAN_SOURCES"
	fi
	if ! compgen -G "$lists/*_dists_bookworm-backports_*Packages*" >/dev/null ||
	   [[ -z $(find "$stamp" -mtime -1 2>/dev/null) ]]; then
		[[ $(id -u) == 0 ]] || die "the bookworm-backports package lists need an update: run as root"
		mkdir -p "$DEBIAN_APT_CACHE"
		log "apt-get update"
		apt-get update -q >/dev/null || die "apt-get update failed"
		compgen -G "$lists/*_dists_bookworm-backports_*Packages*" >/dev/null ||
			die "apt-get update brought no bookworm-backports lists (see $DEBIAN_SOURCES)"
		touch "$stamp"
	fi
}

# apt_fetch PKG VERSION: the path of PKG_VERSION's .deb in DEBIAN_APT_CACHE,
# downloaded there (apt-get download) unless it is there already with the
# SHA256 the lists give; older versions of PKG there are removed.
apt_fetch() {
	local pkg=$1 ver=$2 sha deb f
	sha=$(apt-cache show "$pkg=$ver" 2>/dev/null | sed -n 's/^SHA256: //p' | head -n 1 || true)
	[[ -n $sha ]] || die "apt-cache show $pkg=$ver: no such package, or no SHA256"
	mkdir -p "$DEBIAN_APT_CACHE" 2>/dev/null || die "can't make the cache $DEBIAN_APT_CACHE: run as root"
	deb=$DEBIAN_APT_CACHE/${pkg}_${ver//:/%3a}_amd64.deb
	if [[ ! -f $deb ]] || [[ $(sha256sum <"$deb") != "$sha  -" ]]; then
		[[ -w $DEBIAN_APT_CACHE ]] || die "can't write to the cache $DEBIAN_APT_CACHE: run as root"
		rm -f "$deb"
		log "apt-get download $pkg=$ver" >&2
		# (root downloads itself: the cache is not the sandbox user's)
		(cd "$DEBIAN_APT_CACHE" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$ver" >/dev/null) ||
			die "apt-get download $pkg=$ver failed"
		[[ -f $deb ]] || die "apt-get download left no $deb"
		[[ $(sha256sum <"$deb") == "$sha  -" ]] || { rm -f "$deb"; die "$deb: its SHA256 is not the lists' one"; }
	fi
	for f in "$DEBIAN_APT_CACHE/${pkg}"_*.deb; do
		[[ ! -f $f || $f == "$deb" ]] || rm -f "$f"
	done
	echo "$deb"
}
