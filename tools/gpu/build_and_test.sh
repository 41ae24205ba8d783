#!/usr/bin/env bash
# On a GPU machine with PyTorch (pip's, with CUDA) and none of Debian's packages: unpacks the
# packages fetch_packages.sh fetched (a package is unpacked only where none of its files
# exists yet, so the machine's own libraries stay), builds the CUDA configuration against
# PyTorch's LibTorch into build-cuda/, and runs what needs a GPU. Logs and results go to
# $RUNNER_GPU_OUT (gpu-out/ when unset), one log per step, and timeline.log says when each
# step began, how it ended and how long it took.
#   tools/gpu/build_and_test.sh [--seconds N] STEP...
# Steps, in the order given:
#   build       unpack, put Fashion-MNIST where Debian's package puts it, configure, build
#               runner, the plugins, the fixtures and the programs of the GPU's tests (a
#               failing target does not stop the rest)
#   gpu-tests   the GPU's own tests (names matching $gpu_tests below), verbose
#   check-op    check-op --device cuda for every op
#   gpt2        gpt2_vs_pytorch.sh: runner's GPT-2 step against PyTorch's eager loop
#   compile     GPT-2 medium under torch.compile (the loop alone)
#   lenet       the baseline LeNet-5 study on Fashion-MNIST timed whole, then
#               tools/gpu/lenet_fashion_mnist.toml (0, 2, 4 loader threads)
#   offload     tools/gpu/gpt2_1p6b_offload.toml: the plan, then the run
#   techniques  experiments/gpt2_techniques.toml on cuda with TensorBoard events, read back by
#               TensorBoard itself (read_with_tensorboard.py)
#   suite       the rest of the build, then the whole suite
# --seconds N: the time all steps may take; a step that cannot have its minimum in what is
# left is skipped, and each is stopped when the time is up.
# pip's LibTorch ships no Gloo headers, so this build has NCCL only: tests of 2 Gloo ranks
# fail for the build's lack of Gloo; gpu-tests holds the GPU's own tests apart.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${RUNNER_GPU_OUT:-gpu-out}
mkdir -p "$out"
packages=.gpu-packages
runner=build-cuda/bin/runner
# GoogleTest's filter of the GPU's own tests (OnCuda and GpuMonitor among them).
gpu_tests='*Cuda*:*Gpu*:*Nccl*:*Offload*:*Mfu*'
# The test programs that hold those tests.
gpu_test_programs="cli_test experiments_test layout_test measure_test op_plugins_test record_test
  report_test results_test strategy_plugins_test tensorboard_test train_test"

unpack() {
  for deb in "$packages"/*.deb; do
    local taken=0
    while read -r path; do
      [[ -e $path || -L $path ]] && taken=1 && break
    done < <(dpkg-deb -c "$deb" 2>/dev/null | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|' |
             grep -v '^/usr/share/doc')  # stderr: a broken pipe once the first file is found
    if ((taken)); then
      echo "kept the machine's own: $(basename "$deb")"
    else
      # Not dpkg -x: its tar replaces a merged-/usr machine's /lib symlink with a directory.
      dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C /
      # A -dev package's libfoo.so names Debian's full version (libz.so -> libz.so.1.2.13);
      # where the machine kept its own libfoo of another version (Ubuntu 24.04's zlib 1.3),
      # point it at the machine's libfoo.so.N, or CMake takes libz.a, which no plugin can link.
      local link own
      while read -r link; do
        [[ -L $link && ! -e $link ]] || continue
        for own in $(ls -v "$link".* 2>/dev/null); do
          [[ -e $own ]] && ln -sfn "$(basename "$own")" "$link" && echo "relinked $link -> $own" &&
            break
        done
      done < <(dpkg-deb -c "$deb" | awk '$1 ~ /^l/ && $6 ~ /\.so$/ {print $6}' | sed 's|^\./|/|')
    fi
  done
  ldconfig
}

machine() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import torch; print("PyTorch", torch.__version__, "CUDA", torch.version.cuda)'
  echo "$(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(uname -r)"
  g++ --version | head -1; cmake --version | head -1; nvcc --version | tail -2 | head -1
  . /etc/os-release && echo "$PRETTY_NAME"
}

step_build() {
  machine 2>&1 | tee "$out/machine.txt"
  unpack > "$out/unpack.log" 2>&1
  fashion_mnist || echo "no Fashion-MNIST: $packages/fashion-mnist.tar.xz is missing"
  echo "$(grep -c "kept the machine's own" "$out/unpack.log") packages kept as the machine's own"
  local torch
  torch=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
  cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DRUNNER_BUILD_TESTS=ON \
    -DCMAKE_PREFIX_PATH="$torch" -DCMAKE_CUDA_ARCHITECTURES=90 -DRUNNER_WITH_CUDA=ON \
    > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; return 1; }
  grep -E '^-- runner:' "$out/configure.log"
  # runner, the plugins, the tests' fixtures and the programs of the GPU's tests first; the
  # suite step builds the rest.
  local first
  first=$(ninja -C build-cuda -t targets all |
          grep -oE '^(lib/runner/plugins|tests/fixtures)/[^:]*\.so' | sort -u)
  # shellcheck disable=SC2086
  ninja -C build-cuda -k 0 bin/runner $first $(printf 'tests/%s ' $gpu_test_programs) \
    > "$out/build.log" 2>&1
  local status=$?
  grep -E 'error|FAILED' "$out/build.log" | head -40
  return $status
}

step_gpu_tests() {
  local status=0 program code
  : > "$out/gpu-tests.log"
  for program in $gpu_test_programs; do
    echo "== $program" >> "$out/gpu-tests.log"
    (cd build-cuda && timeout 600 "tests/$program" --gtest_filter="$gpu_tests") \
      >> "$out/gpu-tests.log" 2>&1
    code=$?
    # 77: every test it holds skipped (tests/support/test_main.cpp).
    [[ $code -eq 0 || $code -eq 77 ]] || status=1
  done
  grep -E '^== |^\[ +(OK|FAILED|SKIPPED|PASSED) +\]' "$out/gpu-tests.log" | head -80
  return $status
}

step_check_op() {
  local status=0 op
  for op in gelu fused_conv_relu max_pool2d; do
    "$runner" check-op "$op" --device cuda > "$out/check-op-$op.log" 2>&1 || status=1
    tail -6 "$out/check-op-$op.log"
  done
  return $status
}

step_gpt2() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/gpu.txt"
  tools/gpu/gpt2_vs_pytorch.sh --runner "$runner"
}

step_compile() {
  python3 tools/bench/gpt2_step.py --device cuda --preset medium --tokens 1024 --batch 16 \
    --steps 12 --precision bf16 --peak-tflops 989 --compile 2>&1 | tail -4
}

fashion_mnist() {
  local dir=/usr/share/datasets/fashion-mnist
  [[ -e $dir/train-images-idx3-ubyte.gz || -e $dir/train-images-idx3-ubyte ]] && return
  mkdir -p "$dir" && tar -xJf "$packages/fashion-mnist.tar.xz" -C "$dir"
}

step_lenet() {
  local start=$SECONDS
  "$runner" experiments/mnist_lenet.toml --set dataset.data_dir=/usr/share/datasets/fashion-mnist \
    --set 'train.device="cuda"' --set "experiment.results=$out/mnist_lenet.h5" \
    > "$out/lenet-baseline.log" 2>&1 || { tail -5 "$out/lenet-baseline.log"; return 1; }
  echo "the baseline study, whole (process start to exit): $((SECONDS - start)) s"
  tail -8 "$out/lenet-baseline.log"
  "$runner" tools/gpu/lenet_fashion_mnist.toml --set "experiment.results=$out/lenet_workers.h5" \
    2>&1 | tail -12
}

step_offload() {
  "$runner" --dry-run tools/gpu/gpt2_1p6b_offload.toml 2>&1 | grep -A3 '^# estimate'
  "$runner" tools/gpu/gpt2_1p6b_offload.toml --set "experiment.results=$out/gpt2_1p6b.h5" \
    2>&1 | tail -14
}

step_techniques() {
  "$runner" experiments/gpt2_techniques.toml --set 'train.device="cuda"' \
    --set experiment.results="$out/gpt2_techniques.h5" --tensorboard "$out/tb" -q 2>&1 |
    tail -14
  python3 tools/gpu/read_with_tensorboard.py "$out/tb" "$out/gpt2_techniques.h5" 2>&1 | tail -6
}

step_suite() {
  ninja -C build-cuda -k 0 > "$out/build-rest.log" 2>&1 ||
    grep -E 'error|FAILED' "$out/build-rest.log" | head -20
  (cd build-cuda && ctest -j "$(nproc)" --timeout 600 --output-on-failure) > "$out/suite.log" 2>&1
  local status=$?
  grep -E 'tests passed|tests failed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Exception' \
    "$out/suite.log" | head -80
  return $status
}

# Seconds a step needs at least to be worth starting.
declare -A minimum=([build]=120 [gpu-tests]=30 [check-op]=10 [gpt2]=60 [compile]=60 [lenet]=30
                    [offload]=45 [techniques]=30 [suite]=60)

seconds=0
if [[ ${1:-} == --seconds ]]; then seconds=$2; shift 2; fi
(($#)) || { echo "usage: $0 [--seconds N] STEP..." >&2; exit 2; }
for step in "$@"; do
  [[ -n ${minimum[$step]:-} ]] || { echo "unknown step: $step" >&2; exit 2; }
done
deadline=$((SECONDS + seconds))
failed=0
for step in "$@"; do
  left=$((deadline - SECONDS))
  if ((seconds > 0 && left < minimum[$step])); then
    echo "$step: skipped, ${left} s left" | tee -a "$out/timeline.log"
    continue
  fi
  echo "=== $step ($(date -u +%T))"
  start=$SECONDS
  if ((seconds > 0)); then
    export -f "step_${step//-/_}" machine unpack fashion_mnist
    export out packages runner gpu_tests gpu_test_programs
    timeout --kill-after=5 "$left" bash -c "step_${step//-/_}"
  else
    "step_${step//-/_}"
  fi
  status=$?
  ((status)) && failed=1
  echo "$step: exit $status after $((SECONDS - start)) s" | tee -a "$out/timeline.log"
  if [[ $step == build && ! -x $runner ]]; then
    echo "no $runner: the steps after the build are not run" | tee -a "$out/timeline.log"
    break
  fi
done
exit $failed
