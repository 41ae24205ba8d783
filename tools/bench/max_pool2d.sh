#!/usr/bin/env bash
# The max_pool2d op against LibTorch's max_pool2d on LeNet-5's two pools (2x2, stride 2):
# (64, 6, 28, 28) and (64, 16, 10, 10). `runner check-op` checks and times both side by side.
# Run on an idle machine.
#   tools/bench/max_pool2d.sh [path/to/runner]
set -euo pipefail
runner=${1:-build/bin/runner}
export OPENBLAS_NUM_THREADS=1
"$runner" check-op max_pool2d --shapes 64x6x28x28,64x16x10x10 --repeat 50 |
  sed -n '/^timing/,$p'
