#!/usr/bin/env bats
# bpftool prog load / loadall and map create through a BPF token, by an
# unprivileged user (uid 65534, no groups, no capabilities), with the
# clang-compiled objects of tests/progs; what bpftool says when a token
# lacks something, and a token that can only be read.
#
# Layout of each test: $D (root's, 0755) holds the tokens, created by root
# with `bpftool token create` and made usable by everyone (0666: using a
# token needs read and write permission); $P (owned by nobody) is where
# nobody pins.
#
# When the token lacks something the object needs, bpftool says so before
# loading: nobody gets one error naming what is missing and bpftool does not
# attempt the load; root gets the same text as a warning and loads.

load lib

setup() {
	OBJ=$PROGS/xdp_token.bpf.o
	need "$OBJ"
	bpffs_dir prog-load-token
	P=$D/pin
	mkdir -m 0755 "$P"
	chown $NOBODY:$NOBODY "$P"
}

teardown() {
	rm -rf "$D"
}

# The sets xdp_token.bpf.o needs, exactly
CMDS=map_create,prog_load,btf_load
MAPS=array
PROGS_ALLOWED=xdp
ATTACH=xdp

# token NAME [cmds LIST] [maps LIST] [progs LIST] [attach LIST]: root creates
# the token $D/NAME, usable by everyone (only lists given are set)
token() {
	local name=$1
	shift
	"$BPFTOOL" token create "$D/$name" "$@"
	chmod 0666 "$D/$name"
}

# The token that allows exactly what xdp_token.bpf.o needs
full_token() {
	token "${1:-full}" cmds $CMDS maps $MAPS progs $PROGS_ALLOWED attach $ATTACH
}

# nothing_pinned: $P is empty
nothing_pinned() {
	local left
	left=$(find "$P" -mindepth 1)
	[[ -z $left ]] || { echo "left pinned: $left"; return 1; }
}

# load_as_nobody [ENV=VAL...] -- ARGS...: `bpftool prog load ARGS` as nobody,
# stdout in $output, stderr in $stderr
load_as_nobody() {
	local envs=()
	while [[ $1 != -- ]]; do
		envs+=("$1")
		shift
	done
	shift
	run --separate-stderr as_nobody env "${envs[@]}" "$BPFTOOL" prog load "$@"
	show_run
}

# check_loaded: $P/prog and $P/maps/token_stats are the program and map of
# xdp_token.bpf.o, loaded by nobody, with BTF; root's `bpftool prog show`
# lists the program (plain and JSON), and nobody can show the pinned one.
check_loaded() {
	local prog map map_id all

	prog=$("$BPFTOOL" -j prog show pinned "$P/prog")
	echo "prog: $prog"
	[[ $(jq -r .type <<<"$prog") == xdp ]]
	[[ $(jq -r .name <<<"$prog") == xdp_token_prog ]]
	[[ $(jq -r .uid <<<"$prog") == 65534 ]]
	[[ $(jq -r '.btf_id // 0' <<<"$prog") != 0 ]]

	map=$("$BPFTOOL" -j map show pinned "$P/maps/token_stats")
	echo "map: $map"
	[[ $(jq -r .type <<<"$map") == array ]]
	[[ $(jq -r .name <<<"$map") == token_stats ]]
	[[ $(jq -r '.btf_id // 0' <<<"$map") != 0 ]]
	map_id=$(jq -r .id <<<"$map")
	[[ $(jq -c .map_ids <<<"$prog") == "[$map_id]" ]]

	# root lists it among all programs
	all=$("$BPFTOOL" -j prog show)
	[[ $(jq --argjson id "$(jq .id <<<"$prog")" \
		'[.[] | select(.id == $id and .type == "xdp" and .name == "xdp_token_prog")] | length' \
		<<<"$all") == 1 ]]
	"$BPFTOOL" prog show | grep -E "^$(jq .id <<<"$prog"): xdp +name xdp_token_prog "

	# and so does nobody, from the pin
	run as_nobody "$BPFTOOL" -j prog show pinned "$P/prog"
	echo "as nobody: $output"
	[[ $status == 0 ]]
	[[ $(jq -r .name <<<"$output") == xdp_token_prog ]]
}

# failed_load WANT: the load failed with an error on stderr that contains
# WANT and bpftool's "Error: failed to load object file", and left nothing
# pinned
failed_load() {
	[[ $status != 0 ]]
	[[ $stderr == *"$1"* ]]
	[[ $stderr == *"Error: failed to load object file"* ]]
	nothing_pinned
}

MAP_EPERM="libbpf: map 'token_stats': failed to create: Operation not permitted"
PROG_EPERM="libbpf: prog 'xdp_token_prog': BPF program load failed: Operation not permitted"

# refused WANT: bpftool refused the load before attempting it, with exactly
# one line on stderr, "Error: WANT", and left nothing pinned
refused() {
	[[ $status != 0 ]]
	[[ ${#stderr_lines[@]} == 1 ]]
	[[ $stderr == "Error: $1" ]]
	nothing_pinned
}

@test "prog load: nobody loads xdp_token.bpf.o through a token allowing exactly what it needs" {
	full_token
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/full" pinmaps "$P/maps"
	[[ $status == 0 ]]
	[[ -z $stderr ]]
	check_loaded
}

@test "prog load: without a token nobody gets EPERM, nothing pinned" {
	full_token
	load_as_nobody -- "$OBJ" "$P/prog" pinmaps "$P/maps"
	failed_load "Operation not permitted"
}

@test "prog load: token without map_create: refused before loading, naming the map" {
	token t cmds prog_load,btf_load maps $MAPS progs $PROGS_ALLOWED attach $ATTACH
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/t" pinmaps "$P/maps"
	refused "token $D/t does not allow command map_create (map 'token_stats')"
}

@test "prog load: token without prog_load: refused before loading, naming the program" {
	token t cmds map_create,btf_load maps $MAPS progs $PROGS_ALLOWED attach $ATTACH
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/t" pinmaps "$P/maps"
	refused "token $D/t does not allow command prog_load (program 'xdp_token_prog')"
}

@test "prog load: token without the array map type: refused before loading, naming the map" {
	token t cmds $CMDS progs $PROGS_ALLOWED attach $ATTACH
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/t" pinmaps "$P/maps"
	refused "token $D/t does not allow map type array (map 'token_stats')"
}

@test "prog load: token without the xdp program type: refused before loading, naming the program" {
	token t cmds $CMDS maps $MAPS attach $ATTACH
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/t" pinmaps "$P/maps"
	refused "token $D/t does not allow program type xdp (program 'xdp_token_prog')"
}

@test "prog load: token without the xdp attach type: refused before loading, naming the program" {
	token t cmds $CMDS maps $MAPS progs $PROGS_ALLOWED
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/t" pinmaps "$P/maps"
	refused "token $D/t does not allow attach type xdp (program 'xdp_token_prog')"
}

@test "prog load: a token lacking everything: one error naming every missing command and type" {
	token t cmds btf_load maps hash progs socket_filter attach cgroup_inet_ingress
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/t" pinmaps "$P/maps"
	refused "token $D/t does not allow command map_create (map 'token_stats'), command prog_load (program 'xdp_token_prog'), map type array (map 'token_stats'), program type xdp (program 'xdp_token_prog'), attach type xdp (program 'xdp_token_prog')"
}

@test "prog load: root is warned of what the token lacks, and loads" {
	token t cmds $CMDS maps $MAPS progs $PROGS_ALLOWED
	run --separate-stderr "$BPFTOOL" prog load "$OBJ" "$P/prog" token "$D/t" pinmaps "$P/maps"
	echo "status $status, stderr '$stderr'"
	[[ $status == 0 ]]
	[[ $stderr == "Warning: token $D/t does not allow attach type xdp (program 'xdp_token_prog')" ]]
	[[ $("$BPFTOOL" -j prog show pinned "$P/prog" | jq -r .name) == xdp_token_prog ]]
	# -j: no warning, the JSON result only
	rm -rf "$P"/*
	run --separate-stderr "$BPFTOOL" -j prog load "$OBJ" "$P/prog" token "$D/t" pinmaps "$P/maps"
	[[ $status == 0 && -z $stderr && $output == null ]]
}

# libbpf treats the object's BTF as optional: when BPF_BTF_LOAD is refused
# (EPERM), it says that the token does not allow it, warns that the BTF is
# ignored, and loads program and map without BTF. bpftool warns first, and
# does not refuse the load.
@test "prog load: token without btf_load: loads without BTF, stderr says why" {
	token t cmds map_create,prog_load maps $MAPS progs $PROGS_ALLOWED attach $ATTACH
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/t" pinmaps "$P/maps"
	[[ $status == 0 ]]
	[[ ${#stderr_lines[@]} == 4 ]]
	[[ ${stderr_lines[0]} == "Warning: token $D/t does not allow command btf_load (BTF of object 'xdp_token')" ]]
	[[ ${stderr_lines[1]} == "libbpf: BTF loading error: -1" ]]
	[[ ${stderr_lines[2]} == "libbpf: object 'xdp_token': BPF token at '$D/t' does not allow BPF_BTF_LOAD (btf_load)" ]]
	[[ ${stderr_lines[3]} == "libbpf: Error loading .BTF into kernel: -1. BTF is optional, ignoring." ]]

	prog=$("$BPFTOOL" -j prog show pinned "$P/prog")
	echo "prog: $prog"
	[[ $(jq -r .name <<<"$prog") == xdp_token_prog ]]
	[[ $(jq -r .uid <<<"$prog") == 65534 ]]
	[[ $(jq 'has("btf_id")' <<<"$prog") == false ]]
	map=$("$BPFTOOL" -j map show pinned "$P/maps/token_stats")
	echo "map: $map"
	[[ $(jq -r .name <<<"$map") == token_stats ]]
	[[ $(jq 'has("btf_id")' <<<"$map") == false ]]
}

@test "prog load: LIBBPF_BPF_TOKEN_PATH instead of the token keyword" {
	full_token
	load_as_nobody LIBBPF_BPF_TOKEN_PATH="$D/full" -- "$OBJ" "$P/prog" pinmaps "$P/maps"
	[[ $status == 0 ]]
	[[ -z $stderr ]]
	check_loaded
}

@test "prog load: LIBBPF_BPF_TOKEN_PATH naming a token without the attach type fails, nothing pinned" {
	token t cmds $CMDS maps $MAPS progs $PROGS_ALLOWED
	load_as_nobody LIBBPF_BPF_TOKEN_PATH="$D/t" -- "$OBJ" "$P/prog" pinmaps "$P/maps"
	failed_load "$PROG_EPERM"
}

@test "prog load: an empty token keyword disables LIBBPF_BPF_TOKEN_PATH" {
	full_token
	load_as_nobody LIBBPF_BPF_TOKEN_PATH="$D/full" -- "$OBJ" "$P/prog" token "" pinmaps "$P/maps"
	failed_load "Operation not permitted"
	[[ $stderr != *"using BPF token"* ]]
}

@test "prog load: a token refuses the map and program types it lacks, naming each; tokens made for objects" {
	local b missing want
	full_token
	load_as_nobody -- "$PROGS/xdp_stack.bpf.o" "$P/prog" token "$D/full" pinmaps "$P/maps"
	refused "token $D/full does not allow map type stack (map 'token_stack')"
	load_as_nobody -- "$PROGS/sockfilter.bpf.o" "$P/prog" token "$D/full" pinmaps "$P/maps"
	refused "token $D/full does not allow program type socket_filter (program 'sockfilter_prog')"

	# tokens made for objects (token create ... object): one for
	# xdp_token.bpf.o refuses another object that needs more
	run_ok token create "$D/xdp" object "$PROGS/xdp_token.bpf.o"
	chmod 0666 "$D/xdp"
	run_ok token create "$D/both" object "$PROGS/xdp_token.bpf.o" object "$PROGS/sockfilter.bpf.o"
	chmod 0666 "$D/both"
	run_err -u "token $D/xdp does not allow program type socket_filter (program 'sockfilter_prog')" \
		prog load "$PROGS/sockfilter.bpf.o" "$P/s" token "$D/xdp"
	run_ok -u prog load "$PROGS/sockfilter.bpf.o" "$P/s" token "$D/both"
	run_ok -u prog load "$PROGS/xdp_token.bpf.o" "$P/x" token "$D/both"
	# and nothing else: a hash map, a stack
	run_err -u "token $D/both does not allow map type hash (map 'h')" \
		map create "$P/h" type hash key 4 value 4 entries 1 name h token "$D/both"
	run_err -u "token $D/both does not allow map type stack (map 'token_stack')" \
		prog load "$PROGS/xdp_stack.bpf.o" "$P/st" token "$D/both"

	# every object of the corpus against the token of xdp_token.bpf.o: the
	# error names each command and type it lacks
	for b in $(corpus_objects); do
		missing=$("$BPFTOOL" -j token needs "$b" | jq -r --argjson have \
			"$("$BPFTOOL" -j token show "$D/xdp" | jq -c '.')" '
			[("command", "map type", "program type", "attach type") as $w |
			 {"command": "allowed_cmds", "map type": "allowed_maps",
			  "program type": "allowed_progs", "attach type": "allowed_attachs"}[$w] as $k |
			 .[$k][] as $n | select(($have[$k] | index($n)) == null) | "\($w) \($n) ("] | .[]')
		# the tracing type needs adds for a program of another type that
		# reads kernel memory: the error asks for any tracing type
		if "$BPFTOOL" -j token needs "$b" | jq -e '.reads_kernel_memory | length > 0' >/dev/null; then
			missing=${missing/"program type tracepoint ("/"a tracing program type ("}
		fi
		run --separate-stderr as_nobody "$BPFTOOL" prog loadall "$b" "$P/all" token "$D/xdp"
		echo "== $b: status $status, stderr '$stderr', missing: $missing"
		if [[ -z $missing ]]; then
			[[ $stderr != *"does not allow"* ]]
			rm -rf "$P/all"
			continue
		fi
		# libbpf may say things while opening the object, then bpftool's
		# error is the only one and the last line
		[[ $status != 0 ]]
		[[ $(grep -c '^Error: ' <<<"$stderr") == 1 ]]
		[[ ${stderr_lines[-1]} == "Error: token $D/xdp does not allow "* ]]
		while read -r want; do
			[[ $stderr == *"$want"* ]] || { echo "'$want' not named"; false; }
		done <<<"$missing"
		[[ ! -e $P/all ]]
	done
}

@test "a token nobody can only read: show, list and needs work, using it is refused" {
	local rw="can't open token $D/full: Permission denied (using a token needs read and write permission on it)"
	full_token
	chmod 0644 "$D/full"
	# nobody sees it: show and list open it read-only
	run_ok -u token show "$D/full"
	[[ ${lines[0]} == "$D/full" ]]
	run_ok -u -j token list
	[[ $(jq -r --arg p "$D/full" '[.[] | select(.pinned == $p)] | length' <<<"$output") == 1 ]]
	run_ok -u token needs "$OBJ"
	# but can't use it: bpftool refuses before loading
	run_err -u "$rw" prog load "$OBJ" "$P/prog" token "$D/full" pinmaps "$P/maps"
	run_err -u "$rw" map create "$P/m" type array key 4 value 4 entries 1 name m token "$D/full"
	run_err -u "$rw" token create "$P/c" token "$D/full" cmds map_create
	nothing_pinned
	# and through libbpf's own open, as nobody: the load fails
	load_as_nobody LIBBPF_BPF_TOKEN_PATH="$D/full" -- "$OBJ" "$P/prog" pinmaps "$P/maps"
	[[ $status != 0 ]]
	nothing_pinned
	# the token was never used
	[[ $(token_uses "$D/full") == "0 0 0 0 0" ]]
}

@test "prog load: a bad token path or a pinned map as token: one clear error, nothing pinned" {
	full_token
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/nothing" pinmaps "$P/maps"
	[[ $status != 0 ]]
	[[ $stderr == "Error: can't open token $D/nothing: No such file or directory" ]]
	nothing_pinned

	"$BPFTOOL" map create "$D/map" type array key 4 value 4 entries 1 name not_a_token
	chmod 0666 "$D/map"
	load_as_nobody -- "$OBJ" "$P/prog" token "$D/map" pinmaps "$P/maps"
	[[ $status != 0 ]]
	[[ $stderr == "Error: $D/map is not a BPF token" ]]
	nothing_pinned

	# the same through libbpf's own checks
	load_as_nobody LIBBPF_BPF_TOKEN_PATH="$D/map" -- "$OBJ" "$P/prog" pinmaps "$P/maps"
	failed_load "libbpf: object 'xdp_token': '$D/map' is not a BPF token"
	load_as_nobody LIBBPF_BPF_TOKEN_PATH="$D/nothing" -- "$OBJ" "$P/prog" pinmaps "$P/maps"
	failed_load "libbpf: object 'xdp_token': failed to open BPF token at '$D/nothing': No such file or directory"
}

@test "prog loadall: nobody loads and pins every program through the token" {
	full_token
	run --separate-stderr as_nobody "$BPFTOOL" prog loadall "$OBJ" "$P/progs" \
		token "$D/full" pinmaps "$P/maps"
	echo "status $status, stdout '$output', stderr '$stderr'"
	[[ $status == 0 ]]
	[[ -z $stderr ]]
	[[ $(ls "$P/progs") == xdp_token_prog ]]
	prog=$("$BPFTOOL" -j prog show pinned "$P/progs/xdp_token_prog")
	echo "prog: $prog"
	[[ $(jq -r .type <<<"$prog") == xdp ]]
	[[ $(jq -r .uid <<<"$prog") == 65534 ]]
	[[ -e $P/maps/token_stats ]]
}

@test "prog loadall: token without the xdp attach type is refused, nothing pinned" {
	token t cmds $CMDS maps $MAPS progs $PROGS_ALLOWED
	run --separate-stderr as_nobody "$BPFTOOL" prog loadall "$OBJ" "$P/progs" \
		token "$D/t" pinmaps "$P/maps"
	echo "status $status, stdout '$output', stderr '$stderr'"
	refused "token $D/t does not allow attach type xdp (program 'xdp_token_prog')"
}

@test "map create: nobody creates an array map through the token" {
	full_token
	run --separate-stderr as_nobody "$BPFTOOL" map create "$P/m" type array key 4 value 8 \
		entries 4 name token_map token "$D/full"
	echo "status $status, stdout '$output', stderr '$stderr'"
	[[ $status == 0 ]]
	[[ -z $stderr ]]
	run as_nobody "$BPFTOOL" -j map show pinned "$P/m"
	echo "$output"
	[[ $status == 0 ]]
	[[ $(jq -r .type <<<"$output") == array ]]
	[[ $(jq -r .name <<<"$output") == token_map ]]
	[[ $(jq -r .max_entries <<<"$output") == 4 ]]
	# and uses it
	as_nobody "$BPFTOOL" map update pinned "$P/m" key 1 0 0 0 value 1 2 3 4 5 6 7 8
	run as_nobody "$BPFTOOL" -j map lookup pinned "$P/m" key 1 0 0 0
	echo "$output"
	[[ $(jq -c .value <<<"$output") == '["0x01","0x02","0x03","0x04","0x05","0x06","0x07","0x08"]' ]]
}

@test "map create: refused without a token, for a map type, without map_create, or with a TOKEN that is not one" {
	full_token
	token nomapc cmds prog_load,btf_load maps $MAPS progs $PROGS_ALLOWED attach $ATTACH
	"$BPFTOOL" map create "$D/map" type array key 4 value 4 entries 1 name not_a_token
	chmod 0666 "$D/map"
	run_err -u "map create failed: Operation not permitted" \
		map create "$P/m" type array key 4 value 8 entries 1 name m
	run_err -u "token $D/full does not allow map type hash (map 'm')" \
		map create "$P/m" type hash key 4 value 8 entries 1 name m token "$D/full"
	run_err -u "token $D/nomapc does not allow command map_create (map 'm')" \
		map create "$P/m" type array key 4 value 8 entries 1 name m token "$D/nomapc"
	# TOKEN must be a token, given once
	run_err -u "$D/map is not a BPF token" \
		map create "$P/m" type array key 4 value 8 entries 1 name m token "$D/map"
	run_err -u "token already specified" \
		map create "$P/m" type array key 4 value 8 entries 1 name m token "$D/full" token "$D/full"
	run_err -u "$D/map is not a BPF token" prog load /dev/null "$P/p" token "$D/map"
	nothing_pinned
	# root is warned, and creates it
	run --separate-stderr "$BPFTOOL" map create "$D/h" type hash key 4 value 8 \
		entries 1 name m token "$D/full"
	show_run
	[[ $status == 0 && $stderr == "Warning: token $D/full does not allow map type hash (map 'm')" ]]
	[[ $("$BPFTOOL" -j map show pinned "$D/h" | jq -r .type) == hash ]]
}

