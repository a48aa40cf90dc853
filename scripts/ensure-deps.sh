#!/bin/sh
# Installs the Debian packages xipbench needs to build, run and test, if any are missing.
# As root it runs apt-get; otherwise it uses sudo without a password if it can. When it
# cannot install, it names the packages and the exact command to run, and fails.
set -u
PKGS="gcc make pkg-config libelf-dev libdw-dev libsqlite3-dev sqlite3 libcmocka-dev \
gcc-arm-none-eabi binutils-arm-none-eabi libnewlib-arm-none-eabi picolibc-arm-none-eabi \
libunicorn-dev tshark libpcap-dev libusb-1.0-0-dev libncurses-dev groff-base \
clang libclang-rt-14-dev tmux jq libxml2-utils cmake ninja-build iproute2 iputils-ping"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

APT="apt-get install -y --no-install-recommends"
echo "xipbench: installing missing Debian packages:$missing" >&2
if [ "$(id -u)" = 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo -n"
else
	echo "xipbench: these Debian packages are missing:$missing" >&2
	echo "xipbench: install them as root:  DEBIAN_FRONTEND=noninteractive $APT$missing" >&2
	exit 1
fi
# The log is this user's own file (another user's fixed /tmp name could not be written).
log=$(mktemp "${TMPDIR:-/tmp}/xipbench-apt.XXXXXX") || { echo "xipbench: mktemp failed" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO env DEBIAN_FRONTEND=noninteractive $APT $missing >"$log" 2>&1; then
	# The package lists may be stale or absent on a fresh machine.
	$SUDO apt-get update >>"$log" 2>&1
	if ! $SUDO env DEBIAN_FRONTEND=noninteractive $APT $missing >>"$log" 2>&1; then
		echo "xipbench: apt-get could not install:$missing (log: $log)" >&2
		tail -n 5 "$log" >&2
		echo "xipbench: to try by hand, as root:  DEBIAN_FRONTEND=noninteractive $APT$missing" >&2
		exit 1
	fi
fi
rm -f "$log"
echo "xipbench: packages installed" >&2
