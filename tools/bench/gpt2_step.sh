#!/usr/bin/env bash
# GPT-2's training step under runner (tools/bench/gpt2_step.toml, `single`) against the plain
# PyTorch loop of tools/bench/gpt2_step.py, on the same LibTorch (Debian 12's 1.13 under both:
# build/bin/runner and /usr/bin/python3's torch), 2 threads each. Each round runs both,
# alternating which goes first; each side's time is the median of its steps after the first
# (runner: steps/duration_s of the results file), and ratio = runner / Python (the goal: at most
# 0.85). Quote the median ratio over the rounds, from an idle machine (uptime is printed), and
# only where both sides ran the same OpenBLAS kernels (printed last).
#   tools/bench/gpt2_step.sh [--tokens 256] [--batch 4] [--steps 6] [--precision fp32|bf16]
#       [--rounds 2] [--env VAR=VALUE ...] [--runner PATH]
# --env sets a variable for both sides (e.g. OPENBLAS_NUM_THREADS=1).
set -euo pipefail
cd "$(dirname "$0")/../.."
tokens=256 batch=4 steps=6 precision=fp32 rounds=2 runner=build/bin/runner
environment=()
while (($#)); do
  case "$1" in
    --tokens) tokens=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --precision) precision=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --env) environment+=("$2"); shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    *) echo "usage: $0 [--tokens N] [--batch N] [--steps N] [--precision fp32|bf16]" \
            "[--rounds N] [--env VAR=VALUE] [--runner PATH]" >&2; exit 2 ;;
  esac
done
[[ -x $runner ]] || { echo "gpt2_step: no $runner (build with tools/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

runner_side() {
  env "${environment[@]}" "$runner" tools/bench/gpt2_step.toml --quiet \
    --set "experiment.results=$work/r$1.h5" --set "dataset.seq_len=$tokens" \
    --set "train.batch_size=$batch" --set "train.test_batch_size=$batch" \
    --set "train.max_steps_per_epoch=$steps" --set "train.precision=\"$precision\"" > /dev/null
  /usr/bin/python3 - "$work/r$1.h5" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    run = next(g for g in f["/"].values() if "run_id" in g.attrs)
    kernels = run["environment"].attrs.get("blas_kernels", "")
    print(f"{np.median(run['steps/duration_s'][1:]):.3f} {kernels or '-'}")
PY
}

python_side() {
  env "${environment[@]}" /usr/bin/python3 tools/bench/gpt2_step.py --tokens "$tokens" \
    --batch "$batch" --steps "$steps" --precision "$precision" --threads 2 > "$work/python.log"
  echo "$(sed -n 's/^median \([0-9.]*\) s$/\1/p' "$work/python.log")" \
       "$(sed -n 's/^blas_kernels \(.\+\)$/\1/p' "$work/python.log" | grep . || echo -)"
}

uptime
grep -m 1 'model name' /proc/cpuinfo
echo "GPT-2 small, $batch x $tokens tokens, $precision, median of steps 2-$steps; env: ${environment[*]:-(none)}"
ratios=()
for ((round = 1; round <= rounds; round++)); do
  if ((round % 2)); then
    read -r r r_kernels < <(runner_side "$round"); read -r p p_kernels < <(python_side)
  else
    read -r p p_kernels < <(python_side); read -r r r_kernels < <(runner_side "$round")
  fi
  ratio=$(/usr/bin/python3 -c "print(f'{$r / $p:.3f}')")
  ratios+=("$ratio")
  echo "round $round: runner $r s   Python $p s   runner/Python $ratio"
done
# runner starts again on better kernels where OpenBLAS fell back to Prescott's; a Python loop
# does not, and then the two multiply at different speeds (tools/bench/README.md).
echo "OpenBLAS kernels: runner $r_kernels, Python $p_kernels"
[[ $r_kernels == "$p_kernels" ]] ||
  echo "  not the same kernels: for a like-for-like ratio, --env OPENBLAS_CORETYPE=$r_kernels"
echo "median ratio: $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')"
