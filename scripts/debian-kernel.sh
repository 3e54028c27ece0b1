#!/bin/bash
# Debian's own prebuilt mainline kernel, the reference implementation of
# mainline's BPF token ABI for tests/vm-mainline: the newest
# linux-image-6.12.*+deb12-amd64-unsigned (the generic flavour, whose 9p is
# modules; the cloud flavour has no 9p) that bookworm-backports or
# bookworm-security have (Debian's 6.12 for bookworm: security updates
# carry it further than backports), downloaded, never installed, and made
# bootable by scripts/vm-run.sh.
#
#   debian-kernel.sh
#
# The suite bookworm-backports is added to the machine's Debian source and
# the package lists are refreshed when they are a day old
# (scripts/lib/debian-apt.sh: DEBIAN_SOURCES); the package is fetched with
# `apt-get download` into DEBIAN_APT_CACHE (default /var/cache/bpf-token,
# outside the clone: every clone on the machine reuses it) and checked
# against the lists' SHA256. Makes build/debian-kernel/:
#   vmlinuz      the kernel
#   initrd.img   an initramfs (cpio, gzip) of busybox-static and the modules
#                that mounting the host's root over virtio-9p needs (9p,
#                9pnet, 9pnet_virtio, netfs and what `modinfo -F depends`
#                says they need), decompressed; its /init loads them in
#                dependency order, mounts the root as the kernel command
#                line says (root=, rootfstype=, rootflags=, ro) on /newroot,
#                moves /dev, /proc and /sys there and switch_roots to the
#                init= program, with the environment the kernel gave it
#                (vm_dir, vm_shell, vm_share of scripts/vm-run.sh)
#   config       the kernel's configuration
#   version      one line, "RELEASE PACKAGE VERSION": the kernel's release
#                (uname -r), the package, its Debian version
# One line and nothing else when build/debian-kernel already holds the
# newest package (and was made by this version of the script). Root is
# needed for the sources, the lists and the cache, unless they are done.
#
# Environment: DEBIAN_KERNEL_SERIES (default 6.12), DEBIAN_APT_CACHE,
# DEBIAN_SOURCES.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$TOP/scripts/lib/debian-apt.sh"

series=${DEBIAN_KERNEL_SERIES:-6.12}
out=$BUILD/debian-kernel
busybox=/bin/busybox

apt_backports

# --- the newest package of the series ---

re="^linux-image-${series//./\\.}\\.[0-9]+\\+deb12-amd64-unsigned\$"
pkg=$(apt-cache pkgnames "linux-image-$series." | grep -E "$re" | sort -V | tail -n 1 || true)
[[ -n $pkg ]] || die "no linux-image-$series.*+deb12-amd64-unsigned in the package lists (bookworm-backports, bookworm-security)"
ver=$(apt-cache show --no-all-versions "$pkg" | sed -n 's/^Version: //p' || true)
[[ -n $ver ]] || die "apt-cache show $pkg: no Version"

if [[ -f $out/version && -f $out/vmlinuz && -f $out/initrd.img &&
      $out/initrd.img -nt ${BASH_SOURCE[0]} && $(cut -d' ' -f2- "$out/version") == "$pkg $ver" ]]; then
	echo "debian-kernel: $(cut -d' ' -f1 "$out/version") ($pkg $ver), up to date"
	exit 0
fi

# --- download into the cache ---

[[ -x $busybox && $(readelf -lW "$busybox" 2>&1) != *'program interpreter'* ]] ||
	die "$busybox is missing or not static: install busybox-static (make deps)"
deb=$(apt_fetch "$pkg" "$ver")
# older kernels of the series go
for f in "$DEBIAN_APT_CACHE"/linux-image-"$series".*-amd64-unsigned_*.deb; do
	[[ ! -f $f || $f == "$deb" ]] || rm -f "$f"
done

# --- the kernel and the initramfs ---

log "debian-kernel: extracting $pkg $ver"
mkdir -p "$BUILD"
work=$(mktemp -d "$BUILD/debian-kernel.tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$deb" "$work/pkg" || die "dpkg-deb -x $deb failed"
vmlinuz=$(compgen -G "$work/pkg/boot/vmlinuz-*" | head -n 1 || true)
[[ -n $vmlinuz ]] || die "$deb has no /boot/vmlinuz-*"
rel=${vmlinuz##*/vmlinuz-}
config=$work/pkg/boot/config-$rel
moddir=$work/pkg/lib/modules/$rel
[[ -d $moddir ]] || moddir=$work/pkg/usr/lib/modules/$rel
[[ -f $config && -d $moddir ]] || die "$deb has no config-$rel or modules/$rel"

# What booting needs built in, and what the 9p root needs, built in or a
# module (the rest the modules' dependencies bring).
config_of() { sed -n "s/^CONFIG_$1=//p" "$config"; }
for o in BLK_DEV_INITRD RD_GZIP DEVTMPFS PROC_FS SERIAL_8250_CONSOLE BPF_SYSCALL; do
	[[ $(config_of "$o") == y ]] || die "$rel: CONFIG_$o is not built in"
done
wanted=()
for om in VIRTIO_PCI:virtio_pci NET_9P:9pnet NET_9P_VIRTIO:9pnet_virtio 9P_FS:9p NETFS_SUPPORT:netfs; do
	case $(config_of "${om%%:*}") in
	y) ;;
	m) wanted+=("${om#*:}") ;;
	*) die "$rel: CONFIG_${om%%:*} is neither built in nor a module" ;;
	esac
done

# Each module's file by its name ('-' and '_' alike), then the wanted ones
# with their dependencies first.
declare -A modfile=() seen=()
while IFS= read -r f; do
	n=${f##*/}
	n=${n%%.ko*}
	modfile[${n//-/_}]=$f
done < <(find "$moddir" -name '*.ko*')
order=()
add_module() {
	local m=${1//-/_} deps d
	[[ -z ${seen[$m]:-} ]] || return 0
	seen[$m]=1
	[[ -n ${modfile[$m]:-} ]] || die "$rel: no module $m"
	deps=$(modinfo -F depends "${modfile[$m]}") || die "modinfo ${modfile[$m]} failed"
	for d in ${deps//,/ }; do
		add_module "$d"
	done
	order+=("$m")
}
for m in ${wanted[@]+"${wanted[@]}"}; do
	add_module "$m"
done

root=$work/initramfs
mkdir -p "$root"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$busybox" "$root/bin/busybox"
for a in sh mount insmod switch_root reboot cat grep sleep; do
	ln -s busybox "$root/bin/$a"
done
for m in ${order[@]+"${order[@]}"}; do
	f=${modfile[$m]}
	case $f in
	*.ko) cp "$f" "$root/lib/modules/$m.ko" ;;
	*.ko.xz) xz -dc "$f" >"$root/lib/modules/$m.ko" ;;
	*.ko.zst) zstd -qdc "$f" >"$root/lib/modules/$m.ko" ;;
	*.ko.gz) gzip -dc "$f" >"$root/lib/modules/$m.ko" ;;
	*) die "$f: unknown module compression" ;;
	esac
	echo "$m"
done >"$root/lib/modules/load"

cat >"$root/init" <<'EOF'
#!/bin/sh
# PID 1 of the initramfs of Debian's kernel (scripts/debian-kernel.sh): the
# modules of /lib/modules/load, in that order; the root the kernel command
# line names (root=, rootfstype=, rootflags=, ro/rw) on /newroot; /dev,
# /proc and /sys moved there; then the init= program, with the environment
# the kernel gave this one.
fail() {
	echo "initramfs: $*"
	reboot -f
	sleep 5
}

mount -t devtmpfs devtmpfs /dev || fail "can't mount devtmpfs"
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc || fail "can't mount proc"
mount -t sysfs sysfs /sys || fail "can't mount sysfs"

for m in $(cat /lib/modules/load); do
	insmod "/lib/modules/$m.ko" || fail "can't load the module $m"
done

init=/sbin/init rootdev= fstype= flags= mode=ro
for w in $(cat /proc/cmdline); do
	case $w in
	init=*) init=${w#init=} ;;
	root=*) rootdev=${w#root=} ;;
	rootfstype=*) fstype=${w#rootfstype=} ;;
	rootflags=*) flags=${w#rootflags=} ;;
	ro | rw) mode=$w ;;
	esac
done
[ -n "$rootdev" ] && [ -n "$fstype" ] || fail "no root= and rootfstype= on the kernel command line"
mount -t "$fstype" -o "$mode${flags:+,$flags}" "$rootdev" /newroot ||
	fail "can't mount $rootdev ($fstype, $mode,$flags) on /newroot"

moves=
for d in /dev /proc /sys; do
	grep -q " $d " /proc/mounts && moves="$moves $d"
done
for d in $moves; do
	mount --move "$d" "/newroot$d" || fail "can't move $d to /newroot$d"
done
exec switch_root /newroot "$init"
EOF
chmod 0755 "$root/init"
# the same files make the same archive
find "$root" -exec touch -h -d @0 {} +

new=$work/out
mkdir -p "$new"
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --reproducible --quiet) |
	gzip -9n >"$new/initrd.img"
cp "$vmlinuz" "$new/vmlinuz"
cp "$config" "$new/config"
echo "$rel $pkg $ver" >"$new/version"
rm -rf "$out"
mv "$new" "$out"
echo "debian-kernel: $rel ($pkg $ver): ${out#"$TOP"/}/vmlinuz, initrd.img (modules: ${order[*]})"
