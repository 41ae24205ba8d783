#!/usr/bin/env bash
# LibTorch 2.6 against LibTorch 1.13 on this machine, on the CPU: one LeNet-5 epoch on
# Fashion-MNIST (experiments/quickstart.toml, 1 epoch) and GPT-2 small's training step in fp32
# and bf16 (libtorch_versions.toml: the median of the steps after the first), under build/bin/runner
# (Debian 12, LibTorch 1.13) and the runner of the Debian 13 root (LibTorch 2.6; make it with
# tools/debian13/run.sh VARIANT build). Each round runs both, alternating which goes first, and
# prints the times and the ratio 2.6 / 1.13 (below 1: 2.6 is faster). Quote the median ratio,
# from an idle machine (check uptime). On a CPU without bf16 instructions (avx512_bf16 or
# amx_bf16) both LibTorch versions multiply bf16 in plain loops, about 1 GFLOP/s: there the bf16
# step is 1 sequence of 32 tokens, 4 steps, or one run would take an hour.
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
# The root's copy of the checkout is the one its last build copied: give it this GPT-2 file.
cp tools/bench/libtorch_versions.toml "$root/tmp/$work/"

# run SIDE NAME ARGS...: one experiment with SIDE's runner; prints where its results are.
# gpt2.toml in ARGS names each side's copy of libtorch_versions.toml.
run() {
  local side=$1 name=$2
  shift 2
  if [[ $side == 1.13 ]]; then
    OPENBLAS_NUM_THREADS=1 build/bin/runner "${@/#gpt2.toml/tools/bench/libtorch_versions.toml}" --quiet --set "experiment.results=$here_work/$name.h5"
    echo "$here_work/$name.h5" > "$here_work/last"
  else
    bash tools/debian13/run.sh "$variant" -- env OPENBLAS_NUM_THREADS=1 build/bin/runner \
      "${@/#gpt2.toml//tmp/$work/libtorch_versions.toml}" \
      --quiet --set "experiment.results=/tmp/$work/$name.h5"
    echo "$root/tmp/$work/$name.h5" > "$here_work/last"
  fi
}

# times H5 NAME: the LeNet epoch (s) when NAME is lenet_epoch, else the median step (s) after
# the first. Debian's python3 has the h5py that tools/setup.sh installs; one earlier on PATH
# may not.
times() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    runs = sorted((g for g in f["/"].values() if "run_id" in g.attrs), key=lambda g: g.name)
    for run in runs:
        if run.attrs["status"] != "completed":
            sys.exit(f"{sys.argv[1]}: run {run.name} is {run.attrs['status']}")
        if sys.argv[2] == "lenet_epoch":
            print(f"lenet_epoch {float(run['epochs/duration_s'][-1]):.4f}")
        else:
            print(f"{sys.argv[2]} {np.median(run['steps/duration_s'][1:]):.4f}")
PY
}

bf16_shape=()
grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo ||
  bf16_shape=(--set dataset.seq_len=32 --set train.batch_size=1 --set train.max_steps_per_epoch=4)

side_run() {
  local side=$1 round=$2
  run "$side" "lenet_$round" experiments/quickstart.toml --set train.epochs=1
  times "$(cat "$here_work/last")" lenet_epoch | sed "s/^/$side /"
  run "$side" "gpt2_fp32_$round" gpt2.toml
  times "$(cat "$here_work/last")" gpt2_step_fp32 | sed "s/^/$side /"
  run "$side" "gpt2_bf16_$round" gpt2.toml --set train.precision=bf16 \
    "${bf16_shape[@]}"
  times "$(cat "$here_work/last")" gpt2_step_bf16 | sed "s/^/$side /"
}

uptime
grep -m 1 'model name' /proc/cpuinfo
((${#bf16_shape[@]} == 0)) ||
  echo "no bf16 instructions on this CPU: the bf16 step is 1 sequence of 32 tokens, 4 steps"

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
