#!/usr/bin/env bats
# bpftool token on the patched kernel: create from lists, show/list in plain
# and JSON, a token derived by an unprivileged user, several BPF FS mounts,
# and the bad-input matrix. Runs inside the VM as root (scripts/run-tests.sh
# vm), BPF FS at /sys/fs/bpf, from the project directory.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BPFTOOL=${BPFTOOL:-$TOP/build/bpftool/bpftool}
	# Every test works in its own directory of the BPF FS
	D=/sys/fs/bpf/bpftool-token-$BATS_TEST_NUMBER
	rm -rf "$D"
	mkdir "$D"
	M2=
}

teardown() {
	rm -rf "$D"
	if [[ -n $M2 ]]; then
		umount "$M2" || true
		rmdir "$M2" || true
	fi
}

# Drop to nobody with no capabilities at all.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$@"
}

# Everything below the directories the tests write to, with owners and modes.
snapshot() {
	find "$D" ${M2:+"$M2"} /tmp/bpftool-token-* -printf '%p %u %m\n' 2>/dev/null | sort
}

# run_err [-u] WANT ARGS...: bpftool ARGS (as nobody with -u) fails with
# exactly one line on stderr, "Error: WANT...", and nothing on stdout; with -j,
# one JSON object {"error": "WANT..."} on stdout and nothing on stderr. Nothing
# is created, removed or changed in the test directories.
run_err() {
	local who=() want before
	[[ $1 == -u ]] && { who=(as_nobody); shift; }
	want=$1
	shift
	before=$(snapshot)

	run --separate-stderr "${who[@]}" "$BPFTOOL" "$@"
	echo "plain: status $status, stdout '$output', stderr '$stderr'"
	[[ $status != 0 ]]
	[[ -z $output ]]
	[[ ${#stderr_lines[@]} == 1 ]]
	[[ $stderr == "Error: $want"* ]]
	[[ $(snapshot) == "$before" ]]

	run --separate-stderr "${who[@]}" "$BPFTOOL" -j "$@"
	echo "json: status $status, stdout '$output', stderr '$stderr'"
	[[ $status != 0 ]]
	[[ -z $stderr ]]
	[[ $(jq -c 'keys' <<<"$output") == '["error"]' ]]
	[[ $(jq -r .error <<<"$output") == "$want"* ]]
	[[ $(snapshot) == "$before" ]]
}

# run_ok [-u] ARGS...: bpftool ARGS succeeds and prints nothing on stderr.
run_ok() {
	local who=()
	[[ $1 == -u ]] && { who=(as_nobody); shift; }
	run --separate-stderr "${who[@]}" "$BPFTOOL" "$@"
	echo "status $status, stdout '$output', stderr '$stderr'"
	[[ $status == 0 ]]
	[[ -z $stderr ]]
}

# plain PATH CMDS MAPS PROGS ATTACHS [LINE...]: the plain output of token
# show for a token that was never used, sets given as space-separated names,
# then LINEs (e.g. "depth: 1").
plain() {
	printf '%s\n\tallowed_cmds:%s\n\tallowed_maps:%s\n\tallowed_progs:%s\n\tallowed_attachs:%s\n' \
		"$1" "${2:+ $2}" "${3:+ $3}" "${4:+ $4}" "${5:+ $5}"
	printf '\tuses: map_create 0 btf_load 0 prog_load 0 token_create 0\n\tdenials: 0\n'
	shift $(($# < 5 ? $# : 5))
	[[ $# == 0 ]] || printf '\t%s\n' "$@"
}

# The JSON members that follow the sets for a token that was never used, not
# bound, not derived, not revoked
UNUSED_JSON='"uses":{"map_create":0,"btf_load":0,"prog_load":0,"token_create":0},"denials":0,"userns":null,"depth":0,"revoked":false'

@test "token create from lists, token show in plain text" {
	run_ok token create "$D/app" cmds map_create,PROG_LOAD:bpf_btf_load \
		maps BPF_MAP_TYPE_HASH,Array progs xdp attach BPF_XDP
	[[ -z $output ]]
	# pinned, as a 0600 file of root
	[[ $(stat -c '%F %u %a' "$D/app") == "regular empty file 0 600" ]]

	run_ok token show "$D/app"
	diff -u <(plain "$D/app" "map_create prog_load btf_load" "hash array" xdp xdp) <(echo "$output")
	# list is show
	run_ok token list "$D/app"
	[[ ${lines[1]} == $'\tallowed_cmds: map_create prog_load btf_load' ]]
}

@test "token show -j: exact keys and values" {
	run_ok token create "$D/app" cmds map_create,prog_load,btf_load,token_create \
		maps hash,array progs xdp attach xdp
	run_ok -j token show "$D/app"
	[[ $(jq -r 'type' <<<"$output") == array ]]
	[[ $(jq -r 'length' <<<"$output") == 1 ]]
	[[ $(jq -c '.[0] | keys_unsorted' <<<"$output") == \
		'["pinned","allowed_cmds","allowed_maps","allowed_progs","allowed_attachs","uses","denials","userns","depth","revoked"]' ]]
	[[ $(jq -r '.[0].pinned' <<<"$output") == "$D/app" ]]
	[[ $(jq -c '.[0].allowed_cmds' <<<"$output") == '["map_create","prog_load","btf_load","token_create"]' ]]
	[[ $(jq -c '.[0].allowed_maps' <<<"$output") == '["hash","array"]' ]]
	[[ $(jq -c '.[0].allowed_progs' <<<"$output") == '["xdp"]' ]]
	[[ $(jq -c '.[0].allowed_attachs' <<<"$output") == '["xdp"]' ]]
	[[ $(jq -c '.[0].uses' <<<"$output") == '{"map_create":0,"btf_load":0,"prog_load":0,"token_create":0}' ]]
	[[ $(jq -c '[.[0].denials, .[0].userns, .[0].depth, .[0].revoked]' <<<"$output") == '[0,null,0,false]' ]]
	# -p is the same document
	compact=$(jq -c . <<<"$output")
	run_ok -p token show "$D/app"
	[[ ${#lines[@]} -gt 1 ]]
	[[ $(jq -c . <<<"$output") == "$compact" ]]
}

@test "token create: any, numbers, unknown bits and empty sets" {
	run_ok token create "$D/t" cmds any maps 0x8000000000000006 progs 5,xdp
	run_ok -j token show "$D/t"
	[[ $(jq -c '.[0]' <<<"$output") == \
		"{\"pinned\":\"$D/t\",\"allowed_cmds\":[\"any\"],\"allowed_maps\":[\"hash\",\"array\",\"0x8000000000000000\"],\"allowed_progs\":[\"unspec\",\"kprobe\",\"xdp\"],\"allowed_attachs\":[],$UNUSED_JSON}" ]]
	run_ok token show "$D/t"
	diff -u <(plain "$D/t" any "hash array 0x8000000000000000" "unspec kprobe xdp" "") \
		<(echo "$output")
	# all 64 bits, however they are written, is any
	run_ok token create "$D/t2" cmds 0xffffffffffffffff attach any maps 18446744073709551615 progs any
	run_ok -j token show "$D/t2"
	[[ $(jq -c '[.[0][]][0:5]' <<<"$output") == "[\"$D/t2\",[\"any\"],[\"any\"],[\"any\"],[\"any\"]]" ]]
}

@test "token create -j prints the new token as show does" {
	run_ok -j token create "$D/t" cmds prog_load maps stack
	[[ $(jq -c . <<<"$output") == \
		"{\"pinned\":\"$D/t\",\"allowed_cmds\":[\"prog_load\"],\"allowed_maps\":[\"stack\"],\"allowed_progs\":[],\"allowed_attachs\":[],$UNUSED_JSON}" ]]
	created=$(jq -c . <<<"$output")
	run_ok -j token show "$D/t"
	[[ $(jq -c '.[0]' <<<"$output") == "$created" ]]
}

@test "token list: every token of the BPF FS, sorted, other objects skipped" {
	mkdir "$D/sub"
	run_ok token create "$D/sub/b" cmds map_create
	run_ok token create "$D/a" cmds prog_load
	run_ok token create "$D/c" cmds btf_load
	"$BPFTOOL" map create "$D/map" type array key 4 value 4 entries 1 name tokmap
	"$BPFTOOL" map create "$D/sub/map" type hash key 4 value 4 entries 1 name tokmap2

	run_ok token list
	mine=$(grep -A6 "^$D/" <<<"$output")
	diff -u <(plain "$D/a" prog_load; plain "$D/c" btf_load; plain "$D/sub/b" map_create) \
		<(echo "$mine")
	[[ $output != *"$D/map"* ]]

	run_ok token show
	[[ $(grep -A6 "^$D/" <<<"$output") == "$mine" ]]

	run_ok -j token show "$D/c"
	show_c=$(jq -c '.[0]' <<<"$output")
	run_ok -j token list
	[[ $(jq -c --arg d "$D/" '[.[] | select(.pinned | startswith($d)) | [.pinned, .allowed_cmds]]' <<<"$output") == \
		"[[\"$D/a\",[\"prog_load\"]],[\"$D/c\",[\"btf_load\"]],[\"$D/sub/b\",[\"map_create\"]]]" ]]
	# one object per token, the same as show PATH
	[[ $(jq -c --arg p "$D/c" '.[] | select(.pinned == $p)' <<<"$output") == "$show_c" ]]
	# only tokens, each once
	[[ $(jq -r '.[].pinned' <<<"$output" | grep -c "^$D/") == 3 ]]
	[[ $(jq -r '.[].pinned' <<<"$output" | sort | uniq -d) == "" ]]
}

@test "token list: across two BPF FS mounts" {
	M2=$(mktemp -d /tmp/bpftool-token-mnt.XXXXXX)
	mount -t bpf bpf "$M2"
	run_ok token create "$D/one" cmds map_create
	run_ok token create "$M2/two" cmds prog_load maps any

	run_ok -j token list
	[[ $(jq -c --arg d "$D/" --arg m "$M2/" \
		'[.[] | select((.pinned | startswith($d)) or (.pinned | startswith($m))) | [.pinned, .allowed_cmds, .allowed_maps]] | sort' <<<"$output") == \
		"$(jq -nc --arg a "$D/one" --arg b "$M2/two" '[[$a, ["map_create"], []], [$b, ["prog_load"], ["any"]]] | sort')" ]]

	run_ok token list
	[[ $output == *"$D/one"$'\n\tallowed_cmds: map_create'* ]]
	[[ $output == *"$M2/two"$'\n\tallowed_cmds: prog_load\n\tallowed_maps: any'* ]]
}

@test "token list as a user: unreadable directories and tokens are skipped" {
	run_ok token create "$D/open" cmds map_create
	chmod 0666 "$D/open"
	# showing opens read-only: read permission is enough
	run_ok token create "$D/visible" cmds map_create
	chmod 0644 "$D/visible"
	run_ok token create "$D/closed" cmds map_create
	mkdir -m 0700 "$D/private"
	run_ok token create "$D/private/hidden" cmds map_create

	run_ok -u token list
	[[ $output == *"$D/open"* ]]
	[[ $output == *"$D/visible"* ]]
	[[ $output != *"$D/closed"* ]]
	[[ $output != *"$D/private"* ]]

	# -d says what was skipped
	run --separate-stderr as_nobody "$BPFTOOL" -d token list
	[[ $status == 0 ]]
	[[ $stderr == *"skipping unreadable directory $D/private"* ]]
	[[ $stderr == *"skipping $D/closed: Permission denied"* ]]

	run_ok -u -j token list
	[[ $(jq -r --arg d "$D/" '[.[].pinned | select(startswith($d))] | join(" ")' <<<"$output") == "$D/open $D/visible" ]]
}

@test "token create by an unprivileged user, derived from a parent" {
	run_ok token create "$D/parent" cmds token_create,map_create,prog_load,btf_load \
		maps array,hash progs xdp,socket_filter attach xdp
	chmod 0666 "$D/parent"
	mkdir -m 0777 "$D/u"

	run_ok -u token create "$D/u/child" token "$D/parent" cmds map_create maps array
	[[ -z $output ]]
	[[ $(stat -c '%u %a' "$D/u/child") == "65534 600" ]]
	run_ok -u token show "$D/u/child"
	diff -u <(plain "$D/u/child" map_create array "" "" "depth: 1") <(echo "$output")
	# the same sets as the parent, given as numbers, and -j
	run_ok -u -j token create "$D/u/same" token "$D/parent" \
		cmds 0x1000040021 maps 6 progs 0x42 attach BPF_XDP
	[[ $(jq -c '[.allowed_cmds, .allowed_maps, .allowed_progs, .allowed_attachs]' <<<"$output") == \
		'[["map_create","prog_load","btf_load","token_create"],["hash","array"],["socket_filter","xdp"],["xdp"]]' ]]

	# a child of the child: it does not allow token_create
	chmod 0666 "$D/u/child"
	run_err -u "can't create token $D/u/grandchild: parent token $D/u/child does not allow token_create or everything requested" \
		token create "$D/u/grandchild" token "$D/u/child" cmds map_create
}

@test "token create by an unprivileged user: refused beyond the parent, or without one" {
	run_ok token create "$D/parent" cmds token_create,map_create maps array
	chmod 0666 "$D/parent"
	mkdir -m 0777 "$D/u"

	want="can't create token $D/u/t: parent token $D/parent does not allow token_create or everything requested"
	run_err -u "$want" token create "$D/u/t" token "$D/parent" cmds map_create maps stack
	run_err -u "$want" token create "$D/u/t" token "$D/parent" cmds prog_load
	run_err -u "$want" token create "$D/u/t" token "$D/parent" cmds map_create progs xdp
	run_err -u "$want" token create "$D/u/t" token "$D/parent" attach xdp
	run_err -u "$want" token create "$D/u/t" token "$D/parent" maps any
	run_err -u "can't create token $D/u/t: Operation not permitted (needs CAP_SYS_ADMIN, or 'token PARENT')" \
		token create "$D/u/t" cmds map_create
	# a parent the user can't open, or can only read: deriving uses it
	chmod 0600 "$D/parent"
	run_err -u "can't open token $D/parent: Permission denied" \
		token create "$D/u/t" token "$D/parent" cmds map_create
	chmod 0644 "$D/parent"
	run_err -u "can't open token $D/parent: Permission denied (using a token needs read and write permission on it)" \
		token create "$D/u/t" token "$D/parent" cmds map_create
	# a directory the user can't write to
	chmod 0666 "$D/parent"
	run_err -u "can't pin token at $D/t: Permission denied" \
		token create "$D/t" token "$D/parent" cmds map_create
}

@test "token create and show: the bad-input matrix" {
	run_ok token create "$D/tok" cmds map_create
	"$BPFTOOL" map create "$D/map" type array key 4 value 4 entries 1 name tokmap
	mkdir -p /tmp/bpftool-token-x

	# unknown names
	run_err "unknown command 'prog_lod' (see 'bpftool token help')" token create "$D/t" cmds prog_lod
	run_err "unknown map type 'stak' (see 'bpftool token help')" token create "$D/t" maps hash,stak
	run_err "unknown program type 'xpd' (see 'bpftool token help')" token create "$D/t" progs xpd
	run_err "unknown attach type 'BPF_PROG_TYPE_XDP' (see 'bpftool token help')" \
		token create "$D/t" attach BPF_PROG_TYPE_XDP
	# an empty list, a trailing separator
	run_err "empty map type list" token create "$D/t" cmds map_create maps ''
	run_err "empty command name in 'map_create,'" token create "$D/t" cmds map_create,
	# a missing PATH
	run_err "missing PATH for the new token" token create
	# an existing PATH: a token, another object
	run_err "can't pin token at $D/tok: file exists" token create "$D/tok" cmds any
	run_err "can't pin token at $D/map: file exists" token create "$D/map" cmds any
	# a PATH that is not on BPF FS
	run_err "can't pin token at /tmp/bpftool-token-x/t: not a BPF FS" \
		token create /tmp/bpftool-token-x/t cmds any
	run_err "can't pin token at $D/none/t: parent directory does not exist" \
		token create "$D/none/t" cmds any
	# a PATH that is not a token: for show, and as PARENT
	run_err "$D/map is not a BPF token" token show "$D/map"
	run_err "$D is not a BPF token" token show "$D"
	run_err "can't open token $D/nothing: No such file or directory" token show "$D/nothing"
	run_err "can't open token /tmp/bpftool-token-x: not a BPF FS" token show /tmp/bpftool-token-x
	run_err "$D/map is not a BPF token" token create "$D/t" token "$D/map" cmds any
	run_err "can't open token $D/nothing: No such file or directory" \
		token create "$D/t" token "$D/nothing" cmds any
	# a repeated keyword
	run_err "'maps' already specified" token create "$D/t" maps hash cmds any maps array
	run_err "parent token already specified" token create "$D/t" token "$D/tok" token "$D/tok"

	# the existing token is untouched
	run_ok token show "$D/tok"
	[[ ${lines[1]} == $'\tallowed_cmds: map_create' ]]
}

@test "map create and prog load: token TOKEN" {
	run_ok token create "$D/tok" cmds map_create maps array
	chmod 0666 "$D/tok"
	mkdir -m 0777 "$D/u"
	"$BPFTOOL" map create "$D/map" type array key 4 value 4 entries 1 name tokmap

	# a user without capabilities creates an array map through the token
	run_ok -u map create "$D/u/m" type array key 4 value 8 entries 2 name um token "$D/tok"
	run_ok -j map show pinned "$D/u/m"
	[[ $(jq -r '.type + " " + .name' <<<"$output") == "array um" ]]
	# but not a hash map, which the token does not allow
	run_err -u "token $D/tok does not allow map type hash (map 'uh')" \
		map create "$D/u/h" type hash key 4 value 8 entries 2 name uh token "$D/tok"

	# TOKEN must be a token
	run_err "$D/map is not a BPF token" map create "$D/u/m2" type array key 4 value 8 \
		entries 2 name um token "$D/map"
	run_err "token already specified" map create "$D/u/m2" type array key 4 value 8 \
		entries 2 name um token "$D/tok" token "$D/tok"
	run_err "$D/map is not a BPF token" prog load /dev/null "$D/u/p" token "$D/map"
}
