#!/usr/bin/env bash
# fused_conv_relu against LibTorch's conv2d then relu on the layers of the conv_stack study
# (batch 64, 28x28, 3x3 kernels, padding 1): the first layer (1 -> 16 channels) and the inner
# ones (16 -> 16), then 32 channels. `runner check-op` checks and times both side by side.
# Goal: the op's forward not slower than conv2d + relu. Run on an idle machine.
#   tools/bench/fused_conv_relu.sh [path/to/runner]
set -euo pipefail
runner=${1:-build/bin/runner}
export OPENBLAS_NUM_THREADS=1
"$runner" check-op fused_conv_relu --shapes 64x1x28x28,64x16x28x28,64x32x28x28 --repeat 20 |
  sed -n '/^timing/,$p'
