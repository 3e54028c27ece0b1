#!/usr/bin/env bats
# The bash completion of bpftool token on the host, no patched kernel needed:
# the completion as built is the tree's with the token parts, and what it
# offers after each keyword of token and of prog load, prog loadall and map
# create.

bats_require_minimum_version 1.5.0

load bpftool-token

# complete LINE: COMPREPLY of the bpftool completion for LINE, cursor at its
# end, one per line, sorted. Words are split like bash does (':' is a word).
complete() {
	local line=$1
	PATH=$CBIN:$PATH bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1"
		COMP_LINE=$2
		COMP_POINT=${#COMP_LINE}
		COMP_WORDS=()
		read -ra ws <<<"$COMP_LINE"
		[[ $COMP_LINE == *" " ]] && ws+=("")
		for w in "${ws[@]}"; do
			while [[ $w == *:* ]]; do
				[[ -n ${w%%:*} ]] && COMP_WORDS+=("${w%%:*}")
				COMP_WORDS+=(:)
				w=${w#*:}
			done
			[[ -n $w || ${#COMP_WORDS[@]} -eq 0 || ${COMP_WORDS[-1]} != : ]] &&
				COMP_WORDS+=("$w")
		done
		COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		_bpftool bpftool "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort
	' complete "$SRC/bash-completion/bpftool" "$line"
}

# A bpftool for the completion: the real one, except that `token list` shows
# two tokens (none can exist without the patched kernel).
setup_cbin() {
	[[ -f /usr/share/bash-completion/bash_completion ]] ||
		{ echo "bash-completion is not installed"; false; }
	CBIN=$BATS_TEST_TMPDIR/bin
	mkdir -p "$CBIN"
	cat >"$CBIN/bpftool" <<-EOF
	#!/bin/bash
	if [[ "\$*" == "-jp token list" ]]; then
		cat <<-'JSON'
		[{
		        "pinned": "/sys/fs/bpf/app",
		        "allowed_cmds": ["any"],
		        "allowed_maps": [],
		        "allowed_progs": [],
		        "allowed_attachs": []
		    },{
		        "pinned": "/sys/fs/bpf/apps/tok2",
		        "allowed_cmds": ["map_create"],
		        "allowed_maps": [],
		        "allowed_progs": [],
		        "allowed_attachs": []
		    }
		]
		JSON
		exit 0
	fi
	exec "$BPFTOOL" "\$@"
	EOF
	chmod +x "$CBIN/bpftool"
}

check_complete() {
	local line=$1 want=$2
	run complete "$line"
	echo "'$line' -> $(echo $output)"
	[[ $status == 0 ]]
	[[ $(echo $output) == "$want" ]]
}

@test "completion: bash-completion/bpftool as built is the tree's with the token parts" {
	local built=$SRC/bash-completion/bpftool
	# Sourced on its own, it defines the completion.
	run bash -c 'source "$1" && complete -p bpftool' _ "$built"
	echo "$output"
	[[ $status == 0 && $output == *"_bpftool"*bpftool ]]
	grep -q '_bpftool_token_list' "$built"
	# The tree's completion with lines added (the token parts): none of
	# the tree's is lost or changed.
	run diff --old-line-format='%L' --new-line-format= --unchanged-line-format= \
		"${KSRC:-$TOP/build/linux}/tools/bpf/bpftool/bash-completion/bpftool" "$built"
	echo "$output"
	[[ $status == 1 && -z $output ]]
}

@test "completion: token subcommands and keywords" {
	setup_cbin
	check_complete "bpftool to" "token"
	check_complete "bpftool token " "create delegate help list needs revoke show"
	check_complete "bpftool token d" "delegate"
	check_complete "bpftool token c" "create"
	check_complete "bpftool token re" "revoke"
	check_complete "bpftool token n" "needs"
	check_complete "bpftool -j token l" "list"
	check_complete "bpftool token create /sys/fs/bpf/t " "attach cgroup cmds maps object progs token userns verifier"
	check_complete "bpftool token create /sys/fs/bpf/t cmds any maps hash " \
		"attach cgroup object progs token userns verifier"
	check_complete "bpftool token create /sys/fs/bpf/t attach xdp token /sys/fs/bpf/app p" "progs"
	check_complete "bpftool token create /sys/fs/bpf/t userns 1 u" ""
	# object may come again, the others once
	check_complete "bpftool token create /sys/fs/bpf/t cmds any maps any progs any attach any token /sys/fs/bpf/app userns 1 cgroup /sys verifier strict " \
		"object"
	# verifier: its two modes, then the other keywords
	check_complete "bpftool token create /sys/fs/bpf/t verifier " "relaxed strict"
	check_complete "bpftool token create /sys/fs/bpf/t object a.o verifier r" "relaxed"
	check_complete "bpftool token create /sys/fs/bpf/t verifier relaxed " \
		"attach cgroup cmds maps object progs token userns"
	check_complete "bpftool token create /sys/fs/bpf/t object a.o object b.o o" "object"
}

@test "completion: token delegate keywords, without token" {
	setup_cbin
	check_complete "bpftool token delegate /mnt/d " "attach cgroup cmds maps object progs userns verifier"
	check_complete "bpftool token delegate /mnt/d userns 1 cmds any " \
		"attach cgroup maps object progs verifier"
	check_complete "bpftool token delegate /mnt/d verifier " "relaxed strict"
	check_complete "bpftool token delegate /mnt/d maps hash:ar" "array array_of_maps"
	mkdir -p "$D/dir"
	touch "$D/file"
	check_complete "bpftool token delegate $D/" "$D/dir"
}

@test "completion: object files after object and needs, PIDs or paths after userns" {
	setup_cbin
	mkdir -p "$D/objs"
	touch "$D/objs/one.bpf.o" "$D/objs/two.bpf.o"
	check_complete "bpftool token create /sys/fs/bpf/t object $D/objs/" \
		"$D/objs/one.bpf.o $D/objs/two.bpf.o"
	check_complete "bpftool token create /sys/fs/bpf/t cmds any object $D/objs/o" "$D/objs/one.bpf.o"
	check_complete "bpftool token needs $D/objs/t" "$D/objs/two.bpf.o"
	check_complete "bpftool token needs $D/objs/one.bpf.o $D/objs/t" "$D/objs/two.bpf.o"
	# format, after an object, then its names, then nothing
	check_complete "bpftool token needs f" ""
	check_complete "bpftool token needs $D/objs/one.bpf.o f" "format"
	check_complete "bpftool token needs $D/objs/one.bpf.o format " "incus lxd mount systemd"
	check_complete "bpftool token needs $D/objs/one.bpf.o format s" "systemd"
	check_complete "bpftool token needs $D/objs/one.bpf.o format lxd " ""
	# cgroup: directories
	mkdir -p "$D/cg/a.slice"
	check_complete "bpftool token create /sys/fs/bpf/t cgroup $D/cg/" "$D/cg/a.slice"
	# userns: PIDs (this shell's among them), or a path
	run complete "bpftool token create /sys/fs/bpf/t userns "
	[[ $status == 0 ]]
	grep -qx "$$" <<<"$output"
	[[ $(grep -cvE '^[0-9]+$' <<<"$output") == 0 ]]
	check_complete "bpftool token create /sys/fs/bpf/t userns /proc/self/ns/us" "/proc/self/ns/user"
}

@test "completion: names after cmds, maps, progs and attach, also after ',' and ':'" {
	setup_cbin
	check_complete "bpftool token create /sys/fs/bpf/t cmds prog_l" "prog_load"
	check_complete "bpftool token create /sys/fs/bpf/t cmds tok" "token_create"
	check_complete "bpftool token create /sys/fs/bpf/t cmds map_create,prog_l" "map_create,prog_load"
	check_complete "bpftool token create /sys/fs/bpf/t cmds map_create,btf_load,prog_l" \
		"map_create,btf_load,prog_load"
	check_complete "bpftool token create /sys/fs/bpf/t maps st" "stack stack_trace struct_ops"
	check_complete "bpftool token create /sys/fs/bpf/t maps hash,st" \
		"hash,stack hash,stack_trace hash,struct_ops"
	# ':' is a word break for bash: only what follows it is completed
	check_complete "bpftool token create /sys/fs/bpf/t maps hash:st" "stack stack_trace struct_ops"
	check_complete "bpftool token create /sys/fs/bpf/t maps hash:array,st" \
		"array,stack array,stack_trace array,struct_ops"
	check_complete "bpftool token create /sys/fs/bpf/t progs xd" "xdp"
	check_complete "bpftool token create /sys/fs/bpf/t attach xd" "xdp xdp_cpumap xdp_devmap"
	check_complete "bpftool token create /sys/fs/bpf/t attach a" "any"
	check_complete "bpftool -d token create /sys/fs/bpf/t cmds any progs cgroup_so" \
		"cgroup_sock cgroup_sock_addr cgroup_sockopt"

	# all the names of the help, and any
	run complete "bpftool token create /sys/fs/bpf/t cmds "
	diff -u <(echo any; help_list CMD | sort) <(echo "$output")
	run complete "bpftool token create /sys/fs/bpf/t cmds map_create,"
	diff -u <(printf 'map_create,%s\n' any $(help_list CMD) | sort) <(echo "$output")
	run complete "bpftool token create /sys/fs/bpf/t attach "
	diff -u <(echo any; help_list ATTACH_TYPE | sort) <(echo "$output")
}

@test "completion: pinned token paths after token, show, list and revoke" {
	setup_cbin
	check_complete "bpftool token show " "/sys/fs/bpf/app /sys/fs/bpf/apps/tok2"
	check_complete "bpftool token revoke " "/sys/fs/bpf/app /sys/fs/bpf/apps/tok2"
	check_complete "bpftool token revoke /sys/fs/bpf/apps/" "/sys/fs/bpf/apps/tok2"
	check_complete "bpftool token revoke /sys/fs/bpf/app " ""
	check_complete "bpftool token list /sys/fs/bpf/apps" "/sys/fs/bpf/apps/tok2"
	check_complete "bpftool token create /sys/fs/bpf/t token " "/sys/fs/bpf/app /sys/fs/bpf/apps/tok2"
	check_complete "bpftool token create /sys/fs/bpf/t cmds any token /sys/fs/bpf/app" \
		"/sys/fs/bpf/app /sys/fs/bpf/apps/tok2"
	check_complete "bpftool token show /sys/fs/bpf/app " ""
}

@test "completion: token keyword of prog load, prog loadall and map create" {
	setup_cbin
	run complete "bpftool prog load x.o /sys/fs/bpf/p "
	[[ $(echo $output) == "dev map pinmaps token type" ]]
	check_complete "bpftool prog loadall x.o /sys/fs/bpf/p type xdp to" "token"
	check_complete "bpftool prog load x.o /sys/fs/bpf/p token " "/sys/fs/bpf/app /sys/fs/bpf/apps/tok2"
	check_complete "bpftool prog load x.o /sys/fs/bpf/p token /sys/fs/bpf/app " "dev map pinmaps type"
	check_complete "bpftool map create /sys/fs/bpf/m type hash key 4 value 4 entries 1 name m " \
		"dev flags token"
	check_complete "bpftool map create /sys/fs/bpf/m token " "/sys/fs/bpf/app /sys/fs/bpf/apps/tok2"
}
