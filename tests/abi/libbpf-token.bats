#!/usr/bin/env bats
# Debian's libbpf 1.4 (build/debian-libbpf, unmodified; `make
# debian-libbpf`) loads a real BPF object of the project's corpus, the XDP
# program and array map of tests/progs/xdp_token.bpf.c as committed in the
# fuzz corpus, through a token it makes itself on mainline's ABI: from
# the delegated BPF FS at LIBBPF_BPF_TOKEN_PATH, or at /sys/fs/bpf when
# that is unset. The loader is nobody, root of a user namespace of its own
# (tests/abi/lib.bash), the application libbpf-load
# (tests/abi/libbpf-load.c), which sets no token option. Without
# the delegation, or with one that lacks what the object needs, the load
# is refused.
#
# The sets delegated are those of `bpftool token needs OBJ format mount`,
# which adds to the object's own what libbpf 1.4 loads through the token
# before it (a socket filter: bpf_object__probe_loading()) and what its
# feature probes need (a tracepoint program, to keep
# bpf_probe_read_kernel() in a non-tracing program). They load each
# object of the corpus (build/progs/*.bpf.o), but those that need the
# relaxed verifier, which mainline's options do not have (bpftool's note
# says so: this project's kernel refuses them, a mainline token gives its
# programs CAP_PERFMON's verifier), and those that root can't load on the
# kernel either (e.g. fentry on a kernel without trampolines): both skipped
# by name, with the reason, on fd 3. Then Debian's xdp-tools objects
# (/usr/lib/*/bpf), which nobody on the project wrote, with the same result
# on this project's kernel and on mainline's.

load lib

OBJ=$TOP/tests/fuzz/corpus/token_needs/obj-xdp_token
LOADER=$BUILD/debian-libbpf/libbpf-load

setup_file() {
	# the words of `token delegate` for what needs prints for OBJ, once
	# (needs verifies the object): NEEDS of each test
	if [[ -x $BPFTOOL && -f $OBJ ]]; then
		NEEDS_WORDS=$(format_sets "$OBJ") || NEEDS_WORDS=
		export NEEDS_WORDS
	fi
}

setup() {
	need "$BPFTOOL" "$LOADER" "$OBJ"
	[[ -n ${NEEDS_WORDS-} ]] || { echo "bpftool token needs $OBJ format mount failed"; false; }
	mapfile -t NEEDS <<<"$NEEDS_WORDS"
	WORK=$(mktemp -d /tmp/libbpf-token.XXXXXX)
	chmod 0755 "$WORK"
	mkdir "$WORK/mnt"
	USERNS_PID=
}

teardown() {
	[[ -z $USERNS_PID ]] || kill "$USERNS_PID" 2>/dev/null || true
	rm -rf "$WORK"
}

# format_sets OBJ...: the words of `bpftool token delegate` for the sets
# that `bpftool token needs OBJ... format mount` prints, one a line: its
# delegate_cmds=A:B becomes "cmds" and "A,B", and so on. bpftool's note, if
# any, goes to stderr. Fails when needs fails or prints anything else.
format_sets() {
	local line opt opts words=()
	line=$("$BPFTOOL" token needs "$@" format mount) || return 1
	[[ -n $line && $line != *$'\n'* ]] || { echo "needs printed '$line'" >&2; return 1; }
	IFS=, read -ra opts <<<"$line"
	for opt in "${opts[@]}"; do
		case ${opt%%=*} in
		delegate_cmds) words+=(cmds) ;;
		delegate_maps) words+=(maps) ;;
		delegate_progs) words+=(progs) ;;
		delegate_attachs) words+=(attach) ;;
		*) echo "needs printed an unknown option: $opt" >&2; return 1 ;;
		esac
		words+=("$(tr : , <<<"${opt#*=}")")
	done
	printf '%s\n' "${words[@]}"
}

# mount_delegates DIR: the delegate_* options of the BPF FS at DIR in the
# mount namespace of nobody_userns (the last one mounted there), as its
# mountinfo shows them, joined by ',' as in `token needs ... format mount`
mount_delegates() {
	awk -v dir="$1" '$5 == dir { for (i = 7; $i != "-"; i++); opts = $(i + 3) }
		END { print opts }' "/proc/$USERNS_PID/mountinfo" |
		tr , '\n' | grep '^delegate_' | paste -sd,
}

# What xdp_token needs with libbpf 1.4, as needs prints it in mainline's
# mount options: the object's own (tests/progs/xdp_token.needs) and the
# socket filter with which libbpf probes, through the token, that loading
# programs works at all (bpf_object__probe_loading(); a tracepoint program
# would do too), whose expected attach type is 0, cgroup_inet_ingress,
# which mainline's token checks as well
NEEDS_LINE=delegate_cmds=map_create:prog_load:btf_load,delegate_maps=array,delegate_progs=socket_filter:xdp,delegate_attachs=cgroup_inet_ingress:xdp

@test "libbpf-load runs on Debian's libbpf 1.4, not the system's 1.1" {
	run ldd "$LOADER"
	echo "$output"
	[[ $output == *"libbpf.so.1 => $BUILD/debian-libbpf/usr/lib/"*"/libbpf.so.1 "* ]]
	[[ $(readlink -f "$BUILD"/debian-libbpf/usr/lib/*/libbpf.so.1) == */libbpf.so.1.4.* ]]
	run --separate-stderr "$LOADER"
	[[ $status == 2 && $output == "libbpf: 1.4" ]]
}

@test "needs ... format mount: the object's sets and libbpf 1.4's socket filter, and the mount delegates exactly them" {
	local sets
	run --separate-stderr "$BPFTOOL" token needs "$OBJ" format mount
	show_run
	[[ $status == 0 && -z $stderr && $output == "$NEEDS_LINE" ]]
	sets=$(format_sets "$OBJ")
	[[ $(paste -sd " " <<<"$sets") == "cmds map_create,prog_load,btf_load maps array progs socket_filter,xdp attach cgroup_inet_ingress,xdp" ]]
	nobody_userns
	delegate "$WORK/mnt" "${NEEDS[@]}"
	run mount_delegates "$WORK/mnt"
	echo "mountinfo: $output"
	[[ $output == "$NEEDS_LINE" ]]
}

@test "libbpf 1.4 loads the object through a token from LIBBPF_BPF_TOKEN_PATH, in nobody's user namespace" {
	nobody_userns
	delegate "$WORK/mnt" "${NEEDS[@]}"
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH="$WORK/mnt" "$LOADER" "$OBJ"
	show_run
	[[ $status == 0 ]]
	[[ $output == $'libbpf: 1.4\nload: ok\ntoken: yes\nprog xdp_token_prog\nmap token_stats' ]]
}

@test "libbpf 1.4 loads the object through a token from /sys/fs/bpf, the delegated BPF FS of the namespace there" {
	nobody_userns
	delegate /sys/fs/bpf "${NEEDS[@]}"
	run --separate-stderr in_userns env -u LIBBPF_BPF_TOKEN_PATH "$LOADER" "$OBJ"
	show_run
	[[ $status == 0 ]]
	[[ $output == $'libbpf: 1.4\nload: ok\ntoken: yes\nprog xdp_token_prog\nmap token_stats' ]]
}

@test "without the delegation the same load is refused: root's BPF FS at /sys/fs/bpf, or no token" {
	nobody_userns
	# /sys/fs/bpf is root's BPF FS, not made for the namespace and
	# delegating nothing: no token from it, no load
	run --separate-stderr in_userns env -u LIBBPF_BPF_TOKEN_PATH "$LOADER" "$OBJ"
	show_run
	[[ $status == 1 ]]
	[[ $output == $'libbpf: 1.4\nload: EPERM\ntoken: no' ]]
	# the delegated BPF FS is there, but libbpf makes no token (an empty
	# LIBBPF_BPF_TOKEN_PATH): nobody's capabilities in its namespace are
	# not the kernel's
	delegate /sys/fs/bpf "${NEEDS[@]}"
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH= "$LOADER" "$OBJ"
	show_run
	[[ $status == 1 ]]
	[[ $output == $'libbpf: 1.4\nload: EPERM\ntoken: no' ]]
}

@test "a delegation that lacks the object's program type: the token is made, the program is refused" {
	nobody_userns
	# everything but XDP programs
	delegate "$WORK/mnt" cmds map_create:prog_load:btf_load maps array progs socket_filter \
		attach cgroup_inet_ingress
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH="$WORK/mnt" "$LOADER" "$OBJ"
	show_run
	[[ $status == 1 ]]
	[[ $output == $'libbpf: 1.4\nload: EPERM\ntoken: yes' ]]
	# (libbpf created the map, then the kernel refused the program)
	[[ $stderr == *"libbpf: prog 'xdp_token_prog': BPF program load failed: Operation not permitted"* ]]
}

@test "libbpf 1.4 needs more than the object does: exactly xdp_token's needs fail at its loading probe" {
	local sets
	nobody_userns
	# the sets of needs' default output, what this project's libbpf needs
	sets=$("$BPFTOOL" -j token needs "$OBJ" |
		jq -r '"cmds", (.allowed_cmds | join(",")), "maps", (.allowed_maps | join(",")),
			"progs", (.allowed_progs | join(",")), "attach", (.allowed_attachs | join(","))')
	[[ $(paste -sd " " <<<"$sets") == "cmds map_create,prog_load,btf_load maps array progs xdp attach xdp" ]]
	mapfile -t sets <<<"$sets"
	delegate "$WORK/mnt" "${sets[@]}"
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH="$WORK/mnt" "$LOADER" "$OBJ"
	show_run
	[[ $status == 1 ]]
	[[ $output == $'libbpf: 1.4\nload: EPERM\ntoken: yes' ]]
	[[ $stderr == *"Error in bpf_object__probe_loading():Operation not permitted(1)"* ]]
}

# load_through_format OBJ: as nobody's user namespace root, libbpf 1.4
# loads OBJ through a token of a fresh delegated BPF FS at /sys/fs/bpf (on
# top of the ones before it), libbpf's implicit path, where the maps it
# pins by name go, that delegates exactly what `bpftool token needs OBJ
# format mount` prints (mountinfo says so); libbpf-load's output in output,
# its stderr in stderr. SKIPPED is set, to why, instead when needs notes
# that OBJ needs the relaxed verifier, which mainline's mount options do
# not have.
load_through_format() {
	local obj=$1 dir=/sys/fs/bpf line sets
	SKIPPED=
	run --separate-stderr "$BPFTOOL" token needs "$obj" format mount
	[[ $status == 0 && -n $output ]] || { show_run; false; }
	line=$output
	if [[ $stderr == *"format has no relaxed verifier"* ]]; then
		SKIPPED="needs the relaxed verifier ($stderr)"
		return 0
	fi
	[[ -z $stderr ]] || { show_run; false; }
	sets=$(format_sets "$obj")
	mapfile -t sets <<<"$sets"
	delegate "$dir" "${sets[@]}"
	run mount_delegates "$dir"
	[[ $output == "$line" ]] || { echo "$obj: needs printed $line, mountinfo has $output"; false; }
	run --separate-stderr in_userns env -u LIBBPF_BPF_TOKEN_PATH "$LOADER" "$obj"
}

@test "libbpf 1.4 loads each object of the corpus through exactly the sets of 'needs OBJ format mount'" {
	local obj name loaded=() skipped=() release
	need "$PROGS/xdp_token.bpf.o"
	nobody_userns
	# libbpf reads the kernel's configuration (an object's .kconfig
	# externs) from /proc/config.gz or /boot/config-RELEASE; Debian's
	# kernel has neither in the VM, but scripts/debian-kernel.sh keeps
	# its config: at /boot in the namespace
	release=$(uname -r)
	if [[ ! -e /proc/config.gz && ! -e /boot/config-$release && -f $BUILD/debian-kernel/config &&
		$(<"$BUILD/debian-kernel/version") == "$release "* ]]; then
		nsenter -t "$USERNS_PID" -m sh -c 'mount -t tmpfs -o mode=0755 tmpfs /boot &&
			cp "$0" "/boot/config-$1"' "$BUILD/debian-kernel/config" "$release"
	fi
	for obj in "$PROGS"/*.bpf.o; do
		name=$(basename "$obj" .bpf.o)
		load_through_format "$obj"
		if [[ -n $SKIPPED ]]; then
			echo "# $name: not loaded, it $SKIPPED" >&3
			skipped+=("$name")
			continue
		fi
		echo "$name: status $status"
		echo "$output"
		if [[ $status != 0 ]]; then
			echo "$stderr"
			# root, without a token, in a BPF FS of its own (what
			# the object pins goes with it)
			run --separate-stderr unshare --mount sh -c \
				'mount -t bpf bpf /sys/fs/bpf && exec "$0" "$1"' "$LOADER" "$obj"
			echo "as root: status $status, $output"
			[[ $status != 0 ]]
			echo "# $name: not loaded, root can't load it on this kernel either: $(grep -m1 'failed' <<<"$stderr")" >&3
			skipped+=("$name")
			continue
		fi
		[[ $output == $'libbpf: 1.4\nload: ok\ntoken: yes\n'* ]]
		loaded+=("$name")
	done
	echo "loaded: ${loaded[*]}; skipped: ${skipped[*]}"
	# the test loads something: most of the corpus (14 objects, of
	# which 1 to 3 are skipped on the kernels of the suites)
	((${#loaded[@]} >= 8))
}

# norm_format FORMAT: stdin, `needs ... format FORMAT`, as the mount
# format prints the same sets: incus's and lxd's keys to the mount
# options, their lines joined by ','; systemd's names (BPFMapTypeHash) to
# bpftool's (hash): the enum name in camel case, prefix dropped.
norm_format() {
	case $1 in
	incus)
		sed 's/^security\.bpffs\.//' | awk -F= '{ gsub(/,/, ":", $2); print $1 "=" $2 }' ;;
	lxd)
		sed '/^security\.delegate_bpf=true$/d; s/^security\.delegate_bpf\.cmd_types=/delegate_cmds=/
		     s/^security\.delegate_bpf\.map_types=/delegate_maps=/
		     s/^security\.delegate_bpf\.prog_types=/delegate_progs=/
		     s/^security\.delegate_bpf\.attach_types=/delegate_attachs=/' ;;
	systemd)
		sed '/^PrivateBPF=yes$/d; s/^BPFDelegateCommands=/delegate_cmds=/
		     s/^BPFDelegateMaps=/delegate_maps=/; s/^BPFDelegatePrograms=/delegate_progs=/
		     s/^BPFDelegateAttachments=/delegate_attachs=/' |
			awk -F= '{ n = split($2, w, ","); s = $1 "="
				for (i = 1; i <= n; i++) {
					x = w[i]; sub(/^BPF(MapType|ProgType)?/, "", x)
					y = ""
					for (j = 1; j <= length(x); j++) {
						c = substr(x, j, 1)
						if (c ~ /[A-Z]/) { if (j > 1) y = y "_"; c = tolower(c) }
						y = y c
					}
					s = s (i > 1 ? ":" : "") y
				}
				print s }' ;;
	esac | paste -sd,
}

@test "needs ... format incus, lxd and systemd name the sets of the mount format" {
	local obj fmt mount objs=("$PROGS"/*.bpf.o "$DEBIAN_BPF"/xsk_def_xdp_prog.o "$DEBIAN_BPF"/xdp-dispatcher.o)
	need "$PROGS/xdp_token.bpf.o" "$DEBIAN_BPF/xsk_def_xdp_prog.o"
	for obj in "${objs[@]}" ALL; do
		[[ $obj != ALL ]] || obj=("${objs[@]}")
		mount=$("$BPFTOOL" token needs "${obj[@]}" format mount 2>/dev/null)
		[[ $mount == delegate_cmds=*prog_load*,delegate_progs=*socket_filter*,delegate_attachs=cgroup_inet_ingress* ]]
		for fmt in incus lxd systemd; do
			run --separate-stderr "$BPFTOOL" token needs "${obj[@]}" format "$fmt"
			[[ $status == 0 ]]
			run norm_format "$fmt" <<<"$output"
			[[ $output == "$mount" ]] || { echo "${obj[*]}: $fmt: $output, mount: $mount"; false; }
		done
	done
	# the check can fail: a set less
	run norm_format systemd <<<$'PrivateBPF=yes\nBPFDelegatePrograms=BPFProgTypeXdp\nBPFDelegateAttachments=BPFXdp'
	[[ $output == delegate_progs=xdp,delegate_attachs=xdp ]]
}

# Debian's xdp-tools objects that load through a delegated token on this
# project's kernel and on mainline ones alike: AF_XDP's default program
# (libxdp's, a .data variable: libbpf 1.4's probe of global variables),
# the XDP dispatcher (.rodata) and the Ethernet filter of xdp-filter, which
# pins its maps by name, at /sys/fs/bpf: the delegated BPF FS there. The
# dispatcher and the filter compare packet pointers, which this project's
# kernel allows every loader and a mainline token gives with CAP_PERFMON
# (bpftool's note on a mainline kernel).
DEBIAN_OBJS=(xsk_def_xdp_prog.o xdp-dispatcher.o xdpfilt_alw_eth.o)

# debian_load NAME: what libbpf-load prints for DEBIAN_BPF/NAME loaded
debian_load() {
	case $1 in
	xsk_def_xdp_prog.o) echo $'libbpf: 1.4\nload: ok\ntoken: yes\nprog xsk_def_prog\nmap xsks_map\nmap xsk_def_.data' ;;
	xdp-dispatcher.o) echo $'libbpf: 1.4\nload: ok\ntoken: yes\nprog xdp_dispatcher\nprog xdp_pass\nmap xdp_disp.rodata' ;;
	xdpfilt_alw_eth.o) echo $'libbpf: 1.4\nload: ok\ntoken: yes\nprog xdpfilt_alw_eth\nmap xdp_stats_map\nmap filter_ethernet' ;;
	esac
}

@test "Debian's xdp-tools objects load with libbpf 1.4 through the sets of 'needs OBJ format mount', from LIBBPF_BPF_TOKEN_PATH and /sys/fs/bpf" {
	local name obj sets
	need "${DEBIAN_OBJS[@]/#/$DEBIAN_BPF/}"
	nobody_userns
	for name in "${DEBIAN_OBJS[@]}"; do
		obj=$DEBIAN_BPF/$name
		sets=$(format_sets "$obj")
		mapfile -t sets <<<"$sets"
		# the filter pins its maps: only where the BPF FS is the
		# namespace's
		if [[ $name != xdpfilt_* ]]; then
			mkdir "$WORK/${name%.o}"
			delegate "$WORK/${name%.o}" "${sets[@]}"
			run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH="$WORK/${name%.o}" "$LOADER" "$obj"
			echo "$name, LIBBPF_BPF_TOKEN_PATH:"
			show_run
			[[ $status == 0 && $output == "$(debian_load "$name")" ]]
		fi
		delegate /sys/fs/bpf "${sets[@]}"
		run --separate-stderr in_userns env -u LIBBPF_BPF_TOKEN_PATH "$LOADER" "$obj"
		echo "$name, /sys/fs/bpf:"
		show_run
		[[ $status == 0 && $output == "$(debian_load "$name")" ]]
	done
	# the filter's maps were pinned in the namespace's BPF FS, not in
	# root's
	in_userns test -e /sys/fs/bpf/filter_ethernet -a -e /sys/fs/bpf/xdp_stats_map
	[[ ! -e /sys/fs/bpf/filter_ethernet && ! -e /sys/fs/bpf/xdp_stats_map ]]
}

@test "libbpf 1.4 probes bpf_probe_read_kernel() with a tracepoint program: the format has it for a non-tracing caller, even beside a kprobe" {
	local kmem=$PROGS/xdp_read_kernel.bpf.o kp=$PROGS/kprobe_ringbuf.bpf.o sets fewer=()
	need "$kmem" "$kp"
	# xdp_read_kernel's XDP program calls bpf_probe_read_kernel(): with
	# kprobe_ringbuf's kprobe type, this project's libbpf needs no
	# tracepoint
	run --separate-stderr "$BPFTOOL" -j token needs "$kmem" "$kp"
	[[ $status == 0 && $(jq -c .allowed_progs <<<"$output") == '["kprobe","xdp"]' ]]
	sets=$(format_sets "$kmem" "$kp")
	echo "$sets"
	mapfile -t sets <<<"$sets"
	[[ ${sets[5]} == socket_filter,kprobe,tracepoint,xdp ]]
	nobody_userns
	delegate "$WORK/mnt" "${sets[@]}"
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH="$WORK/mnt" "$LOADER" "$kmem"
	show_run
	[[ $status == 0 && $output == $'libbpf: 1.4\nload: ok\ntoken: yes\nprog xdp_read_kernel\nmap'* ]]
	# without tracepoint, libbpf has the program call bpf_probe_read()
	# instead, which XDP programs do not have
	fewer=("${sets[@]}")
	fewer[5]=socket_filter,kprobe,xdp
	mkdir "$WORK/fewer"
	delegate "$WORK/fewer" "${fewer[@]}"
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH="$WORK/fewer" "$LOADER" "$kmem"
	show_run
	[[ $status == 1 && $output == $'libbpf: 1.4\nload: EINVAL\ntoken: yes' ]]
	[[ $stderr == *"bpf_probe_read#4"* ]]
}
