#!/usr/bin/env bats
# Mainline's BPF token ABI, case by case, on the kernel this runs on, as a
# differential test: the same cases on every kernel, their results compared
# line by line with tests/abi/expected, the results of a mainline kernel
# (Linux 6.18), reviewed by hand.
#
# The cases: tests/helpers/abi-diff.c's (raw bpf(2) with mainline's attrs;
# token creation from the initial user namespace and from a user namespace
# whose root is nobody, given delegated BPF FS instances; maps, programs and
# BTF through the token; bpf_token_info; attr tails; capabilities; the
# token after the instance's last mount is gone), and the options of BPF
# FS mounts of the initial namespace as /proc/self/mountinfo shows them
# (MOUNT_OPTIONS below; FAIL when mount refuses them).
#
# On a kernel with pinned tokens (this project's: union bpf_attr's
# token_create has pin_pathname) each case of tests/abi/extensions,
# "CASE<TAB>RESULT<TAB>REASON", must give RESULT instead of mainline's
# result: it is an extension of the port (SPEC.md). On an older mainline
# kernel (Debian's 6.12), each case of tests/abi/older-mainline for a
# release it is older than gives that file's result (or no line): what
# mainline added since. Any other difference fails, with a diff. ABI_OUT=DIR keeps what the kernel gave in
# DIR/abi-diff.out and DIR/mountinfo.out (tests/abi/expected is both, in
# that order, from a mainline kernel).
#
# Run as root where mainline's tokens must exist (the port's VM, Debian's
# 6.12 VM): a kernel without them fails every test instead of skipping.
# That is why the file is not in tests/host, whose kernel varies.

bats_require_minimum_version 1.5.0

# mount -t bpf -o OPTIONS for each of these
MOUNT_OPTIONS=(
	delegate_cmds=map_create:prog_load
	delegate_cmds=MAP_CREATE:Prog_Load
	delegate_maps=hash:array
	delegate_maps=6
	delegate_maps=0x6
	delegate_maps=010
	delegate_cmds=any
	'delegate_progs=any,delegate_attachs=any'
	delegate_maps=ANY
	delegate_maps=nosuch
	delegate_maps=BPF_MAP_TYPE_HASH
	delegate_cmds=BPF_MAP_CREATE
	delegate_attachs=BPF_XDP
	delegate_maps=
	delegate_maps
	delegate_maps=0
	'delegate_maps=hash,delegate_maps=array'
	'delegate_cmds=any,delegate_cmds=0'
	delegate_maps=hash:4
	delegate_maps=4:hash
	delegate_maps=hash::array
	delegate_maps=0x8000000000000000
	delegate_maps=0x8000000000000002
	delegate_maps=0x7fffffffffffffff
	delegate_maps=0xffffffffffffffff
	delegate_maps=18446744073709551616
	delegate_progs=xdp:socket_filter:kprobe
	delegate_attachs=xdp:cgroup_inet_ingress
	delegate_attachs=0x2000000000
	delegate_cmds=prog_run
	delegate_progs=unspec
	'uid=65534,gid=65534,mode=0700'
	gid=0x10
	mode=755
	mode=1777
	mode=8
	uid=4294967295
	foo=bar
	delegate_foo=1
)

setup_file() {
	local top=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	local build=${BUILD:-$top/build}
	# The helper is built by `make test-build`; build it here if it is not.
	export HELPER=${TEST_BIN:-$build/tests}/abi-diff
	[[ -x $HELPER ]] || make -s -C "$top" "$HELPER" >&2 || true
	# the kernel's BTF, once
	export BTF_DUMP=$BATS_FILE_TMPDIR/btf
	"${BPFTOOL:-$build/bpftool/bpftool}" btf dump file /sys/kernel/btf/vmlinux format raw \
		>"$BTF_DUMP" 2>/dev/null || true
}

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
	ABI=$BATS_TEST_DIRNAME
	MNT=$BATS_TEST_TMPDIR/mnt
	mkdir -p "$MNT"
	[[ $(id -u) == 0 ]] || { echo "must run as root"; false; }
	[[ -x $BPFTOOL ]] || { echo "no $BPFTOOL: run 'make bpftool'"; false; }
	[[ -x $HELPER ]] || { echo "no $HELPER: run 'make test-build'"; false; }
	[[ -s $BTF_DUMP ]] || { echo "no BTF of the kernel ($(uname -r)) in /sys/kernel/btf/vmlinux"; false; }
	mainline_tokens || { echo "the kernel ($(uname -r)) has no mainline BPF tokens"; false; }
}

teardown() {
	umount "$MNT" 2>/dev/null || true
}

# The members of union bpf_attr's token_create in the kernel's BTF, one
# "NAME BITS_OFFSET" line each, in order
token_create_members() {
	awk -v q="'" '
		# first pass: the type of the member token_create of bpf_attr
		NR == FNR {
			if (/^\[/)
				attr = $2 == "UNION" && $3 == q "bpf_attr" q
			else if (attr && $1 == q "token_create" q)
				id = substr($2, length("type_id=") + 1)
			next
		}
		# second pass: the members of that type
		/^\[/ { cur = id != "" && $1 == "[" id "]"; next }
		cur {
			name = $1
			gsub(q, "", name)
			print name, substr($NF, length("bits_offset=") + 1)
		}' "$BTF_DUMP" "$BTF_DUMP"
}

# Mainline's tokens: token_create starts with flags and bpffs_fd, and BPF
# FS's mount options (struct bpf_mount_opts) have delegate_cmds
mainline_tokens() {
	[[ $(token_create_members | head -n 2 | tr '\n' ' ') == "flags 0 bpffs_fd 32 " ]] &&
		awk -v q="'" '/^\[/ { opts = $2 == "STRUCT" && $3 == q "bpf_mount_opts" q; next }
			opts && $1 == q "delegate_cmds" q { found = 1 }
			END { exit !found }' "$BTF_DUMP"
}

# This project's kernel: token_create also has the pinned tokens' fields
pinned_tokens() {
	token_create_members | grep -q '^pin_pathname '
}

# want KIND: the lines of tests/abi/expected of KIND, "mountinfo" (the
# cases "mountinfo -o ...") or "abi-diff" (the others); on a kernel with
# pinned tokens, with the results of tests/abi/extensions in place of
# mainline's. A line's case is what comes before its last ": ".
want() {
	local pinned=0 release before older=
	if pinned_tokens; then
		pinned=1
	fi
	# on an older mainline kernel, the BEFORE values it is older than
	release=$(uname -r)
	if [[ $pinned == 0 ]]; then
		for before in $(awk -F '\t' '!/^#/ && NF { print $1 }' "$ABI/older-mainline" | sort -u); do
			[[ $(printf '%s\n%s\n' "$release" "$before" | sort -V | head -n 1) != "$before" ]] &&
				older+=" $before"
		done
	fi
	awk -F '\t' -v pinned=$pinned -v kind="$1" -v older="$older " '
		function casename(s,    i, j) {
			i = 0
			while ((j = index(substr(s, i + 1), ": ")) > 0)
				i += j
			return substr(s, 1, i - 1)
		}
		FILENAME == ARGV[1] {
			if (!/^#/ && NF)
				port[$1] = $2
			next
		}
		FILENAME == ARGV[2] {
			if (!/^#/ && NF && index(older, " " $1 " "))
				old[$2] = $3
			next
		}
		/^#/ || !NF { next }
		{
			c = casename($0)
			if ((kind == "mountinfo") != (c ~ /^mountinfo /))
				next
			if (pinned && c in port)
				$0 = c ": " port[c]
			if (c in old) {
				if (old[c] == "-")
					next
				$0 = c ": " old[c]
			}
			print
		}' "$ABI/extensions" "$ABI/older-mainline" "$ABI/expected"
}

# compare KIND FILE: FILE has the lines want KIND gives, or the test fails
# with a diff (expected first, then this kernel's)
compare() {
	local ref=mainline
	if pinned_tokens; then
		ref="mainline, with the port's extensions"
	fi
	if [[ -n ${ABI_OUT:-} ]]; then
		mkdir -p "$ABI_OUT"
		cp "$2" "$ABI_OUT/${2##*/}"
	fi
	want "$1" >"$BATS_TEST_TMPDIR/want"
	[[ -s $BATS_TEST_TMPDIR/want ]]
	run diff -u --label "tests/abi/expected ($ref)" --label "$(uname -r)" \
		"$BATS_TEST_TMPDIR/want" "$2"
	echo "$output"
	[[ $status == 0 ]]
}

@test "the kernel has mainline's BPF tokens (a kernel without them fails here)" {
	echo "kernel $(uname -r); token_create: $(token_create_members | cut -d' ' -f1 | tr '\n' ' ')"
	mainline_tokens
}

@test "abi-diff: every case gives mainline's result, or the port's extension" {
	local out=$BATS_TEST_TMPDIR/abi-diff.out rc
	run "$HELPER"
	rc=$status
	printf '%s\n' "$output" >"$out"
	echo "abi-diff: exit status $rc, ${#lines[@]} lines"
	compare abi-diff "$out"
	[[ $rc == 0 ]]
}

@test "mountinfo: the options of BPF FS mounts are shown as mainline shows them" {
	local out=$BATS_TEST_TMPDIR/mountinfo.out opts shown
	for opts in "${MOUNT_OPTIONS[@]}"; do
		if mount -t bpf -o "$opts" bpf "$MNT" 2>/dev/null; then
			shown=$(awk -v d="$MNT" '$5 == d { print $NF }' /proc/self/mountinfo)
			umount "$MNT"
		else
			shown=FAIL
		fi
		echo "mountinfo -o $opts: $shown"
	done >"$out"
	compare mountinfo "$out"
}

@test "extensions: each names a case of expected, with the port's result and a reason" {
	local c
	run awk -F '\t' '!/^#/ && NF && (NF != 3 || $1 == "" || $2 == "" || $3 == "")' "$ABI/extensions"
	echo "malformed: $output"
	[[ $status == 0 && -z $output ]]
	while IFS=$'\t' read -r c _; do
		[[ -z $c || $c == '#'* ]] && continue
		grep -qF -- "$c: " "$ABI/expected" || { echo "not a case of tests/abi/expected: $c"; false; }
	done <"$ABI/extensions"
}
