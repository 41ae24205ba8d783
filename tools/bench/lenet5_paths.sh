#!/usr/bin/env bash
# LeNet-5's default path (the ops max_pool2d and fused_conv_relu) against LibTorch's (pool =
# "max", fused = false): one quickstart epoch each (Fashion-MNIST, 60k, batch 64, Adam), the two
# alternating, N rounds, in one invocation. Prints each run's epoch time (the training pass and
# the 10k test pass), median step and test accuracy (from the results file: they exclude
# start-up and data loading), and the median ratio of the epoch times.
#
#   tools/bench/lenet5_paths.sh [--rounds N] [--runner PATH]
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rounds=3
runner="$repo/build/bin/runner"
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    *) sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A sets=([default]="" [libtorch]="--set model.pool=\"max\" --set model.fused=false")
for round in $(seq "$rounds"); do
  order=(default libtorch)
  ((round % 2 == 0)) && order=(libtorch default)
  for path in "${order[@]}"; do
    # shellcheck disable=SC2086
    "$runner" --quiet --set train.epochs=1 --set experiment.results=\""$work/$path.h5"\" \
      ${sets[$path]} "$repo/experiments/quickstart.toml" >/dev/null
  done
done
/usr/bin/python3 - "$work" <<'PY'
import sys, h5py, numpy as np
work = sys.argv[1]
def runs(path):
    with h5py.File(f"{work}/{path}.h5", "r") as f:
        return [(f[g]["epochs/duration_s"][0], np.median(f[g]["steps/duration_s"][:]),
                 f[g]["epochs/test_accuracy"][0]) for g in f if isinstance(f[g], h5py.Group)]
default, libtorch = runs("default"), runs("libtorch")
print("round  default epoch  step     test acc  libtorch epoch  step     test acc  ratio")
for i, ((d, ds, da), (l, ls, la)) in enumerate(zip(default, libtorch), 1):
    print(f"{i:5d}  {d:11.2f} s  {ds*1e3:.2f} ms  {da:8.2%}  {l:12.2f} s  {ls*1e3:.2f} ms  "
          f"{la:8.2%}  {d / l:.3f}")
ratio = np.median([d / l for (d, *_), (l, *_) in zip(default, libtorch)])
print(f"median ratio of the epoch times, default / libtorch: {ratio:.3f}")
PY
