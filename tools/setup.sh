#!/usr/bin/env bash
# Installs what runner needs from Debian's packages, then configures and builds it (Release)
# into build/. Safe to run again: installed packages and a configured build are reused.
set -euo pipefail

cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config
  libtorch-dev libgloo-dev libopenblas0-pthread
  libboost-dev libboost-filesystem-dev libtomlplusplus-dev libfmt-dev libcli11-dev
  libsleef-dev libhdf5-dev hdf5-tools zlib1g-dev nlohmann-json3-dev libcurl4-openssl-dev libssl-dev libgtest-dev
  libprotobuf-dev protobuf-compiler
  dataset-fashion-mnist python3-torch python3-numpy python3-h5py python3-pandas python3-matplotlib
  python3-protobuf python3-crcmod
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Debian's libtorch calls whatever libblas.so.3 is selected; the reference BLAS is ~27x slower.
blas=libblas.so.3-$(gcc -dumpmachine)
if ! update-alternatives --query "$blas" 2>/dev/null | grep -q '^Value: .*openblas'; then
  openblas=$(update-alternatives --list "$blas" | grep openblas-pthread | head -n 1)
  update-alternatives --set "$blas" "$openblas"
fi

jobs=${RUNNER_BUILD_JOBS:-$(nproc)}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRUNNER_BUILD_TESTS=ON
cmake --build build -j "$jobs"
echo "setup: built build/bin/runner"
