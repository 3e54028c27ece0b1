#!/usr/bin/env bats
# The shared libbpf (build/libbpf/libbpf.so.1, scripts/libbpf.sh) on the
# host, no patched kernel needed: ABI against the distribution's libbpf1,
# unmodified Debian binaries resolving against it, and `make install`'s
# placement under PREFIX/lib/bpf-token/.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	OURS=$BUILD/libbpf/libbpf.so.1
	# Debian 12's libbpf1 (1.1.2), a dependency of iproute2
	SYSTEM=${SYSTEM_LIBBPF:-/lib/x86_64-linux-gnu/libbpf.so.1}
	[[ -e $OURS ]] || { echo "no $OURS: run 'make libbpf'"; false; }
	[[ -e $SYSTEM ]] || { echo "no $SYSTEM: install libbpf1 (make deps)"; false; }
}

# dynsyms LIB: the exported symbols with their versions, `name@@VERSION`
# (default version) or `name@VERSION`, one a line, sorted
dynsyms() {
	nm -D --defined-only --with-symbol-versions "$1" | awk '{ print $3 }' | sort -u
}

# unversioned LIB: the exported functions and data without a version, one
# a line (the version nodes themselves are absolute symbols, type A)
unversioned() {
	nm -D --defined-only --with-symbol-versions "$1" | awk '$2 != "A" && $3 !~ /@/ { print $3 }'
}

# soname LIB
soname() {
	readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'
}

# verdefs LIB: the version nodes LIB defines, sorted
verdefs() {
	readelf -V --wide "$1" | sed -n '/Version definition section/,/Version needs section/p' |
		awk '/Name:/ && !/Flags: BASE/ { for (i = 1; i < NF; i++) if ($i == "Name:") print $(i + 1) }' |
		sort -u
}

@test "libbpf.so.1: same soname as the system's libbpf1" {
	echo "ours: $(soname "$OURS"), system: $(soname "$SYSTEM")"
	[[ $(soname "$OURS") == libbpf.so.1 ]]
	[[ $(soname "$SYSTEM") == libbpf.so.1 ]]
	# a real file behind the soname link, not the system's
	[[ -L $OURS && -f $(readlink -f "$OURS") ]]
	! cmp -s "$(readlink -f "$OURS")" "$(readlink -f "$SYSTEM")"
}

@test "libbpf.so.1: every versioned symbol of the system's libbpf1, same version" {
	dynsyms "$SYSTEM" >"$BATS_TEST_TMPDIR/system"
	dynsyms "$OURS" >"$BATS_TEST_TMPDIR/ours"
	echo "system: $(wc -l <"$BATS_TEST_TMPDIR/system") symbols, ours: $(wc -l <"$BATS_TEST_TMPDIR/ours")"
	missing=$(comm -23 "$BATS_TEST_TMPDIR/system" "$BATS_TEST_TMPDIR/ours")
	echo "missing in ours: ${missing:-none}"
	echo "only in ours: $(comm -13 "$BATS_TEST_TMPDIR/system" "$BATS_TEST_TMPDIR/ours" | tr '\n' ' ')"
	[[ -z $missing ]]
	# the comparison is not vacuous: the system library has hundreds, all versioned
	[[ $(wc -l <"$BATS_TEST_TMPDIR/system") -gt 250 ]]
	[[ -z $(unversioned "$SYSTEM") ]]
	# ours: no unversioned export either, and the token API in its own node
	[[ -z $(unversioned "$OURS") ]]
	grep -qx 'bpf_token_create@@LIBBPF_1.1.0_BPF_TOKEN' "$BATS_TEST_TMPDIR/ours"
}

@test "libbpf.so.1: every version node of the system's libbpf1" {
	verdefs "$SYSTEM" >"$BATS_TEST_TMPDIR/system"
	verdefs "$OURS" >"$BATS_TEST_TMPDIR/ours"
	cat "$BATS_TEST_TMPDIR/system"
	grep -qx LIBBPF_1.1.0 "$BATS_TEST_TMPDIR/system"
	missing=$(comm -23 "$BATS_TEST_TMPDIR/system" "$BATS_TEST_TMPDIR/ours")
	echo "missing in ours: ${missing:-none}"
	[[ -z $missing ]]
}

@test "libbpf.so.1: unmodified Debian libbpf applications bind every symbol to it" {
	local b ran=0
	# LD_BIND_NOW: a missing symbol or version fails at start-up, not later
	for b in /sbin/tc /sbin/ip /usr/sbin/xdp-loader /usr/sbin/xdp-filter; do
		[[ -x $b ]] || continue
		ldd "$b" | grep -q 'libbpf\.so\.1 => /' || { echo "$b does not link libbpf.so.1"; false; }
		run env LD_LIBRARY_PATH="$BUILD/libbpf" ldd "$b"
		[[ $output == *"libbpf.so.1 => $BUILD/libbpf/libbpf.so.1"* ]]
		run --separate-stderr env LD_LIBRARY_PATH="$BUILD/libbpf" LD_BIND_NOW=1 "$b" -V
		echo "$b -V: status $status: $output $stderr"
		[[ $stderr != *"symbol lookup error"* && $stderr != *"version "*" not found"* ]]
		ran=$((ran + 1))
	done
	# tc reports the libbpf it runs with: the tree's 1.1.0, not Debian's 1.1.2
	run env LD_LIBRARY_PATH="$BUILD/libbpf" LD_BIND_NOW=1 /sbin/tc -V
	[[ $status == 0 && $output == *"libbpf 1.1.0"* ]]
	run /sbin/tc -V
	[[ $output != *"libbpf 1.1.0"* ]]
	[[ $ran -ge 2 ]]
}

@test "libbpf install with PREFIX and DESTDIR: lib/bpf-token/libbpf.so.1 only" {
	dest=$BATS_TEST_TMPDIR/dest
	run env DESTDIR="$dest" PREFIX=/opt/bt "$TOP/scripts/libbpf.sh" install
	echo "$output"
	[[ $status == 0 ]]
	lib=$dest/opt/bt/lib/bpf-token
	[[ -L $lib/libbpf.so.1 ]]
	real=$(readlink "$lib/libbpf.so.1")
	# a relative link to the real file next to it
	[[ $real == libbpf.so.1.* && -f $lib/$real && ! -L $lib/$real ]]
	cmp "$lib/$real" "$(readlink -f "$OURS")"
	[[ $(soname "$lib/libbpf.so.1") == libbpf.so.1 ]]
	# nothing else under DESTDIR: in particular nothing in lib/ itself, where
	# the system's libbpf would be found
	run bash -c "cd '$dest' && find . -mindepth 1 | sort"
	echo "$output"
	[[ $output == "$(printf '%s\n' ./opt ./opt/bt ./opt/bt/lib ./opt/bt/lib/bpf-token \
		./opt/bt/lib/bpf-token/libbpf.so.1 "./opt/bt/lib/bpf-token/$real")" ]]
	# a second install over the first is fine
	run env DESTDIR="$dest" PREFIX=/opt/bt "$TOP/scripts/libbpf.sh" install
	[[ $status == 0 ]]
}

@test "make install puts bpftool and the shared libbpf in place" {
	BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
	[[ -x $BPFTOOL ]] || { echo "no $BPFTOOL: run 'make bpftool'"; false; }
	dest=$BATS_TEST_TMPDIR/dest
	# bpftool.sh installs bpftool's files only
	run env DESTDIR="$dest/one" PREFIX=/usr "$TOP/scripts/bpftool.sh" install
	echo "$output"
	[[ $status == 0 && -x $dest/one/usr/sbin/bpftool && ! -e $dest/one/usr/lib ]]
	# make install's own recipe (its build prerequisites taken as done)
	run make -C "$TOP" --no-print-directory -o bpftool -o libbpf install DESTDIR="$dest" PREFIX=/usr
	echo "$output"
	[[ $status == 0 ]]
	[[ -x $dest/usr/sbin/bpftool ]]
	[[ -f $dest/usr/share/man/man8/bpftool-token.8 ]]
	[[ -L $dest/usr/lib/bpf-token/libbpf.so.1 ]]
	[[ $(soname "$dest/usr/lib/bpf-token/libbpf.so.1") == libbpf.so.1 ]]
	[[ ! -e $dest/usr/lib/libbpf.so.1 && ! -e $dest/usr/lib/x86_64-linux-gnu ]]
	# an unmodified application runs with it
	run env LD_LIBRARY_PATH="$dest/usr/lib/bpf-token" LD_BIND_NOW=1 /sbin/tc -V
	[[ $status == 0 && $output == *"libbpf 1.1.0"* ]]
}

@test "libbpf install without a built library: one error line, nothing installed" {
	dest=$BATS_TEST_TMPDIR/dest
	run --separate-stderr env BUILD="$BATS_TEST_TMPDIR/nobuild" DESTDIR="$dest" \
		"$TOP/scripts/libbpf.sh" install
	echo "status $status, stdout '$output', stderr '$stderr'"
	[[ $status != 0 ]]
	[[ ${#stderr_lines[@]} == 1 && $stderr == "error: build libbpf first"* ]]
	[[ ! -e $dest ]]
}
