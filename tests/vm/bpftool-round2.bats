#!/usr/bin/env bats
# bpftool token, round 2, on the patched kernel: `create ... userns`, the
# accounting and state in `show`, `revoke`, `needs` and `create ... object`,
# and what `prog load`/`map create` say when a token lacks something. Runs
# inside the VM as root (scripts/run-tests.sh vm), BPF FS at /sys/fs/bpf,
# from the project directory; drops to nobody (uid 65534, no capabilities)
# where a test says so.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
	PROGS=$BUILD/progs
	DEBIAN_BPF=/usr/lib/x86_64-linux-gnu/bpf
	D=/sys/fs/bpf/bpftool-round2-$BATS_TEST_NUMBER
	D0=$D
	U=$D/u
	rm -rf "$D"
	mkdir -m 0755 "$D"
	mkdir -m 0777 "$U"
	PIDS=()
	MNTS=()
	[[ -f $PROGS/xdp_token.bpf.o ]] || { echo "no $PROGS: build the tests (make test-build)"; return 1; }
	# the kernel must have the accounting (fdinfo "depth:")
	"$BPFTOOL" token create "$D/probe" cmds map_create
	"$BPFTOOL" -j token show "$D/probe" | jq -e '.[0] | has("depth")' >/dev/null ||
		{ echo "the kernel has no BPF token accounting"; return 1; }
	rm "$D/probe"
}

teardown() {
	local p m
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$D"
	for m in "${MNTS[@]}"; do
		umount "$m" || true
	done
	rm -rf "$D0"
}

# Drop to nobody with no capabilities at all.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$@"
}

# run_err [-u] WANT ARGS...: bpftool ARGS (as nobody with -u) fails with
# exactly one line on stderr, "Error: WANT" (the whole line), and nothing on
# stdout; nothing is created or removed in $D.
run_err() {
	local who=() want before
	[[ $1 == -u ]] && { who=(as_nobody); shift; }
	want=$1
	shift
	before=$(find "$D" | sort)
	run --separate-stderr "${who[@]}" "$BPFTOOL" "$@"
	echo "status $status, stdout '$output', stderr '$stderr'"
	[[ $status != 0 ]]
	[[ -z $output ]]
	[[ ${#stderr_lines[@]} == 1 ]]
	[[ $stderr == "Error: $want" ]]
	[[ $(find "$D" | sort) == "$before" ]]
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

# uses PATH: the "uses" and "denials" of the token at PATH, as one line
# "MAP BTF PROG TOKEN DENIALS", from the JSON output; the plain output must
# say the same.
uses() {
	local json plain want
	json=$("$BPFTOOL" -j token show "$1")
	want=$(jq -r '.[0] | "\(.uses.map_create) \(.uses.btf_load) \(.uses.prog_load) \(.uses.token_create) \(.denials)"' <<<"$json")
	plain=$("$BPFTOOL" token show "$1")
	read -r m b p t d <<<"$want"
	grep -qx $'\t'"uses: map_create $m btf_load $b prog_load $p token_create $t" <<<"$plain" ||
		{ echo "plain output disagrees: $plain" >&2; return 1; }
	grep -qx $'\t'"denials: $d" <<<"$plain" ||
		{ echo "plain output disagrees: $plain" >&2; return 1; }
	echo "$want"
}

# A user namespace owned by nobody, kept alive by a sleeping process; its
# PID in $NS_PID, the namespace's inode number in $NS_INO. nobody is root in
# it (mapped), so that it can make namespaces below it.
nobody_userns() {
	# not through as_nobody: $! must be the PID of the sleep itself
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all -- unshare --user --map-root-user sleep 600 </dev/null >/dev/null 2>&1 3>&- &
	NS_PID=$!
	PIDS+=("$NS_PID")
	# wait until the child is in its namespace
	for _ in $(seq 100); do
		[[ $(stat -L -c %i "/proc/$NS_PID/ns/user") != $(stat -L -c %i /proc/self/ns/user) ]] && break
		sleep 0.1
	done
	NS_INO=$(stat -L -c %i "/proc/$NS_PID/ns/user")
	[[ $NS_INO != $(stat -L -c %i /proc/self/ns/user) ]]
}

@test "userns: create binds a token to the namespace of a PID or a path; show prints its inode" {
	local ino
	ino=$(stat -L -c %i /proc/$$/ns/user)
	run_ok token create "$D/pid" userns $$ cmds map_create maps array
	run_ok token show "$D/pid"
	[[ $output == *$'\n\tuserns: '"$ino"$'\n'* || $output == *$'\n\tuserns: '"$ino" ]]
	run_ok -j token show "$D/pid"
	[[ $(jq -r '.[0].userns' <<<"$output") == "$ino" ]]
	[[ $(jq -r '.[0].userns | type' <<<"$output") == number ]]

	nobody_userns
	run_ok -j token create "$D/path" userns "/proc/$NS_PID/ns/user" cmds map_create
	[[ $(jq -r '.userns' <<<"$output") == "$NS_INO" ]]
	run_ok token show "$D/path"
	diff -u <(printf '%s\n' "$D/path" $'\tallowed_cmds: map_create' $'\tallowed_maps:' \
		$'\tallowed_progs:' $'\tallowed_attachs:' \
		$'\tuses: map_create 0 btf_load 0 prog_load 0 token_create 0' $'\tdenials: 0' \
		$'\tuserns: '"$NS_INO") <(echo "$output")

	# unbound: no userns line, null in JSON
	run_ok token create "$D/free" cmds map_create
	run_ok token show "$D/free"
	[[ $output != *userns* ]]
	run_ok -j token show "$D/free"
	[[ $(jq -c '.[0].userns' <<<"$output") == null ]]
}

@test "userns: a bound token works in its namespace and its descendants only" {
	nobody_userns
	run_ok token create "$D/t" userns "$NS_PID" cmds map_create maps array
	chmod 0666 "$D/t"

	# nobody outside the namespace: the kernel does not honour the token
	run --separate-stderr as_nobody "$BPFTOOL" map create "$U/out" type array key 4 value 4 \
		entries 1 name out token "$D/t"
	echo "outside: status $status, stderr '$stderr'"
	[[ $status != 0 && $stderr == "Error: map create failed: Operation not permitted" ]]
	# nobody inside it, and in a namespace below it
	run --separate-stderr as_nobody nsenter --user --target "$NS_PID" --preserve-credentials \
		"$BPFTOOL" map create "$U/in" type array key 4 value 4 entries 1 name in token "$D/t"
	echo "inside: status $status, stderr '$stderr'"
	[[ $status == 0 && -z $stderr ]]
	run --separate-stderr as_nobody nsenter --user --target "$NS_PID" --preserve-credentials \
		unshare --user "$BPFTOOL" map create "$U/below" type array key 4 value 4 entries 1 \
		name below token "$D/t"
	echo "below: status $status, stderr '$stderr'"
	[[ $status == 0 && -z $stderr ]]
	[[ $(uses "$D/t") == "2 0 0 0 1" ]]
	# root of that namespace (all capabilities, in it only) is refused
	# what the token lacks, as nobody is: bpftool does not try
	run --separate-stderr as_nobody nsenter --user --target "$NS_PID" --preserve-credentials \
		"$BPFTOOL" map create "$U/h" type hash key 4 value 4 entries 1 name h token "$D/t"
	echo "hash inside: status $status, stderr '$stderr'"
	[[ $status != 0 && $stderr == "Error: token $D/t does not allow map type hash (map 'h')" ]]
	[[ ! -e $U/h ]]
	[[ $(uses "$D/t") == "2 0 0 0 1" ]]
}

@test "userns: derived tokens inherit the binding and may only narrow it" {
	nobody_userns
	run_ok token create "$D/p" userns "$NS_PID" cmds token_create,map_create maps array
	chmod 0666 "$D/p"
	# inherited, by a child made inside the namespace
	run --separate-stderr as_nobody nsenter --user --target "$NS_PID" --preserve-credentials \
		"$BPFTOOL" token create "$U/c" token "$D/p" cmds map_create maps array
	echo "status $status, stderr '$stderr'"
	[[ $status == 0 && -z $stderr ]]
	run_ok -j token show "$U/c"
	[[ $(jq -c '.[0] | [.userns, .depth]' <<<"$output") == "[$NS_INO,1]" ]]
	run_ok token show "$U/c"
	[[ $output == *$'\tuserns: '"$NS_INO"$'\n\tdepth: 1'* ]]
	# a binding outside the parent's namespace: nobody's own, the initial one
	run_err -u "can't create token $U/c2: parent token $D/p does not allow token_create or everything requested, or user namespace /proc/self/ns/user is not within the parent's" \
		token create "$U/c2" token "$D/p" userns /proc/self/ns/user cmds map_create
	# bad namespaces
	run_err "/proc/self/ns/net is not a user namespace" token create "$D/x" userns /proc/self/ns/net
	run_err "can't open user namespace of process 999999999: no such process" \
		token create "$D/x" userns 999999999
	run_err -u "can't open user namespace /proc/1/ns/user: Permission denied" \
		token create "$U/x" token "$D/p" userns 1 cmds map_create
}

@test "show: depth of derived tokens; derivation is bounded, and stays on the parent's BPF FS" {
	local prev=$D/l0 lvl
	# (not $i: bats' run sets it)
	run_ok token create "$D/l0" cmds token_create,map_create maps array
	chmod 0666 "$D/l0"
	for lvl in $(seq 1 8); do
		run_ok -u token create "$U/l$lvl" token "$prev" cmds token_create,map_create maps array
		chmod 0666 "$U/l$lvl"
		prev=$U/l$lvl
	done
	run_ok -j token show "$U/l2"
	[[ $(jq -r '.[0].depth' <<<"$output") == 2 ]]
	run_ok token show "$U/l8"
	[[ $output == *$'\n\tdepth: 8'* ]]
	run_ok token show "$D/l0"
	[[ $output != *depth* ]]
	# beyond the kernel's limit
	for lvl in $(seq 9 64); do
		as_nobody "$BPFTOOL" token create "$U/l$lvl" token "$prev" cmds token_create 2>/dev/null || break
		chmod 0666 "$U/l$lvl"
		prev=$U/l$lvl
	done
	[[ $lvl -lt 64 ]]
	run_err -u "can't create token $U/l$lvl: parent token $prev is derived too many times already" \
		token create "$U/l$lvl" token "$prev" cmds token_create

	# another BPF FS instance
	M=$(mktemp -d /tmp/round2-mnt.XXXXXX)
	mount -t bpf bpf "$M"
	MNTS+=("$M")
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
	[[ $(jq -c '.[0] | [.revoked, .depth]' <<<"$output") == '[true,1]' ]]
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
	mkdir -p /tmp/round2
	touch /tmp/round2/file
	run_err "$D/map is not a BPF token" token revoke "$D/map"
	run_err "$D/dir is not a BPF token" token revoke "$D/dir"
	run_err "can't open token $D/none: No such file or directory" token revoke "$D/none"
	run_err "can't open token /tmp/round2/file: not a BPF FS" token revoke /tmp/round2/file
	[[ -e $D/map && -d $D/dir && -f /tmp/round2/file ]]
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
	[[ $(uses "$D/t") == "0 0 0 0 0" ]]

	# two array maps by nobody: allowed, counted
	run_ok -u map create "$U/a1" type array key 4 value 4 entries 1 name a1 token "$D/t"
	run_ok -u map create "$U/a2" type array key 4 value 4 entries 1 name a2 token "$D/t"
	# a hash map by nobody: bpftool refuses it, the kernel never sees it
	run_err -u "token $D/t does not allow map type hash (map 'h1')" \
		map create "$U/h1" type hash key 4 value 4 entries 1 name h1 token "$D/t"
	[[ $(uses "$D/t") == "2 0 0 0 0" ]]
	# a hash map by root, with the token: denied by the token, made with
	# root's capabilities
	run --separate-stderr "$BPFTOOL" map create "$D/h2" type hash key 4 value 4 entries 1 \
		name h2 token "$D/t"
	[[ $status == 0 && $stderr == "Warning: token $D/t does not allow map type hash (map 'h2')" ]]
	[[ $(uses "$D/t") == "2 0 0 0 1" ]]
	# a derived token: counted; one asking for more: denied
	run_ok -u token create "$U/c" token "$D/t" cmds map_create maps array
	run_err -u "can't create token $U/c2: parent token $D/t does not allow token_create or everything requested" \
		token create "$U/c2" token "$D/t" cmds map_create maps hash
	[[ $(uses "$D/t") == "2 0 0 1 2" ]]
	# the derived token counts its own uses
	chmod 0666 "$U/c"
	run_ok -u map create "$U/a3" type array key 4 value 4 entries 1 name a3 token "$U/c"
	[[ $(uses "$U/c") == "1 0 0 0 0" ]]
	[[ $(uses "$D/t") == "2 0 0 1 2" ]]

	# A libbpf object load by nobody, through a token that allows exactly
	# what xdp_token.bpf.o needs: its map, its BTF and its program; and
	# libbpf's feature probes, made with the token: 8 BTF probes (BTF,
	# func, global func, datasec, float, decl_tag, type_tag, enum64) are
	# allowed, the program name and memcg probes (socket filter and
	# cgroup_skb programs) are denied.
	run_ok token create "$D/x" object "$PROGS/xdp_token.bpf.o"
	chmod 0666 "$D/x"
	run_ok -u prog load "$PROGS/xdp_token.bpf.o" "$U/p" token "$D/x"
	[[ $(uses "$D/x") == "1 9 1 0 2" ]]
	# refused by bpftool: nothing changes
	run_err -u "token $D/x does not allow map type stack (map 'token_stack')" \
		prog load "$PROGS/xdp_stack.bpf.o" "$U/p2" token "$D/x"
	[[ $(uses "$D/x") == "1 9 1 0 2" ]]
}

@test "needs: Debian's xdp-dispatcher.o and xdp-filter objects" {
	local o
	[[ -f $DEBIAN_BPF/xdp-dispatcher.o ]] || { echo "no $DEBIAN_BPF/xdp-dispatcher.o (xdp-tools)"; false; }
	run_ok token needs "$DEBIAN_BPF/xdp-dispatcher.o"
	diff -u <(printf '%s\n' "$DEBIAN_BPF/xdp-dispatcher.o" $'\tallowed_cmds: map_create prog_load btf_load' \
		$'\tallowed_maps: array' $'\tallowed_progs: xdp' $'\tallowed_attachs: xdp') <(echo "$output")
	# the filters that match on addresses have hash maps, all count in
	# per-CPU arrays
	for o in "$DEBIAN_BPF"/xdpfilt_{alw,dny}_{all,eth,ip}.o; do
		run_ok -j token needs "$o"
		[[ $(jq -c '[.allowed_cmds, .allowed_maps, .allowed_progs, .allowed_attachs]' <<<"$output") == \
			'[["map_create","prog_load","btf_load"],["percpu_hash","percpu_array"],["xdp"],["xdp"]]' ]]
	done
	for o in "$DEBIAN_BPF"/xdpfilt_{alw,dny}_{tcp,udp}.o; do
		run_ok -j token needs "$o"
		[[ $(jq -c '.allowed_maps' <<<"$output") == '["percpu_array"]' ]]
	done
	# all of them at once
	run_ok -j token needs "$DEBIAN_BPF"/xdp-dispatcher.o "$DEBIAN_BPF"/xdpfilt_*.o
	[[ $(jq -c '[(.objects | length), .allowed_maps]' <<<"$output") == '[11,["array","percpu_hash","percpu_array"]]' ]]
}

@test "needs: bad objects as nobody, one error naming them" {
	mkdir -p /tmp/round2
	cp "$PROGS/xdp_token.bpf.o" /tmp/round2/secret.o
	chmod 0600 /tmp/round2/secret.o
	run_err -u "can't open object /tmp/round2/secret.o: Permission denied" token needs /tmp/round2/secret.o
	run_err -u "can't open object /tmp/round2/none.o: No such file or directory" \
		token needs "$PROGS/xdp_token.bpf.o" /tmp/round2/none.o
	run_err "missing OBJ: 'token needs' takes one or more object files (see 'bpftool token help')" token needs
	# create: nothing is created
	run_err "can't open object /tmp/round2/none.o: No such file or directory" \
		token create "$D/t" object "$PROGS/xdp_token.bpf.o" object /tmp/round2/none.o
	run_err "object $BPFTOOL is not a BPF object file (ELF machine 62)" \
		token create "$D/t" cmds any object "$BPFTOOL"
	[[ ! -e $D/t ]]
}

# The objects of the corpus: the project's test objects and Debian's XDP
# dispatcher and filters.
corpus() {
	ls "$PROGS"/*.bpf.o "$DEBIAN_BPF"/xdp-dispatcher.o "$DEBIAN_BPF"/xdpfilt_*.o
}

@test "create ... object: the token has exactly the sets of needs, and nobody loads the object with it" {
	local o n=0 name
	# a BPF FS of this test's own on /sys/fs/bpf, where nobody may pin
	# (libbpf pins the maps marked for pinning by name there)
	mount -t bpf bpf /sys/fs/bpf
	MNTS+=(/sys/fs/bpf)
	chmod 1777 /sys/fs/bpf
	D=/sys/fs/bpf/round2
	mkdir -m 0755 "$D"
	for o in $(corpus); do
		# BPF FS names have no dots
		name=$(basename "$o" .o)
		name=${name//[.-]/_}
		echo "== $o"
		run_ok token create "$D/$name" object "$o"
		chmod 0666 "$D/$name"
		# exactly what needs says
		[[ $("$BPFTOOL" -j token show "$D/$name" | jq -c '.[0] | [.allowed_cmds, .allowed_maps, .allowed_progs, .allowed_attachs]') == \
			"$("$BPFTOOL" -j token needs "$o" | jq -c '[.allowed_cmds, .allowed_maps, .allowed_progs, .allowed_attachs]')" ]]
		mkdir -m 0777 "/sys/fs/bpf/pin-$name"
		run --separate-stderr as_nobody "$BPFTOOL" prog loadall "$o" "/sys/fs/bpf/pin-$name/progs" \
			token "$D/$name"
		echo "status $status, stderr '$stderr'"
		[[ $status == 0 ]]
		[[ $stderr != *"Warning: token"* ]]
		[[ -n $(ls "/sys/fs/bpf/pin-$name/progs") ]]
		# maps pinned by name, so that the next object makes its own
		find /sys/fs/bpf -maxdepth 1 -type f -exec rm {} +
		n=$((n + 1))
	done
	echo "$n objects"
	[[ $n -ge 12 ]]
}

@test "create ... object: a token made for one object refuses another that needs more, naming what" {
	local a b missing want
	run_ok token create "$D/xdp" object "$PROGS/xdp_token.bpf.o"
	chmod 0666 "$D/xdp"
	run_ok token create "$D/both" object "$PROGS/xdp_token.bpf.o" object "$PROGS/sockfilter.bpf.o"
	chmod 0666 "$D/both"
	run_err -u "token $D/xdp does not allow program type socket_filter (program 'sockfilter_prog'), attach type cgroup_inet_ingress (program 'sockfilter_prog')" \
		prog load "$PROGS/sockfilter.bpf.o" "$U/s" token "$D/xdp"
	run_ok -u prog load "$PROGS/sockfilter.bpf.o" "$U/s" token "$D/both"
	run_ok -u prog load "$PROGS/xdp_token.bpf.o" "$U/x" token "$D/both"
	# and nothing else: a hash map, a stack
	run_err -u "token $D/both does not allow map type hash (map 'h')" \
		map create "$U/h" type hash key 4 value 4 entries 1 name h token "$D/both"
	run_err -u "token $D/both does not allow map type stack (map 'token_stack')" \
		prog load "$PROGS/xdp_stack.bpf.o" "$U/st" token "$D/both"

	# every object of the corpus against the token of xdp_token.bpf.o: the
	# error names each command and type it lacks
	for b in $(corpus); do
		missing=$("$BPFTOOL" -j token needs "$b" | jq -r --argjson have \
			"$("$BPFTOOL" -j token show "$D/xdp" | jq -c '.[0]')" '
			[("command", "map type", "program type", "attach type") as $w |
			 {"command": "allowed_cmds", "map type": "allowed_maps",
			  "program type": "allowed_progs", "attach type": "allowed_attachs"}[$w] as $k |
			 .[$k][] as $n | select(($have[$k] | index($n)) == null) | "\($w) \($n) ("] | .[]')
		run --separate-stderr as_nobody "$BPFTOOL" prog loadall "$b" "$U/all" token "$D/xdp"
		echo "== $b: status $status, stderr '$stderr', missing: $missing"
		if [[ -z $missing ]]; then
			[[ $stderr != *"does not allow"* ]]
			rm -rf "$U/all"
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
		[[ ! -e $U/all ]]
	done
}

@test "show and needs open read-only, use needs read-write" {
	run_ok token create "$D/t" object "$PROGS/xdp_token.bpf.o"
	chmod 0644 "$D/t"
	# nobody sees it
	run_ok -u token show "$D/t"
	[[ ${lines[0]} == "$D/t" ]]
	run_ok -u -j token list
	[[ $(jq -r --arg p "$D/t" '[.[] | select(.pinned == $p)] | length' <<<"$output") == 1 ]]
	run_ok -u token needs "$PROGS/xdp_token.bpf.o"
	# but can't use it
	local rw="can't open token $D/t: Permission denied (using a token needs read and write permission on it)"
	run_err -u "$rw" prog load "$PROGS/xdp_token.bpf.o" "$U/p" token "$D/t"
	run_err -u "$rw" map create "$U/m" type array key 4 value 4 entries 1 name m token "$D/t"
	run_err -u "$rw" token create "$U/c" token "$D/t" cmds map_create
	[[ $(uses "$D/t") == "0 0 0 0 0" ]]
}
