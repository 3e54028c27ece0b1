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

@test "kernel/patches applies with git am to a pristine baseline" {
	tmp=$BATS_TEST_TMPDIR/linux
	git clone -q --shared --no-checkout "$KSRC" "$tmp"
	git -C "$tmp" checkout -q baseline
	shopt -s nullglob
	patches=("$TOP"/kernel/patches/*.patch)
	for p in "${patches[@]}"; do
		git -C "$tmp" -c user.name=t -c user.email=t@t am -q "$p" ||
			{ echo "does not apply: ${p#"$TOP"/}"; false; }
	done
	echo "${#patches[@]} patches applied"
	[[ $(git -C "$tmp" rev-list --count baseline..HEAD) == "${#patches[@]}" ]]
}

@test "build/linux is exactly baseline + kernel/patches (nothing unexported)" {
	"$TOP/scripts/tree.sh" verify
}
