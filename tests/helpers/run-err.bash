# The bats helper of the host's bpftool tests for bad input (loaded by
# tests/host/bpftool-token.bash and tests/host/bpftool-delegate.bats, which
# tests/abi also runs in the VMs).
#
# run_err WANT ARGS...: bpftool ARGS fails with exactly one line on stderr,
# "Error: WANT...", and nothing on stdout; with -j, exactly one JSON object
# {"error": "WANT..."} on stdout and nothing on stderr. What the suite's
# run_err_state prints (the files of its directory, its mounts) is the
# same after both runs as before: nothing was half-created.
run_err() {
	local want=$1 before
	shift
	before=$(run_err_state)

	run --separate-stderr "$BPFTOOL" "$@"
	echo "plain: status $status, stdout '$output', stderr '$stderr'"
	[[ $status != 0 ]]
	[[ -z $output ]]
	[[ ${#stderr_lines[@]} == 1 ]]
	[[ $stderr == "Error: $want"* ]]

	run --separate-stderr "$BPFTOOL" -j "$@"
	echo "json: status $status, stdout '$output', stderr '$stderr'"
	[[ $status != 0 ]]
	[[ -z $stderr ]]
	[[ $(jq -c 'keys' <<<"$output") == '["error"]' ]]
	[[ $(jq -r .error <<<"$output") == "$want"* ]]

	[[ $(run_err_state) == "$before" ]]
}
