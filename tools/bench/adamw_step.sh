#!/usr/bin/env bash
# AdamW's step on GPT-2 small's 124M parameters: LibTorch's torch::optim::AdamW (nine
# element-wise passes a parameter) against runner's FusedAdamW (one), interleaved step by step,
# each on its own copy of the same parameters and gradients. Builds tools/bench/adamw_step.cpp
# with runner's optimizer sources against the LibTorch of build/ (about a minute), then runs it.
# Prints each step's times, the medians after the first step, their ratio, and how far apart
# the two copies ended. Run on an idle machine (uptime is printed).
#   tools/bench/adamw_step.sh [--steps 10] [--threads 2]
set -euo pipefail
cd "$(dirname "$0")/../.."
steps=10 threads=2
while (($#)); do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "usage: $0 [--steps N] [--threads N]" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
torch=(-D_GLIBCXX_USE_CXX11_ABI=1 -isystem /usr/include/torch/csrc/api/include
       -Iframework/include -Iframework/src)
# The flags of framework/src/train/CMakeLists.txt.
g++ -O3 -std=c++17 "${torch[@]}" -fno-math-errno -fopenmp -c framework/src/train/adamw_update.cpp \
  -o "$work/adamw_update.o"
g++ -O3 -std=c++17 "${torch[@]}" tools/bench/adamw_step.cpp framework/src/train/fused_adamw.cpp \
  "$work/adamw_update.o" -o "$work/adamw_step" -ltorch -ltorch_cpu -lc10 -fopenmp
uptime
grep -m 1 'model name' /proc/cpuinfo
"$work/adamw_step" "$steps" "$threads"
