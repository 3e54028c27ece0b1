#!/bin/bash
# Install the Debian packages the pipeline needs; a no-op when all are present.
set -euo pipefail

pkgs=(
	linux-source-6.1
	build-essential flex bison bc cpio rsync util-linux kmod git
	libssl-dev libelf-dev zlib1g-dev libcap-dev libzstd-dev
	clang llvm lld ccache libclang-rt-14-dev
	qemu-system-x86 busybox-static
	bats bash-completion jq python3 python3-docutils
	dwarves iproute2 systemd linux-config-6.1
	xdp-tools libxdp1
	runc crun podman
)

# One dpkg-query for all: "name status" for each package dpkg knows.
declare -A st=()
while read -r name status; do
	st[${name%%:*}]=$status
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${pkgs[@]}" 2>/dev/null || true)
missing=()
for p in "${pkgs[@]}"; do
	[[ ${st[$p]:-} == installed ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "deps: installing ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
	echo "deps: need root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists once when they are missing or older than a day.
lists=/var/lib/apt/lists
if [[ -z $(find "$lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -1) ]]; then
	apt-get update -q
fi
apt-get install -y -q --no-install-recommends "${missing[@]}"
