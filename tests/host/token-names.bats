#!/usr/bin/env bats
# Unit tests of bpftool/token_names.c, the text <-> mask conversion of
# `bpftool token`, and of bpftool/token_formats.c (`token needs ... format`),
# built on the host against the patched tree's libbpf.

setup_file() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	KSRC=${KSRC:-$TOP/build/linux}
	export TOP BUILD KSRC
	export TNT=$BATS_FILE_TMPDIR/token_names_test
	export BUILD_LOG=$BATS_FILE_TMPDIR/build.log
	local libbpf=$BUILD/libbpf

	if [[ ! -f $libbpf/libbpf.a ]]; then
		echo "no $libbpf/libbpf.a: run 'make libbpf'" >"$BUILD_LOG"
		return 0
	fi
	${CC:-cc} -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		-I"$KSRC/tools/include/uapi" -I"$libbpf/include" -I"$TOP/bpftool" \
		"$TOP/bpftool/token_names.c" "$TOP/bpftool/token_formats.c" \
		"$TOP/tests/host/token_names_test.c" \
		"$libbpf/libbpf.a" -lelf -lz -o "$TNT" >"$BUILD_LOG" 2>&1 || true
}

setup() {
	if [[ ! -x $TNT ]]; then
		cat "$BUILD_LOG"
		false
	fi
}

@test "token_names: unit tests (round trips, case, prefixes, any, numbers, bad words, formats, root-equivalent types, the text builder)" {
	run "$TNT"
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[-1]} =~ ^[0-9]+\ checks,\ 0\ failed$ ]]
}

@test "token_names: command names are enum bpf_cmd's, lower case, without BPF_" {
	# Every name of enum bpf_cmd that is not an alias (NAME = OTHER), numbered
	want=$(sed -n '/^enum bpf_cmd {/,/^};/p' "$KSRC/tools/include/uapi/linux/bpf.h" |
		grep -E '^\s+BPF_[A-Z0-9_]+,' | sed -E 's/^\s+BPF_([A-Z0-9_]+),.*/\1/' |
		tr 'A-Z' 'a-z' | awk '{ print NR - 1, $1 }')
	run "$TNT" dump cmds
	[[ $status == 0 ]]
	diff -u <(echo "$want") <(echo "$output")
	[[ $output == *"36 token_create"* ]]
}

@test "token_names: type names are the ones of bpftool feature list_builtins" {
	BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
	[[ -x $BPFTOOL ]] || { echo "no $BPFTOOL: run 'make bpftool'"; false; }
	for s in maps:map_types progs:prog_types attach:attach_types; do
		run "$TNT" dump "${s%%:*}"
		[[ $status == 0 ]]
		diff -u <("$BPFTOOL" feature list_builtins "${s#*:}") <(cut -d' ' -f2 <<<"$output")
	done
}
