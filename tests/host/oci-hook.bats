#!/usr/bin/env bats
# The bpf-token OCI hook (oci/oci-hook) on the host, without a container:
# its installation (make install, oci/Makefile), the hooks.d file that
# selects it, every refusal that comes before it touches anything (one
# "Error: bpf-token hook: ..." line, exit status 1), the host's policy as
# far as the annotations go (the sets, the objects' source, the mode, the
# cgroup scope), and the unit tests of its parsers, its policy
# decisions, the bounded parse of the objects, the paths in the container,
# the pinned process, the cgroup scope, its records and teardown, and of
# createRuntime and poststop with fake containers and a stand-in for
# bpftool (tests/host/oci_hook_test.py). What it does to a real container
# is tests/vm/oci-runtimes.bats.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	HOOK=$TOP/oci/oci-hook
	BUNDLE=$BATS_TEST_TMPDIR/bundle
	mkdir -p "$BUNDLE/rootfs"
	echo '{"ociVersion": "1.0.2", "root": {"path": "rootfs"}}' >"$BUNDLE/config.json"
	SLEEP_PID=
	# the host's policy: none (the defaults) unless a test writes one
	export BPF_TOKEN_OCI_POLICY=$BATS_TEST_TMPDIR/oci-policy
}

teardown() {
	[[ -z $SLEEP_PID ]] || kill "$SLEEP_PID" 2>/dev/null || true
}

# state [ANNOTATION=VALUE...]: a container state as runc passes it at
# createRuntime (status "creating"), pid $PID (default 1)
state() {
	local a ann='{}'
	for a in "$@"; do
		ann=$(jq -c --arg k "${a%%=*}" --arg v "${a#*=}" '. + {($k): $v}' <<<"$ann")
	done
	jq -nc --arg b "$BUNDLE" --argjson pid "${PID:-1}" --argjson ann "$ann" \
		'{ociVersion: "1.0.2", id: "ct1", status: "creating", pid: $pid, bundle: $b, annotations: $ann}'
}

# refused MESSAGE STAGE [ANNOTATION=VALUE...]: the hook, given the state with
# the annotations, fails with one line that contains MESSAGE
refused() {
	local msg=$1 stage=$2
	shift 2
	run --separate-stderr "$HOOK" "$stage" < <(state "$@")
	echo "status $status, stdout '$output'"
	printf 'stderr: %s\n' "${stderr_lines[@]}"
	[[ $status == 1 && -z $output && ${#stderr_lines[@]} == 1 ]]
	[[ $stderr == "Error: bpf-token hook: "*"$msg"* ]]
}

@test "oci hook: make install puts the hook and its hooks.d file in place" {
	local dest=$BATS_TEST_TMPDIR/dest json
	run make -C "$TOP/oci" --no-print-directory install DESTDIR="$dest" PREFIX=/opt/bt
	echo "$output"
	[[ $status == 0 ]]
	[[ $(stat -c %a "$dest/opt/bt/libexec/bpf-token/oci-hook") == 755 ]]
	cmp "$HOOK" "$dest/opt/bt/libexec/bpf-token/oci-hook"
	json=$dest/opt/bt/share/containers/oci/hooks.d/bpf-token.json
	[[ $(stat -c %a "$json") == 644 ]]
	# the OCI hooks configuration podman and CRI-O read (version 1.0.0)
	[[ $(jq -r .version "$json") == 1.0.0 ]]
	[[ $(jq -r .hook.path "$json") == /opt/bt/libexec/bpf-token/oci-hook ]]
	[[ $(jq -c .stages "$json") == '["createRuntime","poststop"]' ]]
	# selected by any annotation of ours, and by no other
	run /usr/bin/python3 -c '
import json, re, sys
when = json.load(open(sys.argv[1]))["when"]
assert list(when) == ["annotations"], when
(key, val), = when["annotations"].items()
for k, want in (("org.bpf-token.objects", True), ("org.bpf-token.path", True),
                ("org.bpf-tokenXobjects", False), ("org.example.objects", False)):
    got = bool(re.search(key, k)) and bool(re.search(val, "/app.bpf.o"))
    print(k, got)
    assert got == want, k' "$json"
	echo "$output"
	[[ $status == 0 ]]
}

@test "oci hook: a container without bpf-token annotations is left alone, silently" {
	run --separate-stderr "$HOOK" createRuntime < <(state org.example.other=1)
	[[ $status == 0 && -z $output && -z $stderr ]]
	run --separate-stderr "$HOOK" < <(state)
	[[ $status == 0 && -z $output && -z $stderr ]]
	# nor is poststop of a container it did not handle an error
	run --separate-stderr "$HOOK" poststop < <(state org.bpf-token.maps=array)
	[[ $status == 0 && -z $output && -z $stderr ]]
}

@test "oci hook: unknown annotations and bad values are refused in one line" {
	refused 'unknown annotation org.bpf-token.map (known: org.bpf-token.objects,' createRuntime \
		org.bpf-token.map=array
	refused 'org.bpf-token.maps: bad list "array hash"' createRuntime 'org.bpf-token.maps=array hash'
	# a value bpftool would take for an option
	refused 'org.bpf-token.cmds: bad list "-j"' createRuntime org.bpf-token.cmds=-j
	refused 'org.bpf-token.objects: "app.bpf.o" is not an absolute path' createRuntime \
		org.bpf-token.objects=app.bpf.o
	refused 'org.bpf-token.objects: "" is not an absolute path' createRuntime \
		'org.bpf-token.objects=/a.bpf.o,'
	refused 'org.bpf-token.objects: "b.bpf.o" is not an absolute path' createRuntime \
		'org.bpf-token.objects=/a.bpf.o:b.bpf.o'
	refused 'org.bpf-token.path: bad path "/sys/fs/bpf/../token"' createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.path=/sys/fs/bpf/../token
	refused 'org.bpf-token.path: bad path "/sys//token"' createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.path=/sys//token
	refused "org.bpf-token.path: /token: the token's directory" createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.path=/token
	refused 'a token name cannot start with "-"' createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.path=/sys/fs/bpf/-j
	refused 'the token would allow nothing' createRuntime org.bpf-token.path=/sys/fs/bpf/token
	# a control character in a value: the error is still one line
	refused 'unknown annotation org.bpf-token.a b' createRuntime $'org.bpf-token.a\nb=1'
}

@test "oci hook: a container without a user namespace of its own is refused" {
	sleep 100 3>&- &
	SLEEP_PID=$!
	PID=$SLEEP_PID
	refused 'the container has no user namespace of its own' createRuntime \
		org.bpf-token.objects=/a.bpf.o
}

@test "oci hook: a container without a pid namespace of its own is refused" {
	local i
	# (its own user namespace: the check before passes)
	unshare --user sleep 100 3>&- &
	SLEEP_PID=$!
	PID=$SLEEP_PID
	for ((i = 0; i < 100; i++)); do
		[[ $(readlink "/proc/$PID/ns/user") != "$(readlink /proc/self/ns/user)" ]] && break
		sleep 0.05
	done
	refused 'the container has no pid namespace of its own' createRuntime \
		org.bpf-token.objects=/a.bpf.o
	# a process that is gone
	kill "$SLEEP_PID"
	wait "$SLEEP_PID" || true
	refused "the container's process $PID is gone" createRuntime org.bpf-token.objects=/a.bpf.o
}

@test "oci hook: bad states and stages are refused in one line" {
	run --separate-stderr "$HOOK" createRuntime <<<'not json'
	[[ $status == 1 && $stderr == "Error: bpf-token hook: the container state on stdin is not JSON"* ]]
	run --separate-stderr "$HOOK" createRuntime <<<'{"id": "../x", "bundle": "/b"}'
	[[ $status == 1 && $stderr == 'Error: bpf-token hook: unusable container id "../x"' ]]
	run --separate-stderr "$HOOK" createRuntime < <(state org.bpf-token.maps=array |
		jq -c '.bundle = "relative"')
	[[ $status == 1 && $stderr == *'unusable bundle path "relative"'* ]]
	run --separate-stderr "$HOOK" createRuntime < <(PID=0 state org.bpf-token.objects=/a.bpf.o)
	[[ $status == 1 && $stderr == *'no container process in the container state (pid 0)'* ]]
	run --separate-stderr "$HOOK" startContainer < <(state)
	[[ $status == 1 && $stderr == 'Error: bpf-token hook: unknown stage startContainer (createRuntime, prestart or poststop)' ]]
	run --separate-stderr "$HOOK" < <(state | jq -c '.status = "running"')
	[[ $status == 1 && $stderr == *'cannot tell the stage from status "running"'* ]]
	run --separate-stderr "$HOOK" a b
	[[ $status == 2 && $stderr == usage:* ]]
}

@test "oci hook: prestart is createRuntime under its older name" {
	run --separate-stderr "$HOOK" prestart < <(state org.example.other=1)
	[[ $status == 0 && -z $output && -z $stderr ]]
	refused 'unknown annotation org.bpf-token.map ' prestart org.bpf-token.map=array
	PID=0 refused 'no container process in the container state (pid 0)' prestart \
		org.bpf-token.objects=/a.bpf.o
}

@test "oci hook: more than 64 objects are refused in one line, not cut" {
	local objs=/o0.bpf.o i
	for ((i = 1; i < 65; i++)); do objs+=":/o$i.bpf.o"; done
	refused 'org.bpf-token.objects: 65 objects, more than 64' createRuntime "org.bpf-token.objects=$objs"
	# 64: on to the container (here: none)
	PID=0 refused 'no container process' createRuntime "org.bpf-token.objects=${objs%:/o64.bpf.o}"
}

@test "oci hook: policy: an image's explicit sets count only when the policy trusts annotations" {
	# the attack: an image asks for a kprobe token through its annotations;
	# by default they are ignored, and alone they ask for nothing
	refused "org.bpf-token.objects is needed: the policy does not trust the explicit sets of annotations (trust-annotations no)" \
		createRuntime org.bpf-token.cmds=prog_load org.bpf-token.progs=kprobe
	# trusted, still bounded by the policy: refused before anything is done
	echo 'trust-annotations yes' >"$BPF_TOKEN_OCI_POLICY"
	refused 'policy refuses progs kprobe (root-equivalent; org.bpf-token.progs)' createRuntime \
		org.bpf-token.cmds=prog_load org.bpf-token.progs=xdp,kprobe
	refused 'policy refuses progs any (includes root-equivalent types; org.bpf-token.progs)' \
		createRuntime org.bpf-token.progs=any
	refused 'policy refuses progs BPF_PROG_TYPE_LSM (root-equivalent; org.bpf-token.progs)' \
		createRuntime org.bpf-token.progs=BPF_PROG_TYPE_LSM
	refused 'policy refuses verifier relaxed (org.bpf-token.verifier)' createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.verifier=relaxed
	printf 'trust-annotations yes\nmaps array\n' >"$BPF_TOKEN_OCI_POLICY"
	refused "policy refuses maps stack (not in the policy's maps; org.bpf-token.maps)" createRuntime \
		org.bpf-token.maps=array,stack
	# the control: what the policy allows goes on to the container (here:
	# a process without a user namespace of its own)
	sleep 100 3>&- &
	SLEEP_PID=$!
	PID=$SLEEP_PID refused 'the container has no user namespace of its own' createRuntime \
		org.bpf-token.cmds=prog_load org.bpf-token.progs=xdp org.bpf-token.maps=array
}

@test "oci hook: policy: objects none refuses every object; a bad policy file fails the start in one line" {
	echo 'objects none' >"$BPF_TOKEN_OCI_POLICY"
	refused 'policy refuses org.bpf-token.objects (objects none)' createRuntime \
		org.bpf-token.objects=/a.bpf.o
	echo 'progs xdp kprobe' >"$BPF_TOKEN_OCI_POLICY"
	refused "$BPF_TOKEN_OCI_POLICY:1: progs takes one value" createRuntime org.bpf-token.objects=/a.bpf.o
	printf '# ok\nprogs xdp,kprobe\n' >"$BPF_TOKEN_OCI_POLICY"
	refused "$BPF_TOKEN_OCI_POLICY: progs names root-equivalent types (kprobe): allow them with \"root-equivalent yes\"" \
		createRuntime org.bpf-token.objects=/a.bpf.o
	echo 'trust-annotations perhaps' >"$BPF_TOKEN_OCI_POLICY"
	refused 'trust-annotations perhaps: no or yes expected' createRuntime org.bpf-token.objects=/a.bpf.o
	echo 'objects image' >"$BPF_TOKEN_OCI_POLICY"
	chmod 0666 "$BPF_TOKEN_OCI_POLICY"
	refused "policy $BPF_TOKEN_OCI_POLICY: writable by others than root (owner 0, mode 0666)" \
		createRuntime org.bpf-token.objects=/a.bpf.o
	# a container without our annotations never reads it
	run --separate-stderr "$HOOK" createRuntime < <(state org.example.other=1)
	[[ $status == 0 && -z $stderr ]]
	# the guide's example policy is one the hook takes
	cp "$TOP/Documentation/examples/oci-policy" "$BPF_TOKEN_OCI_POLICY"
	chmod 0644 "$BPF_TOKEN_OCI_POLICY"
	PID=0 refused 'no container process' createRuntime org.bpf-token.objects=/a.bpf.o
}

@test "oci hook: policy: objects digest and objects host: a bad object-digest or object-dir fails the start in one line; a path is no host object's name" {
	local zeros
	zeros=$(printf '%064d' 0)
	printf 'objects digest\nobject-digest sha256:%s\n' "${zeros:1}" >"$BPF_TOKEN_OCI_POLICY"
	refused "$BPF_TOKEN_OCI_POLICY:2: object-digest sha256:${zeros:1}: \"sha256:\" and 64 lowercase hexadecimal digits expected" \
		createRuntime org.bpf-token.objects=/a.bpf.o
	echo 'objects digest' >"$BPF_TOKEN_OCI_POLICY"
	refused "$BPF_TOKEN_OCI_POLICY: objects digest needs object-digest lines" createRuntime \
		org.bpf-token.objects=/a.bpf.o
	printf 'objects image\nobject-digest sha256:%s\n' "$zeros" >"$BPF_TOKEN_OCI_POLICY"
	refused "$BPF_TOKEN_OCI_POLICY:2: object-digest is for \"objects digest\" (objects image)" \
		createRuntime org.bpf-token.objects=/a.bpf.o
	echo 'objects host' >"$BPF_TOKEN_OCI_POLICY"
	refused "$BPF_TOKEN_OCI_POLICY: objects host needs object-dir" createRuntime \
		org.bpf-token.objects=a.bpf.o
	printf 'objects host\nobject-dir objects\n' >"$BPF_TOKEN_OCI_POLICY"
	refused "$BPF_TOKEN_OCI_POLICY:2: object-dir objects: an absolute path expected" createRuntime \
		org.bpf-token.objects=a.bpf.o
	printf 'objects host\nobject-dir %s\n' "$BATS_TEST_TMPDIR/objects" >"$BPF_TOKEN_OCI_POLICY"
	refused "org.bpf-token.objects: \"/a.bpf.o\" is not a file name of the policy's object-dir" \
		createRuntime org.bpf-token.objects=/a.bpf.o
	refused "org.bpf-token.objects: \"..\" is not a file name of the policy's object-dir" \
		createRuntime org.bpf-token.objects=a.bpf.o,..
	# the controls: a host object's name, an image's object with a digest
	# listed, go on to the container (here: none)
	PID=0 refused 'no container process' createRuntime org.bpf-token.objects=a.bpf.o
	printf 'objects digest\nobject-digest sha256:%s\nobject-digest sha256:%s\n' "$zeros" "${zeros//0/f}" \
		>"$BPF_TOKEN_OCI_POLICY"
	PID=0 refused 'no container process' createRuntime org.bpf-token.objects=/a.bpf.o
}

@test "oci hook: the mode and the cgroup scope: bad values, a mode the policy refuses, a pinned token's path without the pinned mode" {
	refused 'org.bpf-token.mode: "Pinned": "delegated" or "pinned" expected' createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.mode=Pinned
	refused 'org.bpf-token.cgroup-scope: "none": "required" or "optional" expected' createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.cgroup-scope=none
	# the delegated BPF FS is at libbpf's path: a token path asks for the
	# pinned mode
	refused 'org.bpf-token.path is for a pinned token (org.bpf-token.mode=pinned)' createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.path=/sys/fs/bpf/token
	echo 'mode delegated' >"$BPF_TOKEN_OCI_POLICY"
	refused 'policy refuses org.bpf-token.mode pinned (mode delegated)' createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.mode=pinned
	echo 'mode pinned' >"$BPF_TOKEN_OCI_POLICY"
	refused 'policy refuses org.bpf-token.mode delegated (mode pinned)' createRuntime \
		org.bpf-token.objects=/a.bpf.o org.bpf-token.mode=delegated
	echo 'cgroup-scope no' >"$BPF_TOKEN_OCI_POLICY"
	refused "$BPF_TOKEN_OCI_POLICY:1: cgroup-scope no: required or annotation or optional expected" \
		createRuntime org.bpf-token.objects=/a.bpf.o
	# the controls: each mode, and the path with the pinned mode, go on to
	# the container (here: none)
	printf 'mode any\ncgroup-scope annotation\n' >"$BPF_TOKEN_OCI_POLICY"
	PID=0 refused 'no container process' createRuntime org.bpf-token.objects=/a.bpf.o \
		org.bpf-token.mode=pinned org.bpf-token.path=/sys/fs/bpf/token
	PID=0 refused 'no container process' createRuntime org.bpf-token.objects=/a.bpf.o \
		org.bpf-token.mode=delegated org.bpf-token.cgroup-scope=optional
}

@test "oci hook: unit tests of its parsers, policy, bounded parse, paths, pidfd, cgroup scope, records, teardown, create and poststop" {
	run /usr/bin/python3 "$TOP/tests/host/oci_hook_test.py" -v
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[-1]} == OK ]]
	# none skipped: the suite runs as root
	[[ $output != *skipped* ]]
}
