#!/usr/bin/env bash
# The gelu op against LibTorch's at::gelu on a 16M-element float32 tensor (4096 x 4096):
# `runner check-op` times forward and backward of both side by side, after checking them
# against each other. The sigmoid form is timed against x * sigmoid(1.702 x) in LibTorch ops.
# Goal: op forward + backward within 1.5x of at::gelu's. Run on an idle machine.
#   tools/bench/gelu_op.sh [path/to/runner]
set -euo pipefail
runner=${1:-build/bin/runner}
export OPENBLAS_NUM_THREADS=1
for form in none tanh sigmoid; do
  "$runner" check-op gelu --set approximate=$form --shapes 4096x4096 --repeat 10 |
    sed -n '/^timing/,$p'
done
