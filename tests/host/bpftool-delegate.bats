#!/usr/bin/env bats
# bpftool token delegate, and delegated BPF FS mounts in show, list and revoke,
# on this machine's kernel when it has mainline's BPF tokens (Linux 6.9+):
# a user namespace gets a delegated BPF FS, and a process in it makes a token
# from the mount and creates the map types it allows, not the others
# (tests/helpers/token-delegated.c, raw bpf(2) with mainline's attrs). Bad
# input is one error line and mounts nothing. Every test skips, saying why,
# on a kernel without mainline's tokens or without root.

bats_require_minimum_version 1.5.0

load ../helpers/run-err

setup_file() {
	local top=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	local build=${BUILD:-$top/build}
	# The helper is built by `make test-build`; build it here if it is not.
	export HELPER=${TEST_BIN:-$build/tests}/token-delegated
	[[ -x $HELPER ]] || make -s -C "$top" "$HELPER" >&2 || true
	# the kernel's token ABI, read once from its BTF (a few seconds under
	# emulation): MAINLINE_TOKENS, PINNED_TOKENS 1 or 0
	BPFTOOL=${BPFTOOL:-$build/bpftool/bpftool}
	MAINLINE_TOKENS=0 PINNED_TOKENS=0
	if [[ -x $BPFTOOL ]]; then
		mainline_tokens && MAINLINE_TOKENS=1
		pinned_tokens && PINNED_TOKENS=1
	fi
	export MAINLINE_TOKENS PINNED_TOKENS
}

# Mainline's tokens: union bpf_attr's token_create starts with flags and
# bpffs_fd, and BPF FS's mount options (struct bpf_mount_opts) have
# delegate_cmds (the kernel's BTF says both).
mainline_tokens() {
	[[ -r /sys/kernel/btf/vmlinux ]] || return 1
	"$BPFTOOL" btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
		awk '/'"'"'bpffs_fd'"'"' type_id=[0-9]+ bits_offset=32$/ && p ~ /'"'"'flags'"'"' .*bits_offset=0$/ { layout = 1 }
		     /^\[[0-9]+\] STRUCT '"'"'bpf_mount_opts'"'"' / { opts = 1; next }
		     /^\[[0-9]+\] / { opts = 0 }
		     opts && /'"'"'delegate_cmds'"'"' / { delegate = 1 }
		     { p = $0 } END { exit !(layout && delegate) }'
}

# This project's kernel: token_create also has the pinned tokens' fields
pinned_tokens() {
	"$BPFTOOL" btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
		grep -q "^[[:space:]]*'pin_pathname' type_id="
}

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
	[[ -x $BPFTOOL ]] || { echo "no $BPFTOOL: run 'make bpftool'"; false; }
	[[ $(id -u) == 0 ]] || skip "needs root (mounts a BPF FS)"
	[[ $MAINLINE_TOKENS == 1 ]] || skip "the kernel ($(uname -r)) has no mainline BPF tokens (delegated BPF FS)"
	command -v unshare >/dev/null && command -v nsenter >/dev/null ||
		skip "needs unshare and nsenter (util-linux)"
	D=$BATS_TEST_TMPDIR/d
	mkdir -p "$D/mnt"
	NSPID=
	MPID=
	CG=
	HOLDS=()
}

teardown() {
	local m
	# the holders of tokens first: a token keeps its BPF FS busy
	if [[ ${#HOLDS[@]} != 0 ]]; then
		kill "${HOLDS[@]}" 2>/dev/null || true
		wait "${HOLDS[@]}" 2>/dev/null || true
	fi
	# every BPF FS mounted below this test's directory, innermost first
	for m in $(awk -v d="$BATS_TEST_TMPDIR" '$5 ~ "^" d { print $5 }' /proc/self/mountinfo | sort -r); do
		umount "$m" 2>/dev/null || true
	done
	[[ -z $MPID ]] || kill "$MPID" 2>/dev/null || true
	[[ -z $CG ]] || rmdir "$CG" 2>/dev/null || true
	if [[ -n $NSPID ]]; then
		kill "$NSPID" 2>/dev/null || true
		wait "$NSPID" 2>/dev/null || true
	fi
}

# A user namespace (root mapped to root) held by a sleeping process: $NSPID
make_userns() {
	unshare -U --map-root-user sleep 600 &
	NSPID=$!
	# wait until the process is in its own user namespace
	for _ in $(seq 50); do
		[[ $(readlink /proc/$NSPID/ns/user) != "$(readlink /proc/self/ns/user)" ]] && return 0
		sleep 0.1
	done
	echo "unshare did not make a user namespace"
	false
}

# The mounts below the test's directory
mounts() {
	awk -v d="$BATS_TEST_TMPDIR" '$5 ~ "^" d' /proc/self/mountinfo
}

# what run_err (tests/helpers/run-err.bash) checks is unchanged: no mount
# appears
run_err_state() {
	mounts
}

@test "delegate: the user namespace makes a token from the mount; allowed map types are created, others are not" {
	make_userns
	run --separate-stderr "$BPFTOOL" token delegate "$D/mnt" userns "$NSPID" \
		cmds map_create:token_create maps hash progs xdp attach xdp
	echo "$output $stderr"
	[[ $status == 0 && -z $output && -z $stderr ]]
	mounts | grep -E " $D/mnt .* - bpf .*delegate_cmds=map_create:token_create,delegate_maps=hash,delegate_progs=xdp,delegate_attachs=xdp"

	# hash (1) through the token, array (2) not
	run nsenter -t "$NSPID" -U "$HELPER" "$D/mnt" 1 2
	echo "$output"
	[[ $status == 0 ]]
	[[ $output == $'token: ok\nmap 1: ok\nmap 2: EPERM' ]]
	# not from the initial user namespace
	run "$HELPER" "$D/mnt"
	[[ $status == 1 && $output == "token: "* && $output != "token: ok" ]]
}

@test "delegate: userns as a /proc/PID/ns/user path, lists with ':' and ',' and names in any case" {
	make_userns
	run --separate-stderr "$BPFTOOL" token delegate "$D/mnt" userns "/proc/$NSPID/ns/user" \
		cmds MAP_CREATE,bpf_token_create maps hash:ARRAY
	echo "$output $stderr"
	[[ $status == 0 ]]
	run nsenter -t "$NSPID" -U "$HELPER" "$D/mnt" 1 2 3
	echo "$output"
	[[ $output == $'token: ok\nmap 1: ok\nmap 2: ok\nmap 3: EPERM' ]]
}

@test "delegate -j, show -j and list -j: the mount with upstream's token_info key and the project's" {
	make_userns
	run --separate-stderr "$BPFTOOL" -j token delegate "$D/mnt" userns "$NSPID" \
		cmds map_create,prog_load maps array progs xdp,kprobe attach xdp
	echo "$output $stderr"
	[[ $status == 0 ]]
	[[ $(jq -r .token_info <<<"$output") == "$D/mnt" ]]
	# kprobe is root-equivalent: a warning, on stderr only without -j
	run --separate-stderr "$BPFTOOL" token show "$D/mnt"
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[0]} == "$D/mnt" ]]
	[[ ${lines[1]} == $'\tdelegated: mount '* ]]
	[[ $output == *$'\tallowed_cmds: map_create prog_load\n'* ]]
	[[ $output == *$'\tallowed_progs: kprobe xdp\n'* ]]
	[[ $output == *$'\troot-equivalent'* ]]

	run --separate-stderr "$BPFTOOL" -j token show "$D/mnt"
	echo "$output"
	[[ $status == 0 ]]
	[[ $(jq -r type <<<"$output") == object ]]
	[[ $(jq -c '. | [.token_info, .delegated, .pid, .allowed_cmds, .allowed_maps, .allowed_progs, .allowed_attachs, .root_equivalent, .relaxed_verifier, .cgroup]' <<<"$output") == \
		"[\"$D/mnt\",\"$D/mnt\",null,[\"map_create\",\"prog_load\"],[\"array\"],[\"kprobe\",\"xdp\"],[\"xdp\"],true,false,null]" ]]
	[[ $(jq '.mnt_ns' <<<"$output") == $(stat -L -c %i /proc/self/ns/mnt) ]]

	run --separate-stderr "$BPFTOOL" -j token list
	echo "$output"
	[[ $status == 0 ]]
	[[ $(jq -c --arg p "$D/mnt" '[.[] | select(.token_info == $p)] | length' <<<"$output") == 1 ]]
	[[ $(jq -c --arg p "$D/mnt" '.[] | select(.token_info == $p) | .allowed_maps' <<<"$output") == '["array"]' ]]
	run --separate-stderr "$BPFTOOL" token list
	[[ $status == 0 ]]
	[[ $output == *"$D/mnt"$'\n\tdelegated: mount '* ]]
}

@test "list: a delegated mount in another mount namespace, with the PID it was seen in" {
	make_userns
	# a process in a mount namespace of its own, whose mounts do not
	# propagate to bpftool's
	unshare -m --propagation private sleep 600 &
	MPID=$!
	local mpid=$MPID
	for _ in $(seq 50); do
		[[ $(readlink /proc/$mpid/ns/mnt) != "$(readlink /proc/self/ns/mnt)" ]] && break
		sleep 0.1
	done
	run --separate-stderr "$BPFTOOL" token delegate "$D/mnt" userns "$NSPID" maps hash cmds map_create
	echo "$output $stderr"
	[[ $status == 0 ]]
	# seen in bpftool's namespace, and in the other one (a copy of it made
	# before the mount: the mount is not there)
	run --separate-stderr "$BPFTOOL" -j token list
	echo "$output"
	[[ $(jq --arg p "$D/mnt" '[.[] | select(.token_info == $p)] | length' <<<"$output") == 1 ]]
	umount "$D/mnt"

	# mounted in the other namespace only, through nsenter (no PID form
	# here: the PID's user namespace is the one the mount is for)
	nsenter -t "$mpid" -m "$BPFTOOL" token delegate "$D/mnt" userns "/proc/$NSPID/ns/user" maps array cmds map_create
	[[ $(mounts) != *" $D/mnt "* ]]
	run --separate-stderr "$BPFTOOL" -j token list
	echo "$output"
	kill "$mpid"
	[[ $(jq -c --arg p "$D/mnt" '.[] | select(.token_info == $p) | [.pid, .allowed_maps]' <<<"$output") == "[$mpid,[\"array\"]]" ]]
}

@test "delegate: bad input is one error line, and nothing is mounted" {
	make_userns
	touch "$D/file"
	run_err "missing PATH for the delegated BPF FS" token delegate
	run_err "missing PATH for the delegated BPF FS" token delegate userns "$NSPID"
	run_err "missing 'userns NS'" token delegate "$D/mnt" cmds any
	run_err "can't open user namespace of process 999999999: no such process" \
		token delegate "$D/mnt" userns 999999999
	run_err "/proc/self/ns/mnt is not a user namespace" \
		token delegate "$D/mnt" userns /proc/self/ns/mnt
	run_err "expected 'userns', 'cmds', 'maps', 'progs', 'attach', 'object', 'cgroup' or 'verifier', got: 'token'" \
		token delegate "$D/mnt" userns "$NSPID" token /x
	run_err "expected 'userns', 'cmds', 'maps', 'progs', 'attach', 'object', 'cgroup' or 'verifier', got: 'frob'" \
		token delegate "$D/mnt" userns "$NSPID" frob any
	run_err "unknown map type 'nosuch'" \
		token delegate "$D/mnt" userns "$NSPID" maps nosuch
	run_err "'cmds' already specified" \
		token delegate "$D/mnt" userns "$NSPID" cmds any cmds any
	run_err "can't mount at $D/file: not a directory" \
		token delegate "$D/file" userns "$NSPID" cmds any
	run_err "can't mount at $D/nosuch: No such file or directory" \
		token delegate "$D/nosuch" userns "$NSPID" cmds any
	run_err "PATH mnt must be absolute" \
		token delegate mnt userns "$NSPID" cmds any
	run_err "object $D/file is not an ELF file" \
		token delegate "$D/mnt" userns "$NSPID" object "$D/file"
}

@test "delegate: cgroup and the relaxed verifier, which mainline's delegated BPF FS lacks, are refused" {
	[[ $PINNED_TOKENS == 1 ]] && skip "this project's kernel has them (the next test)"
	make_userns
	run_err "can't delegate with cgroup /sys/fs/cgroup: the kernel has no cgroup scope for delegated tokens" \
		token delegate "$D/mnt" userns "$NSPID" cmds any cgroup /sys/fs/cgroup
	run_err "can't delegate with 'verifier relaxed': the kernel has no relaxed verifier for delegated tokens" \
		token delegate "$D/mnt" userns "$NSPID" cmds any verifier relaxed
	# strict is what mainline does
	run --separate-stderr "$BPFTOOL" token delegate "$D/mnt" userns "$NSPID" cmds any verifier strict
	[[ $status == 0 ]]
}

@test "delegate on this project's kernel: a cgroup scope and the relaxed verifier, in mountinfo and show" {
	[[ $PINNED_TOKENS == 1 ]] || skip "a mainline kernel has neither (the test before)"
	make_userns
	CG=/sys/fs/cgroup/bpftool-delegate-$$
	mkdir "$CG"
	run --separate-stderr "$BPFTOOL" token delegate "$D/mnt" userns "$NSPID" \
		cmds map_create maps hash cgroup "$CG" verifier relaxed
	echo "$output $stderr"
	[[ $status == 0 ]]
	local id
	id=$(stat -c %i "$CG")
	mounts | grep -E " $D/mnt .* - bpf .*,delegate_cgroup=$id,delegate_verifier=relaxed"
	run --separate-stderr "$BPFTOOL" -j token show "$D/mnt"
	echo "$output"
	[[ $(jq -c '. | [.cgroup.id, .cgroup.path, .relaxed_verifier]' <<<"$output") == "[$id,\"${CG#/sys/fs/cgroup}\",true]" ]]
	run nsenter -t "$NSPID" -U "$HELPER" "$D/mnt" 1
	[[ $output == $'token: ok\nmap 1: ok' ]]
}

@test "create on a mainline kernel: one line pointing to delegate, nothing created" {
	[[ $PINNED_TOKENS == 1 ]] && skip "this kernel also has pinned tokens, which create makes (tests/vm/bpftool-token.bats)"
	mount -t bpf bpf "$D/mnt"
	run_err "can't create a pinned token: this kernel has mainline's BPF tokens, made from a delegated BPF FS: see 'bpftool token delegate PATH userns NS ...'" \
		token create "$D/mnt/tok" cmds any
	[[ ! -e $D/mnt/tok ]]
}

@test "revoke of a delegated mount on mainline: refused in one line, the mount stays" {
	[[ $PINNED_TOKENS == 1 ]] && skip "this kernel revokes the tokens of a delegated mount (the next test)"
	make_userns
	"$BPFTOOL" token delegate "$D/mnt" userns "$NSPID" cmds map_create:token_create maps hash
	run_err "can't revoke $D/mnt: a mainline kernel cannot revoke a token" token revoke "$D/mnt"
	mounts | grep -q " $D/mnt "
	# and its tokens still work
	run nsenter -t "$NSPID" -U "$HELPER" "$D/mnt" 1
	[[ $output == $'token: ok\nmap 1: ok' ]]
}

@test "revoke of a delegated mount on this project's kernel: unmounted, no token made from it any more" {
	[[ $PINNED_TOKENS == 1 ]] || skip "a mainline kernel cannot revoke (the test before)"
	make_userns
	"$BPFTOOL" token delegate "$D/mnt" userns "$NSPID" cmds map_create maps hash
	run nsenter -t "$NSPID" -U "$HELPER" "$D/mnt" 1
	[[ $output == $'token: ok\nmap 1: ok' ]]
	run --separate-stderr "$BPFTOOL" token revoke "$D/mnt"
	echo "$output $stderr"
	[[ $status == 0 && -z $output && -z $stderr ]]
	! mounts | grep -q " $D/mnt "
}

# hold MNT MAP_TYPE...: a process of the user namespace $NSPID makes a token
# from MNT, creates the maps, and holds the token; its PID in HOLD (added to
# HOLDS, which teardown kills)
hold() {
	local out=$BATS_TEST_TMPDIR/hold.$#.$RANDOM
	nsenter -t "$NSPID" -U "$HELPER" --hold "$@" >"$out" 2>&1 &
	HOLD=$!
	HOLDS+=("$HOLD")
	for _ in $(seq 100); do
		grep -qx holding "$out" && return 0
		sleep 0.1
	done
	cat "$out"
	false
}

@test "show of a delegated mount: its live tokens with their holders and accounting (this project's kernel), null on mainline" {
	local a b m
	make_userns
	mkdir -p "$D/mnt2"
	"$BPFTOOL" token delegate "$D/mnt" userns "$NSPID" cmds map_create maps hash
	"$BPFTOOL" token delegate "$D/mnt2" userns "$NSPID" cmds map_create maps array
	# a token of each mount: the first creates a hash map and is refused
	# an array (a denial), the second holds its token and does nothing
	hold "$D/mnt" 1 2
	a=$HOLD
	hold "$D/mnt2"
	b=$HOLD

	run --separate-stderr "$BPFTOOL" -j token show "$D/mnt"
	echo "$output"
	[[ $status == 0 ]]
	if [[ $PINNED_TOKENS != 1 ]]; then
		# mainline's fdinfo does not say which mount a token comes from
		[[ $(jq -c .tokens <<<"$output") == null ]]
		run --separate-stderr "$BPFTOOL" token show "$D/mnt"
		[[ $status == 0 && $output != *tokens* ]]
		return
	fi
	m=$output
	[[ $(jq '.tokens | length' <<<"$m") == 1 ]]
	[[ $(jq -c '.tokens[0] | [.pids, .allowed_cmds, .allowed_maps, .uses.map_create, .denials, .revoked]' <<<"$m") == \
		"[[$a],[\"map_create\"],[\"hash\"],1,1,false]" ]]
	[[ $(jq '.tokens[0].id' <<<"$m") -gt 0 ]]
	# the other mount's token is the other mount's
	run --separate-stderr "$BPFTOOL" -j token show "$D/mnt2"
	echo "$output"
	[[ $(jq -c '[.tokens[] | [.pids, .allowed_maps, .uses.map_create]]' <<<"$output") == "[[[$b],[\"array\"],0]]" ]]
	[[ $(jq '.tokens[0].id' <<<"$output") != $(jq '.tokens[0].id' <<<"$m") ]]

	# plain: a count in the mount's block, a block per token
	run --separate-stderr "$BPFTOOL" token show "$D/mnt"
	echo "$output"
	[[ $status == 0 ]]
	[[ $output == *$'\ttokens: 1\n'"token of $D/mnt, held by pid $a"$'\n\tid: '* ]]
	[[ $output == *$'\tuses: map_create 1 btf_load 0 prog_load 0 token_create 0\n\tdenials: 1\n'* ]]

	# a holder that is gone holds nothing; list shows no tokens
	kill "$a"
	wait "$a" 2>/dev/null || true
	run --separate-stderr "$BPFTOOL" -j token show "$D/mnt"
	[[ $(jq -c .tokens <<<"$output") == "[]" ]]
	run --separate-stderr "$BPFTOOL" -j token list
	[[ $(jq -c --arg p "$D/mnt2" '[.[] | select(.token_info == $p) | has("tokens")]' <<<"$output") == "[false]" ]]
}

@test "show of a BPF FS that delegates nothing, and of a plain directory, is not a delegated mount" {
	mount -t bpf bpf "$D/mnt"
	run --separate-stderr "$BPFTOOL" token show "$D/mnt"
	[[ $status != 0 ]]
	run --separate-stderr "$BPFTOOL" -j token list
	[[ $status == 0 ]]
	[[ $(jq --arg p "$D/mnt" '[.[] | select(.token_info == $p)] | length' <<<"$output") == 0 ]]
}
