#!/usr/bin/env bats
# bpftool token and the cgroup scope of a BPF token on the patched kernel:
# `token create ... cgroup CGROUP` (BPF_F_TOKEN_CGROUP), show and list
# printing the scope (plain "cgroup: PATH", JSON "cgroup": {"id", "path"} or
# null), derived tokens inheriting and narrowing it, the errors of create;
# and what `token needs` says of a cgroup object: a token made from it, with
# a scope, lets nobody attach the program inside the scope and nowhere else.
#
# Each test works in its own directory $D of the BPF FS (root's, 0755), with
# $U=$D/u (0777) where nobody pins, and its own cgroups below $CG (the VM
# mounts cgroup v2 on /sys/fs/cgroup).

load lib

setup() {
	bpffs_dir bpftool-cgroup
	U=$D/u
	mkdir -m 0777 "$U"
	CG=/sys/fs/cgroup/bpftool-cgroup-$BATS_TEST_NUMBER
	rmdir "$CG"/a/b "$CG"/a "$CG"/other "$CG" 2>/dev/null || true
	mkdir -p "$CG/a/b" "$CG/other"
	WATCH=("$D")
}

teardown() {
	rm -rf "$D"
	rmdir "$CG"/a/b "$CG"/a "$CG"/other "$CG" 2>/dev/null || true
}

# cgroup_id DIR: the id the kernel gives the cgroup v2 directory DIR (its
# inode number on 64-bit kernels)
cgroup_id() {
	stat -c %i "$1"
}

@test "cgroup: create with a scope; show, list and create -j print its path and id" {
	local id
	id=$(cgroup_id "$CG/a")
	run_ok token create "$D/t" cgroup "$CG/a" cmds map_create maps array
	run_ok token show "$D/t"
	diff -u <(printf '%s\n' "$D/t" $'\tid: ID' $'\tallowed_cmds: map_create' $'\tallowed_maps: array' \
		$'\tallowed_progs:' $'\tallowed_attachs:' \
		$'\tuses: map_create 0 btf_load 0 prog_load 0 token_create 0' $'\tdenials: 0' \
		$'\tcgroup: /bpftool-cgroup-'"$BATS_TEST_NUMBER/a") <(mask_ids <<<"$output")
	run_ok -j token show "$D/t"
	[[ $(jq -c '.cgroup' <<<"$output") == "{\"id\":$id,\"path\":\"/bpftool-cgroup-$BATS_TEST_NUMBER/a\"}" ]]
	# the last key of show's object
	[[ $(jq -c '. | keys_unsorted | .[-1]' <<<"$output") == '"cgroup"' ]]
	show=$(jq -c '.' <<<"$output")

	# list says the same, id included; create -j too
	run_ok -j token list
	[[ $(jq -c --arg p "$D/t" '.[] | select(.pinned == $p)' <<<"$output") == "$show" ]]
	run_ok -j token create "$D/t2" cgroup "$CG/a/b/" cmds map_create maps array
	[[ $(jq -c .cgroup <<<"$output") == "{\"id\":$(cgroup_id "$CG/a/b"),\"path\":\"/bpftool-cgroup-$BATS_TEST_NUMBER/a/b\"}" ]]

	# the root of the hierarchy is "/"
	run_ok token create "$D/root" cgroup /sys/fs/cgroup cmds map_create
	run_ok token show "$D/root"
	[[ ${lines[-1]} == $'\tcgroup: /' ]]

	# no scope: JSON null, no line (the path, the id, the sets, uses,
	# denials)
	run_ok token create "$D/none" cmds map_create
	run_ok -j token show "$D/none"
	[[ $(jq -c '.cgroup' <<<"$output") == null ]]
	run_ok token show "$D/none"
	[[ ${#lines[@]} == 8 && $output != *$'\tcgroup:'* ]]
}

@test "cgroup: a scope whose cgroup is gone shows its id, JSON path null" {
	local id
	id=$(cgroup_id "$CG/other")
	run_ok token create "$D/t" cgroup "$CG/other" cmds map_create
	rmdir "$CG/other"
	run_ok token show "$D/t"
	[[ ${lines[-1]} == $'\tcgroup: '"$id" ]]
	run_ok -j token show "$D/t"
	[[ $(jq -c '.cgroup' <<<"$output") == "{\"id\":$id,\"path\":null}" ]]
}

@test "cgroup: a derived token inherits its parent's scope, may narrow it, is refused a wider or unrelated one" {
	run_ok token create "$D/p" cgroup "$CG/a" cmds token_create,map_create maps array
	chown "$NOBODY" "$D/p"
	# inherited
	run_ok -u token create "$U/c" token "$D/p" cmds map_create
	run_ok token show "$U/c"
	[[ $output == *$'\n\tdepth: 1\n\tcgroup: /bpftool-cgroup-'"$BATS_TEST_NUMBER/a" ]]
	# narrowed, also by nobody
	run_ok -u token create "$U/n" token "$D/p" cgroup "$CG/a/b" cmds map_create
	run_ok -j token show "$U/n"
	[[ $(jq -r '.cgroup.path' <<<"$output") == "/bpftool-cgroup-$BATS_TEST_NUMBER/a/b" ]]
	# the parent's own cgroup is within its scope
	run_ok -u token create "$U/same" token "$D/p" cgroup "$CG/a" cmds map_create
	# wider, unrelated: refused, nothing pinned
	local want="parent token $D/p does not allow token_create or everything requested"
	run_err -u "can't create token $U/w: $want, or cgroup $CG is not within the parent's scope" \
		token create "$U/w" token "$D/p" cgroup "$CG" cmds map_create
	run_err -u "can't create token $U/o: $want, or cgroup $CG/other is not within the parent's scope" \
		token create "$U/o" token "$D/p" cgroup "$CG/other" cmds map_create
	# a child of an unscoped parent may take any scope
	run_ok token create "$D/q" cmds token_create,map_create
	chown "$NOBODY" "$D/q"
	run_ok -u token create "$U/any" token "$D/q" cgroup "$CG/other" cmds map_create
	run_ok -j token show "$U/any"
	[[ $(jq -r '.cgroup.path' <<<"$output") == "/bpftool-cgroup-$BATS_TEST_NUMBER/other" ]]
}

@test "cgroup: what is not a cgroup v2 directory is refused before the kernel is asked" {
	mkdir -p /tmp/bpftool-cgroup
	touch /tmp/bpftool-cgroup/file
	run_err "/tmp/bpftool-cgroup is not a cgroup v2 directory" token create "$D/t" cgroup /tmp/bpftool-cgroup
	run_err "/tmp/bpftool-cgroup/file is not a cgroup v2 directory" \
		token create "$D/t" cgroup /tmp/bpftool-cgroup/file
	run_err "$CG/cgroup.procs is not a cgroup v2 directory" token create "$D/t" cgroup "$CG/cgroup.procs"
	run_err "$D is not a cgroup v2 directory" token create "$D/t" cgroup "$D"
	run_err "can't open cgroup $CG/none: No such file or directory" token create "$D/t" cgroup "$CG/none"
	# nobody can't create a token, scope or not
	run_err -u "can't create token $U/t: Operation not permitted (needs CAP_SYS_ADMIN, or 'token PARENT')" \
		token create "$U/t" cgroup "$CG/a" cmds map_create
	rm -rf /tmp/bpftool-cgroup
}

@test "cgroup: needs says a cgroup object needs a scope; with one, nobody attaches it there and below only" {
	local obj=$PROGS/cgroup_skb_maps.bpf.o prog
	need "$obj"
	run_ok token needs "$obj"
	[[ ${lines[-1]} == $'\tcgroup: needed to attach (create the token with "cgroup CGROUP")' ]]
	run_ok -j token needs "$obj"
	[[ $(jq .cgroup_scope_needed <<<"$output") == true ]]

	run_ok token create "$D/t" object "$obj" cgroup "$CG/a" cmds prog_attach,prog_detach
	chown "$NOBODY" "$D/t"
	run_ok -u prog loadall "$obj" "$U/progs" token "$D/t"
	prog=$U/progs/$(ls "$U/progs" | grep ingress)
	[[ -f $prog ]]
	# in the scope and below it
	run_ok -u cgroup attach "$CG/a/b" ingress pinned "$prog"
	run_ok -u cgroup detach "$CG/a/b" ingress pinned "$prog"
	run_ok -u cgroup attach "$CG/a" ingress pinned "$prog"
	run_ok -u cgroup detach "$CG/a" ingress pinned "$prog"
	# not above it, not beside it (bpftool says "failed to attach
	# program", without the kernel's reason)
	run --separate-stderr as_nobody "$BPFTOOL" cgroup attach "$CG" ingress pinned "$prog"
	show_run
	[[ $status != 0 && $stderr == "Error: failed to attach program" ]]
	run --separate-stderr as_nobody "$BPFTOOL" cgroup attach "$CG/other" ingress pinned "$prog"
	show_run
	[[ $status != 0 && $stderr == "Error: failed to attach program" ]]
	# the scope's doing: root attaches the same program there
	run_ok cgroup attach "$CG/other" ingress pinned "$prog"
	run_ok cgroup detach "$CG/other" ingress pinned "$prog"
	# nothing is left attached there (bpftool prints nothing for none)
	run_ok -j cgroup show "$CG"
	[[ -z $output || $(jq length <<<"$output") == 0 ]]
	run_ok -j cgroup show "$CG/other"
	[[ -z $output || $(jq length <<<"$output") == 0 ]]
}
