#!/bin/bash
# Build bzImage from build/linux into build/kobj (O=) through ccache.
# The .config is tinyconfig + kernel/config; it is regenerated only when the
# fragment changed, and every option the fragment sets is checked to have
# stuck (merge_config.sh only warns).
# KCONFIG_EXTRA: more fragments (space-separated paths) merged after
# kernel/config, e.g. kernel/config-debug for `make check-debug` (KOBJ=...).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

[[ -f $KSRC/Makefile ]] || die "no kernel tree in $KSRC: run 'make tree'"
mkdir -p "$KOBJ"
FRAG=$KOBJ/fragment.in
cat "$TOP/kernel/config" ${KCONFIG_EXTRA:-} >"$FRAG"

# Absolute paths under $TOP become relative in ccache's hash, so clones of the
# project elsewhere (CI) share the cache.
export CCACHE_BASEDIR=$TOP
# Depend mode: hash the compiler's own dependency output instead of running the
# preprocessor a second time on a miss (~10% of a cold build).
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
# Debug info (needed for vmlinux BTF) records the compiler's directory; with
# the directory out of ccache's hash, clones share the cache all the same
# (only BTF is taken from the DWARF, and it has no paths).
export CCACHE_NOHASHDIR=1
# Reproducible, identifiable builds: `uname -v` comes from the series (the
# author date of the tree's top commit), not from the wall clock, so a ccache
# hit on init/version.o can never carry another build's timestamp. Tests
# identify the running kernel by its GNU build ID (vmlinux's .notes).
KBUILD_BUILD_TIMESTAMP=$(git -C "$KSRC" log -1 --format=%ad --date=rfc2822 2>/dev/null ||
	echo "Thu, 1 Jan 1970 00:00:00 +0000")
export KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER=bpf-token KBUILD_BUILD_HOST=bpf-token \
	KBUILD_BUILD_VERSION=1
kmake() { make -C "$KSRC" O="$KOBJ" ARCH=x86_64 CC="ccache gcc" HOSTCC=gcc "$@"; }

# Every `CONFIG_X=v` and `# CONFIG_X is not set` line of the fragment must be
# in .config as is.
verify_config() {
	local line sym bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$KOBJ/.config" || { echo "  wanted $line" >&2; bad=1; } ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			! grep -q "^$sym=" "$KOBJ/.config" || { echo "  wanted $line" >&2; bad=1; } ;;
		esac
	done <"$FRAG"
	[[ $bad == 0 ]] || die "kernel/config${KCONFIG_EXTRA:+ $KCONFIG_EXTRA} options did not stick in $KOBJ/.config" \
		"(missing dependencies?); see above"
}

# True when a Kconfig file that the last configuration read (Kbuild lists
# them in auto.conf.cmd) is newer than our last olddefconfig.
kconfig_changed() {
	local cmd=$KOBJ/include/config/auto.conf.cmd f
	[[ -f $cmd && -f $KOBJ/.olddefconfig.stamp ]] || return 0
	while read -r f; do
		[[ $KSRC/$f -nt $KOBJ/.olddefconfig.stamp ]] && return 0
	done < <(sed -n 's/^\t\([^ ]*Kconfig[^ ]*\) \\$/\1/p' "$cmd")
	return 1
}

if [[ ! -f $KOBJ/.config ]] || ! cmp -s "$FRAG" "$KOBJ/.fragment"; then
	log "kernel: generating .config (tinyconfig + kernel/config${KCONFIG_EXTRA:+ $KCONFIG_EXTRA})"
	rm -f "$KOBJ/.fragment"
	kmake -s tinyconfig >/dev/null
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOBJ" "$KOBJ/.config" "$FRAG" >"$KOBJ/merge.log" 2>&1 ||
		{ cat "$KOBJ/merge.log" >&2; die "merge_config.sh failed"; }
	kmake -s olddefconfig
	verify_config
	cp "$FRAG" "$KOBJ/.fragment"
elif kconfig_changed; then
	# The series touched a Kconfig file: settle new symbols to their defaults
	# (.config is left untouched when nothing changed).
	kmake -s olddefconfig
	verify_config
fi
touch "$KOBJ/.olddefconfig.stamp"

log "kernel: make bzImage"
kmake -j"$JOBS" bzImage
echo "kernel: $(cat "$KOBJ/include/config/kernel.release") $KOBJ/arch/x86/boot/bzImage"
