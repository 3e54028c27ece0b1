#!/usr/bin/env bats
# libFuzzer run of bpftool's token list parser (bpftool/token_names.c):
# tests/fuzz/token_names_fuzz.c, built with clang
# -fsanitize=fuzzer,address,undefined against the patched tree's libbpf.
# FUZZ_RUNS (default 250000) executions, starting from the committed corpus
# tests/fuzz/corpus/token_names/ (new inputs go to a scratch directory).

setup_file() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	KSRC=${KSRC:-$TOP/build/linux}
	export TOP BUILD KSRC
	export FUZZER=$BATS_FILE_TMPDIR/token_names_fuzz
	export BUILD_LOG=$BATS_FILE_TMPDIR/build.log
	local libbpf=$BUILD/libbpf

	if [[ ! -f $libbpf/libbpf.a ]]; then
		echo "no $libbpf/libbpf.a: run 'make libbpf'" >"$BUILD_LOG"
		return 0
	fi
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-Wall -Wextra -Werror -Wno-unused-parameter \
		-I"$KSRC/tools/include/uapi" -I"$libbpf/include" -I"$TOP/bpftool" \
		"$TOP/bpftool/token_names.c" "$TOP/tests/fuzz/token_names_fuzz.c" \
		"$libbpf/libbpf.a" -lelf -lz -o "$FUZZER" >"$BUILD_LOG" 2>&1 || true
}

setup() {
	if [[ ! -x $FUZZER ]]; then
		cat "$BUILD_LOG"
		echo "(libFuzzer needs clang and libclang-rt-14-dev: run 'make deps')"
		false
	fi
	CORPUS=$TOP/tests/fuzz/corpus/token_names
}

# Run the fuzzer; on a crash print the input (libFuzzer writes it to
# $BATS_FILE_TMPDIR/crash-*).
fuzz() {
	run "$FUZZER" -artifact_prefix="$BATS_FILE_TMPDIR/" -print_final_stats=1 "$@"
	echo "$output" | grep -vE '^#[0-9]+|^INFO:' | tail -n 40
	local a
	for a in "$BATS_FILE_TMPDIR"/crash-* "$BATS_FILE_TMPDIR"/leak-* "$BATS_FILE_TMPDIR"/timeout-*; do
		[[ -f $a ]] && { echo "input $a:"; od -c "$a" | head -20; }
	done
	return 0
}

@test "fuzz-names: the committed corpus passes the round-trip properties" {
	n=$(find "$CORPUS" -type f | wc -l)
	[[ $n -ge 10 ]]
	fuzz -runs=0 "$CORPUS"
	[[ $status == 0 ]]
	[[ $output == *"stat::number_of_executed_units:"* ]]
}

@test "fuzz-names: ${FUZZ_RUNS:-250000} libFuzzer executions, no crash, no property violation" {
	runs=${FUZZ_RUNS:-250000}
	mkdir -p "$BATS_TEST_TMPDIR/new"
	SECONDS=0
	fuzz -runs="$runs" -max_len=128 -dict="$TOP/tests/fuzz/token_names.dict" \
		-seed=${FUZZ_SEED:-0} "$BATS_TEST_TMPDIR/new" "$CORPUS"
	echo "fuzz-names: $runs runs in ${SECONDS}s"
	[[ $status == 0 ]]
	# libFuzzer counts the corpus' initial runs in the executions it reports.
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<<"$output")
	echo "executions: $execs"
	[[ $execs -ge $runs ]]
	echo "# fuzz-names: $execs executions in ${SECONDS}s" >&3
}
