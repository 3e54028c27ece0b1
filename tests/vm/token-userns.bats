#!/usr/bin/env bats
# A BPF token bound to a user namespace (bpftool token create ... userns
# PID|PATH, BPF_F_TOKEN_USERNS) on the patched kernel: show prints the
# binding; the kernel honours the token only in that namespace and its
# descendants; derived tokens inherit the binding and may only narrow it.
#
# Each test works in its own directory $D of the BPF FS (root's, 0755),
# with $U=$D/u (0777) where nobody pins.

load lib

setup() {
	bpffs_dir token-userns
	U=$D/u
	mkdir -m 0777 "$U"
	PIDS=()
}

teardown() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$D"
}

# nobody_userns: a user namespace owned by nobody, kept alive by a sleeping
# process; its PID in $NS_PID, the namespace's inode number in $NS_INO.
# nobody is root in it (mapped), so that it can make namespaces below it.
nobody_userns() {
	# "${AS_NOBODY[@]}", not as_nobody: $! must be the PID of the sleep
	"${AS_NOBODY[@]}" unshare --user --map-root-user sleep 600 </dev/null >/dev/null 2>&1 3>&- &
	NS_PID=$!
	PIDS+=("$NS_PID")
	# wait until the child is in its namespace
	for _ in $(seq 100); do
		[[ $(stat -L -c %i "/proc/$NS_PID/ns/user") != $(stat -L -c %i /proc/self/ns/user) ]] && break
		sleep 0.1
	done
	NS_INO=$(stat -L -c %i "/proc/$NS_PID/ns/user")
	[[ $NS_INO != $(stat -L -c %i /proc/self/ns/user) ]]
}

@test "userns: create binds a token to the namespace of a PID or a path; show prints its inode" {
	local ino
	ino=$(stat -L -c %i /proc/$$/ns/user)
	run_ok token create "$D/pid" userns $$ cmds map_create maps array
	run_ok token show "$D/pid"
	[[ $output == *$'\n\tuserns: '"$ino"$'\n'* || $output == *$'\n\tuserns: '"$ino" ]]
	run_ok -j token show "$D/pid"
	[[ $(jq -r '.userns' <<<"$output") == "$ino" ]]
	[[ $(jq -r '.userns | type' <<<"$output") == number ]]

	nobody_userns
	run_ok -j token create "$D/path" userns "/proc/$NS_PID/ns/user" cmds map_create
	[[ $(jq -r '.userns' <<<"$output") == "$NS_INO" ]]
	run_ok token show "$D/path"
	diff -u <(printf '%s\n' "$D/path" $'\tid: ID' $'\tallowed_cmds: map_create' $'\tallowed_maps:' \
		$'\tallowed_progs:' $'\tallowed_attachs:' \
		$'\tuses: map_create 0 btf_load 0 prog_load 0 token_create 0' $'\tdenials: 0' \
		$'\tuserns: '"$NS_INO") <(mask_ids <<<"$output")

	# unbound: no userns line, null in JSON
	run_ok token create "$D/free" cmds map_create
	run_ok token show "$D/free"
	[[ $output != *$'\tuserns:'* ]]
	run_ok -j token show "$D/free"
	[[ $(jq -c '.userns' <<<"$output") == null ]]
}

@test "userns: a bound token works in its namespace and its descendants only" {
	nobody_userns
	run_ok token create "$D/t" userns "$NS_PID" cmds map_create maps array
	chmod 0666 "$D/t"

	# nobody outside the namespace: the kernel does not honour the token
	run --separate-stderr as_nobody "$BPFTOOL" map create "$U/out" type array key 4 value 4 \
		entries 1 name out token "$D/t"
	echo "outside: status $status, stderr '$stderr'"
	[[ $status != 0 && $stderr == "Error: map create failed: Operation not permitted" ]]
	# nobody inside it, and in a namespace below it
	run --separate-stderr as_nobody nsenter --user --target "$NS_PID" --preserve-credentials \
		"$BPFTOOL" map create "$U/in" type array key 4 value 4 entries 1 name in token "$D/t"
	echo "inside: status $status, stderr '$stderr'"
	[[ $status == 0 && -z $stderr ]]
	run --separate-stderr as_nobody nsenter --user --target "$NS_PID" --preserve-credentials \
		unshare --user "$BPFTOOL" map create "$U/below" type array key 4 value 4 entries 1 \
		name below token "$D/t"
	echo "below: status $status, stderr '$stderr'"
	[[ $status == 0 && -z $stderr ]]
	[[ $(token_uses "$D/t") == "2 0 0 0 1" ]]
	# root of that namespace (all capabilities, in it only) is refused
	# what the token lacks, as nobody is: bpftool does not try
	run --separate-stderr as_nobody nsenter --user --target "$NS_PID" --preserve-credentials \
		"$BPFTOOL" map create "$U/h" type hash key 4 value 4 entries 1 name h token "$D/t"
	echo "hash inside: status $status, stderr '$stderr'"
	[[ $status != 0 && $stderr == "Error: token $D/t does not allow map type hash (map 'h')" ]]
	[[ ! -e $U/h ]]
	[[ $(token_uses "$D/t") == "2 0 0 0 1" ]]
}

@test "userns: derived tokens inherit the binding and may only narrow it" {
	nobody_userns
	run_ok token create "$D/p" userns "$NS_PID" cmds token_create,map_create maps array
	chmod 0666 "$D/p"
	# inherited, by a child made inside the namespace
	run --separate-stderr as_nobody nsenter --user --target "$NS_PID" --preserve-credentials \
		"$BPFTOOL" token create "$U/c" token "$D/p" cmds map_create maps array
	echo "status $status, stderr '$stderr'"
	[[ $status == 0 && -z $stderr ]]
	run_ok -j token show "$U/c"
	[[ $(jq -c '. | [.userns, .depth]' <<<"$output") == "[$NS_INO,1]" ]]
	run_ok token show "$U/c"
	[[ $output == *$'\tuserns: '"$NS_INO"$'\n\tdepth: 1'* ]]
	# a binding outside the parent's namespace: nobody's own, the initial one
	run_err -u "can't create token $U/c2: parent token $D/p does not allow token_create or everything requested, or user namespace /proc/self/ns/user is not within the parent's" \
		token create "$U/c2" token "$D/p" userns /proc/self/ns/user cmds map_create
	# bad namespaces
	run_err "/proc/self/ns/net is not a user namespace" token create "$D/x" userns /proc/self/ns/net
	run_err "can't open user namespace of process 999999999: no such process" \
		token create "$D/x" userns 999999999
	run_err -u "can't open user namespace /proc/1/ns/user: Permission denied" \
		token create "$U/x" token "$D/p" userns 1 cmds map_create
}
