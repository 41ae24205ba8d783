#!/usr/bin/env bash
# One augmented LeNet-5 epoch on Fashion-MNIST (60k, batch 64, RandomAffine degrees 15, translate
# 0.1, scale 0.8-1.2, Adam 1e-3): runner (batched augmentation on the device) against the seeds'
# Python way (per-sample torchvision RandomAffine in a DataLoader) with 0, 1, 2 and 4 workers,
# side by side in one invocation, OPENBLAS_NUM_THREADS=1 on both sides.
#
#   tools/bench/augmented_epoch.sh [--rounds N] [--runner PATH]
#
# Goals: the runner's epoch at most half the time of the num_workers 0 script, and faster than
# the best num_workers. Exit status: 0 when every run succeeded, 1 when one failed, 2 on bad usage.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rounds=2
runner="$repo/build/bin/runner"

die() { echo "augmented_epoch.sh: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--rounds takes a positive integer"; rounds=$2; shift 2 ;;
    --runner) [[ -n ${2:-} ]] || die "--runner takes a path"; runner=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[[ -x $runner ]] || die "no runner binary at $runner (build it, or pass --runner)"
/usr/bin/python3 -c 'import torch, torchvision, h5py' 2>/dev/null ||
  die "/usr/bin/python3 lacks torch, torchvision or h5py (apt-get install python3-torchvision python3-h5py)"

export OPENBLAS_NUM_THREADS=1
exec /usr/bin/python3 "$repo/tools/bench/augmented_epoch_compare.py" --rounds "$rounds" \
  --runner "$runner" --experiment "$repo/experiments/mnist_lenet_augmented.toml"
