#!/usr/bin/env bats
# Attacks on BPF tokens that the kernel selftests do not try, each beside a
# control that shows what root (or the holder, where it is allowed) still
# does (SPEC "No implicit privilege (kernel)"):
#
# - revocation: nobody and a user-namespaced container's root keep copies
#   of the BPF FS mount of a token (a mount namespace of their own, a
#   detached open_tree() clone) and token fds; root's unmount in the home
#   mount namespace revokes the token for all of them (patches 52-55);
#   the container's root mounts the container's BPF FS a second time in
#   its own mount namespace (the home); and for a BPF FS delegated to the
#   container (96), makes the first token in a mount namespace of its own,
#   or makes new tokens from copies and clones of the mount after the
#   revoke;
# - xt_bpf: an iptables rule of a container's root takes its token's
#   socket filter while the token lives, not once it is revoked (81);
# - a BPF LSM refuses the relaxed verifier: on bpf_token_create the
#   creation, on bpf_token_capable the relaxation at load (58, 85);
# - a container's root loading through a token gets no capability by its
#   program: bind return 3, bpf_setsockopt(SO_MARK) or with a variable
#   optname, mark writes, bpf_sysctl_set_new_value(), bpf_redirect_peer(),
#   a kfunc that returns a kernel pointer, the SYN-cookie helpers (73,
#   77); root, through the same token, does.
#
# The programs are raw instructions of build/tests/token-attack
# (tests/helpers/token-attack.c), not objects of the corpus. Each test
# works in $D (root's, 0755) on the suite's BPF FS, with $U=$D/u (0777)
# where the holders pin, and in $WORK (/tmp) for its own BPF FS instances.

load lib

setup() {
	need "$BPFTOOL" "$TEST_BIN/token-attack" "$PROGS/sockfilter.bpf.o"
	bpffs_dir token-attacks
	U=$D/u
	mkdir -m 0777 "$U"
	work_dir token-attacks
	PIDS=()
	MOUNTS=()
	IPT_RULES=()
}

teardown() {
	local p m
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	for m in "${MOUNTS[@]}"; do
		if mountpoint -q "$m"; then
			umount -l "$m"
		fi
	done
	for m in "${IPT_RULES[@]}"; do
		# shellcheck disable=SC2086 # the rule's words
		XTABLES_LOCKFILE=$WORK/xtables.lock "$IPT" -w -D $m 2>/dev/null || true
	done
	# (removing $D detaches the LSM programs pinned there)
	rm -rf "$D" "$WORK"
}

# start_container: CPID, a "container": uid 65534's user, mount and network
# namespaces, its root uid 0 inside with every capability there and none
# outside
start_container() {
	local i
	# "${AS_NOBODY[@]}", not as_nobody: $! must be the process that
	# becomes the container; no bats fd 3 in it
	"${AS_NOBODY[@]}" unshare --user --map-root-user --mount --net \
		sleep 600 </dev/null >/dev/null 2>&1 3>&- &
	CPID=$!
	PIDS+=("$CPID")
	for ((i = 0; i < 100; i++)); do
		[[ $(awk '{ print $1, $2, $3 }' "/proc/$CPID/uid_map" 2>/dev/null) == "0 $NOBODY 1" &&
			$(readlink "/proc/$CPID/ns/net") != "$(readlink /proc/self/ns/net)" ]] && break
		sleep 0.1
	done
	[[ $i -lt 100 ]] || { echo "container $CPID did not start"; return 1; }
}

# in_container CMD...: CMD as the container's root, entered as a runtime's
# exec does (its owner, uid 65534 without capabilities, joins its
# namespaces)
in_container() {
	as_nobody nsenter --preserve-credentials -t "$CPID" -U -m -n -- "$@"
}

# wait_file FILE: FILE exists within 30 s
wait_file() {
	local i
	for ((i = 0; i < 300; i++)); do
		[[ -e $1 ]] && return 0
		sleep 0.1
	done
	echo "no $1 after 30 s"
	return 1
}

# holder NAME PREFIX...: `token-attack hold -c` of $TOKEN, started in the
# background by the command PREFIX (no shell function: $! must be it),
# syncing on $SYNC/NAME.K and $SYNC/go1, $SYNC/go2; its output in
# $WORK/NAME.out
holder() {
	local name=$1
	shift
	"$@" "$TEST_BIN/token-attack" hold -c "$SYNC/$name" "$TOKEN" "$SYNC/go1" "$SYNC/go2" \
		</dev/null >"$WORK/$name.out" 2>&1 3>&- &
	PIDS+=("$!")
}

@test "revocation: copies of the mount held by nobody and by a container's root do not keep the token live once root unmounts it at home" {
	local name p
	SYNC=$WORK/sync
	mkdir -m 0777 "$SYNC"
	mkdir -m 0755 "$WORK/fs"
	mount -t bpf bpf "$WORK/fs"
	MOUNTS+=("$WORK/fs")
	TOKEN=$WORK/fs/t
	run_ok token create "$TOKEN" cmds prog_load progs xdp attach xdp
	chmod 0666 "$TOKEN"
	# the container's mount namespace is a copy made after the mount
	start_container

	# nobody in the home mount namespace (open_tree() clones need
	# CAP_SYS_ADMIN over the mount namespace); nobody in a user and mount
	# namespace of its own (a copy, and a clone of the copy's mount); the
	# container's root (its copy, and a clone)
	holder nobody "${AS_NOBODY[@]}"
	holder copy "${AS_NOBODY[@]}" unshare --user --map-root-user --mount
	holder container "${AS_NOBODY[@]}" nsenter --preserve-credentials -t "$CPID" -U -m -n --
	for name in nobody copy container; do
		wait_file "$SYNC/$name.0" || { cat "$WORK/$name.out"; false; }
	done

	# control: untouched, every fd and every copy works
	touch "$SYNC/go1"
	for name in nobody copy container; do
		wait_file "$SYNC/$name.1" || { cat "$WORK/$name.out"; false; }
	done
	# the attack: root unmounts the BPF FS in the initial mount namespace,
	# its home; the copies and clones live on
	umount "$WORK/fs"
	touch "$SYNC/go2"
	for p in "${PIDS[@]:1}"; do
		wait "$p"
	done
	for name in nobody copy container; do
		echo "== $name"
		cat "$WORK/$name.out"
	done

	diff -u - "$WORK/nobody.out" <<-'EOF'
	1 before: load ok revoked 0
	1 clone: open_tree EPERM
	1 reopen: load ok revoked 0
	2 before: load EPERM revoked 1
	2 clone: open_tree EPERM
	2 reopen: open ENOENT
	EOF
	# in the copies the pin is still there (reopen), revoked
	for name in copy container; do
		diff -u - "$WORK/$name.out" <<-'EOF'
		1 before: load ok revoked 0
		1 clone: load ok revoked 0
		1 reopen: load ok revoked 0
		1 reopen clone: load ok revoked 0
		2 before: load EPERM revoked 1
		2 clone: load EPERM revoked 1
		2 reopen: load EPERM revoked 1
		2 reopen clone: load EPERM revoked 1
		EOF
	done
}

# The operator's guide ("Revoking a token"): unmounting a BPF FS instance in
# the mount namespace it was mounted in revokes its tokens, also when a
# process holds a copy of the mount (unshare -m, open_tree(2)). Here the
# home is the container's mount namespace, where its root may mount.
@test "revocation: a container's root can't keep a token live with its own mount of the BPF FS root mounted in the container's mount namespace" {
	local name
	SYNC=$WORK/sync
	mkdir -m 0777 "$SYNC"
	mkdir -m 0755 "$WORK/bind" "$WORK/clone" "$WORK/control" "$WORK/keep1" "$WORK/keep2"
	start_container
	# root mounts the container's BPF FS instances in the container's
	# mount namespace, their home (tests/vm/container.bash, the guide's
	# container), and gives the container's root a token on each
	for name in bind clone control; do
		nsenter -t "$CPID" -m mount -t bpf bpf "$WORK/$name"
		nsenter -t "$CPID" -m "$BPFTOOL" token create "$WORK/$name/t" cmds prog_load \
			progs xdp attach xdp
		nsenter -t "$CPID" -m chmod 0666 "$WORK/$name/t"
		TOKEN=$WORK/$name/t
		holder "$name" "${AS_NOBODY[@]}" nsenter --preserve-credentials -t "$CPID" -U -m -n --
	done
	for name in bind clone control; do
		wait_file "$SYNC/$name.0" || { cat "$WORK/$name.out"; false; }
	done
	# the attack: the container's root mounts two of the instances a
	# second time in its mount namespace (the home): a bind mount, and an
	# open_tree() clone attached with move_mount(); the third is the
	# control
	in_container mount --bind "$WORK/bind" "$WORK/keep1"
	in_container "$TEST_BIN/token-attack" attach-clone "$WORK/clone" "$WORK/keep2"
	touch "$SYNC/go1"
	for name in bind clone control; do
		wait_file "$SYNC/$name.1" || { cat "$WORK/$name.out"; false; }
	done
	# root unmounts the container's BPF FS instances where it mounted them
	for name in bind clone control; do
		nsenter -t "$CPID" -m umount "$WORK/$name"
	done
	touch "$SYNC/go2"
	for name in control clone bind; do
		wait "${PIDS[-1]}"
		unset 'PIDS[-1]'
		echo "== $name"
		cat "$WORK/$name.out"
	done
	# the pins are gone from where root unmounted them: a reopen fails
	for name in control bind clone; do
		diff -u - "$WORK/$name.out" <<-'EOF'
		1 before: load ok revoked 0
		1 clone: load ok revoked 0
		1 reopen: load ok revoked 0
		1 reopen clone: load ok revoked 0
		2 before: load EPERM revoked 1
		2 clone: load EPERM revoked 1
		2 reopen: open ENOENT
		2 reopen clone: load EPERM revoked 1
		EOF
	done
}

# dholder NAME DIR PREFIX...: `token-attack hold -c -d` of the delegated BPF
# FS at DIR (each open makes a token from its root), as holder does
dholder() {
	local name=$1 dir=$2
	shift 2
	"$@" "$TEST_BIN/token-attack" hold -c -d "$SYNC/$name" "$dir" "$SYNC/go1" "$SYNC/go2" \
		</dev/null >"$WORK/$name.out" 2>&1 3>&- &
	PIDS+=("$!")
}

# delegated_revocation NAME...: the rounds of the holders NAME (round 1:
# every fd and every token made works; round 2, after `bpftool token
# revoke` of their delegated BPF FS: none does), after go1, root's revoke
# of $WORK/d (in the container's mount namespace) and go2
delegated_revocation() {
	local name
	touch "$SYNC/go1"
	for name in "$@"; do
		wait_file "$SYNC/$name.1" || { cat "$WORK/$name.out"; false; }
	done
	nsenter -t "$CPID" -m "$BPFTOOL" token revoke "$WORK/d"
	touch "$SYNC/go2"
	for name in "$@"; do
		wait_file "$SYNC/$name.2" || { cat "$WORK/$name.out"; false; }
		echo "== $name"
		cat "$WORK/$name.out"
	done
	for name in "$@"; do
		[[ $(grep -c '^1 .*: load ok revoked 0$' "$WORK/$name.out") == 4 ]]
		[[ $(grep -c '^2 ' "$WORK/$name.out") == 4 ]]
		run grep '^2 .*load ok' "$WORK/$name.out"
		[[ $status == 1 ]] || { echo "$name: after the revoke: $output"; false; }
	done
}

# A BPF FS delegated to the container's user namespace, mounted by root in
# the container's mount namespace (bpftool token delegate): its tokens are
# revoked when its home mount, the one root's move_mount attached there,
# leaves (patches 54 and 96), which bpftool token revoke unmounts; after
# that the instance makes no token, from whichever mount of it.
@test "revocation: delegated BPF FS: the container's root can't make the revoke miss by making the first token in a mount namespace of its own" {
	SYNC=$WORK/sync
	mkdir -m 0777 "$SYNC"
	mkdir -m 0755 "$WORK/d"
	start_container
	nsenter -t "$CPID" -m "$BPFTOOL" token delegate "$WORK/d" userns "$CPID" cmds prog_load \
		progs xdp attach xdp
	# the first token is made in a copy of the container's mount namespace
	dholder private "$WORK/d" "${AS_NOBODY[@]}" nsenter --preserve-credentials -t "$CPID" -U -m -n -- \
		unshare --mount --propagation private
	wait_file "$SYNC/private.0" || { cat "$WORK/private.out"; false; }
	delegated_revocation private
}

@test "revocation: delegated BPF FS: copies and clones of its mount make no live token once it is revoked" {
	SYNC=$WORK/sync
	mkdir -m 0777 "$SYNC"
	mkdir -m 0755 "$WORK/d"
	start_container
	nsenter -t "$CPID" -m "$BPFTOOL" token delegate "$WORK/d" userns "$CPID" cmds prog_load \
		progs xdp attach xdp
	# the first token is made in the container's mount namespace (the
	# home), with a clone of the mount; then the container's root makes
	# a copy of its mount namespace, and a clone there
	dholder home "$WORK/d" "${AS_NOBODY[@]}" nsenter --preserve-credentials -t "$CPID" -U -m -n --
	wait_file "$SYNC/home.0" || { cat "$WORK/home.out"; false; }
	dholder copy "$WORK/d" "${AS_NOBODY[@]}" nsenter --preserve-credentials -t "$CPID" -U -m -n -- \
		unshare --mount --propagation private
	wait_file "$SYNC/copy.0" || { cat "$WORK/copy.out"; false; }
	delegated_revocation home copy
}

# xt_backend: IPT, an iptables that works on this kernel (the legacy one
# needs ip_tables, the nft one nf_tables with its xtables compatibility);
# skips, saying so, when there is none
xt_backend() {
	local ipt
	for ipt in iptables-legacy iptables-nft; do
		if XTABLES_LOCKFILE=$WORK/xtables.lock "$ipt" -w -n -L INPUT >/dev/null 2>&1; then
			IPT=$ipt
			return 0
		fi
	done
	skip "no iptables works on this kernel: xt_bpf needs ip_tables (CONFIG_IP_NF_IPTABLES, CONFIG_IP_NF_FILTER) for iptables-legacy, or nf_tables (CONFIG_NF_TABLES, CONFIG_NF_TABLES_IPV4, CONFIG_NFT_COMPAT) for iptables-nft"
}

@test "xt_bpf: a container's root matches with its token's socket filter while the token lives, not once it is revoked; root still can" {
	local rule ct_ipt
	xt_backend
	start_container
	mkdir -m 0777 "$WORK/ct"
	ct_ipt=(env XTABLES_LOCKFILE="$WORK/ct/xtables.lock" "$IPT" -w)
	# (a socket filter needs no attach type: xt_bpf checks that the
	# token lives, patch 81, and nothing else of it)
	run_ok token create "$D/t" cmds map_create,prog_load,btf_load maps array progs socket_filter
	chmod 0666 "$D/t"
	run --separate-stderr in_container "$BPFTOOL" prog load "$PROGS/sockfilter.bpf.o" "$U/sf" token "$D/t"
	show_run
	[[ $status == 0 ]]
	rule="INPUT -m bpf --object-pinned $U/sf -j ACCEPT"

	# control: the container's root adds the rule, in its own network
	# namespace, while the token lives
	# shellcheck disable=SC2086 # the rule's words
	run in_container "${ct_ipt[@]}" -A $rule
	show_run
	[[ $status == 0 ]]
	# shellcheck disable=SC2086
	in_container "${ct_ipt[@]}" -D $rule

	# the attack: the same once the token is revoked (xt_bpf's
	# __bpf_mt_check_fd(): EPERM, as iptables-legacy or -nft words it)
	run_ok token revoke "$D/t"
	# shellcheck disable=SC2086
	run in_container "${ct_ipt[@]}" -A $rule
	show_run
	[[ $status != 0 ]]
	[[ $output == *"Permission denied (you must be root)"* || $output == *"Operation not permitted"* ]]
	# shellcheck disable=SC2086
	run in_container "${ct_ipt[@]}" -S INPUT
	[[ $status == 0 && $output != *"$U/sf"* ]]
	# root is not restricted by the token's rules
	# shellcheck disable=SC2086
	XTABLES_LOCKFILE=$WORK/xtables.lock "$IPT" -w -A $rule
	IPT_RULES+=("$rule")
}

@test "LSM: a BPF LSM program on bpf_token_create refuses tokens with the relaxed verifier, root's too; strict tokens are still made" {
	local args=(cmds prog_load progs xdp attach xdp)
	# control: without the policy, root makes a relaxed token
	run --separate-stderr "$BPFTOOL" token create "$D/before" "${args[@]}" verifier relaxed
	show_run
	[[ $status == 0 ]]
	"$TEST_BIN/token-attack" lsm create "$D/lsm-create"

	run_err "can't create token $D/r: Operation not permitted (needs CAP_SYS_ADMIN, or 'token PARENT')" \
		token create "$D/r" "${args[@]}" verifier relaxed
	[[ ! -e $D/r ]]
	run_ok token create "$D/s" "${args[@]}"
	run_ok token create "$D/s2" "${args[@]}" verifier strict

	# detached, it makes relaxed tokens again
	rm "$D/lsm-create"
	run --separate-stderr "$BPFTOOL" token create "$D/r" "${args[@]}" verifier relaxed
	show_run
	[[ $status == 0 ]]
	run_ok -j token show "$D/r"
	[[ $(jq -c '.relaxed_verifier' <<<"$output") == true ]]
}

@test "LSM: a BPF LSM program on bpf_token_capable refuses a relaxed token CAP_PERFMON: its holder's programs are verified strictly" {
	run --separate-stderr "$BPFTOOL" token create "$D/r" cmds prog_load progs xdp attach xdp \
		verifier relaxed
	show_run
	[[ $status == 0 ]]
	chmod 0666 "$D/r"
	# control: the relaxed token lets nobody compare pointers
	run --separate-stderr as_nobody "$TEST_BIN/token-attack" load -t "$D/r" xdp_ptr_cmp xdp_pass
	show_run
	[[ $status == 0 && $output == $'xdp_ptr_cmp: ok\nxdp_pass: ok' ]]
	[[ $(token_uses "$D/r") == "0 0 2 0 0" ]]

	"$TEST_BIN/token-attack" lsm capable "$D/lsm-capable"
	run --separate-stderr as_nobody "$TEST_BIN/token-attack" load -t "$D/r" xdp_ptr_cmp xdp_pass
	show_run
	[[ $status == 0 ]]
	[[ ${lines[0]} == "xdp_ptr_cmp: EACCES: R2 pointer comparison prohibited" ]]
	[[ ${lines[1]} == "xdp_pass: ok" ]]
	# each load through the token asks the LSM, and counts its refusal
	[[ $(token_uses "$D/r") == "0 0 3 0 2" ]]
	# root's own CAP_PERFMON is not the token's
	run --separate-stderr "$TEST_BIN/token-attack" load -t "$D/r" xdp_ptr_cmp
	show_run
	[[ $status == 0 && $output == "xdp_ptr_cmp: ok" ]]
	echo "after root's load: $(token_uses "$D/r")"

	# detached, the token relaxes the verifier again
	rm "$D/lsm-capable"
	run --separate-stderr as_nobody "$TEST_BIN/token-attack" load -t "$D/r" xdp_ptr_cmp
	show_run
	[[ $status == 0 && $output == "xdp_ptr_cmp: ok" ]]
}

# The programs of the "no capability by program" test: each one that needs
# a capability of its loader, then its control that needs none
KINDS=(bind4_ret3 bind4_ret1 skb_mark skb_cb sockops_so_mark sockops_var_optname
	sockops_so_keepalive sock_create_mark sock_create_ret1 sysctl_set_new_value sysctl_ret1
	tc_redirect_peer tc_kfunc_ptr tc_syncookie tc_pass)

@test "no capability by program: a container's root is refused at load what root, through the same token, gets" {
	local k
	run_ok token create "$D/t" cmds prog_load \
		progs cgroup_sock_addr,cgroup_skb,sock_ops,cgroup_sock,cgroup_sysctl,sched_cls \
		attach cgroup_inet4_bind,cgroup_inet_ingress,cgroup_inet_sock_create,cgroup_sysctl
	chmod 0666 "$D/t"
	start_container

	run --separate-stderr in_container "$TEST_BIN/token-attack" load -t "$D/t" "${KINDS[@]}"
	show_run
	[[ $status == 0 ]]
	diff -u - <(printf '%s\n' "${lines[@]}") <<-'EOF'
	bind4_ret3: EINVAL: At program exit the register R0 has value (0x3; 0x0) should have been in (0x0; 0x1)
	bind4_ret1: ok
	skb_mark: EACCES: invalid bpf_context access off=8 size=4
	skb_cb: ok
	sockops_so_mark: EACCES: bpf_setsockopt(1, 36) needs CAP_NET_ADMIN, which a BPF token does not give
	sockops_var_optname: EACCES: bpf_setsockopt() of a program loaded through a BPF token needs a constant level and optname
	sockops_so_keepalive: ok
	sock_create_mark: EACCES: invalid bpf_context access off=16 size=4
	sock_create_ret1: ok
	sysctl_set_new_value: EINVAL: unknown func bpf_sysctl_set_new_value#104
	sysctl_ret1: ok
	tc_redirect_peer: EINVAL: unknown func bpf_redirect_peer#155
	tc_kfunc_ptr: EACCES: kernel function bpf_kfunc_call_test_acquire returns a kernel pointer: a BPF token needs a tracing program type for it
	tc_syncookie: EINVAL: unknown func bpf_tcp_raw_gen_syncookie_ipv4#204
	tc_pass: ok
	EOF
	# the refusals are the verifier's, not the token's
	[[ $(token_uses "$D/t") == "0 0 6 0 0" ]]

	# root, through the same token (it counts the loads), loads them all
	run --separate-stderr "$TEST_BIN/token-attack" load -t "$D/t" "${KINDS[@]}"
	show_run
	[[ $status == 0 ]]
	for k in "${KINDS[@]}"; do
		[[ $output == *"$k: ok"* ]]
	done
	[[ ${#lines[@]} == "${#KINDS[@]}" ]]
	[[ $(token_uses "$D/t") == "0 0 21 0 0" ]]
}
