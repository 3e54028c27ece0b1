#!/usr/bin/env bats
# Tests that can fail: tests/bats-lint.py over every bats file of the
# project (and the helper files they load), and the lint itself on
# fixtures that it must reject and accept.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	LINT=$TOP/tests/bats-lint.py
	F=$BATS_TEST_TMPDIR
}

# fixture FILE: stdin into FILE, with "%test" at the start of a line made
# "@test" (bats would take an @test line of this file for one of its own,
# even in a here-document)
fixture() {
	sed 's/^\([[:blank:]]*\)%test /\1@test /' >"$1"
}

@test "lint: no test of the project has an inert '!' line or no assertion" {
	local files
	mapfile -t files < <(find "$TOP/tests" \( -name '*.bats' -o -name '*.bash' \) | sort)
	echo "${#files[@]} files"
	# the suites are there: host, VM, debug-kernel files and helpers
	[[ ${#files[@]} -ge 20 ]]
	run "$LINT" "${files[@]}"
	echo "$output"
	[[ $status == 0 && -z $output ]]
}

@test "lint: the hazard is real: under bats a '!' line that is not the last never fails a test" {
	fixture "$F/hazard.bats" <<-'EOF'
	%test "inert negation" {
		! true
		true
	}
	EOF
	run bats --tap "$F/hazard.bats"
	echo "$output"
	# bats passes this test: the negated command's status is ignored
	[[ $status == 0 && ${lines[1]} == "ok 1 inert negation" ]]
	run "$LINT" "$F/hazard.bats"
	echo "$output"
	[[ $status == 1 && $output == "$F/hazard.bats:2: negation: "* ]]
}

@test "lint: rejects inert negations in tests and helpers, tests without assertions" {
	fixture "$F/bad.bats" <<-'EOF'
	load helper

	# a helper whose middle line is inert
	check_gone() {
		! test -e "$1"
		echo checked
	}

	%test "negation in the middle" {
		run true
		! grep -q x /dev/null
		[[ $status == 0 ]]
	}

	%test "negation after then" {
		if true; then ! false; fi
		[[ 1 == 1 ]]
	}

	%test "nothing but run and echo" {
		run false
		echo "$output"
	}

	%test "a condition is not an assertion" {
		if [[ -e /nonexistent ]]; then echo yes; fi
		[[ -e /proc ]] || skip "no /proc"
		run ls /
	}

	%test "an asserting helper run through run is not an assertion" {
		run asserts
	}
	EOF
	fixture "$F/helper.bash" <<-'EOF'
	asserts() {
		[[ -d / ]]
	}
	EOF
	run "$LINT" "$F/bad.bats"
	echo "$output"
	[[ $status == 1 ]]
	[[ ${#lines[@]} == 6 ]]
	[[ ${lines[0]} == "$F/bad.bats:5: negation: "*"function check_gone"* ]]
	[[ ${lines[1]} == "$F/bad.bats:11: negation: "*'test "negation in the middle"'* ]]
	[[ ${lines[2]} == "$F/bad.bats:16: negation: "*'test "negation after then"'* ]]
	[[ ${lines[3]} == "$F/bad.bats:20: assertion: test \"nothing but run and echo\" asserts nothing" ]]
	[[ ${lines[4]} == "$F/bad.bats:25: assertion: test \"a condition is not an assertion\" asserts nothing" ]]
	[[ ${lines[5]} == "$F/bad.bats:31: assertion: test \"an asserting helper run through run is not an assertion\" asserts nothing" ]]
}

@test "lint: accepts a last-line '!', run !, [[ ]], helpers that assert (also through two loads), one-line tests" {
	fixture "$F/good.bats" <<-'EOF'
	load helper

	only_here() {
		local x=1
		[[ $x == 1 ]]
	}

	%test "last line negation" {
		run true
		! grep -q x /dev/null
	}

	%test "run !" {
		run ! false
		run -1 false
		echo done
	}

	%test "a helper of the file, a helper of a loaded file" {
		only_here
		asserts
	}

	%test "a helper of a file that a loaded file loads" {
		asserts_too
	}

	%test "one line" { only_here; }

	%test "a here-document holds no commands" {
		cat <<-EOT >/dev/null
		! not a command
		EOT
		diff /dev/null /dev/null
	}

	%test "a continued line" {
		echo a \
			b
		[ -d / ]
	}
	EOF
	fixture "$F/helper.bash" <<-'EOF'
	load helper2

	asserts() {
		(( 1 == 1 ))
	}
	EOF
	fixture "$F/helper2.bash" <<-'EOF'
	asserts_too() {
		[[ -d / ]]
	}
	EOF
	run "$LINT" "$F/good.bats" "$F/helper.bash" "$F/helper2.bash"
	echo "$output"
	[[ $status == 0 && -z $output ]]
	# and bats runs them all green
	run bats --tap "$F/good.bats"
	echo "$output"
	[[ $status == 0 && ${lines[0]} == 1..7 ]]
}

@test "lint: bad usage is one line and status 2" {
	run "$LINT"
	echo "$output"
	[[ $status == 2 && ${#lines[@]} == 1 ]]
}
