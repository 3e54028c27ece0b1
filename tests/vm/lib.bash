# Helpers of the VM test files (tests/vm/*.bats), loaded first by each of
# them with `load lib`. The files run inside a test VM as root
# (scripts/vm-suite.sh), BPF FS on /sys/fs/bpf, from the project directory.
#
# Loading this file sets, unless the environment has them already (the test
# runner passes them):
#   TOP BUILD KSRC KOBJ   the project, build/, the kernel tree and its O=
#   BPFTOOL               build/bpftool/bpftool
#   TEST_BIN              build/tests (tests/helpers/*.c)
# and always:
#   PROGS                 build/progs (tests/progs/*.bpf.o)
#   NOBODY                65534: the unprivileged user of the tests
#   DEBIAN_BPF            where Debian's xdp-tools and libxdp1 put their BPF
#                         objects
#   AS_NOBODY             the command prefix of as_nobody, for a background
#                         process whose $! must be the command itself
#   KERNEL_TROUBLE        what counts as trouble in the kernel log (an ERE,
#                         scripts/lib/kernel-trouble.sh)
#
# Assertions in these helpers are plain commands (`[[ ... ]]`): call the
# helpers as commands of their own, never as the condition of an if, a
# `||` or a `&&` (bash ignores failures there, and the assertions with them).

bats_require_minimum_version 1.5.0

TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
BUILD=${BUILD:-$TOP/build}
KSRC=${KSRC:-$BUILD/linux}
KOBJ=${KOBJ:-$BUILD/kobj}
BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
TEST_BIN=${TEST_BIN:-$BUILD/tests}
PROGS=$BUILD/progs
NOBODY=65534
DEBIAN_BPF=/usr/lib/x86_64-linux-gnu/bpf
AS_NOBODY=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups --inh-caps=-all
	--bounding-set=-all --)

# shellcheck source=../../scripts/lib/kernel-trouble.sh
source "$TOP/scripts/lib/kernel-trouble.sh"

# as_nobody CMD...: CMD as nobody: uid and gid 65534, no supplementary
# groups, no capabilities (effective, permitted, inheritable, ambient or in
# the bounding set).
as_nobody() {
	"${AS_NOBODY[@]}" "$@"
}

# need FILE...: each FILE exists, else one line saying which is missing
# and how to build it, and a failure (for setup: the test fails; a missing
# build is never a skip).
need() {
	local f
	for f in "$@"; do
		[[ -e $f ]] || { echo "no $f: build it first (make test-build)"; return 1; }
	done
}

# bpffs_dir NAME: D=/sys/fs/bpf/NAME-N, N the test's number: a fresh, empty
# directory (mode 0755) of the test on the suite's BPF FS. WATCH (what
# run_err checks) starts as ($D). Remove it in teardown: rm -rf "$D".
bpffs_dir() {
	D=/sys/fs/bpf/$1-$BATS_TEST_NUMBER
	# (every process started costs tens of milliseconds under TCG)
	[[ ! -e $D ]] || rm -rf "$D"
	mkdir -m 0755 "$D"
	WATCH=("$D")
}

# work_dir NAME: WORK, a new directory /tmp/NAME-N-PID (N the test's
# number), searchable by nobody (mode 0755), e.g. for test programs that
# mount BPF FS instances below it. Remove it in teardown.
work_dir() {
	WORK=/tmp/$1-$BATS_TEST_NUMBER-$$
	mkdir -m 0755 "$WORK"
}

# show_run: the last `run`'s status, stdout and stderr, for the test's log
# (bats prints it when the test fails).
show_run() {
	echo "status $status"
	echo "stdout: ${output-}"
	echo "stderr: ${stderr-}"
}

# watched: every path under WATCH (default: $D), with owner and mode, one a
# line, sorted.
watched() {
	local w=("${WATCH[@]-}")
	[[ -n ${w[0]} ]] || w=("$D")
	find "${w[@]}" -printf '%p %u %g %m\n' 2>/dev/null | sort
}

# run_err [-u] WANT ARGS...: a bpftool command that must fail cleanly.
#   Runs: `$BPFTOOL -j ARGS`, then `$BPFTOOL ARGS`; with -u both as nobody
#         (as_nobody).
#   Asserts, failing the test at the first that does not hold:
#     -j run:    exit status not 0; stderr empty; stdout exactly one JSON
#                object, {"error": WANT};
#     plain run: exit status not 0; stdout empty; stderr exactly one line,
#                "Error: WANT" (the whole line);
#     each run:  nothing under the paths of WATCH (default: $D) was created,
#                removed, or changed owner or mode (watched).
#   Sets: status, output, lines, stderr, stderr_lines of the plain run (bats'
#         run --separate-stderr).
run_err() {
	local who=() want before
	[[ $1 == -u ]] && { who=(as_nobody); shift; }
	want=$1
	shift
	before=$(watched)

	run --separate-stderr "${who[@]}" "$BPFTOOL" -j "$@"
	echo "-j: $*"
	show_run
	[[ $status != 0 ]]
	[[ -z $stderr ]]
	[[ $(jq -c . <<<"$output") == "$(jq -nc --arg e "$want" '{error: $e}')" ]]
	[[ $(watched) == "$before" ]]

	run --separate-stderr "${who[@]}" "$BPFTOOL" "$@"
	echo "plain: $*"
	show_run
	[[ $status != 0 ]]
	[[ -z $output ]]
	[[ ${#stderr_lines[@]} == 1 ]]
	[[ $stderr == "Error: $want" ]]
	[[ $(watched) == "$before" ]]
}

# run_ok [-u] ARGS...: `$BPFTOOL ARGS` (as nobody with -u) exits 0 and
# prints nothing on stderr. Sets bats' run variables (--separate-stderr).
run_ok() {
	local who=()
	[[ $1 == -u ]] && { who=(as_nobody); shift; }
	run --separate-stderr "${who[@]}" "$BPFTOOL" "$@"
	echo "ok: $*"
	show_run
	[[ $status == 0 ]]
	[[ -z $stderr ]]
}

# token_uses PATH: the counters of the token pinned at PATH as one line,
# "MAP_CREATE BTF_LOAD PROG_LOAD TOKEN_CREATE DENIALS", from `bpftool -j
# token show`; fails when the plain output does not say the same.
token_uses() {
	local json plain want m b p t d
	json=$("$BPFTOOL" -j token show "$1") || return 1
	want=$(jq -r '. | "\(.uses.map_create) \(.uses.btf_load) \(.uses.prog_load) \(.uses.token_create) \(.denials)"' <<<"$json")
	plain=$("$BPFTOOL" token show "$1") || return 1
	read -r m b p t d <<<"$want"
	grep -qx $'\t'"uses: map_create $m btf_load $b prog_load $p token_create $t" <<<"$plain" ||
		{ echo "plain output disagrees with JSON ($want): $plain" >&2; return 1; }
	grep -qx $'\t'"denials: $d" <<<"$plain" ||
		{ echo "plain output disagrees with JSON ($want): $plain" >&2; return 1; }
	echo "$want"
}

# mask_ids: stdin, plain `bpftool token show` output, with the number of
# each "id: N" line replaced by ID when it is a positive integer (a token's id
# differs from run to run); any other id is left as it is, to fail the
# comparison.
mask_ids() {
	sed -E 's/^\tid: [1-9][0-9]*$/\tid: ID/'
}

# The program types that make a token root-equivalent, as bpftool names
# them, in the order of enum bpf_prog_type.
ROOT_EQUIV_PROGS=(kprobe tracepoint perf_event raw_tracepoint raw_tracepoint_writable
	tracing struct_ops ext lsm)

# root_equiv_warning PROGS: the warning `bpftool token create` prints on
# stderr for a token that allows the program types PROGS (names separated by
# ',' or spaces, or any); nothing when none of them is root-equivalent.
root_equiv_warning() {
	local t p list=
	for t in "${ROOT_EQUIV_PROGS[@]}"; do
		for p in ${1//,/ }; do
			if [[ $p == "$t" || $p == any ]]; then
				list+="${list:+, }$t"
				break
			fi
		done
	done
	[[ -z $list ]] ||
		echo "Warning: token allows root-equivalent program types ($list): their programs act on the whole system, root's commands and revocation included"
}

# corpus_objects: the BPF objects that the bpftool tests load: the
# project's (build/progs/*.bpf.o) and Debian's XDP dispatcher and filters.
corpus_objects() {
	ls "$PROGS"/*.bpf.o "$DEBIAN_BPF"/xdp-dispatcher.o "$DEBIAN_BPF"/xdpfilt_*.o
}

# needs_file OBJ: the .needs file written down for the BPF object file OBJ:
# tests/progs/NAME.needs for the corpus (build/progs/NAME.bpf.o),
# tests/parity/xdp-tools/NAME.needs for Debian's (DEBIAN_BPF/NAME.o).
# Its first line is the words of `bpftool token create` for the object,
# "verifier relaxed" last when it needs the relaxed verifier; then a line
# "verifier relaxed: program 'NAME': MESSAGE" for each program that needs
# it, with the verifier's message that the trial verification of `bpftool
# token needs` measures on this kernel.
needs_file() {
	if [[ $1 == "$PROGS"/*.bpf.o ]]; then
		echo "$TOP/tests/progs/$(basename "$1" .bpf.o).needs"
	else
		echo "$TOP/tests/parity/xdp-tools/$(basename "$1" .o).needs"
	fi
}

# needs_relaxed NEEDS: "relaxed" when the first line of the .needs file
# NEEDS asks for the relaxed verifier, nothing otherwise.
needs_relaxed() {
	awk 'NR == 1 { for (i = 1; i < NF; i++) if ($i == "verifier") print $(i + 1) }' "$1"
}

# needs_verifier NEEDS: the lines that `bpftool token needs` prints about
# the verifier for the object of the .needs file NEEDS ("\tverifier: relaxed
# (program 'NAME': MESSAGE)"), from its "verifier relaxed: ..." lines.
needs_verifier() {
	sed -n 's/^verifier relaxed: \(.*\)$/\tverifier: relaxed (\1)/p' "$1"
}

# relaxed_warning NEEDS: the warning `bpftool token create ... object OBJ`
# prints on stderr for the object of the .needs file NEEDS when it needs the
# relaxed verifier, naming its programs that do and why; nothing otherwise.
relaxed_warning() {
	local progs n
	progs=$(sed -n "s/^verifier relaxed: program '\(.*\)': \(.*\)$/program '\1' (\2)/p" "$1")
	[[ -n $progs ]] || return 0
	n=$(wc -l <<<"$progs")
	echo "Warning: token has the relaxed verifier, which $(awk 'NR > 1 { printf ", " } { printf "%s", $0 }' <<<"$progs") need$( ((n > 1)) || echo s): its programs may leak kernel addresses and go without the Spectre v1/v4 mitigations"
}

# kernel_trouble: the lines of the kernel log (since boot, or since the
# last `dmesg -C`) that report trouble (KERNEL_TROUBLE), at most 20; empty
# when there is none.
kernel_trouble() {
	dmesg | kernel_trouble_lines 20
}

# test_seed: SEED for a randomized test, from TEST_SEED (to replay a run)
# or a fresh one; printed to the TAP stream either way, so that every run
# can be replayed with TEST_SEED=SEED.
test_seed() {
	SEED=${TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	echo "# $BATS_TEST_DESCRIPTION: seed $SEED (replay: TEST_SEED=$SEED)" >&3
}

# send_frames IFACE N: N Ethernet broadcast frames of EtherType 0x88b5 (the
# one ctr_xdp/ctr_tc count in slot 0) out of IFACE
send_frames() {
	/usr/bin/python3 - "$1" "$2" <<-'EOF'
	import socket, sys
	s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
	s.bind((sys.argv[1], 0))
	frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + b"bpf-token" * 6
	for _ in range(int(sys.argv[2])):
	    s.send(frame)
	EOF
}
