#!/usr/bin/env bats
# bpftool token on the host, no patched kernel needed: help and usage, bad
# input that must fail before bpftool talks to the kernel, `token needs`
# (computed from the objects alone), the man page, help vs man page, and the
# bash completion.

bats_require_minimum_version 1.5.0

# BPF objects for `token needs`, compiled here so that the test says exactly
# what is in them: mix.bpf.o (maps of every kind libbpf creates, programs
# whose expected attach type is 0, one whose autoload is off), nobtf.bpf.o
# (no BTF, no map), odd.bpf.o (a section libbpf does not know),
# ext.bpf.o (an extension program, freplace), names.bpf.o (type names
# with digits, for the systemd names), kmem.bpf.o (programs of
# non-tracing types calling helpers that read kernel memory, directly, from a
# subprogram or from a callback, and programs that do not), relax.bpf.o
# (programs that the strict verifier refuses for what the relaxed one allows,
# and one it loads) and bad.bpf.o (a program no verifier loads).
setup_file() {
	local top=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	local build=${BUILD:-$top/build} ksrc=${KSRC:-$top/build/linux} multiarch cflags
	export OBJ_MIX=$BATS_FILE_TMPDIR/mix.bpf.o OBJ_NOBTF=$BATS_FILE_TMPDIR/nobtf.bpf.o
	export OBJ_ODD=$BATS_FILE_TMPDIR/odd.bpf.o OBJ_EXT=$BATS_FILE_TMPDIR/ext.bpf.o
	export OBJ_NAMES=$BATS_FILE_TMPDIR/names.bpf.o OBJ_KMEM=$BATS_FILE_TMPDIR/kmem.bpf.o
	export OBJ_RELAX=$BATS_FILE_TMPDIR/relax.bpf.o OBJ_BAD=$BATS_FILE_TMPDIR/bad.bpf.o
	export OBJ_LOG=$BATS_FILE_TMPDIR/objs.log
	multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null || true)
	cflags=(-target bpf -O2 -Wall -Werror -I"$ksrc/tools/include/uapi"
		-I"$build/libbpf/include" ${multiarch:+-idirafter "/usr/include/$multiarch"})
	{
		clang "${cflags[@]}" -g -c -x c -o "$OBJ_MIX" - <<-'EOF'
		#include <linux/bpf.h>
		#include <bpf/bpf_helpers.h>

		struct inner {
			__uint(type, BPF_MAP_TYPE_HASH);
			__uint(max_entries, 1);
			__type(key, __u32);
			__type(value, __u32);
		};
		struct {
			__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
			__uint(max_entries, 1);
			__type(key, __u32);
			__array(values, struct inner);
		} outer SEC(".maps");
		struct {
			__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
			__uint(max_entries, 4);
			__type(key, __u32);
			__type(value, __u64);
		} counts SEC(".maps");
		struct {
			__uint(type, BPF_MAP_TYPE_RINGBUF);
			__uint(max_entries, 4096);
		} events SEC(".maps");

		const volatile __u32 cfg = 1;
		__u32 data_var = 2;
		__u32 bss_var;
		extern unsigned int CONFIG_HZ __kconfig __weak;

		SEC("kprobe/do_nanosleep")
		int kp(void *ctx)
		{
			bss_var += cfg + data_var + CONFIG_HZ;
			return 0;
		}

		SEC("tracepoint/syscalls/sys_enter_getpid")
		int tp(void *ctx)
		{
			__u32 key = 0;
			__u64 *v = bpf_map_lookup_elem(&counts, &key);

			if (v)
				(*v)++;
			return bpf_map_lookup_elem(&outer, &key) != 0;
		}

		SEC("cgroup_skb/egress")
		int egress(struct __sk_buff *skb)
		{
			return 1;
		}

		SEC("?xdp")
		int off(struct xdp_md *ctx)
		{
			bpf_ringbuf_output(&events, &bss_var, sizeof(bss_var), 0);
			return XDP_PASS;
		}

		char LICENSE[] SEC("license") = "GPL";
		EOF
		clang "${cflags[@]}" -c -x c -o "$OBJ_NOBTF" - <<-'EOF'
		#include <linux/bpf.h>
		#include <bpf/bpf_helpers.h>

		SEC("socket")
		int sock(struct __sk_buff *skb)
		{
			return 0;
		}
		char LICENSE[] SEC("license") = "GPL";
		EOF
		clang "${cflags[@]}" -g -c -x c -o "$OBJ_ODD" - <<-'EOF'
		#include <linux/bpf.h>
		#include <bpf/bpf_helpers.h>

		SEC("frobnicate")
		int odd(void *ctx)
		{
			return 0;
		}
		char LICENSE[] SEC("license") = "GPL";
		EOF
		clang "${cflags[@]}" -g -c -x c -o "$OBJ_EXT" - <<-'EOF'
		#include <linux/bpf.h>
		#include <bpf/bpf_helpers.h>

		SEC("freplace/prog0")
		int replacement(struct xdp_md *ctx)
		{
			return XDP_PASS;
		}
		char LICENSE[] SEC("license") = "GPL";
		EOF
		clang "${cflags[@]}" -g -c -x c -o "$OBJ_NAMES" - <<-'EOF'
		#include <linux/bpf.h>
		#include <bpf/bpf_helpers.h>

		struct {
			__uint(type, BPF_MAP_TYPE_LPM_TRIE);
			__uint(max_entries, 16);
			__uint(map_flags, BPF_F_NO_PREALLOC);
			__type(key, __u64);
			__type(value, __u32);
		} trie SEC(".maps");

		SEC("lwt_seg6local")
		int seg6(struct __sk_buff *skb)
		{
			return 0;
		}

		SEC("cgroup/connect4")
		int connect4(struct bpf_sock_addr *ctx)
		{
			__u64 key = 0;

			return bpf_map_lookup_elem(&trie, &key) != 0;
		}
		char LICENSE[] SEC("license") = "GPL";
		EOF
		clang "${cflags[@]}" -g -c -x c -o "$OBJ_KMEM" - <<-'EOF'
		#include <linux/bpf.h>
		#include <bpf/bpf_helpers.h>

		extern void bpf_rcu_read_lock(void) __ksym __weak;

		/* subprograms (.text): one reads kernel memory, one does not */
		static __attribute__((noinline)) long peek(const void *p)
		{
			long v = 0;

			bpf_probe_read_kernel(&v, sizeof(v), p);
			return v;
		}
		__attribute__((noinline)) int plus_one(int x)
		{
			return x + 1;
		}
		/* a callback of bpf_loop() */
		static long print_cb(__u32 i, void *ctx)
		{
			bpf_printk("%u", i);
			return 0;
		}

		SEC("xdp")
		int xdp_direct(struct xdp_md *ctx)
		{
			bpf_printk("task");
			return bpf_get_current_task() ? XDP_PASS : XDP_DROP;
		}

		SEC("xdp")
		int xdp_kfunc(struct xdp_md *ctx)
		{
			if (bpf_rcu_read_lock)
				bpf_rcu_read_lock();
			return XDP_PASS;
		}

		SEC("tc")
		int tc_sub(struct __sk_buff *skb)
		{
			return peek((void *)(long)skb->data) != 0;
		}

		SEC("socket")
		int sock_clean(struct __sk_buff *skb)
		{
			return plus_one(skb->len);
		}

		SEC("cgroup_skb/ingress")
		int skb_cb(struct __sk_buff *skb)
		{
			bpf_loop(4, print_cb, 0, 0);
			return 1;
		}

		SEC("?tc")
		int off(struct __sk_buff *skb)
		{
			return bpf_get_current_task() != 0;
		}
		char LICENSE[] SEC("license") = "GPL";
		EOF
		clang "${cflags[@]}" -g -c -x c -o "$OBJ_RELAX" - <<-'EOF'
		#include <linux/bpf.h>
		#include <bpf/bpf_helpers.h>

		struct {
			__uint(type, BPF_MAP_TYPE_ARRAY);
			__uint(max_entries, 1);
			__type(key, __u32);
			__type(value, __u64);
		} slot SEC(".maps");

		/* stores a pointer where it can be read back */
		SEC("xdp")
		int leak(struct xdp_md *ctx)
		{
			__u32 key = 0;
			__u64 *v = bpf_map_lookup_elem(&slot, &key);

			if (v)
				*v = (__u64)(long)ctx;
			return XDP_PASS;
		}

		/* compares two pointers */
		SEC("tc")
		int cmp(struct __sk_buff *skb)
		{
			__u32 key = 0;
			void *v = bpf_map_lookup_elem(&slot, &key);

			return v == (void *)skb;
		}

		SEC("socket")
		int plain(struct __sk_buff *skb)
		{
			return skb->len;
		}
		char LICENSE[] SEC("license") = "GPL";
		EOF
		clang "${cflags[@]}" -g -c -x c -o "$OBJ_BAD" - <<-'EOF'
		#include <linux/bpf.h>
		#include <bpf/bpf_helpers.h>

		/* reads past its context */
		SEC("xdp")
		int bad(struct xdp_md *ctx)
		{
			return *(__u32 *)((char *)ctx + 1000);
		}
		char LICENSE[] SEC("license") = "GPL";
		EOF
	} >"$OBJ_LOG" 2>&1 || true
}

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
	# The sources as built: tree + bpftool/ overlay + bpftool/patches
	SRC=$BUILD/bpftool-src/tools/bpf/bpftool
	[[ -x $BPFTOOL ]] || { echo "no $BPFTOOL: run 'make bpftool'"; false; }
	[[ -d $SRC ]] || { echo "no $SRC: run 'make bpftool'"; false; }
	D=$BATS_TEST_TMPDIR/d
	mkdir -p "$D"
	[[ -f $OBJ_MIX && -f $OBJ_NOBTF && -f $OBJ_ODD && -f $OBJ_EXT && -f $OBJ_NAMES &&
		-f $OBJ_KMEM && -f $OBJ_RELAX && -f $OBJ_BAD ]] ||
		{ cat "$OBJ_LOG"; echo "can't compile the test objects"; false; }
}

# The contents of $D, to check that a failed command created nothing.
snapshot() {
	(cd "$D" && find . | sort)
}

# run_err WANT ARGS...: bpftool ARGS fails with exactly one line on stderr,
# "Error: WANT...", and nothing on stdout; with -j, exactly one JSON object
# {"error": "WANT..."} on stdout and nothing on stderr. Nothing appears in $D.
run_err() {
	local want=$1 before
	shift
	before=$(snapshot)

	run --separate-stderr "$BPFTOOL" "$@"
	echo "plain: status $status, stdout '$output', stderr '$stderr'"
	[[ $status != 0 ]]
	[[ -z $output ]]
	[[ ${#stderr_lines[@]} == 1 ]]
	[[ $stderr == "Error: $want"* ]]

	run --separate-stderr "$BPFTOOL" -j "$@"
	echo "json: status $status, stdout '$output', stderr '$stderr'"
	[[ $status != 0 ]]
	[[ -z $stderr ]]
	[[ $(jq -c 'keys' <<<"$output") == '["error"]' ]]
	[[ $(jq -r .error <<<"$output") == "$want"* ]]

	[[ $(snapshot) == "$before" ]]
}

@test "bpftool help lists token among the objects" {
	run --separate-stderr "$BPFTOOL" help
	[[ $stderr =~ OBJECT\ :=\ \{.*\|\ token\ \} ]]
}

@test "token help: usage of create, show, list, needs, revoke and help, exit 0" {
	run --separate-stderr "$BPFTOOL" token help
	echo "$stderr"
	[[ $status == 0 ]]
	[[ -z $output ]]
	[[ $stderr == *"token create PATH [token PARENT] [userns NS] [cgroup CGROUP]"* ]]
	[[ $stderr == *"[cmds LIST] [maps LIST] [progs LIST]"* ]]
	[[ $stderr == *"[attach LIST] [verifier VERIFIER] [object OBJ]..."* ]]
	[[ $stderr == *"token delegate PATH userns NS [cmds LIST] [maps LIST]"* ]]
	[[ $stderr == *"[progs LIST] [attach LIST] [object OBJ]..."* ]]
	[[ $stderr == *"[cgroup CGROUP] [verifier VERIFIER]"* ]]
	[[ $stderr == *"token { show | list } [PATH]"* ]]
	[[ $stderr == *"token needs OBJ [OBJ...] [format FORMAT]"* ]]
	[[ $stderr == *"token revoke PATH"* ]]
	[[ $stderr == *"token help"* ]]
	[[ $stderr == *"NS := { PID | path of a user namespace, e.g. /proc/PID/ns/user }"* ]]
	[[ $stderr == *"OBJ := path of a BPF object file (ELF)"* ]]
	[[ $stderr == *"CGROUP := path of a cgroup v2 directory"* ]]
	[[ $stderr == *"VERIFIER := { strict | relaxed }"* ]]
	[[ $stderr == *"FORMAT := { mount | incus | lxd | systemd }"* ]]
	[[ $stderr == *"CMD := { map_create | "*" | token_create }"* ]]
	# -j: null, as for every help
	run --separate-stderr "$BPFTOOL" -j token help
	[[ $status == 0 && $output == null ]]
}

@test "token with an unknown subcommand prints the help and fails" {
	run --separate-stderr "$BPFTOOL" token frobnicate
	[[ $status != 0 ]]
	[[ $stderr == *"token create PATH"* ]]
}

@test "token create: bad input fails with one error line and creates nothing" {
	local p=$D/tok
	run_err "missing PATH for the new token (see 'bpftool token help')" token create
	run_err "empty PATH" token create ''
	run_err "missing PATH for the new token" token create cmds any
	run_err "missing PATH for the new token" token create token "$D/parent" maps hash
	run_err "unknown map type 'stak' (see 'bpftool token help')" token create "$p" maps stak
	run_err "unknown map type 'stak'" token create "$p" cmds map_create maps hash,stak,array
	run_err "unknown command 'prog_lod'" token create "$p" cmds map_create:prog_lod
	run_err "unknown program type 'xpd'" token create "$p" progs xpd
	run_err "unknown attach type 'ingress'" token create "$p" attach ingress
	run_err "unknown map type 'BPF_PROG_TYPE_XDP'" token create "$p" maps BPF_PROG_TYPE_XDP
	run_err "empty command list" token create "$p" cmds ''
	run_err "empty map type name in 'hash,'" token create "$p" maps hash,
	run_err "empty program type name in 'xdp::kprobe'" token create "$p" progs xdp::kprobe
	run_err "missing command list after 'cmds'" token create "$p" cmds
	run_err "missing attach type list after 'attach'" token create "$p" cmds any attach
	run_err "missing parent token path after 'token'" token create "$p" token
	run_err "'cmds' already specified" token create "$p" cmds any maps any cmds any
	run_err "'maps' already specified" token create "$p" maps hash maps hash
	run_err "'progs' already specified" token create "$p" progs xdp prog xdp
	run_err "'attach' already specified" token create "$p" attach xdp a xdp
	run_err "parent token already specified" token create "$p" token /a cmds any token /b
	run_err "expected 'token', 'userns', 'cgroup', 'cmds', 'maps', 'progs', 'attach', 'verifier' or 'object', got: 'frob'" \
		token create "$p" cmds any frob any
	run_err "command mask '0x10000000000000000' does not fit in 64 bits" \
		token create "$p" cmds 0x10000000000000000
	# userns and object: a forgotten PATH, missing or repeated arguments
	run_err "missing PATH for the new token" token create userns $$ cmds any
	run_err "missing PATH for the new token" token create object "$OBJ_MIX"
	run_err "missing user namespace (PID or path) after 'userns' (see 'bpftool token help')" \
		token create "$p" cmds any userns
	run_err "empty user namespace after 'userns'" token create "$p" userns ''
	run_err "user namespace already specified" token create "$p" userns $$ userns $$
	run_err "missing object file after 'object' (see 'bpftool token help')" \
		token create "$p" object "$OBJ_MIX" object
	run_err "empty parent token after 'token'" token create "$p" token ''
	run_err "empty object file after 'object'" token create "$p" object ''
	# verifier: relaxed or strict, once
	run_err "missing PATH for the new token" token create verifier relaxed
	run_err "missing verifier mode (relaxed or strict) after 'verifier' (see 'bpftool token help')" \
		token create "$p" cmds any verifier
	run_err "empty verifier mode after 'verifier'" token create "$p" verifier ''
	run_err "unknown verifier mode 'loose': expected 'relaxed' or 'strict' (see 'bpftool token help')" \
		token create "$p" verifier loose
	run_err "unknown verifier mode 'Relaxed': expected 'relaxed' or 'strict'" \
		token create "$p" object "$OBJ_NOBTF" verifier Relaxed
	run_err "verifier mode already specified" token create "$p" verifier strict v relaxed
	# good ones get as far as the BPF FS check
	run_err "can't pin token at $p: not a BPF FS" token create "$p" progs xdp verifier relaxed
	run_err "can't pin token at $p: not a BPF FS" token create "$p" ver strict object "$OBJ_NOBTF"
}

@test "token: every usage error ends with the hint to the help" {
	local p=$D/tok args cg
	cg=$(cgroup2_dir)
	[[ -n $cg ]] || { echo "no cgroup2 mount on this host"; false; }
	while IFS= read -r args; do
		eval "run --separate-stderr \"\$BPFTOOL\" token $args"
		echo "token $args: $stderr"
		[[ $status != 0 && $stderr == "Error: "*" (see 'bpftool token help')" ]]
	done <<-EOF
	create
	create ''
	create cmds any
	create $p token
	create $p token a token b
	create $p token ''
	create $p userns
	create $p userns $$ userns $$
	create $p userns ''
	create $p cgroup
	create $p cgroup $cg cgroup $cg
	create $p cgroup ''
	create $p cmds
	create $p cmds any cmds any
	create $p maps stak
	create $p object
	create $p object ''
	create $p verifier
	create $p verifier ''
	create $p verifier loose
	create $p verifier strict verifier strict
	create $p frob
	needs
	revoke
	EOF
}

# A cgroup v2 directory of the host, or nothing
cgroup2_dir() {
	awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts
}

@test "token create: a bad cgroup fails with one error naming it, before the kernel is asked" {
	local p=$D/tok cg
	touch "$D/file"
	run_err "missing PATH for the new token" token create cgroup /sys/fs/cgroup cmds any
	run_err "missing cgroup v2 directory after 'cgroup' (see 'bpftool token help')" \
		token create "$p" cmds any cgroup
	run_err "empty cgroup after 'cgroup'" token create "$p" cgroup ''
	run_err "can't open cgroup $D/none: No such file or directory" token create "$p" cgroup "$D/none"
	# a directory, and a file, of another file system
	run_err "$D is not a cgroup v2 directory" token create "$p" cgroup "$D"
	run_err "$D/file is not a cgroup v2 directory" token create "$p" cgroup "$D/file"
	run_err "/proc/self is not a cgroup v2 directory" token create "$p" cgroup /proc/self
	cg=$(cgroup2_dir)
	[[ -n $cg ]] || { echo "no cgroup2 mount on this host"; false; }
	run_err "$cg/cgroup.procs is not a cgroup v2 directory" token create "$p" cgroup "$cg/cgroup.procs"
	run_err "cgroup already specified" token create "$p" cgroup "$cg" cgroup "$cg"
	# a good one gets as far as the BPF FS check
	run_err "can't pin token at $p: not a BPF FS" token create "$p" cgroup "$cg" cmds any
	run_err "can't pin token at $p: not a BPF FS" token create "$p" userns $$ cgroup "$cg/" \
		object "$OBJ_MIX"
}

@test "token create: a bad user namespace fails before the kernel is asked" {
	local p=$D/tok
	run_err "can't open user namespace of process 999999999: no such process" \
		token create "$p" userns 999999999
	run_err "can't open user namespace $D/none: No such file or directory" \
		token create "$p" userns "$D/none"
	run_err "/proc/self/ns/net is not a user namespace" token create "$p" userns /proc/self/ns/net
	touch "$D/file"
	run_err "$D/file is not a user namespace" token create "$p" userns "$D/file"
	# a good one gets as far as the BPF FS check
	run_err "can't pin token at $p: not a BPF FS" token create "$p" userns $$
	run_err "can't pin token at $p: not a BPF FS" token create "$p" userns /proc/self/ns/user
}

@test "token create: a bad object fails with one error naming it, before the kernel is asked" {
	local p=$D/tok
	printf 'not an object\n' >"$D/text.o"
	: >"$D/empty.o"
	mkdir "$D/dir.o"
	run_err "can't open object $D/none.o: No such file or directory" \
		token create "$p" cmds any object "$D/none.o"
	run_err "object $D/text.o is not an ELF file" token create "$p" object "$D/text.o"
	run_err "object $D/empty.o is not an ELF file" token create "$p" object "$D/empty.o"
	run_err "object $D/dir.o is not a file" token create "$p" object "$D/dir.o"
	run_err "object /bin/true is not a BPF object file (ELF machine 62)" \
		token create "$p" object /bin/true
	# the first bad one of several, wherever it is
	run_err "object $D/text.o is not an ELF file" \
		token create "$p" object "$OBJ_MIX" maps hash object "$D/text.o" object "$OBJ_NOBTF"
	# good objects get as far as the BPF FS check
	run_err "can't pin token at $p: not a BPF FS" \
		token create "$p" object "$OBJ_MIX" object "$OBJ_NOBTF" cmds token_create
}

@test "token create: a PATH outside BPF FS fails before the kernel is asked" {
	# $D is not on a BPF FS
	run_err "can't pin token at $D/tok: not a BPF FS" token create "$D/tok" cmds any
	run_err "can't pin token at $D/none/tok: parent directory does not exist" \
		token create "$D/none/tok" cmds any
	# even when everything else would be fine
	run_err "can't pin token at $D/tok: not a BPF FS" token create "$D/tok" \
		maps any progs any attach any cmds map_create,prog_load
}

@test "token show: a PATH that is not a pinned token fails" {
	touch "$D/file"
	run_err "can't open token $D/file: not a BPF FS" token show "$D/file"
	run_err "can't open token $D/nothing: No such file or directory" token show "$D/nothing"
	run_err "what is 'b'?" token show "$D/file" b
}

@test "token revoke: refuses anything but a pinned token, and removes nothing" {
	touch "$D/file"
	mkdir "$D/dir"
	run_err "missing PATH of the token to revoke (see 'bpftool token help')" token revoke
	run_err "what is 'x'?" token revoke "$D/file" x
	run_err "can't open token $D/file: not a BPF FS" token revoke "$D/file"
	run_err "can't open token $D/dir: not a BPF FS" token revoke "$D/dir"
	run_err "can't open token $D/nothing: No such file or directory" token revoke "$D/nothing"
	[[ -f $D/file && -d $D/dir ]]
}

# needs_plain OBJ... -- CMDS MAPS PROGS ATTACHS: the expected plain output of
# token needs, sets as space-separated names
needs_plain() {
	while [[ $1 != -- ]]; do
		echo "$1"
		shift
	done
	shift
	printf '\tallowed_cmds:%s\n\tallowed_maps:%s\n\tallowed_progs:%s\n\tallowed_attachs:%s\n' \
		"${1:+ $1}" "${2:+ $2}" "${3:+ $3}" "${4:+ $4}"
}

CGROUP_HINT=$'\tcgroup: needed to attach (create the token with "cgroup CGROUP")'

@test "token needs: every map, internal and inner ones included, every autoloaded program, BTF" {
	# mix.bpf.o: .rodata, .data, .bss and .kconfig (arrays), a percpu hash,
	# a ring buffer, an array of maps whose inner map is a hash; a kprobe
	# and a tracepoint (whose attach type the kernel does not consult at
	# load: none), a cgroup_skb/egress program (cgroup_inet_egress, and a
	# cgroup scope to attach it), and an XDP program whose autoload is off
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_MIX"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_MIX" -- "map_create prog_load btf_load" \
		"hash array percpu_hash array_of_maps ringbuf" "kprobe tracepoint cgroup_skb" \
		"cgroup_inet_egress"; echo "$CGROUP_HINT") <(echo "$output")

	# without BTF (no -g), no map: just the program, no attach type
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_NOBTF"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_NOBTF" -- prog_load "" socket_filter "") \
		<(echo "$output")
}

@test "token needs: the attach type only for the program types that consult it, the cgroup hint for cgroup programs" {
	local sec type attach hint f=$BATS_TEST_TMPDIR/sec.bpf.o
	# section: program type, attach type the token must allow, cgroup hint
	while read -r sec type attach hint; do
		[[ $attach == - ]] && attach=
		clang -target bpf -O2 -c -x c -o "$f" - <<-EOF
		#define SEC(n) __attribute__((section(n), used))
		SEC("$sec") int prog(void *ctx) { return 0; }
		char LICENSE[] SEC("license") = "GPL";
		EOF
		run --separate-stderr "$BPFTOOL" -j token needs "$f"
		echo "$sec: $output $stderr"
		[[ $status == 0 ]]
		[[ $(jq -c '[.allowed_progs, .allowed_attachs, .cgroup_scope_needed]' <<<"$output") == \
			"$(jq -nc --arg t "$type" --arg a "$attach" --argjson h "$hint" \
				'[[$t], [$a | select(. != "")], $h]')" ]]
	done <<-'EOF'
	socket		socket_filter		-			false
	kprobe/f	kprobe			-			false
	tracepoint/a/b	tracepoint		-			false
	perf_event	perf_event		-			false
	raw_tp/x	raw_tracepoint		-			false
	tc		sched_cls		-			false
	action		sched_act		-			false
	lwt_in		lwt_in			-			false
	sk_skb		sk_skb			-			false
	sk_msg		sk_msg			-			false
	flow_dissector	flow_dissector		-			false
	cgroup/dev	cgroup_device		-			true
	cgroup/sysctl	cgroup_sysctl		-			true
	sockops		sock_ops		-			true
	xdp		xdp			xdp			false
	sk_lookup	sk_lookup		sk_lookup		false
	sk_reuseport	sk_reuseport		sk_reuseport_select	false
	cgroup_skb/ingress cgroup_skb		cgroup_inet_ingress	true
	cgroup/sock_create cgroup_sock		cgroup_inet_sock_create	true
	cgroup/connect4	cgroup_sock_addr	cgroup_inet4_connect	true
	cgroup/getsockopt cgroup_sockopt	cgroup_getsockopt	true
	fentry/f	tracing			trace_fentry		false
	lsm/file_open	lsm			lsm_mac			false
	lsm_cgroup/socket_bind lsm		lsm_cgroup		true
	EOF
}

@test "token needs: an extension (freplace) program also needs btf_get_fd_by_id" {
	# libbpf reads the BTF of the program it replaces a function of by id
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_EXT"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_EXT" -- "prog_load btf_load btf_get_fd_by_id" "" ext ""
		echo $'\tverifier: unknown (program \'replacement\' (ext) can\'t be tried without CAP_PERFMON)') \
		<(echo "$output")
}

@test "token needs: several objects are merged, JSON is one object with the objects" {
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_NOBTF" "$OBJ_MIX" "$OBJ_NOBTF"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_NOBTF" "$OBJ_MIX" "$OBJ_NOBTF" -- "map_create prog_load btf_load" \
		"hash array percpu_hash array_of_maps ringbuf" "socket_filter kprobe tracepoint cgroup_skb" \
		"cgroup_inet_egress"; echo "$CGROUP_HINT") <(echo "$output")

	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_MIX" "$OBJ_NOBTF"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c . <<<"$output") == "$(jq -nc --arg a "$OBJ_MIX" --arg b "$OBJ_NOBTF" '{
		objects: [$a, $b],
		allowed_cmds: ["map_create", "prog_load", "btf_load"],
		allowed_maps: ["hash", "array", "percpu_hash", "array_of_maps", "ringbuf"],
		allowed_progs: ["socket_filter", "kprobe", "tracepoint", "cgroup_skb"],
		allowed_attachs: ["cgroup_inet_egress"],
		cgroup_scope_needed: true,
		reads_kernel_memory: [],
		relaxed_verifier: {needed: false, programs: [], unknown: null}}')" ]]
	# -p: the same document
	compact=$(jq -c . <<<"$output")
	run --separate-stderr "$BPFTOOL" -p token needs "$OBJ_MIX" "$OBJ_NOBTF"
	[[ ${#lines[@]} -gt 1 && $(jq -c . <<<"$output") == "$compact" ]]
}

@test "token needs: the project's test objects" {
	local progs=$BUILD/progs
	[[ -f $progs/xdp_read_kernel.bpf.o ]] || { echo "no $progs: build the tests (make test-build)"; false; }
	# an XDP program that calls bpf_get_current_task() and
	# bpf_probe_read_kernel(): a tracing type as well
	run --separate-stderr "$BPFTOOL" token needs "$progs/xdp_read_kernel.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/xdp_read_kernel.bpf.o" -- "map_create prog_load btf_load" array \
		"tracepoint xdp" xdp
		kmem_hint xdp_read_kernel "bpf_get_current_task(), bpf_probe_read_kernel()" tracepoint) \
		<(echo "$output")
	run --separate-stderr "$BPFTOOL" -j token needs "$progs/xdp_read_kernel.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c '[.allowed_progs, .reads_kernel_memory]' <<<"$output") == \
		"$(jq -nc --arg o "$progs/xdp_read_kernel.bpf.o" \
			'[["tracepoint", "xdp"], [{object: $o, program: "xdp_read_kernel",
			  helpers: ["bpf_get_current_task", "bpf_probe_read_kernel"]}]]')" ]]
	# and the same object in the other tools' syntax
	run --separate-stderr "$BPFTOOL" token needs "$progs/xdp_read_kernel.bpf.o" format mount
	[[ $status == 0 && -z $stderr ]]
	# (with libbpf 1.4's socket filter, and its attach type 0)
	[[ $output == "delegate_cmds=map_create:prog_load:btf_load,delegate_maps=array,delegate_progs=socket_filter:tracepoint:xdp,delegate_attachs=cgroup_inet_ingress:xdp" ]]
	# objects without such calls: no tracing type, no hint (xdp_token
	# calls bpf_jiffies64(), which CAP_BPF allows)
	run --separate-stderr "$BPFTOOL" token needs "$progs/xdp_token.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/xdp_token.bpf.o" -- "map_create prog_load btf_load" array xdp xdp) \
		<(echo "$output")
	run --separate-stderr "$BPFTOOL" -j token needs "$progs/xdp_token.bpf.o"
	[[ $(jq -c '.reads_kernel_memory' <<<"$output") == '[]' ]]
	run --separate-stderr "$BPFTOOL" token needs "$progs/xdp_stack.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/xdp_stack.bpf.o" -- "map_create prog_load btf_load" stack xdp xdp) \
		<(echo "$output")
	run --separate-stderr "$BPFTOOL" token needs "$progs/sockfilter.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/sockfilter.bpf.o" -- "map_create prog_load btf_load" array \
		socket_filter "") <(echo "$output")
	# tracing programs calling them: their type is enough
	run --separate-stderr "$BPFTOOL" token needs "$progs/kprobe_ringbuf.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/kprobe_ringbuf.bpf.o" -- "map_create prog_load btf_load" \
		"hash array ringbuf" kprobe "") <(echo "$output")
}

# kmem_hint PROG HELPERS TYPES: the line of token needs for a program that
# reads kernel memory
kmem_hint() {
	printf '\tkernel memory: program \x27%s\x27 calls %s: the token allows a tracing program type (%s)\n' \
		"$1" "$2" "$3"
}

@test "token needs: non-tracing programs that call helpers reading kernel memory, directly, from a subprogram or a callback" {
	local kp=$BATS_TEST_TMPDIR/kp.bpf.o
	# kmem.bpf.o: xdp_direct calls bpf_trace_printk() and
	# bpf_get_current_task(); tc_sub calls a .text subprogram that calls
	# bpf_probe_read_kernel(); skb_cb passes bpf_loop() a callback that
	# calls bpf_trace_printk(). Not flagged: sock_clean (a subprogram
	# without such calls), xdp_kfunc (a kfunc call), off (autoload off).
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_KMEM"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_KMEM" -- "map_create prog_load btf_load" array \
		"socket_filter sched_cls tracepoint xdp cgroup_skb" "cgroup_inet_ingress xdp"
		echo "$CGROUP_HINT"
		kmem_hint xdp_direct "bpf_trace_printk(), bpf_get_current_task()" tracepoint
		kmem_hint tc_sub "bpf_probe_read_kernel()" tracepoint
		kmem_hint skb_cb "bpf_trace_printk()" tracepoint) <(echo "$output")

	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_KMEM"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c '.reads_kernel_memory' <<<"$output") == "$(jq -nc --arg o "$OBJ_KMEM" '[
		{object: $o, program: "xdp_direct", helpers: ["bpf_trace_printk", "bpf_get_current_task"]},
		{object: $o, program: "tc_sub", helpers: ["bpf_probe_read_kernel"]},
		{object: $o, program: "skb_cb", helpers: ["bpf_trace_printk"]}]')" ]]
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_KMEM" format systemd
	[[ $status == 0 && -z $stderr ]]
	[[ $output == *$'\nBPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeSchedCls,BPFProgTypeTracepoint,BPFProgTypeXdp,BPFProgTypeCgroupSkb\n'* ]]

	# with an object that has a tracing program (a kprobe calling
	# bpf_get_current_task(), which its type allows): no tracepoint, the
	# hint names the kprobe type
	clang -target bpf -O2 -c -x c -o "$kp" - <<-'EOF'
	#define SEC(n) __attribute__((section(n), used))
	static long (*bpf_get_current_task)(void) = (void *)35;
	SEC("kprobe/f") int kp(void *ctx) { return bpf_get_current_task() != 0; }
	char LICENSE[] SEC("license") = "GPL";
	EOF
	run --separate-stderr "$BPFTOOL" token needs "$kp"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$kp" -- prog_load "" kprobe "") <(echo "$output")
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_KMEM" "$kp"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_KMEM" "$kp" -- "map_create prog_load btf_load" array \
		"socket_filter kprobe sched_cls xdp cgroup_skb" "cgroup_inet_ingress xdp"
		echo "$CGROUP_HINT"
		kmem_hint xdp_direct "bpf_trace_printk(), bpf_get_current_task()" kprobe
		kmem_hint tc_sub "bpf_probe_read_kernel()" kprobe
		kmem_hint skb_cb "bpf_trace_printk()" kprobe) <(echo "$output")
	# the formats' loader, libbpf 1.4, probes bpf_probe_read_kernel() with
	# a tracepoint program and has tc_sub call bpf_probe_read() instead
	# when the token refuses it, which a tc program does not have: there,
	# tracepoint as well; not for the kprobe alone
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_KMEM" "$kp" format mount
	[[ $status == 0 && -z $stderr ]]
	[[ $output == *,delegate_progs=socket_filter:kprobe:sched_cls:tracepoint:xdp:cgroup_skb,* ]]
	run --separate-stderr "$BPFTOOL" token needs "$kp" format mount
	[[ $status == 0 && -z $stderr ]]
	[[ $output == delegate_cmds=prog_load,delegate_progs=socket_filter:kprobe,delegate_attachs=cgroup_inet_ingress ]]
	# and with mix.bpf.o (a kprobe and a tracepoint): both named
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_MIX" "$OBJ_KMEM"
	[[ $(jq -c '[.allowed_progs, (.reads_kernel_memory | length)]' <<<"$output") == \
		'[["socket_filter","kprobe","sched_cls","tracepoint","xdp","cgroup_skb"],3]' ]]
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_MIX" "$OBJ_KMEM"
	[[ ${lines[-1]} == "$(kmem_hint skb_cb "bpf_trace_printk()" "kprobe, tracepoint")" ]]
}

# mask_regs: stdin with the register a verifier message starts with ("R7
# leaks ...", after ": " or "(") as RN: its number is the compiler's choice
mask_regs() {
	sed -E 's/([:(] )R[0-9]+ /\1RN /g; s/\(R[0-9]+ /(RN /g'
}

# The trial verification loads the objects into this host's kernel, in a
# child without CAP_PERFMON and CAP_SYS_ADMIN: the host suite runs as root.
@test "token needs: the trial verification names the programs the strict verifier refuses, with its message" {
	# relax.bpf.o: leak stores its context pointer in a map, cmp compares
	# a map value pointer with its context pointer, which every verifier
	# refuses without CAP_PERFMON; plain loads. Each is tried once the
	# programs before it are left out.
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_RELAX"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_RELAX" -- "map_create prog_load btf_load" array \
			"socket_filter sched_cls xdp" xdp
		echo $'\tverifier: relaxed (program \'leak\': RN leaks addr into map)'
		echo $'\tverifier: relaxed (program \'cmp\': RN pointer comparison prohibited)') \
		<(mask_regs <<<"$output")

	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_RELAX"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c '.relaxed_verifier | [.needed, [.programs[] | .object, .name], .unknown]' <<<"$output") == \
		"$(jq -nc --arg o "$OBJ_RELAX" '[true, [$o, "leak", $o, "cmp"], null]')" ]]
	[[ $(jq -r '.relaxed_verifier.programs[0].reason' <<<"$output") =~ ^R[0-9]+\ leaks\ addr\ into\ map$ ]]

	# a tracing type in the sets gives these relaxations: nothing tried
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_RELAX" "$OBJ_MIX"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c .relaxed_verifier <<<"$output") == '{"needed":false,"programs":[],"unknown":null}' ]]
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_RELAX" "$OBJ_KMEM"
	[[ $status == 0 && -z $stderr && $output != *verifier:* ]]

	# the formats have no such flag: a note on stderr, none with -j
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_RELAX" format systemd
	[[ $status == 0 ]]
	[[ $output == *$'\nBPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeSchedCls,BPFProgTypeXdp\n'* ]]
	[[ $(mask_regs <<<"$stderr") == "Note: the systemd format has no relaxed verifier, which program 'leak' (RN leaks addr into map), program 'cmp' (RN pointer comparison prohibited) need: the loader needs CAP_PERFMON, or the token a tracing program type, instead" ]]
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_RELAX" format mount
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -r .format <<<"$output") == mount ]]
}

@test "token needs: the trial says when it can't tell: another failure, no capabilities" {
	local dir
	# bad.bpf.o reads past its context: no verifier loads it
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_BAD"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	[[ ${lines[-1]} == $'\tverifier: unknown (program \'bad\' fails to load with CAP_BPF and CAP_NET_ADMIN: invalid bpf_context access off=1000 size=4)' ]]
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_BAD"
	[[ $(jq -c '.relaxed_verifier | [.needed, .programs]' <<<"$output") == '[null,[]]' ]]
	[[ $(jq -r .relaxed_verifier.unknown <<<"$output") == "program 'bad' fails to load with CAP_BPF and CAP_NET_ADMIN: "* ]]
	# what is known is said as well
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_RELAX" "$OBJ_BAD"
	[[ $(jq -c '.relaxed_verifier | [.needed, [.programs[].name]]' <<<"$output") == '[true,["leak","cmp"]]' ]]
	[[ $(jq -r .relaxed_verifier.unknown <<<"$output") == "program 'bad' fails "* ]]

	# nobody, without capabilities, is not told anything it can't know
	dir=$(mktemp -d)
	chmod 0755 "$dir"
	install -m 0644 "$OBJ_RELAX" "$dir/relax.bpf.o"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$BPFTOOL" token needs "$dir/relax.bpf.o"
	rm -r "$dir"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	[[ ${lines[-1]} == $'\tverifier: unknown (the trial verification needs CAP_BPF and CAP_NET_ADMIN)' ]]
	[[ $output != *"verifier: relaxed"* ]]
}

@test "token needs: every helper the kernel reserves to CAP_PERFMON beyond the type, by id, and no other" {
	local f=$BATS_TEST_TMPDIR/h.bpf.o id name want got
	# helper id and name: bpf_base_func_proto()'s perfmon group,
	# bpf_sk_base_func_proto()'s socket casts, syscall programs'
	# bpf_sys_bpf(); then helpers any program may call (map lookup,
	# bpf_ktime_get_ns(), bpf_jiffies64(), bpf_get_prandom_u32())
	while read -r id name; do
		clang -target bpf -O2 -c -x c -o "$f" - <<-EOF
		#define SEC(n) __attribute__((section(n), used))
		static long (*h)(long, long, long, long, long) = (void *)$id;
		SEC("tc") int prog(void *ctx) { return h(0, 0, 0, 0, 0); }
		char LICENSE[] SEC("license") = "GPL";
		EOF
		run --separate-stderr "$BPFTOOL" -j token needs "$f"
		[[ $status == 0 ]]
		got=$(jq -c '[.allowed_progs, [.reads_kernel_memory[].helpers[]]]' <<<"$output")
		if [[ $name == - ]]; then
			want='[["sched_cls"],[]]'
		else
			want=$(jq -nc --arg n "$name" '[["sched_cls", "tracepoint"], [$n]]')
		fi
		echo "$id $name: $got"
		[[ $got == "$want" ]]
	done <<-'EOF'
	6	bpf_trace_printk
	35	bpf_get_current_task
	112	bpf_probe_read_user
	113	bpf_probe_read_kernel
	114	bpf_probe_read_user_str
	115	bpf_probe_read_kernel_str
	136	bpf_skc_to_tcp6_sock
	137	bpf_skc_to_tcp_sock
	138	bpf_skc_to_tcp_timewait_sock
	139	bpf_skc_to_tcp_request_sock
	140	bpf_skc_to_udp6_sock
	149	bpf_snprintf_btf
	158	bpf_get_current_task_btf
	165	bpf_snprintf
	166	bpf_sys_bpf
	175	bpf_task_pt_regs
	177	bpf_trace_vprintk
	178	bpf_skc_to_unix_sock
	196	bpf_skc_to_mptcp_sock
	1	-
	5	-
	7	-
	118	-
	EOF
}

# needs_format OBJ FORMAT: token needs OBJ format FORMAT succeeds, prints
# exactly stdin, and -j prints {"format": FORMAT, "lines": the same lines}.
needs_format() {
	local obj=$1 fmt=$2 want
	want=$(cat)
	run --separate-stderr "$BPFTOOL" token needs "$obj" format "$fmt"
	echo "$fmt: status $status, stderr '$stderr'"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(echo "$want") <(echo "$output")
	run --separate-stderr "$BPFTOOL" -j token needs "$obj" format "$fmt"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c . <<<"$output") == "$(jq -Rnc --arg f "$fmt" '{format: $f, lines: [inputs]}' <<<"$want")" ]]
}

@test "token needs ... format: a corpus object in the syntax of each delegation tool" {
	local obj=$BUILD/progs/kprobe_ringbuf.bpf.o
	[[ -f $obj ]] || { echo "no $obj: build the tests (make test-build)"; false; }
	# a kprobe: no attach type here, but the kernels these tools
	# configure check the expected attach type (0) of every program; and
	# their loader, libbpf 1.4, loads a socket filter first
	needs_format "$obj" mount <<-'EOF'
	delegate_cmds=map_create:prog_load:btf_load,delegate_maps=hash:array:ringbuf,delegate_progs=socket_filter:kprobe,delegate_attachs=cgroup_inet_ingress
	EOF
	needs_format "$obj" incus <<-'EOF'
	security.bpffs.delegate_cmds=map_create,prog_load,btf_load
	security.bpffs.delegate_maps=hash,array,ringbuf
	security.bpffs.delegate_progs=socket_filter,kprobe
	security.bpffs.delegate_attachs=cgroup_inet_ingress
	EOF
	needs_format "$obj" lxd <<-'EOF'
	security.delegate_bpf=true
	security.delegate_bpf.cmd_types=map_create:prog_load:btf_load
	security.delegate_bpf.map_types=hash:array:ringbuf
	security.delegate_bpf.prog_types=socket_filter:kprobe
	security.delegate_bpf.attach_types=cgroup_inet_ingress
	EOF
	needs_format "$obj" systemd <<-'EOF'
	PrivateBPF=yes
	BPFDelegateCommands=BPFMapCreate,BPFProgLoad,BPFBtfLoad
	BPFDelegateMaps=BPFMapTypeHash,BPFMapTypeArray,BPFMapTypeRingbuf
	BPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeKprobe
	BPFDelegateAttachments=BPFCgroupInetIngress
	EOF
}

@test "token needs ... format: a Debian object (xdp-tools' xdpdump_bpf.o) in the syntax of each tool" {
	local multiarch obj
	multiarch=$(${CC:-cc} -print-multiarch)
	obj=/usr/lib/$multiarch/bpf/xdpdump_bpf.o
	[[ -f $obj ]] || { echo "no $obj: install xdp-tools (make deps)"; false; }
	needs_format "$obj" mount <<-'EOF'
	delegate_cmds=map_create:prog_load:btf_load,delegate_maps=array:perf_event_array,delegate_progs=socket_filter:tracing,delegate_attachs=cgroup_inet_ingress:trace_fentry:trace_fexit
	EOF
	needs_format "$obj" incus <<-'EOF'
	security.bpffs.delegate_cmds=map_create,prog_load,btf_load
	security.bpffs.delegate_maps=array,perf_event_array
	security.bpffs.delegate_progs=socket_filter,tracing
	security.bpffs.delegate_attachs=cgroup_inet_ingress,trace_fentry,trace_fexit
	EOF
	needs_format "$obj" lxd <<-'EOF'
	security.delegate_bpf=true
	security.delegate_bpf.cmd_types=map_create:prog_load:btf_load
	security.delegate_bpf.map_types=array:perf_event_array
	security.delegate_bpf.prog_types=socket_filter:tracing
	security.delegate_bpf.attach_types=cgroup_inet_ingress:trace_fentry:trace_fexit
	EOF
	needs_format "$obj" systemd <<-'EOF'
	PrivateBPF=yes
	BPFDelegateCommands=BPFMapCreate,BPFProgLoad,BPFBtfLoad
	BPFDelegateMaps=BPFMapTypeArray,BPFMapTypePerfEventArray
	BPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeTracing
	BPFDelegateAttachments=BPFCgroupInetIngress,BPFTraceFentry,BPFTraceFexit
	EOF
}

@test "token needs ... format: several objects merged; systemd names are the enum names in camel case" {
	# mix.bpf.o and ext.bpf.o: every attach type (0 for the kprobe,
	# tracepoint and extension), the sets merged, with libbpf 1.4's
	# socket filter
	needs_format "$OBJ_MIX" systemd <<-'EOF'
	PrivateBPF=yes
	BPFDelegateCommands=BPFMapCreate,BPFProgLoad,BPFBtfLoad
	BPFDelegateMaps=BPFMapTypeHash,BPFMapTypeArray,BPFMapTypePercpuHash,BPFMapTypeArrayOfMaps,BPFMapTypeRingbuf
	BPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeKprobe,BPFProgTypeTracepoint,BPFProgTypeCgroupSkb
	BPFDelegateAttachments=BPFCgroupInetIngress,BPFCgroupInetEgress
	EOF
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_NOBTF" "$OBJ_EXT" format mount
	[[ $status == 0 ]]
	# the trial can't load an extension program
	[[ $stderr == "Note: the mount format has no relaxed verifier, and whether the objects need it is unknown: program 'replacement' (ext) can't be tried without CAP_PERFMON" ]]
	[[ $output == "delegate_cmds=prog_load:btf_load:btf_get_fd_by_id,delegate_progs=socket_filter:ext,delegate_attachs=cgroup_inet_ingress" ]]
	# systemd's name is BPF and the rest of the enum name in camel case,
	# digits kept: BPF_MAP_TYPE_LPM_TRIE, BPF_PROG_TYPE_LWT_SEG6LOCAL,
	# BPF_CGROUP_INET4_CONNECT
	needs_format "$OBJ_NAMES" systemd <<-'EOF'
	PrivateBPF=yes
	BPFDelegateCommands=BPFMapCreate,BPFProgLoad,BPFBtfLoad
	BPFDelegateMaps=BPFMapTypeLpmTrie
	BPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeCgroupSockAddr,BPFProgTypeLwtSeg6local
	BPFDelegateAttachments=BPFCgroupInetIngress,BPFCgroupInet4Connect
	EOF
	needs_format "$OBJ_NAMES" lxd <<-'EOF'
	security.delegate_bpf=true
	security.delegate_bpf.cmd_types=map_create:prog_load:btf_load
	security.delegate_bpf.map_types=lpm_trie
	security.delegate_bpf.prog_types=socket_filter:cgroup_sock_addr:lwt_seg6local
	security.delegate_bpf.attach_types=cgroup_inet_ingress:cgroup_inet4_connect
	EOF
	# while this kernel needs cgroup_inet4_connect only
	run "$BPFTOOL" -j token needs "$OBJ_NAMES"
	[[ $(jq -c '[.allowed_attachs, .cgroup_scope_needed]' <<<"$output") == '[["cgroup_inet4_connect"],true]' ]]
}

@test "token needs ... format: bad format, missing objects, one error line" {
	run_err "unknown format 'json': expected mount, incus, lxd or systemd" \
		token needs "$OBJ_MIX" format json
	run_err "missing FORMAT after 'format' (mount, incus, lxd or systemd)" \
		token needs "$OBJ_MIX" format
	run_err "missing OBJ: 'token needs' takes one or more object files" token needs format mount
	run_err "can't open object $D/none.o: No such file or directory" \
		token needs "$OBJ_MIX" "$D/none.o" format mount
	# an object file called format, or mount
	cp "$OBJ_NOBTF" "$D/format"
	run --separate-stderr "$BPFTOOL" token needs "$D/format" format mount
	[[ $status == 0 && $output == delegate_cmds=prog_load,* ]]
}

# The sets of a tests/progs/NAME.needs file, from its first line (cmds LIST
# maps LIST progs LIST attach LIST, as token create takes them, then
# "verifier relaxed" if the object needs it, which only verifying its
# programs on the project's kernel tells: left out here), one line per set,
# names in lower case and sorted.
needs_file_sets() {
	local -A sets=()
	local w kw
	read -ra w < <(sed -n '1{s/#.*//;p}' "$1")
	while ((${#w[@]} >= 2)); do
		sets[${w[0]}]=${w[1]}
		w=("${w[@]:2}")
	done
	for kw in cmds maps progs attach; do
		echo "$kw $(tr ',:' '\n\n' <<<"${sets[$kw]:-}" | tr 'A-Z' 'a-z' | grep . | sort | paste -sd,)"
	done
}

@test "token needs: agrees with the sets written down next to the test objects (tests/progs/*.needs)" {
	local f obj n=0
	for f in "$TOP"/tests/progs/*.needs; do
		[[ -f $f ]] || continue
		obj=$BUILD/progs/$(basename "$f" .needs).bpf.o
		[[ -f $obj ]] || { echo "no $obj: build the tests (make test-build)"; false; }
		echo "== $(basename "$f")"
		diff -u <(needs_file_sets "$f") <("$BPFTOOL" -j token needs "$obj" | jq -r '
			"cmds " + (.allowed_cmds | sort | join(",")),
			"maps " + (.allowed_maps | sort | join(",")),
			"progs " + (.allowed_progs | sort | join(",")),
			"attach " + (.allowed_attachs | sort | join(","))')
		n=$((n + 1))
	done
	echo "$n .needs files"
	[[ $n -ge 1 ]]
}

@test "token needs: bad input is one error line naming the object" {
	printf 'not an object\n' >"$D/text.o"
	run_err "missing OBJ: 'token needs' takes one or more object files (see 'bpftool token help')" \
		token needs
	run_err "can't open object $D/none.o: No such file or directory" token needs "$D/none.o"
	run_err "object $D/text.o is not an ELF file" token needs "$OBJ_MIX" "$D/text.o"
	run_err "object /bin/true is not a BPF object file (ELF machine 62)" token needs /bin/true
	run_err "object $D is not a file" token needs "$D"
	# an ELF BPF object libbpf can't open
	head -c 200 "$OBJ_MIX" >"$D/cut.o"
	run_err "can't open object $D/cut.o: " token needs "$D/cut.o"
	# a program in a section libbpf does not know
	run_err "$OBJ_ODD: program 'odd' has no program type (section 'frobnicate' is unknown to libbpf)" \
		token needs "$OBJ_ODD"
}

# The objects of tests/fuzz/corpus/token_needs/regress-*: each defect that
# crashed, hung or blew up bpftool's parse of objects, in an otherwise valid
# object (tests/fuzz/token_needs_regress.py).
@test "token needs: objects beyond the limits, and malformed ones, are one error line" {
	local corpus=$TOP/tests/fuzz/corpus/token_needs f n=0
	# sparse: 64 MiB and a byte
	truncate -s $((64 * 1024 * 1024 + 1)) "$D/big.o"
	run_err "object $D/big.o is too large (67108865 bytes): bpftool parses objects of up to 64 MiB" \
		token needs "$D/big.o"
	# libbpf would follow this loop of BTF types forever
	run timeout 60 "$BPFTOOL" token needs "$corpus/regress-btf-loop"
	[[ $status != 124 ]]
	for f in "$corpus"/regress-*; do
		[[ $f != */regress-rel-empty ]] || continue
		run_err "object $f is malformed: " token needs "$f"
		n=$((n + 1))
	done
	((n >= 10))
	run_err "object $corpus/regress-btf-loop is malformed: BTF type [8] contains itself (through type [8])" \
		token create "$D/t" object "$corpus/regress-btf-loop"
	# a relocation section without data: parsed
	run --separate-stderr "$BPFTOOL" token needs "$corpus/regress-rel-empty"
	[[ $status == 0 && -z $stderr ]]
	[[ $output == *"allowed_progs: xdp"* ]]
}

@test "prog load, prog loadall and map create know the token keyword" {
	run --separate-stderr "$BPFTOOL" prog help
	[[ $stderr == *"[pinmaps MAP_DIR] [token TOKEN]"* ]]
	[[ $stderr == *"TOKEN := path of a pinned BPF token"* ]]
	run --separate-stderr "$BPFTOOL" map help
	[[ $stderr == *"[inner_map MAP] [dev NAME] [token TOKEN]"* ]]
	[[ $stderr == *"TOKEN := path of a pinned BPF token"* ]]

	touch "$D/file"
	run_err "token already specified" prog load "$D/x.o" "$D/p" token a token b
	run_err "token already specified" prog loadall "$D/x.o" "$D/p" token a token b
	run_err "can't open token $D/file: not a BPF FS" prog load "$D/x.o" "$D/p" token "$D/file"
	run_err "expected no more arguments, 'type', 'map', 'dev', 'pinmaps' or 'token', got: 'frob'?" \
		prog load "$D/x.o" "$D/p" frob
	run_err "can't open token $D/file: not a BPF FS" map create "$D/m" type hash \
		key 4 value 4 entries 1 name m token "$D/file"
}

@test "man pages build with rst2man without a warning" {
	out=$BATS_TEST_TMPDIR/man/
	mkdir -p "$out"
	make -s -C "$SRC/Documentation" OUTPUT="$out" \
		RST2MAN_OPTS="--strip-comments --halt=warning" man
	ls "$out"
	for s in NAME SYNOPSIS "TOKEN COMMANDS" DESCRIPTION OPTIONS EXAMPLES "SEE ALSO"; do
		grep -q "^\.SH $s" "$out/bpftool-token.8" || { echo "no section $s"; false; }
	done
	grep -q 'bpftool\\-token' "$out/bpftool.8"
	grep -q 'bpftool\\-token' "$out/bpftool-prog.8"
	# the token keyword made it into the patched man pages
	grep -A1 'pinmaps' "$out/bpftool-prog.8" | grep -q 'token'
	grep -q 'token' "$out/bpftool-map.8"
}

# Words of the usage lines of `bpftool token help` (lower case keywords)
help_keywords() {
	"$BPFTOOL" token help 2>&1 | sed -n '1,/^$/p' | sed "s|$BPFTOOL||g" |
		grep -oE '\b[a-z_]+\b' | sort -u
}

man_keywords() {
	# from the first usage line to the empty line that ends the usage
	sed -n '/^|\t\*\*bpftool\*\*/,/^|$/p' "$SRC/Documentation/bpftool-token.rst" |
		grep -oE '\*\*[a-z_ ]+\*\*' |
		tr -d '*' | tr ' ' '\n' | grep -v '^bpftool$' | grep . | sort -u
}

# Names of NONTERM := { a | b | ... } in the help, in order, one per line
help_list() {
	"$BPFTOOL" token help 2>&1 | awk -v nt="$1" '
		$1 == nt && $2 == ":=" { on = 1 }
		on {
			last = /}/
			gsub(/[{}|]/, " ")
			for (i = 1; i <= NF; i++)
				if ($i != nt && $i != ":=") print $i
			if (last) on = 0
		}'
}

man_list() {
	awk -v nt="*$1*" '
		$2 == nt && $3 == ":=" { on = 1 }
		on {
			last = /}/
			n = split($0, w, /\*\*/)
			for (i = 2; i <= n; i += 2) print w[i]
			if (last) on = 0
		}' "$SRC/Documentation/bpftool-token.rst"
}

@test "help and man page agree: commands and keywords" {
	diff -u <(help_keywords) <(man_keywords)
	# sanity: the lists hold what they must
	[[ $(help_keywords | tr '\n' ' ') == "attach cgroup cmds create delegate format help list maps needs object progs revoke show token userns verifier " ]]
}

@test "help and man page agree: grammar symbols" {
	h=$("$BPFTOOL" token help 2>&1 | grep -oE '^\s+[A-Z_]+ :=' | awk '{print $1}' | sort)
	m=$(grep -oP '^\|\t\*[A-Z_]+\* :=' "$SRC/Documentation/bpftool-token.rst" |
		tr -d '|*\t' | awk '{print $1}'; echo OPTIONS)
	diff -u <(echo "$h") <(echo "$m" | sort)
	# every symbol of the usage lines but PATH is defined
	for s in $("$BPFTOOL" token help 2>&1 | sed -n '1,/^$/p' | grep -oE '\b[A-Z_]+\b' | sort -u); do
		[[ $s == PATH ]] || grep -qx "$s" <<<"$h" || { echo "$s not defined"; false; }
	done
}

@test "help and man page agree: command, map, program and attach type names" {
	for nt in CMD MAP_TYPE PROG_TYPE ATTACH_TYPE; do
		echo "== $nt"
		diff -u <(help_list $nt) <(man_list $nt)
		[[ $(help_list $nt | wc -l) -ge 30 ]]
	done
	# the types are libbpf's, all of them
	diff -u <("$BPFTOOL" feature list_builtins map_types) <(help_list MAP_TYPE)
	diff -u <("$BPFTOOL" feature list_builtins prog_types) <(help_list PROG_TYPE)
	diff -u <("$BPFTOOL" feature list_builtins attach_types) <(help_list ATTACH_TYPE)
}

@test "help and man page agree: options" {
	h=$("$BPFTOOL" token help 2>&1 | grep 'OPTIONS :=' | grep -oE -- '--?[a-z]+' | sort)
	# |COMMON_OPTIONS| of the man page's synopsis
	m=$(grep 'COMMON_OPTIONS| replace::' "$SRC/Documentation/substitutions.rst" |
		grep -oE -- '--?[a-z]+' | sort)
	grep -qP '^\t\*OPTIONS\* := \{ \|COMMON_OPTIONS\| \}$' "$SRC/Documentation/bpftool-token.rst"
	diff -u <(echo "$h") <(echo "$m")
	[[ $(echo $h) == "--debug --json --legacy --pretty -d -j -l -p" ]]
	# and the OPTIONS section documents each of them
	grep -qP '^\t.. include:: common_options.rst' "$SRC/Documentation/bpftool-token.rst"
	for o in $h; do
		grep -qE -- "(^|, )$o(,|$)" "$SRC/Documentation/common_options.rst" ||
			{ echo "$o not documented"; false; }
	done
}

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

@test "install with PREFIX and DESTDIR: bpftool, the token man page, the completion" {
	dest=$BATS_TEST_TMPDIR/dest
	run env DESTDIR="$dest" PREFIX=/opt/bt "$TOP/scripts/bpftool.sh" install
	echo "$output"
	[[ $status == 0 ]]
	[[ -x $dest/opt/bt/sbin/bpftool ]]
	"$dest/opt/bt/sbin/bpftool" token help 2>&1 | grep -q 'token create PATH'
	grep -q '^\.SH TOKEN COMMANDS' "$dest/opt/bt/share/man/man8/bpftool-token.8"
	grep -q 'bpftool\\-token' "$dest/opt/bt/share/man/man8/bpftool.8"
	grep -q '_bpftool_token_list' "$dest/opt/bt/share/bash-completion/completions/bpftool"
}
