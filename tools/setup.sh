#!/usr/bin/env bash
# Installs what runner needs from Debian's packages, then configures and builds it (Release)
# into build/. Safe to run again: installed packages and a configured build are reused.
# `tools/setup.sh --packages` installs the packages and selects the BLAS, and builds nothing.
#
# Debian 12 (bookworm): LibTorch 1.13, CPU. Debian 13 (trixie): LibTorch 2.6, CPU by default;
# RUNNER_LIBTORCH=cuda takes its CUDA build instead (libtorch-cuda-dev, CUDA 12.4, NCCL 2.22,
# from contrib and non-free) and builds runner's CUDA code for A100 and H100 (sm_80, sm_90).
# That LibTorch depends on nvidia-cudnn, which downloads cuDNN from NVIDIA while it installs;
# RUNNER_CUDNN=stand-in installs runner's stand-in instead (tools/debian13/cudnn_stand_in.sh:
# enough to build and to run on a machine without a GPU, not to train on one).
# RUNNER_BUILD_TARGETS="a b ..." builds only those targets (runner_products: the runner and its
# plugins, no tests). RUNNER_WERROR=ON makes the compiler's warnings errors (CI).
# RUNNER_BROWSER=no installs no chromium nor firefox-esr (the browser tests of the HTML report
# then skip).
set -euo pipefail

cd "$(dirname "$0")/.."

fail() { echo "setup: $*" >&2; exit 1; }

build=yes
case "${1:-}" in
  "") ;;
  --packages) build=no ;;
  *) fail "unknown argument '$1' (tools/setup.sh [--packages])" ;;
esac

release=unknown
[[ -r /etc/os-release ]] && release=$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
libtorch=${RUNNER_LIBTORCH:-cpu}
case "$release/$libtorch" in
  bookworm/cpu | trixie/cpu)
    torch_packages=(libtorch-dev libgloo-dev python3-torch) ;;
  trixie/cuda)
    torch_packages=(libtorch-cuda-dev libgloo-cuda-dev python3-torch-cuda libnccl-dev
                    nvidia-cuda-toolkit) ;;
  bookworm/cuda)
    fail "Debian 12 has no CUDA LibTorch: use Debian 13 (tools/debian13/run.sh cuda makes a root" \
         "of it here) or pip's PyTorch (tools/gpu/README.md)" ;;
  */cpu | */cuda)
    fail "this is Debian '$release'; runner supports Debian 12 (bookworm, LibTorch 1.13) and" \
         "Debian 13 (trixie, LibTorch 2.6)" ;;
  *) fail "RUNNER_LIBTORCH=$libtorch: use cpu or cuda" ;;
esac

packages=(
  build-essential cmake ninja-build pkg-config
  "${torch_packages[@]}" libopenblas0-openmp
  libboost-dev libtomlplusplus-dev libfmt-dev libcli11-dev
  libsleef-dev libhdf5-dev hdf5-tools zlib1g-dev nlohmann-json3-dev libcurl4-openssl-dev libssl-dev libgtest-dev libgmock-dev
  libprotobuf-dev protobuf-compiler
  dataset-fashion-mnist python3-numpy python3-h5py python3-pandas python3-matplotlib
  python3-protobuf python3-crcmod flit python3-venv
)
# The suite opens `runner report --html`'s pages in real browsers, Chromium and Firefox (about
# 2.5 minutes to install both).
[[ ${RUNNER_BROWSER:-yes} == no ]] || packages+=(chromium firefox-esr)

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
if [[ $libtorch == cuda && ${RUNNER_CUDNN:-} == stand-in ]]; then
  "${sudo_cmd[@]}" bash tools/debian13/cudnn_stand_in.sh package
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  # CI makes a Debian 13 root beside this, whose script may install debootstrap meanwhile:
  # apt's lists lock fails at once where its dpkg lock can wait, so both scripts queue on
  # /var/lock/runner-apt.lock first.
  "${sudo_cmd[@]}" flock /var/lock/runner-apt.lock apt-get -o DPkg::Lock::Timeout=600 update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" flock /var/lock/runner-apt.lock \
    apt-get -o DPkg::Lock::Timeout=600 install -y -q \
    --no-install-recommends "${missing[@]}"
fi
if [[ $libtorch == cuda && ${RUNNER_CUDNN:-} == stand-in ]]; then
  "${sudo_cmd[@]}" bash tools/debian13/cudnn_stand_in.sh library
fi

# Debian's libtorch calls whatever libblas.so.3 and liblapack.so.3 are selected (each needs
# libopenblas.so.0, selected apart: all three must be the same build); the reference
# BLAS is ~27x slower. OpenBLAS's OpenMP build multiplies on ATen's own OpenMP threads, where
# the pthreads build's pool competes with them (GPT-2 small's step 6.2 s against 10.1 s here,
# LeNet-5's epoch no slower: tools/bench/README.md, gpt2_step.sh).
for library in libblas.so.3 liblapack.so.3 libopenblas.so.0; do
  alternative=$library-$(gcc -dumpmachine)
  if ! update-alternatives --query "$alternative" 2>/dev/null | grep -q '^Value: .*openblas-openmp'; then
    openblas=$(update-alternatives --list "$alternative" | grep openblas-openmp | head -n 1)
    "${sudo_cmd[@]}" update-alternatives --set "$alternative" "$openblas"
  fi
done

[[ $build == yes ]] || { echo "setup: packages installed (Debian $release, LibTorch for $libtorch)"; exit 0; }

cuda=OFF
if [[ $libtorch == cuda ]]; then
  cuda=ON
  # LibTorch's CMake config guesses architectures from a GPU, or lists six without one.
  export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-8.0;9.0}
fi
jobs=${RUNNER_BUILD_JOBS:-$(nproc)}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRUNNER_BUILD_TESTS=ON -DRUNNER_WITH_CUDA=$cuda \
  -DRUNNER_WERROR="${RUNNER_WERROR:-OFF}"
read -r -a targets <<< "${RUNNER_BUILD_TARGETS:-all}"
cmake --build build -j "$jobs" --target "${targets[@]}"
echo "setup: built build/bin/runner (Debian $release, LibTorch for $libtorch)"
