#!/usr/bin/env bats
# The BPF token selftests (the series' tools/testing/selftests/bpf/
# prog_tests/token.c, built by tests/selftests/Makefile into
# build/selftests/test_token) on the patched kernel, as root; one bats test
# per subtest. Each subtest drops its privileges itself (effective
# capabilities, and a forked child as uid 65534 without capabilities).

load lib

BIN=$BUILD/selftests/test_token

setup() {
	need "$BIN"
	# where its BPF objects are (xdp_dummy.bpf.o, token_fentry.bpf.o), as
	# test_progs runs
	cd "$(dirname "$BIN")"
}

run_subtest() {
	run "$BIN" -t "token/$1"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"ok 1 token/$1"* ]]
	[[ $output != *"not ok"* ]]
	if [[ $output == *"ok 1 token/$1 # SKIP"* ]]; then
		skip "test_token skipped token/$1"
	fi
}

@test "selftests token: this file runs every subtest of test_token" {
	run "$BIN" -l
	[ "$status" -eq 0 ]
	diff <(printf '%s\n' "$output") \
		<(grep -oE '^@test "token/[a-z0-9_]+"' "$BATS_TEST_FILENAME" |
		  sed -E 's/^@test "(.*)"/\1/')
}

@test "token/token_create" { run_subtest token_create; }
@test "token/token_create_eexist" { run_subtest token_create_eexist; }
@test "token/token_create_flags" { run_subtest token_create_flags; }
@test "token/token_create_non_bpffs" { run_subtest token_create_non_bpffs; }
@test "token/token_create_relative" { run_subtest token_create_relative; }
@test "token/token_obj_pin" { run_subtest token_obj_pin; }
@test "token/token_derive" { run_subtest token_derive; }
@test "token/token_fd_invalid" { run_subtest token_fd_invalid; }
@test "token/token_cloexec" { run_subtest token_cloexec; }
@test "token/token_get_perm" { run_subtest token_get_perm; }
@test "token/token_create_unpriv" { run_subtest token_create_unpriv; }
@test "token/map_token" { run_subtest map_token; }
@test "token/map_token_unpriv" { run_subtest map_token_unpriv; }
@test "token/map_token_lifetime" { run_subtest map_token_lifetime; }
@test "token/btf_token" { run_subtest btf_token; }
@test "token/btf_token_unpriv" { run_subtest btf_token_unpriv; }
@test "token/prog_token" { run_subtest prog_token; }
@test "token/prog_token_unpriv" { run_subtest prog_token_unpriv; }
@test "token/prog_token_lifetime" { run_subtest prog_token_lifetime; }
@test "token/token_info" { run_subtest token_info; }
@test "token/map_freeze_token" { run_subtest map_freeze_token; }
@test "token/prog_token_privilege" { run_subtest prog_token_privilege; }
@test "token/token_rdonly" { run_subtest token_rdonly; }
@test "token/token_revoke" { run_subtest token_revoke; }
@test "token/token_revoke_evasion" { run_subtest token_revoke_evasion; }
@test "token/token_revoke_home" { run_subtest token_revoke_home; }
@test "token/token_derive_limits" { run_subtest token_derive_limits; }
@test "token/token_userns" { run_subtest token_userns; }
@test "token/libbpf_probe_cache" { run_subtest libbpf_probe_cache; }
@test "token/token_accounting" { run_subtest token_accounting; }
@test "token/prog_token_offload" { run_subtest prog_token_offload; }
@test "token/btf_get_fd_by_id_token" { run_subtest btf_get_fd_by_id_token; }
@test "token/token_cgroup_scope" { run_subtest token_cgroup_scope; }
@test "token/prog_token_attach_type" { run_subtest prog_token_attach_type; }
@test "token/token_attach_scope" { run_subtest token_attach_scope; }
@test "token/prog_token_perfmon" { run_subtest prog_token_perfmon; }
@test "token/token_lsm" { run_subtest token_lsm; }
@test "token/token_audit" { run_subtest token_audit; }
@test "token/libbpf_probe_token_sets" { run_subtest libbpf_probe_token_sets; }
@test "token/prog_token_xlated" { run_subtest prog_token_xlated; }
@test "token/btf_by_id_env_token" { run_subtest btf_by_id_env_token; }
@test "token/libbpf_attach_target_token" { run_subtest libbpf_attach_target_token; }
@test "token/libbpf_btf_token_denied" { run_subtest libbpf_btf_token_denied; }
@test "token/prog_token_test_run" { run_subtest prog_token_test_run; }
@test "token/prog_token_kernel_routes" { run_subtest prog_token_kernel_routes; }
@test "token/prog_token_priv_helpers" { run_subtest prog_token_priv_helpers; }
@test "token/prog_token_pkt_len" { run_subtest prog_token_pkt_len; }
@test "token/prog_token_no_cap_by_prog" { run_subtest prog_token_no_cap_by_prog; }
@test "token/prog_token_bpf_bind" { run_subtest prog_token_bpf_bind; }
@test "token/token_array_mask" { run_subtest token_array_mask; }
@test "token/prog_token_cap_bpf_loads" { run_subtest prog_token_cap_bpf_loads; }
@test "token/prog_token_spec_v4" { run_subtest prog_token_spec_v4; }
@test "token/token_sock_attach" { run_subtest token_sock_attach; }
@test "token/token_sk_storage_diag" { run_subtest token_sk_storage_diag; }
@test "token/token_tracing_attach" { run_subtest token_tracing_attach; }
@test "token/token_trace_links" { run_subtest token_trace_links; }
@test "token/token_tc_attach" { run_subtest token_tc_attach; }
@test "token/token_struct_ops_update" { run_subtest token_struct_ops_update; }
@test "token/token_revoked_unchecked" { run_subtest token_revoked_unchecked; }
@test "token/token_net_map_gate" { run_subtest token_net_map_gate; }
@test "token/token_kptr_map" { run_subtest token_kptr_map; }
@test "token/token_attach_paths" { run_subtest token_attach_paths; }
@test "token/token_ext_target" { run_subtest token_ext_target; }
@test "token/token_relaxed_verifier" { run_subtest token_relaxed_verifier; }
@test "token/token_replace_scope" { run_subtest token_replace_scope; }
@test "token/token_abi" { run_subtest token_abi; }
@test "token/token_delegated" { run_subtest token_delegated; }
@test "token/token_caller_checks" { run_subtest token_caller_checks; }
