#!/usr/bin/env bats
# bpftool token needs (the sets a token must allow to load BPF objects)
# and token create ... object (a token allowing exactly those), on the
# project's objects (tests/progs) and Debian's XDP dispatcher and filters
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
	local o n=0 name extra needs json progs
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
		# the program types the verifier needs beyond what the object
		# shows (the .needs file's "verifier progs" line: only loading
		# tells them)
		needs=$(needs_file "$o")
		need "$needs"
		extra=$(verifier_progs "$needs")
		echo "== $o${extra:+ (verifier: $extra)}"
		# a tracing type (the object's, or the one needs adds) makes the
		# token root-equivalent: create says so on stderr, show marks it
		run --separate-stderr "$BPFTOOL" token create "$D/$name" object "$o" ${extra:+progs "$extra"}
		show_run
		[[ $status == 0 && -z $output ]]
		json=$("$BPFTOOL" -j token show "$D/$name")
		progs=$(jq -r '.[0].allowed_progs | join(",")' <<<"$json")
		[[ $stderr == "$(root_equiv_warning "$progs")" ]]
		[[ $(jq '.[0].root_equivalent' <<<"$json") == "$([[ -n $stderr ]] && echo true || echo false)" ]]
		chmod 0666 "$D/$name"
		# exactly what needs says, and those
		[[ $(jq -c '.[0] | [.allowed_cmds, .allowed_maps, (.allowed_progs | sort), .allowed_attachs]' <<<"$json") == \
			"$("$BPFTOOL" -j token needs "$o" | jq -c --arg extra "$extra" '[.allowed_cmds, .allowed_maps,
				(.allowed_progs + ($extra | split(",") | map(select(. != ""))) | unique), .allowed_attachs]')" ]]
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
