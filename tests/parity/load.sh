#!/bin/bash
# One of the three loads of the parity test (tests/vm/parity.bats), as root,
# in the VM:
#
#   load.sh MODE OBJ OUT [TOKEN_SETS...]
#
#   MODE        root     root loads OBJ, no token
#               token    root creates a token allowing TOKEN_SETS (the words
#                        `bpftool token create PATH` takes: cmds LIST maps
#                        LIST progs LIST attach LIST verifier relaxed), owned
#                        by nobody, mode 0600; nobody (uid 65534, no groups,
#                        no capabilities) loads OBJ through it
#               notoken  the same token exists, nobody loads OBJ without it
#   OUT         directory for the results (created):
#                 status   bpftool's exit status
#                 stdout, stderr
#                 objects  one line per program and map the load left:
#                          "prog NAME TYPE btf=0|1" or "map NAME TYPE
#                          btf=0|1 frozen=0|1", sorted
#                 owners   the uid of each program, "NAME UID", sorted
#                 left     every path the load left in the BPF FS
#                 counters the token's counters after the load, "uses
#                          MAP_CREATE BTF_LOAD PROG_LOAD denials N" (mode
#                          token only)
#
# The load is `bpftool prog loadall OBJ /sys/fs/bpf/progs [token
# /sys/fs/bpf/token] pinmaps /sys/fs/bpf/maps`, in a mount namespace of its
# own with a fresh BPF FS on /sys/fs/bpf (owned by nobody when nobody
# loads), so that nothing is shared between loads and objects whose maps
# libbpf pins by name in the BPF FS root load as they would on a host.
# PINMAPS=0 leaves out `pinmaps` (bpftool refuses it for such maps).
# Environment: BPFTOOL (default: build/bpftool/bpftool of the project).
set -uo pipefail

die() {
	echo "Error: $*" >&2
	exit 2
}

[[ $# -ge 3 ]] || die "usage: $0 root|token|notoken OBJ OUT [TOKEN_SETS...]"
mode=$1 obj=$2 out=$3
shift 3
case $mode in
root | token | notoken) ;;
*) die "unknown mode '$mode': root, token or notoken" ;;
esac
[[ -f $obj ]] || die "no object $obj"
[[ $mode == root || $# -gt 0 ]] || die "mode $mode needs the token's sets"

if [[ -z ${PARITY_IN_NS:-} ]]; then
	PARITY_IN_NS=1 exec unshare --mount --propagation private -- "$0" "$mode" "$obj" "$out" "$@"
	die "unshare failed"
fi

here=$(cd "$(dirname "$0")" && pwd)
BPFTOOL=${BPFTOOL:-$here/../../build/bpftool/bpftool}
FS=/sys/fs/bpf
NOBODY=65534

mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/{status,stdout,stderr,objects,owners,left}
mount -t bpf bpf "$FS" || die "cannot mount a BPF FS on $FS"

as_nobody() {
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$@"
}

cmd=("$BPFTOOL" prog loadall "$obj" "$FS/progs")
if [[ $mode != root ]]; then
	"$BPFTOOL" token create "$FS/token" "$@" >"$out/token.log" 2>&1 ||
		die "token create $*: $(cat "$out/token.log")"
	chown $NOBODY:$NOBODY "$FS/token" "$FS" && chmod 0600 "$FS/token" ||
		die "cannot hand the token to uid $NOBODY"
	[[ $mode == token ]] && cmd+=(token "$FS/token")
fi
[[ ${PINMAPS:-1} == 0 ]] || cmd+=(pinmaps "$FS/maps")

if [[ $mode == root ]]; then
	"${cmd[@]}" >"$out/stdout" 2>"$out/stderr"
else
	as_nobody "${cmd[@]}" >"$out/stdout" 2>"$out/stderr"
fi
echo $? >"$out/status"
if [[ $mode == token ]]; then
	"$BPFTOOL" -j token show "$FS/token" |
		jq -r '. | "uses \(.uses.map_create) \(.uses.btf_load) \(.uses.prog_load) denials \(.denials)"' \
		>"$out/counters" || die "cannot read the token's counters"
fi

# What the load left: every path but the token, and the programs and maps
# pinned in this BPF FS (maps also through the programs' map_ids, for those
# that are not pinned). Two bpftool calls (-f: with their pinned paths) and
# one jq, whatever the object: processes are what costs under TCG.
find "$FS" -mindepth 1 ! -path "$FS/token" | sort >"$out/left"
"$BPFTOOL" -j -f prog show >"$out/progs.json" &&
	"$BPFTOOL" -j -f map show >"$out/maps.json" ||
	die "cannot list the programs and maps"
jq -rn --slurpfile p "$out/progs.json" --slurpfile m "$out/maps.json" --arg fs "$FS/" '
	def here: any(.pinned[]?; startswith($fs));
	[$p[0][] | select(here)] as $progs
	| ([$progs[] | .map_ids[]?] + [$m[0][] | select(here) | .id]) as $ids
	| ($progs[] | "O prog \(.name) \(.type) btf=\(if .btf_id then 1 else 0 end)",
		      "W \(.name) \(.uid)"),
	  ($m[0][] | select(.id as $i | any($ids[]; . == $i))
		| "O map \(.name) \(.type) btf=\(if .btf_id then 1 else 0 end) frozen=\(.frozen)")
' >"$out/info" || die "cannot read what the load left"
sed -n 's/^O //p' "$out/info" | sort -u >"$out/objects"
sed -n 's/^W //p' "$out/info" | sort >"$out/owners"
rm -f "$out/progs.json" "$out/maps.json" "$out/info"
exit 0
