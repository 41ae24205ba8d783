#!/usr/bin/env bash
# Here, on Debian 12: downloads the Debian packages runner builds against, with everything
# they need, into .gpu-packages/ (ignored by git) for a GPU machine that has PyTorch with CUDA
# but no Debian packages and no network. build_and_test.sh unpacks them there. About 40 MB.
set -euo pipefail
cd "$(dirname "$0")/../.."

packages=(
  libboost-dev libboost-filesystem-dev libtomlplusplus-dev libfmt-dev libcli11-dev
  libhdf5-dev zlib1g-dev nlohmann-json3-dev libcurl4-openssl-dev libssl-dev libgtest-dev
  libprotobuf-dev protobuf-compiler
)
# What any machine with a compiler has in a version of its own: never carried.
toolchain=(
  gcc-12-base libasan8 libatomic1 libc-dev-bin libc6 libc6-dev libcrypt-dev libcrypt1
  libgcc-12-dev libgcc-s1 libgomp1 libitm1 liblsan0 libquadmath0 'libstdc++-12-dev' 'libstdc++6'
  libtsan2 libubsan1 linux-libc-dev libnsl-dev libtirpc-dev rpcsvc-proto libgfortran5
  libhdf5-fortran-102 libhdf5-hl-fortran-100
)

target=.gpu-packages
rm -rf "$target" && mkdir -p "$target/partial"
# An empty package status makes apt fetch every dependency, as for a bare machine.
apt-get -q -o Dir::State::status=/dev/null -o Dir::Cache::archives="$PWD/$target" \
  -o Debug::NoLocking=1 --download-only -y --no-install-recommends \
  install "${packages[@]}" >/dev/null
rm -rf "$target/partial" "$target/lock"
for name in "${toolchain[@]}"; do rm -f "$target/${name}"_*.deb; done
count=$(ls "$target"/*.deb | wc -l)
echo "fetch_packages: $count packages, $(du -sh "$target" | cut -f1) in $target/"
