#!/bin/bash
# Build the series in several kernel configurations and compare its warnings
# with the unpatched tree's in the same configuration.
#
#   config-matrix.sh [CONFIG...]      (default: every configuration below)
#
# Each configuration is built twice, from a baseline worktree and from a
# patched one (build/linux's HEAD), set up by tests/oracle/oracle.sh prepare
# in build/oracle/cm/{base,patched}/linux, into build/oracle/cm/{base,patched}/cm-CONFIG. What is built: the
# directories whose C files the series changes plus the BPF-heavy ones
# (CM_DIRS), with `make DIR/`; CM_FULL=1 builds vmlinux instead (the link
# then also checks that every symbol the series calls exists in that
# configuration). Without CM_FULL, every symbol that the series' objects
# newly reference must be defined by an object built in the same run, or be
# defined in the baseline's objects too (else: "unresolved").
# Warnings (compiler, objtool, modpost) are compared without line numbers:
# a configuration passes when the patched build has no warning the baseline
# lacks and both builds succeed. Objects that make up modules (kbuild's
# .mod lists) are checked as modpost would: a symbol the series newly has a
# module call must be exported (else: "not exported"). Prints a table and
# `N passed, N failed`.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib/common.sh"
die() { echo "Error: $*" >&2; exit 1; }
ODIR=$TOP/tests/oracle
# Worktrees of their own, so that the oracle's builds and runs go on meanwhile.
OB=$BUILD/oracle/cm
export ORACLE_DIR=$OB
LOCK=${ORACLE_LOCK:-/tmp/kbuild.lock}
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 CCACHE_DEPEND=${CCACHE_DEPEND:-1}
export KBUILD_BUILD_TIMESTAMP="Thu, 1 Jan 1970 00:00:00 +0000" KBUILD_BUILD_USER=bpf-token \
	KBUILD_BUILD_HOST=bpf-token KBUILD_BUILD_VERSION=1

ALL_CONFIGS="test defconfig debian no-bpf-syscall no-bpf-jit no-cgroup-bpf no-user-ns no-debug-info-btf no-security i386"
# Debian 12's own configuration of this kernel (package linux-config-6.1,
# installed by scripts/deps.sh): what the series meets when Debian builds it
# (cls_bpf and act_bpf as modules, every LSM, BTF).
DEBIAN_CONFIG=${DEBIAN_CONFIG:-/usr/src/linux-config-6.1/config.amd64_none_amd64.xz}

# NAME -> "ARCH BASE-TARGET FRAGMENT-LINES..." (fragments go after
# kernel/config for the tinyconfig-based ones)
describe() {
	case $1 in
	test) echo "the test kernel: tinyconfig + kernel/config (with CONFIG_SECURITY, CONFIG_BPF_LSM, CONFIG_AUDIT)" ;;
	defconfig) echo "x86_64 defconfig" ;;
	debian) echo "Debian 12's amd64 configuration (linux-config-6.1), modules included" ;;
	no-bpf-syscall) echo "test config, CONFIG_BPF_SYSCALL=n (and AF_KCM=n, which selects it)" ;;
	no-bpf-jit) echo "test config, CONFIG_BPF_JIT=n" ;;
	no-cgroup-bpf) echo "test config, CONFIG_CGROUP_BPF=n" ;;
	no-user-ns) echo "test config, CONFIG_USER_NS=n" ;;
	no-debug-info-btf) echo "test config, CONFIG_DEBUG_INFO_BTF=n" ;;
	no-security) echo "test config, CONFIG_SECURITY=n (no LSM hooks, no BPF LSM)" ;;
	i386) echo "i386_defconfig + CONFIG_BPF_SYSCALL=y, CONFIG_BPF_JIT=y" ;;
	*) return 1 ;;
	esac
}

# The .config of configuration $1 in $2.
configure() {
	local cfg=$1 kobj=$2 src=$3 arch=x86_64 base=tinyconfig frag=$2/cm-fragment over=$2/cm-override
	: >"$frag"
	case $cfg in
	defconfig) base=defconfig ;;
	debian) base= ;;
	i386) arch=i386 base=i386_defconfig ;;
	*) cat "$TOP/kernel/config" >"$frag" ;;
	esac
	# what makes the row (checked below), after the base fragment
	: >"$over"
	case $cfg in
	no-bpf-syscall) printf '# CONFIG_BPF_SYSCALL is not set\n# CONFIG_AF_KCM is not set\n' >>"$over" ;;  # KCM selects BPF_SYSCALL
	no-bpf-jit) printf '# CONFIG_BPF_JIT is not set\n# CONFIG_BPF_JIT_ALWAYS_ON is not set\n' >>"$over" ;;
	no-cgroup-bpf) printf '# CONFIG_CGROUP_BPF is not set\n' >>"$over" ;;
	no-user-ns) printf '# CONFIG_USER_NS is not set\n' >>"$over" ;;
	no-debug-info-btf) printf '# CONFIG_DEBUG_INFO_BTF is not set\n' >>"$over" ;;
	no-security) printf '# CONFIG_SECURITY is not set\n# CONFIG_BPF_LSM is not set\n' >>"$over" ;;
	i386) printf '# CONFIG_64BIT is not set\nCONFIG_BPF_SYSCALL=y\nCONFIG_BPF_JIT=y\n' >>"$over" ;;
	defconfig) printf 'CONFIG_BPF_SYSCALL=y\n' >>"$over" ;;
	debian) printf 'CONFIG_BPF_SYSCALL=y\nCONFIG_NET_CLS_BPF=m\nCONFIG_NET_ACT_BPF=m\n' >>"$over" ;;
	esac
	cat "$over" >>"$frag"
	echo "$arch" >"$kobj/cm-arch"
	if [[ -n $base ]]; then
		make -s -C "$src" O="$kobj" ARCH="$arch" "$base" >/dev/null
	else
		[[ -f $DEBIAN_CONFIG ]] || { echo "  $cfg: no $DEBIAN_CONFIG (package linux-config-6.1)" >&2; return 1; }
		xzcat "$DEBIAN_CONFIG" >"$kobj/.config"
	fi
	"$src/scripts/kconfig/merge_config.sh" -m -O "$kobj" "$kobj/.config" "$frag" >"$kobj/cm-merge.log" 2>&1
	make -s -C "$src" O="$kobj" ARCH="$arch" olddefconfig >/dev/null
	# what the row claims must hold
	local line sym bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF "$line" "$kobj/.config" || { echo "  $cfg: wanted $line" >&2; bad=1; } ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			! grep -q "^$sym=" "$kobj/.config" || { echo "  $cfg: wanted $line" >&2; bad=1; } ;;
		esac
	done <"$over"
	return $bad
}

# What to build: the directories where the series changes C files, plus
# CM_DIRS (kernel/ whole: the series calls core helpers such as in_userns()
# or ns_capable(), defined there, which the check of unresolved symbols must
# see built), without those inside another one of the list; in CM_OBJ_DIRS
# (default fs: fs/ holds every file system, a few thousand objects in
# Debian's configuration) only the changed files' objects.
dirs_for() {
	local base patched
	base=$(git -C "$KSRC" rev-parse 'baseline^{commit}')
	patched=$(cat "$OB/patched/rev")
	git -C "$KSRC" diff --name-only "$base" "$patched" -- '*.c' ':!tools' ':!samples' ':!Documentation' |
		awk -v objdirs="${CM_OBJ_DIRS-fs}" -v more="${CM_DIRS:-kernel net/core net/ipv4 net/sched net/xdp security}" '
		BEGIN { split(objdirs, od, " "); for (i in od) objdir[od[i]] = 1 }
		{
			d = $0; sub("/[^/]*$", "", d)
			if (d in objdir) { sub("\\.c$", ".o"); objs[$0] = 1 } else dirs[d] = 1
		}
		END {
			n = split(more, m, " "); for (i = 1; i <= n; i++) dirs[m[i]] = 1
			for (d in dirs) print d "/"
			for (o in objs) print o
		}' | sort -u |
		awk '{ for (i = 1; i <= n; i++) if (index($0, kept[i]) == 1) next; if ($0 ~ /\/$/) kept[++n] = $0; print }'
}

# cm_make KOBJ SRC ARCH TARGET...: kbuild, one build at a time, at low priority
cm_make() {
	local kobj=$1 src=$2 arch=$3
	shift 3
	nice -n 19 flock "$LOCK" make -C "$src" O="$kobj" ARCH="$arch" CC="ccache gcc" HOSTCC=gcc \
		-k -j"$JOBS" KBUILD_MODPOST_WARN=1 "$@"
}

# The objects of KOBJ that symbols() reads, into KOBJ/cm-objs
list_objs() {
	find "$1" -name '*.o' ! -name '*.mod.o' ! -name 'built-in.a' ! -path '*/scripts/*' ! -path '*/tools/*' \
		-print0 2>/dev/null >"$1/cm-objs" || true
}

# Build one tree in one configuration; warnings to $kobj/cm-warnings.
build_one() {
	local cfg=$1 tree=$2 src=$OB/$2/linux kobj=$OB/$2/cm-$1 arch rc=0 targets
	mkdir -p "$kobj"
	: >"$kobj/cm-warnings"
	: >"$kobj/cm-targets"
	: >"$kobj/cm-build.log"
	configure "$cfg" "$kobj" "$src" || return 3
	arch=$(cat "$kobj/cm-arch")
	if [[ ${CM_FULL:-0} == 1 ]]; then
		targets=vmlinux
	else
		targets=$(dirs_for | tr '\n' ' ')
	fi
	echo "$targets" >"$kobj/cm-targets"
	# Every object is compiled again (a warning is printed only when its
	# object is compiled; ccache replays the warnings of a hit), then the
	# build. Objects outside the targets go too: those that an earlier
	# run's build_definers left, or of an earlier list of targets, would
	# otherwise count as this run's, with their undefined symbols.
	find "$kobj" -name '*.o' ! -path '*/scripts/*' ! -path '*/tools/*' -delete
	# shellcheck disable=SC2086
	cm_make "$kobj" "$src" "$arch" $targets >"$kobj/cm-build.log" 2>&1 || rc=$?
	# file: warning: text [-Wflag], without line and column; objtool and
	# modpost lines as they are, without the object's directory
	grep -aE '(warning|error):|^WARNING:|objtool:' "$kobj/cm-build.log" |
		sed -E -e "s|$src/||g" -e 's|^([^ :]+):[0-9]+:[0-9]+:|\1:|' -e 's|^([^ :]+):[0-9]+:|\1:|' \
			-e 's|\+0x[0-9a-f]+||g' |
		sort >"$kobj/cm-warnings" || true
	list_objs "$kobj"
	return $rc
}

symbols() { # symbols KOBJ TYPE: u = undefined, d = defined (global)
	local kobj=$1
	xargs -0 -r nm -A <"$kobj/cm-objs" 2>/dev/null |
		awk -v t="$2" '{ s = $NF; k = $(NF-1) } NF >= 2 && ((t == "u" && k == "U") || (t == "d" && k ~ /^[TDRBW]$/ )) { print s }' |
		sort -u
}

# build_definers CONFIG SYMBOL...: the symbols of the list that stay
# undefined after building, in the patched tree and CONFIG, the directories
# (in CM_OBJ_DIRS: the objects) of the C files that look like they define
# them, e.g. mm/ for truncate_inode_pages_final(), which the series calls
# and no directory of the list builds. A directory that CONFIG does not
# build defines nothing, as in the real build.
build_definers() {
	local cfg=$1 src=$OB/patched/linux kobj=$OB/patched/cm-$1 arch sym f d targets=()
	shift
	arch=$(cat "$kobj/cm-arch")
	for sym in "$@"; do
		while IFS= read -r f; do
			d=$(dirname "$f")
			if grep -qxF "$d" <(tr ' ' '\n' <<<"${CM_OBJ_DIRS-fs}"); then
				targets+=("${f%.c}.o")
			else
				targets+=("$d/")
			fi
		done < <(git -C "$src" grep -lE "^[a-z_][^(]*[^a-zA-Z0-9_(]${sym}( ?\(|;| =|\[)" -- '*.c' ':!tools' ':!samples' ':!scripts' || true)
	done
	if [[ ${#targets[@]} != 0 ]]; then
		mapfile -t targets < <(printf '%s\n' "${targets[@]}" | sort -u)
		cm_make "$kobj" "$src" "$arch" "${targets[@]}" >>"$kobj/cm-build.log" 2>&1 || true
		list_objs "$kobj"
	fi
	comm -23 <(printf '%s\n' "$@" | sort -u) <(symbols "$kobj" d)
}

# Symbols that the patched tree's modules newly call and that nothing
# exports, as "SYMBOL (MODULE)" lines: modpost would refuse such a module.
# A module's objects come from kbuild's MODULE.mod; what they call is
# compared with the same objects of the baseline build.
unexported() {
	local kb=$1 kp=$2 src=$3 mod o
	# "MODULE OBJECT" for every object of every module built in both
	# trees (build_definers builds more in the patched one only; the series
	# adds no module)
	while IFS= read -r -d '' mod; do
		[[ -f $kb/${mod#"$kp"/} ]] || continue
		while IFS= read -r o; do
			[[ -z $o ]] || echo "${mod#"$kp"/} $o"
		done <"$mod"
	done < <(find "$kp" -name '*.mod' ! -path '*/scripts/*' ! -path '*/tools/*' -print0) >"$kp/cm-modobjs"
	[[ -s $kp/cm-modobjs ]] || return 0
	awk '{ print $2 }' "$kp/cm-modobjs" | sort -u >"$kp/cm-modobjs.list"
	# Three processes in all, whatever the number of modules: one nm per
	# tree on every module object (about an object that one tree lacks,
	# nm complains: dropped), one git grep for the exports.
	(cd "$kp" && xargs -r nm -A <"$kp/cm-modobjs.list" 2>/dev/null) >"$kp/cm-modnm" || true
	(cd "$kb" && xargs -r nm -A <"$kp/cm-modobjs.list" 2>/dev/null) >"$kb/cm-modnm" || true
	git -C "$src" grep -hoE 'EXPORT_SYMBOL[A-Z_]*\([A-Za-z0-9_]+' -- '*.c' '*.S' '*.h' |
		sed 's/.*(//' | sort -u >"$kp/cm-exports"
	# nm -A: "OBJ:ADDR TYPE SYM" (defined) or "OBJ:         U SYM"
	awk '
	function parse(line,   i) {
		i = index(line, ":")
		obj = substr(line, 1, i - 1)
		n = split(substr(line, i + 1), f, " ")
		type = f[n - 1]
		sym = f[n]
	}
	FILENAME == ARGV[1] { exported[$1] = 1; next }
	FILENAME == ARGV[2] { parse($0); if (type == "U") bu[obj] = bu[obj] " " sym; next }
	FILENAME == ARGV[3] {
		parse($0)
		if (n == 3) pd[obj] = pd[obj] " " sym
		else if (type == "U") pu[obj] = pu[obj] " " sym
		next
	}
	{ objs[$1] = objs[$1] " " $2 }
	# add the words of list to set
	function add(set, list,   w, k, nw) {
		nw = split(list, w, " ")
		for (k = 1; k <= nw; k++) set[w[k]] = 1
	}
	END {
		for (m in objs) {
			delete had
			delete defd
			delete need
			no = split(objs[m], ol, " ")
			for (j = 1; j <= no; j++) {
				add(had, bu[ol[j]])
				add(defd, pd[ol[j]])
				add(need, pu[ol[j]])
			}
			for (s in need)
				if (!(s in had) && !(s in defd) && !(s in exported)) print s " (" m ")"
		}
	}' "$kp/cm-exports" "$kb/cm-modnm" "$kp/cm-modnm" "$kp/cm-modobjs" | sort -u
}

check_config() {
	local cfg=$1 t0 rcb=0 rcp=0 verdict newwarn unresolved="" noexport=""
	t0=$(date +%s)
	build_one "$cfg" base || rcb=$?
	build_one "$cfg" patched || rcp=$?
	local kb=$OB/base/cm-$cfg kp=$OB/patched/cm-$cfg
	newwarn=$(comm -13 <(sort -u "$kb/cm-warnings") <(sort -u "$kp/cm-warnings") || true)
	if [[ ${CM_FULL:-0} != 1 && $rcp == 0 ]]; then
		# symbols the series' objects newly need, that nothing built defines
		unresolved=$(comm -23 <(comm -13 <(symbols "$kb" u) <(symbols "$kp" u)) <(symbols "$kp" d) |
			grep -vxF -f <(symbols "$kb" d) | grep -vE '^(__|\.)' || true)
		[[ -z $unresolved ]] || unresolved=$(build_definers "$cfg" $unresolved)
	fi
	[[ $rcp != 0 ]] || noexport=$(unexported "$kb" "$kp" "$OB/patched/linux")
	local secs=$(($(date +%s) - t0)) nw=0
	[[ -z $newwarn ]] || nw=$(wc -l <<<"$newwarn")
	if [[ $rcp == 3 || $rcb == 3 ]]; then
		verdict="config did not stick"
	elif [[ $rcp != 0 && $rcb == 0 ]]; then
		verdict="BUILD FAILS"
	elif [[ $rcp != 0 ]]; then
		verdict="both builds fail"
	elif [[ $nw != 0 ]]; then
		verdict="$nw new warning(s)"
	elif [[ -n $noexport ]]; then
		verdict="not exported: $(tr '\n' ' ' <<<"$noexport")"
	elif [[ -n $unresolved ]]; then
		verdict="unresolved: $(tr '\n' ' ' <<<"$unresolved")"
	else
		verdict=ok
	fi
	printf '%s\t%s\t%s\t%s\n' "$cfg" "$verdict" "$secs" "$(wc -w <"$kp/cm-targets") targets" >>"$OB/cm-table"
	if [[ $nw != 0 ]]; then
		echo "---- $cfg: warnings new with the series ----"
		echo "$newwarn"
	fi
	if [[ $rcp != 0 ]]; then
		echo "---- $cfg: patched build errors ----"
		grep -a -m20 -E 'error:|Error [0-9]' "$kp/cm-build.log" || true
	fi
}

# The whole script is read before it runs (edits while it runs are safe).
main() {
	configs=${*:-$ALL_CONFIGS}
	for c in $configs; do
		describe "$c" >/dev/null || die "unknown configuration '$c' (one of: $ALL_CONFIGS)"
	done
	"$ODIR/oracle.sh" prepare base >/dev/null
	"$ODIR/oracle.sh" prepare patched >/dev/null
	: >"$OB/cm-table"
	T0=$(date +%s)
	for c in $configs; do
		log "config-matrix: $c: $(describe "$c")"
		check_config "$c"
	done
	echo
	printf '%-18s %-8s %s\n' config time result
	pass=0 fail=0
	while IFS=$'\t' read -r c verdict secs what; do
		printf '%-18s %-8s %s (%s; %s)\n' "$c" "${secs}s" "$verdict" "$(describe "$c")" \
			"$([[ ${CM_FULL:-0} == 1 ]] && echo vmlinux || echo "$what")"
		if [[ $verdict == ok ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	done <"$OB/cm-table"
	echo "config-matrix: $(($(date +%s) - T0)) s in all"
	echo "$pass passed, $fail failed"
	[[ $fail == 0 ]]
}
main "$@"; exit $?
