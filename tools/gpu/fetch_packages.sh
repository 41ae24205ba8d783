#!/usr/bin/env bash
# Here, on Debian 12: downloads the Debian packages runner builds against, with everything
# they need, into .gpu-packages/ (ignored by git) for a GPU machine that has PyTorch with CUDA
# but no Debian packages and no network. build_and_test.sh unpacks them there. About 33 MB,
# and 26 MB more of Fashion-MNIST (from Debian's dataset-fashion-mnist, when installed), for
# the LeNet-5 study there.
set -euo pipefail
cd "$(dirname "$0")/../.."

packages=(
  libboost-dev libtomlplusplus-dev libfmt-dev libcli11-dev
  libhdf5-dev zlib1g-dev nlohmann-json3-dev libcurl4-openssl-dev libssl-dev libgtest-dev
  libprotobuf-dev protobuf-compiler
  # runner_add_cpu_kernels finds libsleef.so: pip's LibTorch has SLEEF only inside libtorch_cpu.
  libsleef-dev
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
fashion=/usr/share/datasets/fashion-mnist
if [[ -d $fashion ]]; then
  # Plain IDX files under xz are 4 MB smaller than Debian's .gz: the GPU machine takes at
  # most 64 MiB with the checkout.
  plain=$(mktemp -d)
  for gz in "$fashion"/*.gz; do gzip -dc "$gz" > "$plain/$(basename "$gz" .gz)"; done
  tar -C "$plain" -cf - . | xz -9e -T0 > "$target/fashion-mnist.tar.xz"
  rm -rf "$plain"
  echo "fetch_packages: Fashion-MNIST, $(du -sh "$target/fashion-mnist.tar.xz" | cut -f1)"
fi
