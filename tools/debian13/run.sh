#!/usr/bin/env bash
# Builds and tests runner on Debian 13 (trixie, LibTorch 2.6) from a Debian 12 machine: makes a
# Debian 13 root with debootstrap in .debian13/VARIANT/ (git ignores it; reused when present),
# copies this checkout into it (tracked and untracked files, not what git ignores) and runs
# tools/setup.sh and the test suite there, as root in a chroot.
#   tools/debian13/run.sh cpu|cuda [test|check|build|packages|shell|-- COMMAND...]
#     cpu    libtorch-dev 2.6
#     cuda   libtorch-cuda-dev 2.6 with CUDA 12.4 and NCCL 2.22, runner's CUDA code for sm_80
#            and sm_90, cuDNN's stand-in (cudnn_stand_in.sh); with no GPU, CUDA's tests skip
#     test   (the default) setup, then every test, as the README's command runs them
#     check  a quicker subset (here 7 of test's 20 minutes): the
#            runner and every plugin, so every CUDA translation unit and .cu file; the tests of
#            runner/compat.hpp's 2.x branches (the optimizer state's key in strategy
#            support's checkpoints, the store server in distributed, the fused attention and
#            its bf16-in-float path on the CPU in gpt2's); and the fixture plugin
#            cross_check.sh loads
#     build  setup only
#     packages  the root and its packages, no build (CI makes them while it builds for Debian 12)
#     shell  an interactive shell in the root, in the copy of the checkout
#     -- COMMAND...  COMMAND in the copy of the checkout as it is: no copy, no setup (run
#                    build first)
# RUNNER_WERROR=ON makes the build's warnings errors there too (CI). RUNNER_BROWSER=yes installs
# chromium there too (by default the root has none, and the HTML report's browser tests skip
# there: this machine's suite opens the pages). The packages come from the mirror this
# machine's apt already uses.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
variant=${1:-}
case "$variant" in
  cpu | cuda) shift ;;
  *) echo "usage: $0 cpu|cuda [test|check|build|packages|shell|-- COMMAND...]" >&2; exit 2 ;;
esac
action=${1:-test}
[[ $# -gt 0 ]] && shift
[[ $action =~ ^(--|test|check|build|packages|shell)$ ]] ||
  { echo "debian13: unknown action '$action'" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "debian13: run as root (debootstrap and chroot need it)" >&2; exit 2; }

root=$here/.debian13/$variant
copy=/src/runner
check_tests=(strategy_plugins_test distributed_test model_plugins_test op_plugins_test)

mirror() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | grep -v security | awk '{print $2}' | head -n 1)
  [[ -n $uri ]] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | grep -v security | awk '{print $2}' | head -n 1)
  echo "${uri:-http://deb.debian.org/debian}"
}

make_root() {
  [[ -e $root/.runner-root ]] && return
  # CI runs this beside tools/setup.sh: both queue on one lock (apt's own lists lock does not
  # wait, see tools/setup.sh).
  if ! command -v debootstrap > /dev/null; then
    flock /var/lock/runner-apt.lock apt-get -o DPkg::Lock::Timeout=600 update -q
    DEBIAN_FRONTEND=noninteractive flock /var/lock/runner-apt.lock \
      apt-get -o DPkg::Lock::Timeout=600 install -y -q debootstrap
  fi
  rm -rf "$root"
  mkdir -p "$root"
  echo "debian13: making a Debian 13 root in $root from $(mirror)"
  debootstrap --variant=minbase --components=main,contrib,non-free trixie "$root" "$(mirror)" \
    > "$here/.debian13/debootstrap-$variant.log"
  touch "$root/.runner-root"
}

# /proc, /sys, a pty and shared memory for the suite; the root's own /dev nodes from debootstrap.
# What another run of this script mounted is left to it.
mounted=()
mount_one() {
  local type=$1 at=$root/$2
  mkdir -p "$at"
  mountpoint -q "$at" && return
  mount -t "$type" "$type" "$at"
  mounted+=("$at")
}
mount_all() {
  mount_one proc proc
  mount_one sysfs sys
  mount_one devpts dev/pts
  mount_one tmpfs dev/shm
}
unmount_all() {
  local at
  for at in "${mounted[@]}"; do umount -l "$at"; done
  return 0
}

copy_checkout() {
  mkdir -p "$root$copy"
  find "$root$copy" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
  (cd "$here" && git ls-files -z --cached --others --exclude-standard |
     tar --null -T - --ignore-failed-read -cf -) | tar -xf - -C "$root$copy"
}

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 RUNNER_LIBTORCH="$variant" RUNNER_CUDNN=stand-in RUNNER_BROWSER="${RUNNER_BROWSER:-no}" RUNNER_WERROR="${RUNNER_WERROR:-OFF}" \
    RUNNER_BUILD_JOBS="${RUNNER_BUILD_JOBS:-$(nproc)}" bash -c "cd $copy && $1"
}

make_root
trap unmount_all EXIT
mount_all
if [[ $action == -- ]]; then
  in_root "$(printf '%q ' "$@")"
  exit
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
copy_checkout
if [[ $action == packages ]]; then
  in_root "bash tools/setup.sh --packages"
  exit 0
fi
if [[ $action == check ]]; then
  in_root "RUNNER_BUILD_TARGETS='runner_products runner_plugin_fixture_good ${check_tests[*]}' \
    bash tools/setup.sh"
  labels=$(IFS='|'; echo "${check_tests[*]}")
  in_root "ctest --test-dir build --output-on-failure -j 2 --timeout 600 -L '^($labels)\$'"
  exit 0
fi
in_root "bash tools/setup.sh"
case "$action" in
  build) ;;
  test) in_root "ctest --test-dir build --output-on-failure -j 2 --timeout 600" ;;
  shell) in_root "exec bash -i" ;;
esac
