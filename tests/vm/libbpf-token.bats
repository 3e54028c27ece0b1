#!/usr/bin/env bats
# libbpf's object-level BPF token (bpf_object_open_opts.bpf_token_path,
# LIBBPF_BPF_TOKEN_PATH), through the C selftest tests/libbpf-token: root
# creates the tokens, an unprivileged child (uid 65534, no capabilities)
# opens and loads tests/progs objects. One bats test per case of token_load.

load lib

setup() {
	TOKEN_LOAD=$BUILD/libbpf-token/token_load
	need "$TOKEN_LOAD"
}

# token_load CASE: the case passes, as "ok 1 CASE" of a one-test TAP plan
token_load() {
	run "$TOKEN_LOAD" -p "$PROGS" -t "$1"
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[0]} == 1..1 ]]
	[[ ${lines[-1]} == "ok 1 $1" ]]
}

@test "token_load knows exactly the cases of this file" {
	run "$TOKEN_LOAD" -l
	[[ $status == 0 ]]
	mine=$(sed -n 's/^\t*token_load \([a-z_]*\)$/\1/p' "$BATS_TEST_FILENAME" | sort)
	echo "token_load -l: $(sort <<<"$output" | tr '\n' ' ')"
	echo "this file:     $(tr '\n' ' ' <<<"$mine")"
	[[ $(sort <<<"$output") == "$mine" ]]
}

@test "libbpf: an object loads through bpf_token_path as nobody" {
	token_load load_with_token_path
}

@test "libbpf: program and map keep their names, program has BTF" {
	token_load prog_and_map_names
}

@test "libbpf: feature probes are made with the token, or not at all where it does not allow them" {
	token_load probes_use_token
}

@test "libbpf: no feature probe of the load is made without the token" {
	token_load no_tokenless_probe
}

@test "libbpf: the loaded program runs, bpf_jiffies64 works" {
	token_load prog_runs_with_helpers
}

@test "libbpf: LIBBPF_BPF_TOKEN_PATH when the option is not set" {
	token_load env_token_path
}

@test "libbpf: bpf_token_path wins over LIBBPF_BPF_TOKEN_PATH" {
	token_load option_wins_over_env
}

@test "libbpf: empty bpf_token_path disables the token (EPERM)" {
	token_load empty_path_disables
}

@test "libbpf: without a token nobody gets EPERM" {
	token_load no_token_eperm
}

@test "libbpf: a path with nothing pinned fails with a warning naming it" {
	token_load bad_path
}

@test "libbpf: a token nobody cannot read fails with EACCES" {
	token_load unreadable_token
}

@test "libbpf: a token nobody can only read (0644) is not used: EACCES" {
	token_load readonly_token
}

@test "libbpf: a pinned map is not a BPF token" {
	token_load not_a_token
}

@test "libbpf: a map type the token does not allow fails with EPERM" {
	token_load map_type_denied
}

@test "libbpf: a program type the token does not allow fails with EPERM" {
	token_load prog_type_denied
}
