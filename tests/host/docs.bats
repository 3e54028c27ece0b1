#!/usr/bin/env bats
# The documentation on the host: every .rst under Documentation/ builds
# without a warning (rst2man --halt=warning; the kernel documentation also
# with rst2html), the files the operator's guide shows are the ones in
# Documentation/examples/ byte for byte (and every example is shown), and
# the example systemd unit passes `systemd-analyze verify` in a root that
# holds what `make install` and the guide install.

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

@test "docs: systemd-analyze verify catches a broken unit (control)" {
	[[ -x $BPFTOOL ]] || { echo "no $BPFTOOL: run 'make bpftool'"; false; }
	sed 's/^NoNewPrivileges=yes/NoNewPrivilege=yes/' "$EX/bpf-app.service" >"$T/bad.service"
	make_root "$T/bad.service"
	run env MANPATH="$T/man" systemd-analyze verify --root="$T/root" bpf-app.service
	echo "status $status: $output"
	[[ -n $output ]]
}

@test "docs: the guide's troubleshooting names every error message of bpftool token" {
	run python3 - "$GUIDE" "$TOP/bpftool/token.c" "$TOP"/bpftool/patches/*.patch <<'PY'
import re, sys
guide = ' '.join(open(sys.argv[1]).read().split())
src = ''
for f in sys.argv[2:]:
    text = open(f).read()
    if f.endswith('.patch'):
        # the lines the registration patches add
        text = '\n'.join(l[1:] for l in text.split('\n') if l.startswith('+'))
    src += text + '\n'
lit = r'"((?:[^"\\]|\\.)*)"'
missing, n = [], 0
for call in re.findall(r'p_err\(\s*(' + lit + r'(?:\s*' + lit + r')*)', src):
    text = ''.join(re.findall(lit, call[0]))
    n += 1
    # the fixed words of the message, between its conversions
    for part in re.split(r'%[-0-9.*]*l*[a-z]', text):
        part = ' '.join(part.split()).strip(" '")
        if len(part) >= 6 and part not in guide:
            missing.append(part)
print(f'{n} messages')
for m in missing:
    print('not in the guide:', repr(m))
sys.exit(1 if missing or n < 20 else 0)
PY
	echo "$output"
	[[ $status == 0 ]]
}
