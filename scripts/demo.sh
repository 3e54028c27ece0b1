#!/bin/bash
# The demo, run inside the VM by `make demo` (as root, cwd = project dir).
# Each command is echoed before its output: `root# CMD` runs as root,
# `app$ CMD` as the unprivileged "app" user (uid/gid 65534, no groups, no
# capabilities, through setpriv).
#
# Scenario (issue 5): root delegates to an app, with a BPF token pinned in
# BPF FS, exactly what it needs to load an XDP object: the commands
# map_create, prog_load and btf_load, ARRAY maps, XDP programs with the
# BPF_XDP attach type. The app loads the clang-compiled XDP object through
# the token and creates a map; what the token does not allow stays refused.
#
# Exits non-zero if a step that should succeed fails, or a refusal succeeds.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
PROGS=${PROGS:-$BUILD/progs}
APP_UID=65534

# The paths the commands show are relative to the project directory
cd "$TOP"
[[ -f $PROGS/xdp_token.bpf.o ]] || { echo "demo: no $PROGS/xdp_token.bpf.o (make test-build)" >&2; exit 1; }
OBJ=$PROGS/xdp_token.bpf.o
OBJ=${OBJ#"$TOP"/}
BAD_OBJ=$PROGS/sockfilter.bpf.o
BAD_OBJ=${BAD_OBJ#"$TOP"/}

APP=/sys/fs/bpf/app
TOKEN=$APP/token
PINS=$APP/pins

bpftool() { "$BPFTOOL" "$@"; }

as_app() {
	setpriv --reuid=$APP_UID --regid=$APP_UID --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$@"
}

# bpftool as the app: a command setpriv can run
app_bpftool() { as_app "$BPFTOOL" "$@"; }

section() { printf '\n=== %s\n' "$*"; }

# echo_cmd PROMPT ARGS...: the command line as a user would type it
echo_cmd() {
	local prompt=$1 w line=
	shift
	for w in "$@"; do
		[[ $w =~ ^[A-Za-z0-9_./:,=@%+-]+$ ]] || w=$(printf '%q' "$w")
		line+=" $w"
	done
	printf '\n%s%s\n' "$prompt" "$line"
}

# root CMD...: run as root, must succeed
root() {
	echo_cmd 'root#' "$@"
	"$@" 2>&1
}

# app CMD...: run as the app user, must succeed (`bpftool` is the project's)
app() {
	echo_cmd 'app$' "$@"
	if [[ $1 == bpftool ]]; then
		shift
		app_bpftool "$@" 2>&1
	else
		as_app "$@" 2>&1
	fi
}

# app_refused CMD...: as the app user, must fail; its output and exit status
# are shown
app_refused() {
	local rc=0
	echo_cmd 'app$' "$@"
	if [[ $1 == bpftool ]]; then
		shift
		app_bpftool "$@" 2>&1 || rc=$?
	else
		as_app "$@" 2>&1 || rc=$?
	fi
	if [[ $rc == 0 ]]; then
		echo "demo: this should have been refused" >&2
		return 1
	fi
	echo "(refused, exit status $rc)"
}

section "The machine"
root uname -r
root bpftool version
root findmnt -t bpf

section "1. root creates a token for the app, from textual lists, and lets the app read it"
rm -rf "$APP"
root mkdir "$APP"
root bpftool token create "$TOKEN" cmds map_create,prog_load,btf_load maps array \
	progs xdp attach xdp
root chmod 0644 "$TOKEN"
root install -d -o $APP_UID -g $APP_UID "$PINS"
root ls -l "$APP"

section "2. root lists the tokens, plain and JSON"
root bpftool token list
root bpftool -j token list
root bpftool -p token list

section "3. the app, without any capability, loads the XDP object through the token and creates a map"
app id
app grep Cap /proc/self/status
app_refused bpftool prog load "$OBJ" "$PINS/xdp_without_token"
app bpftool prog load "$OBJ" "$PINS/xdp" token "$TOKEN" pinmaps "$PINS/maps"
app bpftool prog show pinned "$PINS/xdp"
app bpftool map show pinned "$PINS/maps/token_stats"
app bpftool map create "$PINS/app_map" type array key 4 value 8 entries 16 name app_map \
	token "$TOKEN"
app bpftool map update pinned "$PINS/app_map" key 1 0 0 0 value 42 0 0 0 0 0 0 0
app bpftool map lookup pinned "$PINS/app_map" key 1 0 0 0
app ls -l "$PINS" "$PINS/maps"
root bpftool prog show name xdp_token_prog

section "4. the app is refused what the token does not allow"
app_refused bpftool map create "$PINS/app_hash" type hash key 4 value 8 entries 16 \
	name app_hash token "$TOKEN"
app_refused bpftool prog load "$BAD_OBJ" "$PINS/sockfilter" token "$TOKEN"
app ls "$PINS"

printf '\n=== demo: done\n'
