#!/usr/bin/env bats
# The bpftool token subcommands on the patched kernel: create (from lists,
# derived from a parent, by an unprivileged user), show and list (plain and
# JSON, across BPF FS mounts, as a user), the id, depth, counters and
# revoked state that show prints, root-equivalent tokens (show's mark,
# create's warning), the relaxed verifier (verifier relaxed: show's line,
# create's warning, derived tokens), revoke, and the bad-input matrix.
# Binding to a
# user namespace: token-userns.bats; needs and create ... object:
# bpftool-token-needs.bats; using a token with prog load and map create:
# prog-load-token.bats.
#
# Each test works in its own directory $D of the BPF FS (root's, 0755),
# with $U=$D/u (0777) where nobody pins; $WORK is a directory of its own
# under /tmp (0755).

load lib

setup() {
	bpffs_dir bpftool-token
	U=$D/u
	mkdir -m 0777 "$U"
	work_dir bpftool-token
	WATCH+=("$WORK")
	MNTS=()
	PIDS=()
}

teardown() {
	local p m
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$D"
	for m in "${MNTS[@]}"; do
		umount "$m" || true
		rmdir "$m" || true
	done
	rm -rf "$WORK"
}

# bpffs_mount: M, a fresh BPF FS instance mounted on a new directory under
# /tmp (unmounted by teardown); run_err watches it too.
bpffs_mount() {
	M=$(mktemp -d /tmp/bpftool-token-mnt.XXXXXX)
	mount -t bpf bpf "$M"
	MNTS+=("$M")
	WATCH+=("$M")
}

# plain [-r] [-v] PATH CMDS MAPS PROGS ATTACHS [LINE...]: the plain output of
# token show for a token that was never used, with its id masked (mask_ids),
# sets given as space-separated names, root-equivalent with -r, the relaxed
# verifier with -v, then LINEs (e.g. "depth: 1").
plain() {
	local req=
	[[ $1 == -r ]] && { req=$'\troot-equivalent\n'; shift; }
	[[ $1 == -v ]] && { req+=$'\tverifier: relaxed\n'; shift; }
	printf '%s\n\tid: ID\n\tallowed_cmds:%s\n\tallowed_maps:%s\n\tallowed_progs:%s\n\tallowed_attachs:%s\n' \
		"$1" "${2:+ $2}" "${3:+ $3}" "${4:+ $4}" "${5:+ $5}"
	printf '%s\tuses: map_create 0 btf_load 0 prog_load 0 token_create 0\n\tdenials: 0\n' "$req"
	shift $(($# < 5 ? $# : 5))
	[[ $# == 0 ]] || printf '\t%s\n' "$@"
}

# The JSON members that follow the sets and root_equivalent for a token that
# has the strict verifier and was never used, not bound, not derived, not
# revoked
UNUSED_JSON='"relaxed_verifier":false,"uses":{"map_create":0,"btf_load":0,"prog_load":0,"token_create":0},"denials":0,"userns":null,"depth":0,"revoked":false,"cgroup":null'

@test "token create from lists, token show in plain text" {
	run_ok token create "$D/app" cmds map_create,PROG_LOAD:bpf_btf_load \
		maps BPF_MAP_TYPE_HASH,Array progs xdp attach BPF_XDP
	[[ -z $output ]]
	# pinned, as a 0600 file of root
	[[ $(stat -c '%F %u %a' "$D/app") == "regular empty file 0 600" ]]

	run_ok token show "$D/app"
	diff -u <(plain "$D/app" "map_create prog_load btf_load" "hash array" xdp xdp) <(mask_ids <<<"$output")
	# list is show
	run_ok token list "$D/app"
	[[ ${lines[2]} == $'\tallowed_cmds: map_create prog_load btf_load' ]]
}

@test "token show PATH -j: one object, exact keys and values" {
	run_ok token create "$D/app" cmds map_create,prog_load,btf_load,token_create \
		maps hash,array progs xdp attach xdp
	run_ok -j token show "$D/app"
	# one object, as `bpftool -j prog show id N` prints
	[[ $(jq -r 'type' <<<"$output") == object ]]
	[[ $(jq -c 'keys_unsorted' <<<"$output") == \
		'["pinned","id","allowed_cmds","allowed_maps","allowed_progs","allowed_attachs","root_equivalent","relaxed_verifier","uses","denials","userns","depth","revoked","cgroup"]' ]]
	[[ $(jq -r '.pinned' <<<"$output") == "$D/app" ]]
	# the id: a positive integer, the one plain output prints
	[[ $(jq '.id | type == "number" and . >= 1 and . == floor' <<<"$output") == true ]]
	id=$(jq '.id' <<<"$output")
	[[ $("$BPFTOOL" token show "$D/app" | grep -x $'\tid: [0-9]*') == $'\tid: '"$id" ]]
	[[ $(jq -c '.root_equivalent' <<<"$output") == false ]]
	[[ $(jq -c '.relaxed_verifier' <<<"$output") == false ]]
	[[ $(jq -c '.allowed_cmds' <<<"$output") == '["map_create","prog_load","btf_load","token_create"]' ]]
	[[ $(jq -c '.allowed_maps' <<<"$output") == '["hash","array"]' ]]
	[[ $(jq -c '.allowed_progs' <<<"$output") == '["xdp"]' ]]
	[[ $(jq -c '.allowed_attachs' <<<"$output") == '["xdp"]' ]]
	[[ $(jq -c '.uses' <<<"$output") == '{"map_create":0,"btf_load":0,"prog_load":0,"token_create":0}' ]]
	[[ $(jq -c '[.denials, .userns, .depth, .revoked]' <<<"$output") == '[0,null,0,false]' ]]
	# -p is the same document
	compact=$(jq -c . <<<"$output")
	run_ok -p token show "$D/app"
	[[ ${#lines[@]} -gt 1 ]]
	[[ $(jq -c . <<<"$output") == "$compact" ]]
}

@test "token create: any, numbers, unknown bits and empty sets" {
	# bit 2 of progs is kprobe: root-equivalent, create warns
	run --separate-stderr "$BPFTOOL" token create "$D/t" cmds any maps 0x8000000000000006 progs 5,xdp
	show_run
	[[ $status == 0 && -z $output && $stderr == "$(root_equiv_warning kprobe)" ]]
	run_ok -j token show "$D/t"
	[[ $(jq -c '. | del(.id)' <<<"$output") == \
		"{\"pinned\":\"$D/t\",\"allowed_cmds\":[\"any\"],\"allowed_maps\":[\"hash\",\"array\",\"0x8000000000000000\"],\"allowed_progs\":[\"unspec\",\"kprobe\",\"xdp\"],\"allowed_attachs\":[],\"root_equivalent\":true,$UNUSED_JSON}" ]]
	run_ok token show "$D/t"
	diff -u <(plain -r "$D/t" any "hash array 0x8000000000000000" "unspec kprobe xdp" "") \
		<(mask_ids <<<"$output")
	# all 64 bits, however they are written, is any
	run --separate-stderr "$BPFTOOL" token create "$D/t2" cmds 0xffffffffffffffff attach any \
		maps 18446744073709551615 progs any
	show_run
	[[ $status == 0 && $stderr == "$(root_equiv_warning any)" ]]
	run_ok -j token show "$D/t2"
	[[ $(jq -c '[. | del(.id) | .[]][0:6]' <<<"$output") == "[\"$D/t2\",[\"any\"],[\"any\"],[\"any\"],[\"any\"],true]" ]]
}

@test "token create -j prints the new token as show does" {
	run_ok -j token create "$D/t" cmds prog_load maps stack
	[[ $(jq -c 'del(.id)' <<<"$output") == \
		"{\"pinned\":\"$D/t\",\"allowed_cmds\":[\"prog_load\"],\"allowed_maps\":[\"stack\"],\"allowed_progs\":[],\"allowed_attachs\":[],\"root_equivalent\":false,$UNUSED_JSON}" ]]
	created=$(jq -c . <<<"$output")
	run_ok -j token show "$D/t"
	[[ $(jq -c '.' <<<"$output") == "$created" ]]
}

@test "token show: the id, a positive integer, one per token, never reused" {
	run_ok token create "$D/a" cmds map_create,token_create maps array
	run_ok -j token create "$D/b" cmds map_create
	b=$(jq .id <<<"$output")
	run_ok -j token show "$D/a"
	a=$(jq '.id' <<<"$output")
	[[ $(jq -n --argjson a "$a" --argjson b "$b" '[$a, $b] | all(type == "number" and . >= 1 and . == floor)') == true ]]
	[[ $a != "$b" ]]
	# plain says the same, right after the path
	run_ok token show "$D/b"
	[[ ${lines[0]} == "$D/b" && ${lines[1]} == $'\tid: '"$b" ]]
	# list too
	run_ok -j token list
	[[ $(jq -c --arg d "$D/" '[.[] | select(.pinned | startswith($d)) | .id]' <<<"$output") == "[$a,$b]" ]]
	# a derived token has an id of its own
	chmod 0666 "$D/a"
	run_ok -u -j token create "$U/c" token "$D/a" cmds map_create
	c=$(jq .id <<<"$output")
	[[ $c != "$a" && $c != "$b" && $c -ge 1 ]]
	# a token made again at the same path (maybe with the same inode
	# number) has a new id; a revoked one keeps its id
	run_ok token revoke "$D/b"
	run_ok -j token create "$D/b" cmds map_create
	[[ $(jq .id <<<"$output") != "$b" && $(jq .id <<<"$output") -ge 1 ]]
	run_ok token revoke "$D/a"
	run_ok -j token show "$U/c"
	[[ $(jq -c '. | [.id, .revoked]' <<<"$output") == "[$c,true]" ]]
}

@test "token show: root-equivalent tokens, plain and JSON" {
	local t name names=()
	# not: xdp, and the other types of a container's networking
	run_ok token create "$D/xdp" cmds prog_load progs xdp attach xdp
	run_ok token create "$D/net" cmds prog_load progs xdp,sched_cls,cgroup_skb,socket_filter
	for t in xdp net; do
		run_ok -j token show "$D/$t"
		[[ $(jq -c '.root_equivalent' <<<"$output") == false ]]
		run_ok token show "$D/$t"
		[[ $output != *root-equivalent* ]]
	done
	# each root-equivalent type alone, one with xdp, and any
	for t in "${ROOT_EQUIV_PROGS[@]}" xdp,kprobe any; do
		name=r-${t//,/-}
		names+=("$name")
		run --separate-stderr "$BPFTOOL" token create "$D/$name" cmds prog_load progs "$t"
		show_run
		[[ $status == 0 && -n $stderr && $stderr == "$(root_equiv_warning "$t")" ]]
		run_ok -j token show "$D/$name"
		[[ $(jq -c '.root_equivalent' <<<"$output") == true ]]
		# plain: one line, right after the sets
		run_ok token show "$D/$name"
		[[ $(grep -c root-equivalent <<<"$output") == 1 ]]
		[[ ${lines[5]} == $'\tallowed_attachs:'* && ${lines[6]} == $'\troot-equivalent' ]]
	done
	diff -u <(plain -r "$D/r-any" prog_load "" any "") <(mask_ids <<<"$output")
	# list marks the same tokens, in both forms
	run_ok -j token list
	[[ $(jq -c --arg d "$D/" '[.[] | select(.pinned | startswith($d)) | select(.root_equivalent) | .pinned | ltrimstr($d)] | sort' <<<"$output") == \
		"$(printf '%s\n' "${names[@]}" | jq -Rnc '[inputs] | sort')" ]]
	[[ $(jq --arg d "$D/" '[.[] | select(.pinned | startswith($d))] | length' <<<"$output") == $((${#names[@]} + 2)) ]]
	run_ok token list
	[[ $(grep -c $'^\troot-equivalent$' <<<"$output") -ge ${#names[@]} ]]
	for t in xdp net; do
		[[ $(grep -A7 -x "$D/$t" <<<"$output") != *root-equivalent* ]]
	done
	for name in "${names[@]}"; do
		[[ $(grep -A7 -x "$D/$name" <<<"$output") == *$'\n\troot-equivalent\n'* ]]
	done
}

@test "token create: the root-equivalent warning, on stderr only, not with -j" {
	# a tracing token: one line on stderr, nothing on stdout
	run --separate-stderr "$BPFTOOL" token create "$D/trace" cmds prog_load,btf_load progs tracing,xdp \
		attach trace_fentry
	show_run
	[[ $status == 0 && -z $output ]]
	[[ ${#stderr_lines[@]} == 1 ]]
	[[ $stderr == "Warning: token allows root-equivalent program types (tracing): their programs act on the whole system, root's commands and revocation included" ]]
	# several types, named in the order of enum bpf_prog_type
	run --separate-stderr "$BPFTOOL" token create "$D/kt" cmds prog_load,token_create \
		progs lsm,tracing,kprobe,xdp
	show_run
	[[ $status == 0 && -z $output && ${#stderr_lines[@]} == 1 ]]
	[[ $stderr == "Warning: token allows root-equivalent program types (kprobe, tracing, lsm): "* ]]
	# an xdp token: nothing, also when derived from that parent
	run_ok token create "$D/xdp" cmds prog_load progs xdp attach xdp
	[[ -z $output ]]
	run_ok token create "$D/kt-xdp" token "$D/kt" cmds prog_load progs xdp
	[[ -z $output ]]
	# with object: the tracing type the object needs
	need "$PROGS/fentry_percpu.bpf.o"
	run --separate-stderr "$BPFTOOL" token create "$D/obj" object "$PROGS/fentry_percpu.bpf.o"
	show_run
	[[ $status == 0 && -z $output && $stderr == "$(root_equiv_warning tracing)" ]]
	# -j: the token as one valid JSON document on stdout, nothing on stderr
	run --separate-stderr "$BPFTOOL" -j token create "$D/trace-j" cmds prog_load progs tracing
	show_run
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -s length <<<"$output") == 1 ]]
	[[ $(jq -c '[.pinned, .allowed_progs, .root_equivalent]' <<<"$output") == "[\"$D/trace-j\",[\"tracing\"],true]" ]]
	run --separate-stderr "$BPFTOOL" -p token create "$D/trace-p" progs any
	show_run
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -s length <<<"$output") == 1 && $(jq -c .root_equivalent <<<"$output") == true ]]
}

# RELAXED_WARNING: what create prints on stderr for a token given
# "verifier relaxed"
RELAXED_WARNING="Warning: token has the relaxed verifier: its programs may leak kernel addresses and go without the Spectre v1/v4 mitigations"

@test "token create ... verifier relaxed: show says so, plain and JSON; strict is the default" {
	run --separate-stderr "$BPFTOOL" token create "$D/relaxed" cmds map_create,prog_load \
		maps array progs xdp attach xdp verifier relaxed
	show_run
	[[ $status == 0 && -z $output ]]
	[[ $stderr == "$RELAXED_WARNING" ]]
	# plain: one line, after the sets
	run_ok token show "$D/relaxed"
	diff -u <(plain -v "$D/relaxed" "map_create prog_load" array xdp xdp) <(mask_ids <<<"$output")
	run_ok -j token show "$D/relaxed"
	[[ $(jq -c '. | del(.id)' <<<"$output") == \
		"{\"pinned\":\"$D/relaxed\",\"allowed_cmds\":[\"map_create\",\"prog_load\"],\"allowed_maps\":[\"array\"],\"allowed_progs\":[\"xdp\"],\"allowed_attachs\":[\"xdp\"],\"root_equivalent\":false,${UNUSED_JSON/false/true}}" ]]
	# with a root-equivalent type: both marks, both warnings
	run --separate-stderr "$BPFTOOL" token create "$D/both" cmds prog_load progs kprobe verifier relaxed
	show_run
	[[ $status == 0 && $stderr == "$(root_equiv_warning kprobe)"$'\n'"$RELAXED_WARNING" ]]
	run_ok token show "$D/both"
	diff -u <(plain -r -v "$D/both" prog_load "" kprobe "") <(mask_ids <<<"$output")
	# -j: the token, with the flag, and no warning
	run_ok -j token create "$D/relaxed-j" cmds prog_load verifier relaxed
	[[ $(jq -c '[.pinned, .relaxed_verifier]' <<<"$output") == "[\"$D/relaxed-j\",true]" ]]

	# strict, given or not: no line, false, no warning
	run_ok token create "$D/strict" cmds prog_load progs xdp verifier strict
	run_ok token create "$D/default" cmds prog_load progs xdp
	for t in strict default; do
		run_ok token show "$D/$t"
		diff -u <(plain "$D/$t" prog_load "" xdp "") <(mask_ids <<<"$output")
		run_ok -j token show "$D/$t"
		[[ $(jq -c '.relaxed_verifier' <<<"$output") == false ]]
	done
	# list: the same, for each token
	run_ok -j token list
	[[ $(jq -c --arg d "$D/" '[.[] | select(.pinned | startswith($d)) | [(.pinned | ltrimstr($d)), .relaxed_verifier]]' <<<"$output") == \
		'[["both",true],["default",false],["relaxed",true],["relaxed-j",true],["strict",false]]' ]]
	run_ok token list
	[[ $(grep -A9 -x "$D/relaxed" <<<"$output") == *$'\n\tverifier: relaxed\n'* ]]
	[[ $(grep -A7 -x "$D/strict" <<<"$output") != *verifier:* ]]
}

@test "token create ... verifier relaxed: a derived token has it only if its parent has it" {
	run_ok -j token create "$D/relaxed" cmds token_create,prog_load progs xdp verifier relaxed
	run_ok -j token create "$D/strict" cmds token_create,prog_load progs xdp
	chmod 0666 "$D/relaxed" "$D/strict"

	# from a relaxed parent, nobody derives relaxed or strict tokens
	run --separate-stderr as_nobody "$BPFTOOL" token create "$D/u/r" token "$D/relaxed" \
		cmds prog_load verifier relaxed
	show_run
	[[ $status == 0 && -z $output && $stderr == "$RELAXED_WARNING" ]]
	run_ok -u token show "$D/u/r"
	diff -u <(plain -v "$D/u/r" prog_load "" "" "" "depth: 1") <(mask_ids <<<"$output")
	run_ok -u -j token create "$D/u/s" token "$D/relaxed" cmds prog_load
	[[ $(jq -c '[.relaxed_verifier, .depth]' <<<"$output") == '[false,1]' ]]
	# a strict parent gives no relaxed token, to nobody nor to root: one
	# error, nothing created, a denial for the parent each time
	want="parent token $D/strict does not allow token_create or everything requested (the relaxed verifier included)"
	run_err -u "can't create token $D/u/x: $want" token create "$D/u/x" token "$D/strict" \
		cmds prog_load verifier relaxed
	run_err "can't create token $D/x: $want" token create "$D/x" token "$D/strict" verifier relaxed
	[[ $(token_uses "$D/strict") == "0 0 0 0 4" ]]
	# and strict from it, as before
	run_ok -u token create "$D/u/s2" token "$D/strict" cmds prog_load verifier strict
	[[ $(token_uses "$D/strict") == "0 0 0 1 4" ]]
}

@test "token create: a bad verifier mode is one error line, and nothing is created" {
	need "$DEBIAN_BPF/xdpfilt_alw_ip.o"
	run_err "unknown verifier mode 'loose': expected 'relaxed' or 'strict' (see 'bpftool token help')" \
		token create "$D/t" cmds prog_load verifier loose
	run_err "unknown verifier mode 'RELAXED': expected 'relaxed' or 'strict' (see 'bpftool token help')" \
		token create "$D/t" verifier RELAXED cmds prog_load
	run_err "missing verifier mode (relaxed or strict) after 'verifier' (see 'bpftool token help')" \
		token create "$D/t" cmds prog_load verifier
	run_err "empty verifier mode after 'verifier' (see 'bpftool token help')" \
		token create "$D/t" verifier ''
	run_err "verifier mode already specified (see 'bpftool token help')" \
		token create "$D/t" verifier relaxed cmds prog_load verifier relaxed
	# with an object that needs the relaxed verifier: not tried either
	run_err "unknown verifier mode 'lax': expected 'relaxed' or 'strict' (see 'bpftool token help')" \
		token create "$D/t" object "$DEBIAN_BPF/xdpfilt_alw_ip.o" verifier lax
	[[ ! -e $D/t ]]
}

@test "token list: every token of the BPF FS, sorted, other objects skipped" {
	mkdir "$D/sub"
	run_ok token create "$D/sub/b" cmds map_create
	run_ok token create "$D/a" cmds prog_load
	run_ok token create "$D/c" cmds btf_load
	"$BPFTOOL" map create "$D/map" type array key 4 value 4 entries 1 name tokmap
	"$BPFTOOL" map create "$D/sub/map" type hash key 4 value 4 entries 1 name tokmap2

	run_ok token list
	mine=$(grep -A7 "^$D/" <<<"$output")
	diff -u <(plain "$D/a" prog_load; plain "$D/c" btf_load; plain "$D/sub/b" map_create) \
		<(mask_ids <<<"$mine")
	[[ $output != *"$D/map"* ]]

	run_ok token show
	[[ $(grep -A7 "^$D/" <<<"$output") == "$mine" ]]

	run_ok -j token show "$D/c"
	show_c=$(jq -c '.' <<<"$output")
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
	bpffs_mount
	run_ok token create "$D/one" cmds map_create
	run_ok token create "$M/two" cmds prog_load maps any

	run_ok -j token list
	[[ $(jq -c --arg d "$D/" --arg m "$M/" \
		'[.[] | select((.pinned | startswith($d)) or (.pinned | startswith($m))) | [.pinned, .allowed_cmds, .allowed_maps]] | sort' <<<"$output") == \
		"$(jq -nc --arg a "$D/one" --arg b "$M/two" '[[$a, ["map_create"], []], [$b, ["prog_load"], ["any"]]] | sort')" ]]

	run_ok token list
	out=$(mask_ids <<<"$output")
	[[ $out == *"$D/one"$'\n\tid: ID\n\tallowed_cmds: map_create'* ]]
	[[ $out == *"$M/two"$'\n\tid: ID\n\tallowed_cmds: prog_load\n\tallowed_maps: any'* ]]

	# a BPF FS mounted inside another: its tokens once, by its own
	# mount; a symbolic link to a token is not a token
	mkdir "$D/inner"
	mount -t bpf bpf "$D/inner"
	run_ok token create "$D/inner/three" cmds btf_load
	ln -s "$D/one" "$D/link"
	run_ok -j token list
	[[ $(jq -r --arg d "$D/" '[.[].pinned | select(startswith($d))] | sort | join(" ")' <<<"$output") == \
		"$D/inner/three $D/one" ]]
	umount "$D/inner"
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

	run_ok -u token create "$D/u/child" token "$D/parent" cmds map_create maps array
	[[ -z $output ]]
	[[ $(stat -c '%u %a' "$D/u/child") == "65534 600" ]]
	run_ok -u token show "$D/u/child"
	diff -u <(plain "$D/u/child" map_create array "" "" "depth: 1") <(mask_ids <<<"$output")
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
	run_err -u "can't open token $D/parent: Permission denied (using a token needs read and write permission on it)" \
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
	mkdir "$WORK/x"

	# unknown names
	run_err "unknown command 'prog_lod' (see 'bpftool token help')" token create "$D/t" cmds prog_lod
	run_err "unknown map type 'stak' (see 'bpftool token help')" token create "$D/t" maps hash,stak
	run_err "unknown program type 'xpd' (see 'bpftool token help')" token create "$D/t" progs xpd
	run_err "unknown attach type 'BPF_PROG_TYPE_XDP' (see 'bpftool token help')" \
		token create "$D/t" attach BPF_PROG_TYPE_XDP
	# an empty list, a trailing separator
	run_err "empty map type list (see 'bpftool token help')" token create "$D/t" cmds map_create maps ''
	run_err "empty command name in 'map_create,' (see 'bpftool token help')" token create "$D/t" cmds map_create,
	# a missing PATH
	run_err "missing PATH for the new token (see 'bpftool token help')" token create
	# an existing PATH: a token, another object
	run_err "can't pin token at $D/tok: file exists" token create "$D/tok" cmds any
	run_err "can't pin token at $D/map: file exists" token create "$D/map" cmds any
	# a PATH that is not on BPF FS
	run_err "can't pin token at $WORK/x/t: not a BPF FS" \
		token create $WORK/x/t cmds any
	run_err "can't pin token at $D/none/t: parent directory does not exist" \
		token create "$D/none/t" cmds any
	# a PATH that is not a token: for show, and as PARENT
	run_err "$D/map is not a BPF token" token show "$D/map"
	run_err "$D is not a BPF token" token show "$D"
	run_err "can't open token $D/nothing: No such file or directory" token show "$D/nothing"
	run_err "can't open token $WORK/x: not a BPF FS" token show $WORK/x
	run_err "$D/map is not a BPF token" token create "$D/t" token "$D/map" cmds any
	run_err "can't open token $D/nothing: No such file or directory" \
		token create "$D/t" token "$D/nothing" cmds any
	# a repeated keyword
	run_err "'maps' already specified (see 'bpftool token help')" token create "$D/t" maps hash cmds any maps array
	run_err "parent token already specified (see 'bpftool token help')" token create "$D/t" token "$D/tok" token "$D/tok"

	# the existing token is untouched
	run_ok token show "$D/tok"
	[[ ${lines[2]} == $'\tallowed_cmds: map_create' ]]
}

@test "show: depth of derived tokens; derivation is bounded, and stays on the parent's BPF FS" {
	local prev=$D/l0 lvl
	run_ok token create "$D/l0" cmds token_create,map_create maps array
	chmod 0666 "$D/l0"
	for lvl in $(seq 1 8); do
		run_ok -u token create "$U/l$lvl" token "$prev" cmds token_create,map_create maps array
		chmod 0666 "$U/l$lvl"
		prev=$U/l$lvl
	done
	run_ok -j token show "$U/l2"
	[[ $(jq -r '.depth' <<<"$output") == 2 ]]
	run_ok token show "$U/l8"
	[[ $output == *$'\n\tdepth: 8'* ]]
	run_ok token show "$D/l0"
	[[ $output != *depth* ]]
	# beyond the kernel's limit of 8
	run_err -u "can't create token $U/l9: parent token $U/l8 is derived too many times already" \
		token create "$U/l9" token "$U/l8" cmds token_create

	# another BPF FS instance
	bpffs_mount
	run_err "can't pin token at $M/t: not on the BPF FS of parent token $D/l0" \
		token create "$M/t" token "$D/l0" cmds map_create
}

@test "revoke: the pin goes, the token and its descendants allow nothing, maps made keep working" {
	run_ok token create "$D/p" cmds token_create,map_create maps array
	chmod 0666 "$D/p"
	run_ok -u token create "$U/c" token "$D/p" cmds token_create,map_create maps array
	chmod 0666 "$U/c"
	run_ok -u token create "$U/g" token "$U/c" cmds map_create maps array
	chmod 0666 "$U/g"
	run_ok -u map create "$U/m" type array key 4 value 4 entries 1 name m token "$U/g"

	run_ok token revoke "$D/p"
	[[ -z $output ]]
	[[ ! -e $D/p ]]
	# the descendants show it, plain and JSON
	run_ok token show "$U/g"
	[[ ${lines[-1]} == $'\trevoked' ]]
	run_ok -j token show "$U/c"
	[[ $(jq -c '. | [.revoked, .depth]' <<<"$output") == '[true,1]' ]]
	run_ok -j token list
	[[ $(jq -c --arg d "$D/" '[.[] | select(.pinned | startswith($d)) | [.pinned, .revoked]]' <<<"$output") == \
		"[[\"$U/c\",true],[\"$U/g\",true]]" ]]
	# nobody can't use them any more: bpftool says so before asking the kernel
	run_err -u "token $U/g is revoked" map create "$U/m2" type array key 4 value 4 entries 1 \
		name m2 token "$U/g"
	run_err -u "token $U/c is revoked" prog load "$PROGS/xdp_token.bpf.o" "$U/p" token "$U/c"
	# root is warned, and creates the map with its own capabilities
	run --separate-stderr "$BPFTOOL" map create "$D/m3" type array key 4 value 4 entries 1 \
		name m3 token "$U/g"
	[[ $status == 0 && $stderr == "Warning: token $U/g is revoked" ]]
	# the map made through it keeps working
	as_nobody "$BPFTOOL" map update pinned "$U/m" key 0 0 0 0 value 1 2 3 4
	run as_nobody "$BPFTOOL" -j map lookup pinned "$U/m" key 0 0 0 0
	[[ $(jq -c .value <<<"$output") == '["0x01","0x02","0x03","0x04"]' ]]
	# revoking a revoked descendant removes its pin too, -j prints null
	run_ok -j token revoke "$U/g"
	[[ $output == null && ! -e $U/g ]]
}

@test "revoke: anything but a token is refused and left in place" {
	"$BPFTOOL" map create "$D/map" type array key 4 value 4 entries 1 name notatoken
	mkdir "$D/dir"
	touch "$WORK/file"
	run_err "$D/map is not a BPF token" token revoke "$D/map"
	run_err "$D/dir is not a BPF token" token revoke "$D/dir"
	run_err "can't open token $D/none: No such file or directory" token revoke "$D/none"
	run_err "can't open token $WORK/file: not a BPF FS" token revoke "$WORK/file"
	[[ -e $D/map && -d $D/dir && -f $WORK/file ]]
	# a token in a directory nobody can't write to: refused, still there
	run_ok token create "$D/t" cmds map_create
	chmod 0644 "$D/t"
	run_err -u "can't revoke token $D/t: Permission denied" token revoke "$D/t"
	# a token nobody can't even read: can't be checked
	chmod 0600 "$D/t"
	run_err -u "can't open token $D/t: Permission denied" token revoke "$D/t"
	[[ -e $D/t ]]
	# nobody revokes its own, derived one
	chmod 0666 "$D/t"
	"$BPFTOOL" token create "$D/p" cmds token_create,map_create
	chmod 0666 "$D/p"
	run_ok -u token create "$U/mine" token "$D/p" cmds map_create
	run_ok -u token revoke "$U/mine"
	[[ ! -e $U/mine ]]
}

@test "show: exact counters after a mix of allowed and denied uses" {
	run_ok token create "$D/t" cmds map_create,token_create maps array
	chmod 0666 "$D/t"
	[[ $(token_uses "$D/t") == "0 0 0 0 0" ]]

	# two array maps by nobody: allowed, counted
	run_ok -u map create "$U/a1" type array key 4 value 4 entries 1 name a1 token "$D/t"
	run_ok -u map create "$U/a2" type array key 4 value 4 entries 1 name a2 token "$D/t"
	# a hash map by nobody: bpftool refuses it, the kernel never sees it
	run_err -u "token $D/t does not allow map type hash (map 'h1')" \
		map create "$U/h1" type hash key 4 value 4 entries 1 name h1 token "$D/t"
	[[ $(token_uses "$D/t") == "2 0 0 0 0" ]]
	# a hash map by root, with the token: denied by the token, made with
	# root's capabilities
	run --separate-stderr "$BPFTOOL" map create "$D/h2" type hash key 4 value 4 entries 1 \
		name h2 token "$D/t"
	[[ $status == 0 && $stderr == "Warning: token $D/t does not allow map type hash (map 'h2')" ]]
	[[ $(token_uses "$D/t") == "2 0 0 0 1" ]]
	# a derived token: counted; one asking for more: denied (twice: run_err
	# runs the command with -j, then plain)
	run_ok -u token create "$U/c" token "$D/t" cmds map_create maps array
	run_err -u "can't create token $U/c2: parent token $D/t does not allow token_create or everything requested" \
		token create "$U/c2" token "$D/t" cmds map_create maps hash
	[[ $(token_uses "$D/t") == "2 0 0 1 3" ]]
	# the derived token counts its own uses
	chmod 0666 "$U/c"
	run_ok -u map create "$U/a3" type array key 4 value 4 entries 1 name a3 token "$U/c"
	[[ $(token_uses "$U/c") == "1 0 0 0 0" ]]
	[[ $(token_uses "$D/t") == "2 0 0 1 3" ]]

	# A libbpf object load by nobody, through a token that allows exactly
	# what xdp_token.bpf.o needs: its map, its BTF and its program; and
	# libbpf's feature probes that the token allows, made with it: 8 BTF
	# probes (BTF, func, global func, datasec, float, decl_tag, type_tag,
	# enum64). The program name and memcg probes (socket filter and
	# cgroup_skb programs) are not made: no denial.
	run_ok token create "$D/x" object "$PROGS/xdp_token.bpf.o"
	chmod 0666 "$D/x"
	run_ok -u prog load "$PROGS/xdp_token.bpf.o" "$U/p" token "$D/x"
	[[ $(token_uses "$D/x") == "1 9 1 0 0" ]]
	# refused by bpftool: nothing changes
	run_err -u "token $D/x does not allow map type stack (map 'token_stack')" \
		prog load "$PROGS/xdp_stack.bpf.o" "$U/p2" token "$D/x"
	[[ $(token_uses "$D/x") == "1 9 1 0 0" ]]
}
