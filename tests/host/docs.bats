#!/usr/bin/env bats
# The documentation on the host: every .rst under Documentation/ builds
# without a warning (rst2man --halt=warning; the kernel documentation also
# with rst2html), the files the operator's guide shows are the ones in
# Documentation/examples/ byte for byte (and every example is shown), and
# the example systemd unit passes `systemd-analyze verify` in a root that
# holds what `make install` and the guide install; the checks that compare
# what bpftool token prints with what the guide and the man page say are
# tests/host/docs_check.py, with unit tests in tests/host/docs_check_test.py.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
	DOC=$TOP/Documentation
	EX=$DOC/examples
	GUIDE=$DOC/operators-guide.rst
	KSRC=${KSRC:-$BUILD/linux}
	T=$BATS_TEST_TMPDIR
	# the Python of the checks below, and its unit tests
	DOCS_CHECK=$TOP/tests/host/docs_check.py
}

# rst_ok TOOL FILE: TOOL --halt=warning FILE succeeds and says nothing. The
# bpftool man pages include the tree's substitutions.rst and
# common_options.rst, as they do when
# bpftool is built: they are checked in a copy next to it.
rst_ok() {
	local src=$2
	if [[ ${src##*/} == bpftool-*.rst ]]; then
		mkdir -p "$T/bpftool-doc"
		cp "$KSRC"/tools/bpf/bpftool/Documentation/{substitutions,common_options}.rst \
			"$T/bpftool-doc/"
		cp "$src" "$T/bpftool-doc/"
		src=$T/bpftool-doc/${src##*/}
	fi
	run --separate-stderr "$1" --halt=warning "$src" "$T/out"
	echo "$1 $2: status $status, stderr: $stderr"
	[[ $status == 0 ]]
	[[ -z $stderr ]]
	[[ -s $T/out ]]
}

@test "docs: every .rst builds with rst2man --halt=warning" {
	local f n=0
	while IFS= read -r f; do
		rst_ok rst2man "$f"
		n=$((n + 1))
	done < <(find "$DOC" -name '*.rst' | sort)
	# the man page and the guide at least
	((n >= 2))
}

@test "docs: the kernel documentation builds with rst2html --halt=warning" {
	# Documentation/bpf/token.rst of the series, in the prepared tree
	local kdoc=${KSRC:-$TOP/build/linux}/Documentation/bpf/token.rst
	rst_ok rst2html "$kdoc"
	grep -qx '   token' "${kdoc%/token.rst}/index.rst"
	# the sections the series' reviewers look for
	local s
	for s in 'BPF_TOKEN_CREATE' 'Capability checks on the token' \
		'Containment and revocation' 'Accounting' 'Examples'; do
		grep -q "$s" "$kdoc" || { echo "no '$s'"; false; }
	done
}

@test "docs: a broken .rst fails the rst2man check" {
	printf 'Title\n=====\n\n.. no-such-directive:: x\n' >"$T/bad.rst"
	run rst2man --halt=warning "$T/bad.rst" "$T/out"
	[[ $status != 0 ]]
}

@test "docs: the guide's files are Documentation/examples/, byte for byte, and all of them" {
	run "$TOP/tests/guide-blocks.py" "$GUIDE" "$T/blocks"
	echo "$output"
	[[ $status == 0 ]]
	local f name shown=0
	for f in "$T/blocks/example/"*; do
		name=${f##*/}
		[[ -f $EX/$name ]] || { echo "guide shows $name, not in examples/"; false; }
		cmp "$f" "$EX/$name" || { diff -u "$EX/$name" "$f"; false; }
		shown=$((shown + 1))
	done
	for f in "$EX"/*; do
		[[ -f $T/blocks/example/${f##*/} ]] || { echo "examples/${f##*/} not in the guide"; false; }
	done
	((shown >= 3))
	# and there are blocks the VM test runs
	[[ -f $T/blocks/run/service-install && -f $T/blocks/run/container-use ]]
}

@test "docs: the example scripts are valid sh" {
	sh -n "$EX/bpf-app"
	sh -n "$EX/container-token"
	[[ -x $EX/bpf-app && -x $EX/container-token ]]
}

# A root for systemd-analyze --root: systemd's own units, the unit where the
# guide installs it, and every program its Exec lines name (the project's
# bpftool and the example application where `make install` and the guide
# put them, the system's tools from the host). The man page the unit names
# is looked up through MANPATH in the bpftool build.
make_root() {
	local unit=$1 r=$T/root word path
	rm -rf "$r"
	mkdir -p "$r/usr/lib/systemd" "$r/etc/systemd/system"
	cp -a /usr/lib/systemd/system "$r/usr/lib/systemd/"
	cp "$unit" "$r/etc/systemd/system/bpf-app.service"
	install -D -m 0755 "$BPFTOOL" "$r/usr/local/sbin/bpftool"
	install -D -m 0755 "$EX/bpf-app" "$r/usr/local/bin/bpf-app"
	while read -r word; do
		path=${word#*=}
		path=${path##[-+@:!]}
		path=${path##[-+@:!]}
		[[ -e $r$path ]] && continue
		[[ -x $path ]] || { echo "the unit runs $path: not on the host"; return 1; }
		install -D -m 0755 "$path" "$r$path"
	done < <(grep -E '^Exec[A-Za-z]*=' "$unit" | awk '{print $1}')
	mkdir -p "$T/man/man8"
	cp "$BUILD/bpftool/man/bpftool-token.8" "$T/man/man8/"
}

@test "docs: systemd-analyze verify passes on the example unit, silently" {
	command -v systemd-analyze
	[[ -x $BPFTOOL ]] || { echo "no $BPFTOOL: run 'make bpftool'"; false; }
	make_root "$EX/bpf-app.service"
	run env MANPATH="$T/man" systemd-analyze verify --root="$T/root" bpf-app.service
	echo "status $status: $output"
	[[ $status == 0 ]]
	[[ -z $output ]]
}

@test "docs: the guide's system call filter for the service: @system-service lacks bpf, @privileged has it" {
	grep -qF 'SystemCallFilter=@system-service bpf' "$GUIDE"
	run systemd-analyze syscall-filter @system-service
	[[ $status == 0 && $output == *"@system-service"* ]]
	[[ $(grep -cx '[[:space:]]*bpf' <<<"$output") == 0 ]]
	run systemd-analyze syscall-filter @privileged
	[[ $status == 0 ]]
	grep -qx '[[:space:]]*bpf' <<<"$output"
}

@test "docs: systemd-analyze verify catches a broken unit (control)" {
	[[ -x $BPFTOOL ]] || { echo "no $BPFTOOL: run 'make bpftool'"; false; }
	sed 's/^NoNewPrivileges=yes/NoNewPrivilege=yes/' "$EX/bpf-app.service" >"$T/bad.service"
	make_root "$T/bad.service"
	run env MANPATH="$T/man" systemd-analyze verify --root="$T/root" bpf-app.service
	echo "status $status: $output"
	[[ -n $output ]]
}

# messages [MAIN_H]: the messages bpftool's token code prints: the formats of
# p_err() (and of the messages token_names.c makes for it) in bpftool/*.c
# and in the lines the registration patches add, and those of MAIN_H
# (bpftool's own: BAD_ARG()...); TOKEN_HELP_HINT expanded. One format per
# line.
messages() {
	python3 "$DOCS_CHECK" messages "$TOP/bpftool" "$@"
}

@test "docs: the guide's troubleshooting names every error message of bpftool token" {
	run --separate-stderr messages
	[[ $status == 0 ]]
	echo "${#lines[@]} messages"
	((${#lines[@]} >= 50))
	run python3 "$DOCS_CHECK" troubleshooting "$GUIDE" <(echo "$output")
	echo "$output"
	[[ $status == 0 ]]
}

# doc_messages: the error messages the guide's troubleshooting and the man
# page's examples quote, one a line: the ``literals`` of the troubleshooting
# entries and of its paragraph of usage errors (libbpf's messages, commands
# and the hint aside), and the man page's "Error: " lines.
doc_messages() {
	python3 "$DOCS_CHECK" doc-messages "$GUIDE" "$DOC/bpftool-token.rst"
}

# unknown_messages FILE: the lines of FILE (quoted messages) that match none
# of the formats of messages (placeholders such as PATH, N or ... stand for a
# conversion; the hint may be left out).
unknown_messages() {
	python3 "$DOCS_CHECK" unknown-messages <(messages "$KSRC/tools/bpf/bpftool/main.h") "$1"
}

@test "docs: every error message the guide and the man page quote is one bpftool prints" {
	local quoted
	quoted=$(doc_messages)
	echo "$(wc -l <<<"$quoted") quoted messages"
	(($(wc -l <<<"$quoted") >= 40))
	run unknown_messages <(echo "$quoted")
	echo "bpftool prints no such message: $output"
	[[ $status == 0 && -z $output ]]
	# the check can fail: messages the code does not print
	run unknown_messages <(printf '%s\n' \
		"object OBJ is not a BPF object file (ELF machine N, not BPF)" \
		"can't read object OBJ: ..." "can't open token PATH: not a BPF FS")
	[[ $status == 0 && $output == $'object OBJ is not a BPF object file (ELF machine N, not BPF)\ncan\'t read object OBJ: ...' ]]
}

# show_keys: the keys token show prints, from token.c's print_token_plain()
# and print_token_json() (and the set names of token_names.c's table), as
# "plain KEY" and "json KEY" lines.
show_keys() {
	python3 "$DOCS_CHECK" show-keys "$TOP/bpftool"
}

# example_keys: the keys of the outputs of show, list and create -j in the
# man page's examples, as show_keys prints them.
example_keys() {
	python3 "$DOCS_CHECK" example-keys "$DOC/bpftool-token.rst"
}

@test "docs: the man page's examples of show and list have exactly the keys show prints" {
	local code ex
	code=$(show_keys)
	ex=$(example_keys)
	echo "code: $(echo $code)"
	echo "examples: $(echo $ex)"
	# both ways: no key the code does not print, every key it prints shown
	diff -u <(sort <<<"$code") <(sort <<<"$ex")
	grep -qx 'json cgroup' <<<"$code"
	grep -qx 'plain revoked' <<<"$code"
	grep -qx 'plain root-equivalent' <<<"$code"
	grep -qx 'json root_equivalent' <<<"$code"
}

@test "docs: unit tests of the checks' Python: each catches what it is there to catch (tests/host/docs_check_test.py)" {
	run python3 "$TOP/tests/host/docs_check_test.py" -v
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[-1]} == OK ]]
	[[ $output != *skipped* ]]
}
