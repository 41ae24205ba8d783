#!/usr/bin/env bash
# LibTorch 2.6 against LibTorch 1.13 on this machine, on the CPU: one LeNet-5 epoch on
# Fashion-MNIST (experiments/quickstart.toml, 1 epoch) and GPT-2 small's training step in fp32
# and bf16 (libtorch_versions.toml: the median of steps 2 to 5), under build/bin/runner
# (Debian 12, LibTorch 1.13) and the runner of the Debian 13 root (LibTorch 2.6; make it with
# tools/debian13/run.sh VARIANT build). Each round runs both, alternating which goes first, and
# prints the times and the ratio 2.6 / 1.13 (below 1: 2.6 is faster). Quote the median ratio,
# from an idle machine (check uptime).
#   tools/bench/libtorch_versions.sh [--variant cuda|cpu] [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/../.."
variant=cuda rounds=3
while (($#)); do
  case "$1" in
    --variant) variant=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: $0 [--variant cuda|cpu] [--rounds N]" >&2; exit 2 ;;
  esac
done
root=.debian13/$variant
[[ -x build/bin/runner && -x $root/src/runner/build/bin/runner ]] ||
  { echo "libtorch_versions: build here (tools/setup.sh) and in $root (tools/debian13/run.sh $variant build) first" >&2; exit 2; }
work=bench-libtorch-versions
rm -rf "$root/tmp/$work" && mkdir -p "$root/tmp/$work"
here_work=$(mktemp -d)
trap 'rm -rf "$here_work" "$root/tmp/$work"' EXIT

# run SIDE NAME ARGS...: one experiment with SIDE's runner; prints where its results are.
run() {
  local side=$1 name=$2
  shift 2
  if [[ $side == 1.13 ]]; then
    OPENBLAS_NUM_THREADS=1 build/bin/runner "$@" --quiet --set "experiment.results=$here_work/$name.h5"
    echo "$here_work/$name.h5" > "$here_work/last"
  else
    bash tools/debian13/run.sh "$variant" -- env OPENBLAS_NUM_THREADS=1 build/bin/runner "$@" \
      --quiet --set "experiment.results=/tmp/$work/$name.h5"
    echo "$root/tmp/$work/$name.h5" > "$here_work/last"
  fi
}

# times H5 lenet|gpt2: the LeNet epoch (s), or GPT-2's median step (s) per precision. Debian's
# python3 has the h5py that tools/setup.sh installs; one earlier on PATH may not.
times() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    runs = sorted((g for g in f["/"].values() if "run_id" in g.attrs), key=lambda g: g.name)
    for run in runs:
        if run.attrs["status"] != "completed":
            sys.exit(f"{sys.argv[1]}: run {run.name} is {run.attrs['status']}")
        if sys.argv[2] == "gpt2":
            precision = run["sweep"].attrs["train.precision"]
            precision = precision.decode() if isinstance(precision, bytes) else str(precision)
            print(f"gpt2_step_{precision} {np.median(run['steps/duration_s'][1:5]):.4f}")
        else:
            print(f"lenet_epoch {float(run['epochs/duration_s'][-1]):.4f}")
PY
}

side_run() {
  local side=$1 round=$2
  run "$side" "lenet_$round" experiments/quickstart.toml --set train.epochs=1
  times "$(cat "$here_work/last")" lenet | sed "s/^/$side /"
  run "$side" "gpt2_$round" tools/bench/libtorch_versions.toml
  times "$(cat "$here_work/last")" gpt2 | sed "s/^/$side /"
}

uptime
for ((round = 1; round <= rounds; round++)); do
  if ((round % 2)); then order=(1.13 2.6); else order=(2.6 1.13); fi
  for side in "${order[@]}"; do side_run "$side" "$round"; done > "$here_work/round_$round"
  echo "round $round:"
  /usr/bin/python3 - "$here_work/round_$round" <<'PY'
import sys
t = {}
for line in open(sys.argv[1]):
    side, what, seconds = line.split()
    t.setdefault(what, {})[side] = float(seconds)
for what, sides in t.items():
    print(f"  {what:16} 1.13 {sides['1.13']:8.3f} s   2.6 {sides['2.6']:8.3f} s   2.6/1.13 {sides['2.6'] / sides['1.13']:.2f}")
PY
done
