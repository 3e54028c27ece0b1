# The host files of bpftool token (tests/host/bpftool-token-*.bats) load
# this: the BPF objects some of them compile, the setup of every test,
# run_err's state, and the names the help lists.

load ../helpers/run-err

# compile_test_objects: BPF objects for `token needs` and create's object
# keyword, compiled into $BATS_FILE_TMPDIR (call it from setup_file) so that
# the test says exactly what is in them: mix.bpf.o (maps of every kind libbpf
# creates, programs whose expected attach type is 0, one whose autoload is
# off), nobtf.bpf.o (no BTF, no map), odd.bpf.o (a section libbpf does not
# know), ext.bpf.o (an extension program, freplace), names.bpf.o (type names
# with digits, for the systemd names), kmem.bpf.o (programs of non-tracing
# types calling helpers that read kernel memory, directly, from a subprogram
# or from a callback, and programs that do not), relax.bpf.o (programs that
# the strict verifier refuses for what the relaxed one allows, and one it
# loads) and bad.bpf.o (a program no verifier loads).
compile_test_objects() {
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
	# the test objects, in the files that compile them (setup_file)
	[[ -z ${OBJ_LOG:-} ]] ||
		[[ -f $OBJ_MIX && -f $OBJ_NOBTF && -f $OBJ_ODD && -f $OBJ_EXT && -f $OBJ_NAMES &&
		-f $OBJ_KMEM && -f $OBJ_RELAX && -f $OBJ_BAD ]] ||
		{ cat "$OBJ_LOG"; echo "can't compile the test objects"; false; }
}

# The contents of $D, to check that a failed command created nothing.
snapshot() {
	(cd "$D" && find . | sort)
}

# what run_err (tests/helpers/run-err.bash) checks is unchanged
run_err_state() {
	snapshot
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
