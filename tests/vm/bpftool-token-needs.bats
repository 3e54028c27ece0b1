#!/usr/bin/env bats
# bpftool token needs (the sets a token must allow to load BPF objects, and
# whether it needs the relaxed verifier, by a trial verification) and token
# create ... object (a token allowing exactly those), on the project's
# objects (tests/progs) and Debian's XDP dispatcher, filters and xdpdump
# (xdp-tools); bad objects. The sets of every object against its .needs,
# and loads through a token allowing exactly them: parity.bats,
# parity-debian.bats.
#
# Each test works in its own directory $D of the BPF FS (root's, 0755),
# with $U=$D/u (0777) where nobody pins; $WORK is a directory of its own
# under /tmp (0755).

load lib

setup() {
	need "$PROGS/xdp_token.bpf.o"
	bpffs_dir bpftool-token-needs
	D0=$D
	U=$D/u
	mkdir -m 0777 "$U"
	work_dir bpftool-token-needs
	MNTS=()
}

teardown() {
	local m
	rm -rf "$D"
	for m in "${MNTS[@]}"; do
		umount "$m" || true
	done
	rm -rf "$D0" "$WORK"
}

@test "needs: Debian's xdp-dispatcher.o and xdp-filter objects" {
	local o
	need "$DEBIAN_BPF/xdp-dispatcher.o"
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
	cp "$PROGS/xdp_token.bpf.o" "$WORK/secret.o"
	chmod 0600 "$WORK/secret.o"
	run_err -u "can't open object $WORK/secret.o: Permission denied" token needs "$WORK/secret.o"
	run_err -u "can't open object $WORK/none.o: No such file or directory" \
		token needs "$PROGS/xdp_token.bpf.o" "$WORK/none.o"
	run_err "missing OBJ: 'token needs' takes one or more object files (see 'bpftool token help')" token needs
	# create: nothing is created
	run_err "can't open object $WORK/none.o: No such file or directory" \
		token create "$D/t" object "$PROGS/xdp_token.bpf.o" object "$WORK/none.o"
	run_err "object $BPFTOOL is not a BPF object file (ELF machine 62)" \
		token create "$D/t" cmds any object "$BPFTOOL"
	[[ ! -e $D/t ]]
}

@test "create ... object: the token has exactly the sets of needs, and nobody loads the object with it" {
	local o n=0 name relaxed needs json progs
	# a BPF FS of this test's own on /sys/fs/bpf, where nobody may pin
	# (libbpf pins the maps marked for pinning by name there)
	mount -t bpf bpf /sys/fs/bpf
	MNTS+=(/sys/fs/bpf)
	chmod 1777 /sys/fs/bpf
	D=/sys/fs/bpf/tokens
	mkdir -m 0755 "$D"
	for o in $(corpus_objects); do
		# BPF FS names have no dots
		name=$(basename "$o" .o)
		name=${name//[.-]/_}
		# whether it needs the relaxed verifier, and why (the .needs
		# file: measured by the trial verification)
		needs=$(needs_file "$o")
		need "$needs"
		relaxed=$(needs_relaxed "$needs")
		echo "== $o${relaxed:+ (verifier $relaxed)}"
		# a tracing type (the object's, or the one needs adds) makes the
		# token root-equivalent, the relaxed verifier exposes kernel
		# addresses: create says so on stderr, show marks it
		run --separate-stderr "$BPFTOOL" token create "$D/$name" object "$o"
		show_run
		[[ $status == 0 && -z $output ]]
		json=$("$BPFTOOL" -j token show "$D/$name")
		progs=$(jq -r '.allowed_progs | join(",")' <<<"$json")
		[[ $stderr == "$(root_equiv_warning "$progs"; relaxed_warning "$needs")" ]]
		[[ $(jq '.root_equivalent' <<<"$json") == "$([[ -n $(root_equiv_warning "$progs") ]] && echo true || echo false)" ]]
		[[ $(jq '.relaxed_verifier' <<<"$json") == "$([[ $relaxed == relaxed ]] && echo true || echo false)" ]]
		chmod 0666 "$D/$name"
		# exactly what needs says
		[[ $(jq -c '. | [.allowed_cmds, .allowed_maps, .allowed_progs, .allowed_attachs, .relaxed_verifier]' <<<"$json") == \
			"$("$BPFTOOL" -j token needs "$o" | jq -c '[.allowed_cmds, .allowed_maps, .allowed_progs,
				.allowed_attachs, .relaxed_verifier.needed]')" ]]
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

# The trial verification of needs and create ... object, on this kernel's
# verifier: xdp-filter's address filters add a variable offset to a packet
# pointer, xdpdump writes over a spilled pointer; the dispatcher (a context
# compared with NULL) and the Ethernet filter (data_end - data) need nothing.
@test "needs, create ... object: the relaxed verifier for the Debian objects that need it, named with the verifier's message" {
	local o before after ip_why="R4 has pointer with unsupported alu operation, pointer arithmetic with it prohibited for !root"
	need "$DEBIAN_BPF/xdpfilt_alw_ip.o" "$DEBIAN_BPF/xdpdump_xdp.o" "$DEBIAN_BPF/xdp-dispatcher.o" \
		"$DEBIAN_BPF/xdpfilt_alw_eth.o"
	# what is loaded and pinned, but what this test creates in $D
	before=$("$BPFTOOL" -j prog show | jq -c '[.[].id]'; "$BPFTOOL" -j map show | jq -c '[.[].id]'
		find /sys/fs/bpf ! -path "$D/*" | sort)

	run_ok token needs "$DEBIAN_BPF/xdpfilt_alw_ip.o"
	[[ ${lines[-1]} == $'\tverifier: relaxed (program \'xdpfilt_alw_ip\': '"$ip_why)" ]]
	[[ $(grep -c verifier: <<<"$output") == 1 ]]
	run_ok -j token needs "$DEBIAN_BPF/xdpfilt_alw_ip.o"
	[[ $(jq -c .relaxed_verifier <<<"$output") == "$(jq -nc --arg o "$DEBIAN_BPF/xdpfilt_alw_ip.o" --arg r "$ip_why" \
		'{needed: true, programs: [{object: $o, name: "xdpfilt_alw_ip", reason: $r}], unknown: null}')" ]]
	run_ok token needs "$DEBIAN_BPF/xdpdump_xdp.o"
	[[ ${lines[-1]} == $'\tverifier: relaxed (program \'xdpdump\': attempt to corrupt spilled pointer on stack)' ]]
	for o in xdp-dispatcher xdpfilt_alw_eth; do
		run_ok token needs "$DEBIAN_BPF/$o.o"
		[[ $output != *verifier:* ]]
		run_ok -j token needs "$DEBIAN_BPF/$o.o"
		[[ $(jq -c .relaxed_verifier <<<"$output") == '{"needed":false,"programs":[],"unknown":null}' ]]
	done
	# several objects: the programs of each that need it
	run_ok -j token needs "$DEBIAN_BPF"/{xdp-dispatcher,xdpfilt_alw_ip,xdpfilt_alw_eth,xdpdump_xdp}.o
	[[ $(jq -c --arg d "$DEBIAN_BPF/" '[.relaxed_verifier.programs[] | [(.object | ltrimstr($d)), .name]]' <<<"$output") == \
		'[["xdpfilt_alw_ip.o","xdpfilt_alw_ip"],["xdpdump_xdp.o","xdpdump"]]' ]]
	# the mainline formats: a note, the sets alone
	run --separate-stderr "$BPFTOOL" token needs "$DEBIAN_BPF/xdpfilt_alw_ip.o" format mount
	show_run
	[[ $status == 0 ]]
	[[ $output == "delegate_cmds=map_create:prog_load:btf_load,delegate_maps=percpu_hash:percpu_array,delegate_progs=socket_filter:xdp,delegate_attachs=cgroup_inet_ingress:xdp" ]]
	[[ $stderr == "Note: the mount format has no relaxed verifier, which program 'xdpfilt_alw_ip' ($ip_why) needs: the loader needs CAP_PERFMON, or the token a tracing program type, instead" ]]
	# the trial left nothing: no program, no map, no pin (xdp-filter pins
	# its statistics map by name, in /sys/fs/bpf)
	after=$("$BPFTOOL" -j prog show | jq -c '[.[].id]'; "$BPFTOOL" -j map show | jq -c '[.[].id]'
		find /sys/fs/bpf ! -path "$D/*" | sort)
	[[ $after == "$before" ]]

	# create ... object: the flag where needed, with a warning naming the
	# program; none elsewhere; verifier strict keeps the token strict
	run --separate-stderr "$BPFTOOL" token create "$D/filter" object "$DEBIAN_BPF/xdpfilt_alw_ip.o"
	show_run
	[[ $status == 0 && -z $output ]]
	[[ $stderr == "Warning: token has the relaxed verifier, which program 'xdpfilt_alw_ip' ($ip_why) needs: its programs may leak kernel addresses and go without the Spectre v1/v4 mitigations" ]]
	run_ok token show "$D/filter"
	[[ $(grep -c $'^\tverifier: relaxed$' <<<"$output") == 1 && $output != *root-equivalent* ]]
	run --separate-stderr "$BPFTOOL" token create "$D/dump" object "$DEBIAN_BPF/xdpdump_xdp.o"
	[[ $status == 0 && $stderr == *"which program 'xdpdump' (attempt to corrupt spilled pointer on stack) needs: "* ]]
	run_ok token create "$D/strict" object "$DEBIAN_BPF/xdpfilt_alw_ip.o" verifier strict
	run_ok token create "$D/disp" object "$DEBIAN_BPF/xdp-dispatcher.o" object "$DEBIAN_BPF/xdpfilt_alw_eth.o"
	for o in filter:true dump:true strict:false disp:false; do
		run_ok -j token show "$D/${o%:*}"
		[[ $(jq -c '. | [.allowed_progs, .root_equivalent, .relaxed_verifier]' <<<"$output") == "[[\"xdp\"],false,${o#*:}]" ]]
	done
	after=$("$BPFTOOL" -j prog show | jq -c '[.[].id]'; "$BPFTOOL" -j map show | jq -c '[.[].id]'
		find /sys/fs/bpf ! -path "$D/*" | sort)
	[[ $after == "$before" ]]

	# nobody loads xdpfilt_alw_ip.o through the token create made, not
	# through the strict one (in a BPF FS of the test's own on
	# /sys/fs/bpf, where libbpf pins xdp-filter's map by name)
	mount -t bpf bpf /sys/fs/bpf
	MNTS+=(/sys/fs/bpf)
	chmod 1777 /sys/fs/bpf
	D=/sys/fs/bpf/tokens
	mkdir -m 0755 "$D"
	run_ok token create "$D/strict" object "$DEBIAN_BPF/xdpfilt_alw_ip.o" verifier strict
	run_ok -j token create "$D/filter" object "$DEBIAN_BPF/xdpfilt_alw_ip.o"
	chown $NOBODY "$D/filter" "$D/strict"
	mkdir -m 0777 /sys/fs/bpf/pin
	run --separate-stderr as_nobody "$BPFTOOL" prog loadall "$DEBIAN_BPF/xdpfilt_alw_ip.o" /sys/fs/bpf/pin/strict \
		token "$D/strict"
	show_run
	[[ $status != 0 && $stderr == *"pointer arithmetic with it prohibited for !root"* ]]
	[[ ! -e /sys/fs/bpf/pin/strict ]]
	find /sys/fs/bpf -maxdepth 1 -type f -exec rm {} +
	run --separate-stderr as_nobody "$BPFTOOL" prog loadall "$DEBIAN_BPF/xdpfilt_alw_ip.o" /sys/fs/bpf/pin/filter \
		token "$D/filter"
	show_run
	[[ $status == 0 ]]
	[[ $("$BPFTOOL" -j prog show pinned /sys/fs/bpf/pin/filter/xdpfilt_alw_ip | jq -c '[.name, .type, .uid]') == \
		'["xdpfilt_alw_ip","xdp",65534]' ]]
	read -r _ _ p _ d <<<"$(token_uses "$D/filter")"
	[[ "$p $d" == "1 0" ]]
}
