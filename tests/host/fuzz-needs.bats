#!/usr/bin/env bats
# libFuzzer run of bpftool's parse of BPF object files (bpftool/token_needs.c,
# bpftool/token_object.c: what `token needs OBJ` and `token create ... object
# OBJ` do with an object from an untrusted container image):
# tests/fuzz/token_needs_fuzz.c, built by `make -C tests/fuzz needs-fuzz`
# (clang -fsanitize=fuzzer,address,undefined, with the patched tree's libbpf
# compiled from its sources with the same instrumentation: libFuzzer sees its
# branches, ASan its memory) into build/fuzz/token_needs_fuzz.
#
# FUZZ_NEEDS_RUNS (default 20000) executions from the committed corpus
# tests/fuzz/corpus/token_needs/ (small real objects, obj-*, and one object
# for each defect that crashed, hung or blew up the parse, regress-*, made
# by tests/fuzz/token_needs_regress.py); or, with FUZZ_NEEDS_SECONDS, that
# long (`make fuzz-needs-long`). New inputs go to FUZZ_NEEDS_CORPUS (default
# a scratch directory); an input that crashes the fuzzer (or hangs it for
# 10 s, leaks, or allocates 256 MiB at once) is kept in
# build/fuzz/needs-crashes/, and the failing test prints its path.

setup_file() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	KSRC=${KSRC:-$TOP/build/linux}
	export TOP BUILD KSRC
	export FUZZER=$BUILD/fuzz/token_needs_fuzz
	export BUILD_LOG=$BATS_FILE_TMPDIR/build.log
	local bpftool=$BUILD/bpftool-src/tools/bpf/bpftool

	if [[ ! -f $KSRC/tools/lib/bpf/libbpf.c ]]; then
		echo "no $KSRC/tools/lib/bpf/libbpf.c: run 'make tree'" >"$BUILD_LOG"
	elif [[ ! -f $bpftool/main.h ]]; then
		# bpftool's main.h, with the overlay's patches
		echo "no $bpftool/main.h: run 'make bpftool'" >"$BUILD_LOG"
	elif nice -n 10 make -s -C "$TOP/tests/fuzz" -j"$(nproc)" KSRC="$KSRC" \
		BPFTOOL_SRC="$bpftool" OUTPUT="$BUILD/fuzz/" needs-fuzz >"$BUILD_LOG" 2>&1; then
		return 0
	fi
	# no fuzzer of older sources
	rm -f "$FUZZER"
}

setup() {
	if [[ ! -x $FUZZER ]]; then
		cat "$BUILD_LOG"
		echo "(libFuzzer needs clang and libclang-rt-14-dev: run 'make deps')"
		false
	fi
	CORPUS=$TOP/tests/fuzz/corpus/token_needs
	ARTIFACTS=$BUILD/fuzz/needs-crashes
	mkdir -p "$ARTIFACTS"
	export UBSAN_OPTIONS=print_stacktrace=1
}

# Run the fuzzer; each input that crashed it (or hung, leaked, or blew its
# memory up) is kept in $ARTIFACTS, and its path printed.
fuzz() {
	local a
	run nice -n 10 "$FUZZER" -artifact_prefix="$ARTIFACTS/" -print_final_stats=1 \
		-timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=256 "$@"
	echo "$output" | grep -vE '^#[0-9]+|^INFO:' | tail -n 60
	for a in $(sed -n 's/.*Test unit written to \(.*\)$/\1/p' <<<"$output"); do
		echo "crashing input: $a (replay: $FUZZER $a)"
	done
	return 0
}

@test "fuzz-needs: the committed corpus, regression inputs included, parses without a crash" {
	n=$(find "$CORPUS" -type f | wc -l)
	[[ $n -ge 10 ]]
	fuzz -runs=0 "$CORPUS"
	[[ $status == 0 ]]
	[[ $output == *"stat::number_of_executed_units:"* ]]
}

@test "fuzz-needs: ${FUZZ_NEEDS_SECONDS:+${FUZZ_NEEDS_SECONDS}s of }libFuzzer executions${FUZZ_NEEDS_SECONDS:- (${FUZZ_NEEDS_RUNS:-20000})}, no crash, hang, leak or memory blow-up" {
	new=${FUZZ_NEEDS_CORPUS:-$BATS_TEST_TMPDIR/new}
	mkdir -p "$new"
	if [[ -n ${FUZZ_NEEDS_SECONDS:-} ]]; then
		bound=(-max_total_time="$FUZZ_NEEDS_SECONDS")
	else
		bound=(-runs="${FUZZ_NEEDS_RUNS:-20000}")
	fi
	SECONDS=0
	fuzz "${bound[@]}" -max_len=32768 -seed="${FUZZ_SEED:-0}" "$new" "$CORPUS"
	[[ $status == 0 ]]
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<<"$output")
	echo "fuzz-needs: $execs executions in ${SECONDS}s"
	[[ $execs -gt 0 ]]
	echo "# fuzz-needs: $execs executions in ${SECONDS}s" >&3
}
