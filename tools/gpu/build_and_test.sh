#!/usr/bin/env bash
# On a GPU machine with PyTorch (pip's, with CUDA) and none of Debian's packages: unpacks the
# packages fetch_packages.sh fetched (a package is unpacked only where none of its files
# exists yet, so the machine's own libraries stay), builds the CUDA configuration against
# PyTorch's LibTorch into build-cuda/, and runs what needs a GPU. Logs and results go to
# $RUNNER_GPU_OUT (gpu-out/ when unset).
#   tools/gpu/build_and_test.sh build     unpack, configure, build
#   tools/gpu/build_and_test.sh test      the whole suite, then the GPU tests on their own
#   tools/gpu/build_and_test.sh bench     check-op on CUDA, gpt2 techniques, TensorBoard's reader
# pip's LibTorch ships no Gloo headers, so this build has NCCL only: tests of 2 Gloo ranks
# fail for the build's lack of Gloo; ctest_gpu.log holds the GPU's own tests apart.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${RUNNER_GPU_OUT:-gpu-out}
mkdir -p "$out"
packages=.gpu-packages

unpack() {
  for deb in "$packages"/*.deb; do
    local taken=0
    while read -r path; do
      [[ -e $path || -L $path ]] && taken=1 && break
    done < <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|' |
             grep -v '^/usr/share/doc')
    if ((taken)); then
      echo "kept the machine's own: $(basename "$deb")"
    else
      dpkg -x "$deb" /
    fi
  done
  ldconfig
}

build() {
  unpack 2>&1 | tee "$out/unpack.log"
  local torch
  torch=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
  cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DRUNNER_BUILD_TESTS=ON \
    -DCMAKE_PREFIX_PATH="$torch" -DCMAKE_CUDA_ARCHITECTURES=90 -DRUNNER_WITH_CUDA=ON \
    2>&1 | tee "$out/configure.log" || return 1
  cmake --build build-cuda -j "$(nproc)" 2>&1 | tee "$out/build.log" |
    grep -E 'error|FAILED' | head -40
  return "${PIPESTATUS[0]}"
}

gpu_tests='Cuda|Gpu|Nccl|OnCuda|Offload|Mfu|GpuMonitor'

run_tests() {
  (cd build-cuda && ctest -j "$(nproc)" --timeout 600 --output-on-failure) > "$out/ctest.log" 2>&1
  grep -E 'tests passed|tests failed|\(Failed\)|\(Timeout\)' "$out/ctest.log" | head -60
  (cd build-cuda && ctest -R "$gpu_tests" --timeout 600 --output-on-failure -V) \
    > "$out/ctest_gpu.log" 2>&1
  grep -E '^\s*[0-9]+/[0-9]+ Test|tests passed' "$out/ctest_gpu.log"
}

bench() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/gpu.txt"
  for op in gelu fused_conv_relu max_pool2d; do
    build-cuda/bin/runner check-op "$op" --device cuda 2>&1 | tee -a "$out/check_op.log" | tail -4
  done
  build-cuda/bin/runner experiments/gpt2_techniques.toml --set train.device=cuda \
    --set experiment.results="$out/gpt2_techniques.h5" --tensorboard "$out/tb" -q 2>&1 |
    tee "$out/gpt2_techniques.log" | tail -30
  python3 tools/gpu/read_with_tensorboard.py "$out/tb" "$out/gpt2_techniques.h5" 2>&1 |
    tee "$out/tensorboard.log" | tail -20
}

case "${1:-}" in
  build) build ;;
  test) run_tests ;;
  bench) bench ;;
  *) echo "usage: $0 build|test|bench" >&2; exit 2 ;;
esac
