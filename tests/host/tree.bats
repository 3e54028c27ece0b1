#!/usr/bin/env bats
# The kernel series against its recorded base (no kernel needed).

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	KSRC=${KSRC:-$TOP/build/linux}
	source "$TOP/kernel/BASE"
	[[ -d $KSRC/.git ]] || skip "no tree in $KSRC (make tree)"
}

@test "kernel/BASE matches the installed Debian tarball" {
	sha=$(sha256sum <"$BASE_TARBALL" | cut -d' ' -f1)
	[[ $sha == "$BASE_TARBALL_SHA256" ]] ||
		skip "this machine has another $BASE_PACKAGE ($sha): the series was made on $BASE_DEBIAN_VERSION"
}

@test "baseline of build/linux has the version recorded in kernel/BASE" {
	run bash -c "git -C '$KSRC' show baseline:Makefile | head -5"
	[[ $status == 0 ]]
	ver=$(awk -F' *= *' '$1=="VERSION"{v=$2} $1=="PATCHLEVEL"{p=$2} $1=="SUBLEVEL"{s=$2} END{print v"."p"."s}' <<<"$output")
	echo "baseline is $ver"
	[[ $ver == "$BASE_KERNEL_VERSION" ]]
}

@test "kernel/patches applies in order to a pristine baseline" {
	# What `git am` does, on an index only (no 78k-file checkout): parse each
	# mail, apply its diff; the result must be build/linux's tree when that
	# tree is exactly the series.
	tmp=$BATS_TEST_TMPDIR/linux
	git clone -q --shared --no-checkout "$KSRC" "$tmp"
	git -C "$tmp" read-tree baseline
	shopt -s nullglob
	patches=("$TOP"/kernel/patches/*.patch)
	for p in "${patches[@]}"; do
		git mailinfo "$tmp/msg" "$tmp/diff" <"$p" >"$tmp/info"
		grep -q '^Subject: .' "$tmp/info" && grep -q '^Author: .' "$tmp/info" ||
			{ echo "no author or subject: ${p#"$TOP"/}"; false; }
		git -C "$tmp" apply --cached "$tmp/diff" ||
			{ echo "does not apply: ${p#"$TOP"/}"; false; }
	done
	echo "${#patches[@]} patches applied"
	if "$TOP/scripts/tree.sh" verify >/dev/null 2>&1; then
		[[ $(git -C "$tmp" write-tree) == $(git -C "$KSRC" rev-parse 'HEAD^{tree}') ]]
	fi
}

@test "build/linux is exactly baseline + kernel/patches (nothing unexported)" {
	run "$TOP/scripts/tree.sh" verify
	echo "$output"
	[[ $status == 0 ]]
}
