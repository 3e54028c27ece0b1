#!/usr/bin/env bats
# bpftool token on the host, no patched kernel needed: its help (and that
# of bpftool, prog and map, which know the token keyword), the man pages
# as rst2man builds them, help and man page in agreement, and the install.
# The bash completion is bpftool-token-completion.bats'.

bats_require_minimum_version 1.5.0

load bpftool-token

@test "bpftool help lists token among the objects" {
	run --separate-stderr "$BPFTOOL" help
	[[ $stderr =~ OBJECT\ :=\ \{.*\|\ token\ \} ]]
}

@test "token help: usage of create, show, list, needs, revoke and help, exit 0" {
	run --separate-stderr "$BPFTOOL" token help
	echo "$stderr"
	[[ $status == 0 ]]
	[[ -z $output ]]
	[[ $stderr == *"token create PATH [token PARENT] [userns NS] [cgroup CGROUP]"* ]]
	[[ $stderr == *"[cmds LIST] [maps LIST] [progs LIST]"* ]]
	[[ $stderr == *"[attach LIST] [verifier VERIFIER] [object OBJ]..."* ]]
	[[ $stderr == *"token delegate PATH userns NS [cmds LIST] [maps LIST]"* ]]
	[[ $stderr == *"[progs LIST] [attach LIST] [object OBJ]..."* ]]
	[[ $stderr == *"[cgroup CGROUP] [verifier VERIFIER]"* ]]
	[[ $stderr == *"token { show | list } [PATH]"* ]]
	[[ $stderr == *"token needs OBJ [OBJ...] [format FORMAT]"* ]]
	[[ $stderr == *"token revoke PATH"* ]]
	[[ $stderr == *"token help"* ]]
	[[ $stderr == *"NS := { PID | path of a user namespace, e.g. /proc/PID/ns/user }"* ]]
	[[ $stderr == *"OBJ := path of a BPF object file (ELF)"* ]]
	[[ $stderr == *"CGROUP := path of a cgroup v2 directory"* ]]
	[[ $stderr == *"VERIFIER := { strict | relaxed }"* ]]
	[[ $stderr == *"FORMAT := { mount | incus | lxd | systemd }"* ]]
	[[ $stderr == *"CMD := { map_create | "*" | token_create }"* ]]
	# -j: null, as for every help
	run --separate-stderr "$BPFTOOL" -j token help
	[[ $status == 0 && $output == null ]]
}

@test "token with an unknown subcommand prints the help and fails" {
	run --separate-stderr "$BPFTOOL" token frobnicate
	[[ $status != 0 ]]
	[[ $stderr == *"token create PATH"* ]]
}

@test "prog load, prog loadall and map create know the token keyword" {
	run --separate-stderr "$BPFTOOL" prog help
	[[ $stderr == *"[pinmaps MAP_DIR] [token TOKEN]"* ]]
	[[ $stderr == *"TOKEN := path of a pinned BPF token"* ]]
	run --separate-stderr "$BPFTOOL" map help
	[[ $stderr == *"[inner_map MAP] [dev NAME] [token TOKEN]"* ]]
	[[ $stderr == *"TOKEN := path of a pinned BPF token"* ]]

	touch "$D/file"
	run_err "token already specified" prog load "$D/x.o" "$D/p" token a token b
	run_err "token already specified" prog loadall "$D/x.o" "$D/p" token a token b
	run_err "can't open token $D/file: not a BPF FS" prog load "$D/x.o" "$D/p" token "$D/file"
	run_err "expected no more arguments, 'type', 'map', 'dev', 'pinmaps' or 'token', got: 'frob'?" \
		prog load "$D/x.o" "$D/p" frob
	run_err "can't open token $D/file: not a BPF FS" map create "$D/m" type hash \
		key 4 value 4 entries 1 name m token "$D/file"
}

@test "man pages build with rst2man without a warning" {
	out=$BATS_TEST_TMPDIR/man/
	mkdir -p "$out"
	make -s -C "$SRC/Documentation" OUTPUT="$out" \
		RST2MAN_OPTS="--strip-comments --halt=warning" man
	ls "$out"
	for s in NAME SYNOPSIS "TOKEN COMMANDS" DESCRIPTION OPTIONS EXAMPLES "SEE ALSO"; do
		grep -q "^\.SH $s" "$out/bpftool-token.8" || { echo "no section $s"; false; }
	done
	grep -q 'bpftool\\-token' "$out/bpftool.8"
	grep -q 'bpftool\\-token' "$out/bpftool-prog.8"
	# the token keyword made it into the patched man pages
	grep -A1 'pinmaps' "$out/bpftool-prog.8" | grep -q 'token'
	grep -q 'token' "$out/bpftool-map.8"
}

# Words of the usage lines of `bpftool token help` (lower case keywords)
help_keywords() {
	"$BPFTOOL" token help 2>&1 | sed -n '1,/^$/p' | sed "s|$BPFTOOL||g" |
		grep -oE '\b[a-z_]+\b' | sort -u
}

man_keywords() {
	# from the first usage line to the empty line that ends the usage
	sed -n '/^|\t\*\*bpftool\*\*/,/^|$/p' "$SRC/Documentation/bpftool-token.rst" |
		grep -oE '\*\*[a-z_ ]+\*\*' |
		tr -d '*' | tr ' ' '\n' | grep -v '^bpftool$' | grep . | sort -u
}


# Names of NONTERM := { a | b | ... } in the man page, in order, one per line
man_list() {
	awk -v nt="*$1*" '
		$2 == nt && $3 == ":=" { on = 1 }
		on {
			last = /}/
			n = split($0, w, /\*\*/)
			for (i = 2; i <= n; i += 2) print w[i]
			if (last) on = 0
		}' "$SRC/Documentation/bpftool-token.rst"
}

@test "help and man page agree: commands and keywords" {
	diff -u <(help_keywords) <(man_keywords)
	# sanity: the lists hold what they must
	[[ $(help_keywords | tr '\n' ' ') == "attach cgroup cmds create delegate format help list maps needs object progs revoke show token userns verifier " ]]
}

@test "help and man page agree: grammar symbols" {
	h=$("$BPFTOOL" token help 2>&1 | grep -oE '^\s+[A-Z_]+ :=' | awk '{print $1}' | sort)
	m=$(grep -oP '^\|\t\*[A-Z_]+\* :=' "$SRC/Documentation/bpftool-token.rst" |
		tr -d '|*\t' | awk '{print $1}'; echo OPTIONS)
	diff -u <(echo "$h") <(echo "$m" | sort)
	# every symbol of the usage lines but PATH is defined
	for s in $("$BPFTOOL" token help 2>&1 | sed -n '1,/^$/p' | grep -oE '\b[A-Z_]+\b' | sort -u); do
		[[ $s == PATH ]] || grep -qx "$s" <<<"$h" || { echo "$s not defined"; false; }
	done
}

@test "help and man page agree: command, map, program and attach type names" {
	for nt in CMD MAP_TYPE PROG_TYPE ATTACH_TYPE; do
		echo "== $nt"
		diff -u <(help_list $nt) <(man_list $nt)
		[[ $(help_list $nt | wc -l) -ge 30 ]]
	done
	# the types are libbpf's, all of them
	diff -u <("$BPFTOOL" feature list_builtins map_types) <(help_list MAP_TYPE)
	diff -u <("$BPFTOOL" feature list_builtins prog_types) <(help_list PROG_TYPE)
	diff -u <("$BPFTOOL" feature list_builtins attach_types) <(help_list ATTACH_TYPE)
}

@test "help and man page agree: options" {
	h=$("$BPFTOOL" token help 2>&1 | grep 'OPTIONS :=' | grep -oE -- '--?[a-z]+' | sort)
	# |COMMON_OPTIONS| of the man page's synopsis
	m=$(grep 'COMMON_OPTIONS| replace::' "$SRC/Documentation/substitutions.rst" |
		grep -oE -- '--?[a-z]+' | sort)
	grep -qP '^\t\*OPTIONS\* := \{ \|COMMON_OPTIONS\| \}$' "$SRC/Documentation/bpftool-token.rst"
	diff -u <(echo "$h") <(echo "$m")
	[[ $(echo $h) == "--debug --json --legacy --pretty -d -j -l -p" ]]
	# and the OPTIONS section documents each of them
	grep -qP '^\t.. include:: common_options.rst' "$SRC/Documentation/bpftool-token.rst"
	for o in $h; do
		grep -qE -- "(^|, )$o(,|$)" "$SRC/Documentation/common_options.rst" ||
			{ echo "$o not documented"; false; }
	done
}

@test "install with PREFIX and DESTDIR: bpftool, the token man page, the completion" {
	dest=$BATS_TEST_TMPDIR/dest
	run env DESTDIR="$dest" PREFIX=/opt/bt "$TOP/scripts/bpftool.sh" install
	echo "$output"
	[[ $status == 0 ]]
	[[ -x $dest/opt/bt/sbin/bpftool ]]
	"$dest/opt/bt/sbin/bpftool" token help 2>&1 | grep -q 'token create PATH'
	grep -q '^\.SH TOKEN COMMANDS' "$dest/opt/bt/share/man/man8/bpftool-token.8"
	grep -q 'bpftool\\-token' "$dest/opt/bt/share/man/man8/bpftool.8"
	grep -q '_bpftool_token_list' "$dest/opt/bt/share/bash-completion/completions/bpftool"
}
