#!/usr/bin/env bats
# The attach matrix: for each attach family (build/tests/attach-matrix,
# tests/helpers/attach-matrix.c) and each target, what root gets, what a
# host user gets through a BPF token, and what a container's root (user
# and network namespaces of its own, made by another host user) gets
# through the same token; then the same through revoked tokens. Each test
# prints its part of the table and fails on any cell that is not what the
# attach-scope rules (Documentation/bpf/token.rst) say.
#
# The token allows every family's program and attach type, and is scoped
# to the cgroup $CG/scope. Targets: cgroups /sys/fs/cgroup (root), the
# scope, a cgroup below it, a sibling; the host's dummy device am0 and
# network namespace (host), the container's loopback device and network
# namespace (own); tracing families reach the system (system).

load lib

MATRIX=$TEST_BIN/attach-matrix
CG=/sys/fs/cgroup/attach-matrix
D=/sys/fs/bpf/attach-matrix
# the host user that owns the container's namespaces
CT_OWNER=1000

PROGS_ALLOWED=cgroup_sock_addr,cgroup_sock,cgroup_skb,cgroup_sockopt,cgroup_sysctl,xdp,sched_cls,sk_lookup,flow_dissector,tracing,raw_tracepoint,kprobe,lsm,tracepoint
ATTACH_ALLOWED=cgroup_inet4_connect,cgroup_inet_sock_create,cgroup_inet_ingress,cgroup_getsockopt,cgroup_sysctl,xdp,sk_lookup,flow_dissector,trace_fentry,trace_raw_tp,trace_kprobe_multi,lsm_mac,perf_event

CGROUP_FAMILIES="cg_connect4 cg_sock_create cg_skb cg_sockopt cg_sysctl"
DEVICE_FAMILIES="xdp_link xdp_netlink tc"
NETNS_FAMILIES="sk_lookup flow_dissector"
SYSTEM_FAMILIES="fentry raw_tp tp_btf kprobe_multi lsm"
PERF_FAMILIES="kprobe_perf tracepoint_perf"
# BPF_PROG_TEST_RUN that reaches a device of the actor's network namespace
RUN_FAMILIES="xdp_run_live tc_run"

setup_file() {
	rm -rf "$D"
	rmdir "$CG/scope/below" "$CG/scope" "$CG/sibling" "$CG" 2>/dev/null || true
	mkdir -p "$CG/scope/below" "$CG/sibling"
	ip link del am0 2>/dev/null || true
	ip link add am0 type dummy
	ip link set am0 up
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
	# everybody may unlink in it: the revoking runs unlink their token
	mkdir -m 0777 "$D"
	local t
	for t in token rev-host rev-ct; do
		"$BPFTOOL" token create "$D/$t" cmds prog_load \
			progs "$PROGS_ALLOWED" attach "$ATTACH_ALLOWED" \
			cgroup "$CG/scope"
		chmod 0666 "$D/$t"
	done
}

teardown_file() {
	rm -rf "$D"
	ip link del am0 2>/dev/null || true
	rmdir "$CG/scope/below" "$CG/scope" "$CG/sibling" "$CG" 2>/dev/null || true
}

# The cgroup, device and network namespace targets of a host process; the
# host's network namespace is passed as an inherited fd (nobody may not
# open /proc/1/ns/net).
host_targets() {
	echo -c root=/sys/fs/cgroup -c scope="$CG/scope" \
		-c below="$CG/scope/below" -c sibling="$CG/sibling" \
		-d host=am0 -n host=fd:7
}

# matrix ACTOR ARGS...: run the helper as ACTOR (root: no token; host: as
# nobody through the token; ct: as the root of a container that CT_OWNER
# made), keep its lines in $out.
matrix() {
	local actor=$1
	shift
	case $actor in
	root)
		out=$("$MATRIX" $(host_targets) -R host "$@" 7</proc/self/ns/net) ;;
	host)
		out=$(as_nobody "$MATRIX" $(host_targets) -R host "$@" 7</proc/self/ns/net) ;;
	ct)
		out=$(setpriv --reuid=$CT_OWNER --regid=$CT_OWNER --clear-groups -- \
			unshare --user --map-root-user --net -- \
			"$MATRIX" -c root=/sys/fs/cgroup -c scope="$CG/scope" \
			-c below="$CG/scope/below" -c sibling="$CG/sibling" \
			-d own=lo -n host=fd:7 -n own=/proc/self/ns/net -R own "$@" \
			7</proc/self/ns/net) ;;
	esac
}

# check ACTOR RULE: every line of $out is "FAMILY TARGET RESULT" with the
# RESULT that `RULE FAMILY TARGET` prints; each family has a line; the
# table of this actor is printed.
check() {
	local actor=$1 rule=$2 family target result want bad=0 seen
	while read -r family target result; do
		want=$("$rule" "$family" "$target")
		if [[ $result != "$want" ]]; then
			echo "MISMATCH $actor $family $target: got $result, want $want"
			bad=1
		fi
	done <<<"$out"
	for family in $CGROUP_FAMILIES $DEVICE_FAMILIES $NETNS_FAMILIES \
		      $SYSTEM_FAMILIES $PERF_FAMILIES $RUN_FAMILIES; do
		seen=$(awk -v f="$family" '$1 == f' <<<"$out" | wc -l)
		[[ $seen -gt 0 ]] || { echo "MISSING $actor $family"; bad=1; }
	done
	echo "--- $actor"
	awk '{ row[$1] = row[$1] sprintf(" %s=%s", $2, $3) }
	     END { for (f in row) printf "%-16s%s\n", f, row[f] }' <<<"$out" | sort
	[[ $bad == 0 ]]
}

is_in() {
	[[ " $2 " == *" $1 "* ]]
}

# The rules: what ACTOR gets for FAMILY on TARGET.
rule_root() {
	if is_in "$1" "$PERF_FAMILIES $SYSTEM_FAMILIES $CGROUP_FAMILIES $DEVICE_FAMILIES $NETNS_FAMILIES $RUN_FAMILIES"; then
		echo ok
	fi
}

# A task without CAP_SYS_ADMIN through a live token: cgroups in the scope,
# test runs that reach a device of its own network namespace only,
# network targets it has CAP_NET_ADMIN over (its own, in a container),
# the system for tracing types, perf events as perf_event_paranoid says.
rule_token() {
	local family=$1 target=$2
	if is_in "$family" "$CGROUP_FAMILIES"; then
		case $target in scope | below) echo ok ;; *) echo EPERM ;; esac
	elif is_in "$family" "$DEVICE_FAMILIES $NETNS_FAMILIES $RUN_FAMILIES"; then
		case $target in own) echo ok ;; *) echo EPERM ;; esac
	elif is_in "$family" "$SYSTEM_FAMILIES"; then
		echo ok
	elif is_in "$family" "$PERF_FAMILIES"; then
		echo perf:EACCES
	fi
}

# Through a revoked token: nowhere new (perf events still stop earlier)
rule_revoked() {
	if is_in "$1" "$PERF_FAMILIES"; then
		echo perf:EACCES
	else
		echo EPERM
	fi
}

@test "attach matrix: root attaches every family everywhere, without a token" {
	need "$MATRIX"
	matrix root
	check root rule_root
}

@test "attach matrix: a host user through the token attaches in the cgroup scope and to the system, to no host device or network namespace" {
	need "$MATRIX"
	matrix host -t "$D/token"
	check host rule_token
	# every refusal of the token's rules was counted on the token: two
	# per cgroup cell (the link and BPF_PROG_ATTACH), one per XDP link or
	# netns link; netlink (xdp_netlink, tc) refuses before, for lack of
	# CAP_NET_ADMIN, as it always did
	run "$BPFTOOL" -j token show "$D/token"
	echo "$output"
	want=$(awk -v cg=" $CGROUP_FAMILIES " '
		$3 != "EPERM" { next }
		index(cg, " " $1 " ") { n += 2; next }
		$1 == "xdp_link" || $1 == "sk_lookup" || $1 == "flow_dissector" { n++ }
		$1 == "xdp_run_live" || $1 == "tc_run" { n++ }
		END { print n + 0 }' <<<"$out")
	[[ $want -gt 0 ]]
	[[ $(jq '.denials' <<<"$output") == "$want" ]]
	# its tracing and LSM types reach the system (the system column):
	# show marks it root-equivalent
	[[ $(jq '.root_equivalent' <<<"$output") == true ]]
}

@test "attach matrix: a container's root through the token attaches in the scope, to its own device and network namespace, not to the host's" {
	need "$MATRIX"
	matrix ct -t "$D/token"
	check ct rule_token
}

@test "attach matrix: through a revoked token nothing is attached anywhere, in the container neither" {
	need "$MATRIX"
	matrix host -t "$D/rev-host" -r
	check host-revoked rule_revoked
	[[ ! -e $D/rev-host ]]
	matrix ct -t "$D/rev-ct" -r
	check ct-revoked rule_revoked
	[[ ! -e $D/rev-ct ]]
}
