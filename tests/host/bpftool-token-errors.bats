#!/usr/bin/env bats
# bpftool token on the host, no patched kernel needed: bad input to create,
# show and revoke fails before bpftool talks to the kernel, with one error
# line (and, with -j, one JSON object) that ends with the hint to the help
# for a usage error, and creates nothing.

bats_require_minimum_version 1.5.0

load bpftool-token

setup_file() {
	compile_test_objects
}

@test "token create: bad input fails with one error line and creates nothing" {
	local p=$D/tok
	run_err "missing PATH for the new token (see 'bpftool token help')" token create
	run_err "empty PATH" token create ''
	run_err "missing PATH for the new token" token create cmds any
	run_err "missing PATH for the new token" token create token "$D/parent" maps hash
	run_err "unknown map type 'stak' (see 'bpftool token help')" token create "$p" maps stak
	run_err "unknown map type 'stak'" token create "$p" cmds map_create maps hash,stak,array
	run_err "unknown command 'prog_lod'" token create "$p" cmds map_create:prog_lod
	run_err "unknown program type 'xpd'" token create "$p" progs xpd
	run_err "unknown attach type 'ingress'" token create "$p" attach ingress
	run_err "unknown map type 'BPF_PROG_TYPE_XDP'" token create "$p" maps BPF_PROG_TYPE_XDP
	run_err "empty command list" token create "$p" cmds ''
	run_err "empty map type name in 'hash,'" token create "$p" maps hash,
	run_err "empty program type name in 'xdp::kprobe'" token create "$p" progs xdp::kprobe
	run_err "missing command list after 'cmds'" token create "$p" cmds
	run_err "missing attach type list after 'attach'" token create "$p" cmds any attach
	run_err "missing parent token path after 'token'" token create "$p" token
	run_err "'cmds' already specified" token create "$p" cmds any maps any cmds any
	run_err "'maps' already specified" token create "$p" maps hash maps hash
	run_err "'progs' already specified" token create "$p" progs xdp prog xdp
	run_err "'attach' already specified" token create "$p" attach xdp a xdp
	run_err "parent token already specified" token create "$p" token /a cmds any token /b
	run_err "expected 'token', 'userns', 'cgroup', 'cmds', 'maps', 'progs', 'attach', 'verifier' or 'object', got: 'frob'" \
		token create "$p" cmds any frob any
	run_err "command mask '0x10000000000000000' does not fit in 64 bits" \
		token create "$p" cmds 0x10000000000000000
	# userns and object: a forgotten PATH, missing or repeated arguments
	run_err "missing PATH for the new token" token create userns $$ cmds any
	run_err "missing PATH for the new token" token create object "$OBJ_MIX"
	run_err "missing user namespace (PID or path) after 'userns' (see 'bpftool token help')" \
		token create "$p" cmds any userns
	run_err "empty user namespace after 'userns'" token create "$p" userns ''
	run_err "user namespace already specified" token create "$p" userns $$ userns $$
	run_err "missing object file after 'object' (see 'bpftool token help')" \
		token create "$p" object "$OBJ_MIX" object
	run_err "empty parent token after 'token'" token create "$p" token ''
	run_err "empty object file after 'object'" token create "$p" object ''
	# verifier: relaxed or strict, once
	run_err "missing PATH for the new token" token create verifier relaxed
	run_err "missing verifier mode (relaxed or strict) after 'verifier' (see 'bpftool token help')" \
		token create "$p" cmds any verifier
	run_err "empty verifier mode after 'verifier'" token create "$p" verifier ''
	run_err "unknown verifier mode 'loose': expected 'relaxed' or 'strict' (see 'bpftool token help')" \
		token create "$p" verifier loose
	run_err "unknown verifier mode 'Relaxed': expected 'relaxed' or 'strict'" \
		token create "$p" object "$OBJ_NOBTF" verifier Relaxed
	run_err "verifier mode already specified" token create "$p" verifier strict v relaxed
	# good ones get as far as the BPF FS check
	run_err "can't pin token at $p: not a BPF FS" token create "$p" progs xdp verifier relaxed
	run_err "can't pin token at $p: not a BPF FS" token create "$p" ver strict object "$OBJ_NOBTF"
}

@test "token: every usage error ends with the hint to the help" {
	local p=$D/tok args cg
	cg=$(cgroup2_dir)
	[[ -n $cg ]] || { echo "no cgroup2 mount on this host"; false; }
	while IFS= read -r args; do
		eval "run --separate-stderr \"\$BPFTOOL\" token $args"
		echo "token $args: $stderr"
		[[ $status != 0 && $stderr == "Error: "*" (see 'bpftool token help')" ]]
	done <<-EOF
	create
	create ''
	create cmds any
	create $p token
	create $p token a token b
	create $p token ''
	create $p userns
	create $p userns $$ userns $$
	create $p userns ''
	create $p cgroup
	create $p cgroup $cg cgroup $cg
	create $p cgroup ''
	create $p cmds
	create $p cmds any cmds any
	create $p maps stak
	create $p object
	create $p object ''
	create $p verifier
	create $p verifier ''
	create $p verifier loose
	create $p verifier strict verifier strict
	create $p frob
	needs
	revoke
	EOF
}

# A cgroup v2 directory of the host, or nothing
cgroup2_dir() {
	awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts
}

@test "token create: a bad cgroup fails with one error naming it, before the kernel is asked" {
	local p=$D/tok cg
	touch "$D/file"
	run_err "missing PATH for the new token" token create cgroup /sys/fs/cgroup cmds any
	run_err "missing cgroup v2 directory after 'cgroup' (see 'bpftool token help')" \
		token create "$p" cmds any cgroup
	run_err "empty cgroup after 'cgroup'" token create "$p" cgroup ''
	run_err "can't open cgroup $D/none: No such file or directory" token create "$p" cgroup "$D/none"
	# a directory, and a file, of another file system
	run_err "$D is not a cgroup v2 directory" token create "$p" cgroup "$D"
	run_err "$D/file is not a cgroup v2 directory" token create "$p" cgroup "$D/file"
	run_err "/proc/self is not a cgroup v2 directory" token create "$p" cgroup /proc/self
	cg=$(cgroup2_dir)
	[[ -n $cg ]] || { echo "no cgroup2 mount on this host"; false; }
	run_err "$cg/cgroup.procs is not a cgroup v2 directory" token create "$p" cgroup "$cg/cgroup.procs"
	run_err "cgroup already specified" token create "$p" cgroup "$cg" cgroup "$cg"
	# a good one gets as far as the BPF FS check
	run_err "can't pin token at $p: not a BPF FS" token create "$p" cgroup "$cg" cmds any
	run_err "can't pin token at $p: not a BPF FS" token create "$p" userns $$ cgroup "$cg/" \
		object "$OBJ_MIX"
}

@test "token create: a bad user namespace fails before the kernel is asked" {
	local p=$D/tok
	run_err "can't open user namespace of process 999999999: no such process" \
		token create "$p" userns 999999999
	run_err "can't open user namespace $D/none: No such file or directory" \
		token create "$p" userns "$D/none"
	run_err "/proc/self/ns/net is not a user namespace" token create "$p" userns /proc/self/ns/net
	touch "$D/file"
	run_err "$D/file is not a user namespace" token create "$p" userns "$D/file"
	# a good one gets as far as the BPF FS check
	run_err "can't pin token at $p: not a BPF FS" token create "$p" userns $$
	run_err "can't pin token at $p: not a BPF FS" token create "$p" userns /proc/self/ns/user
}

@test "token create: a bad object fails with one error naming it, before the kernel is asked" {
	local p=$D/tok
	printf 'not an object\n' >"$D/text.o"
	: >"$D/empty.o"
	mkdir "$D/dir.o"
	run_err "can't open object $D/none.o: No such file or directory" \
		token create "$p" cmds any object "$D/none.o"
	run_err "object $D/text.o is not an ELF file" token create "$p" object "$D/text.o"
	run_err "object $D/empty.o is not an ELF file" token create "$p" object "$D/empty.o"
	run_err "object $D/dir.o is not a file" token create "$p" object "$D/dir.o"
	run_err "object /bin/true is not a BPF object file (ELF machine 62)" \
		token create "$p" object /bin/true
	# the first bad one of several, wherever it is
	run_err "object $D/text.o is not an ELF file" \
		token create "$p" object "$OBJ_MIX" maps hash object "$D/text.o" object "$OBJ_NOBTF"
	# good objects get as far as the BPF FS check
	run_err "can't pin token at $p: not a BPF FS" \
		token create "$p" object "$OBJ_MIX" object "$OBJ_NOBTF" cmds token_create
}

@test "token create: a PATH outside BPF FS fails before the kernel is asked" {
	# $D is not on a BPF FS
	run_err "can't pin token at $D/tok: not a BPF FS" token create "$D/tok" cmds any
	run_err "can't pin token at $D/none/tok: parent directory does not exist" \
		token create "$D/none/tok" cmds any
	# even when everything else would be fine
	run_err "can't pin token at $D/tok: not a BPF FS" token create "$D/tok" \
		maps any progs any attach any cmds map_create,prog_load
}

@test "token show: a PATH that is not a pinned token fails" {
	touch "$D/file"
	run_err "can't open token $D/file: not a BPF FS" token show "$D/file"
	run_err "can't open token $D/nothing: No such file or directory" token show "$D/nothing"
	run_err "what is 'b'?" token show "$D/file" b
}

@test "token revoke: refuses anything but a pinned token, and removes nothing" {
	touch "$D/file"
	mkdir "$D/dir"
	run_err "missing PATH of the token to revoke (see 'bpftool token help')" token revoke
	run_err "what is 'x'?" token revoke "$D/file" x
	run_err "can't open token $D/file: not a BPF FS" token revoke "$D/file"
	run_err "can't open token $D/dir: not a BPF FS" token revoke "$D/dir"
	run_err "can't open token $D/nothing: No such file or directory" token revoke "$D/nothing"
	[[ -f $D/file && -d $D/dir ]]
}
