#!/usr/bin/env bash
# One LeNet-5 epoch on Fashion-MNIST (60k, batch 64, Adam 1e-3): runner against a Python loop of
# the same model on the same libtorch (Debian's python3-torch), side by side in one invocation.
# This machine's speed swings by 2x between runs: only the ratio runner/python means anything.
#
#   tools/bench/lenet_epoch.sh [--rounds N] [--runner PATH] [--threads N] [--setting S]
#                              [--env NAME=VALUE]...
#
# Each round runs, for each OpenBLAS setting, the runner (quickstart, 1 epoch) and
# tools/bench/lenet_epoch.py back to back, the one that goes first alternating between rounds.
# Settings (both by default):
#   default  OPENBLAS_NUM_THREADS unset: what a user gets; the runner calls
#            openblas_set_num_threads(1) itself, Python does not
#   tuned    OPENBLAS_NUM_THREADS=1 for both: the fair comparison
# The runner's times are read from its HDF5 file (epochs/duration_s, samples_per_s, steps/
# duration_s): like the Python ones they exclude start-up and data loading.
# Exit status: 0 when every run succeeded (whatever the ratio), 1 when one failed, 2 on bad usage.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rounds=3
runner="$repo/build/bin/runner"
threads=0
settings=(default tuned)
extra_env=()  # --env: added to both sides in every setting
python=/usr/bin/python3  # Debian's python3-torch: the libtorch the runner links
experiment="$repo/experiments/quickstart.toml"
peer="$repo/tools/bench/lenet_epoch.py"
train_samples=60000  # the quickstart trains on all of Fashion-MNIST's training set

usage() {
  sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<EOF

Options:
  --rounds N      rounds per setting (default $rounds)
  --runner PATH   the runner binary (default build/bin/runner of this tree)
  --threads N     compute threads for both (default 0: every core, as both do by default)
  --setting S     default, tuned or both (default both)
  --env N=V       set N=V for both sides in every setting (repeatable), e.g. to try
                  MALLOC_TRIM_THRESHOLD_ or OMP_WAIT_POLICY on both
EOF
}

die() { echo "lenet_epoch.sh: $*" >&2; exit 2; }

while (($#)); do
  case $1 in
    --rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--rounds takes a positive integer"; rounds=$2; shift 2 ;;
    --runner) [[ -n ${2:-} ]] || die "--runner takes a path"; runner=$2; shift 2 ;;
    --threads) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--threads takes an integer >= 0"; threads=$2; shift 2 ;;
    --setting)
      case ${2:-} in
        default | tuned) settings=("$2") ;;
        both) settings=(default tuned) ;;
        *) die "--setting takes default, tuned or both" ;;
      esac
      shift 2 ;;
    --env) [[ ${2:-} =~ ^[A-Za-z_][A-Za-z0-9_]*=.*$ ]] || die "--env takes NAME=VALUE"; extra_env+=("$2"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

[[ -x $runner ]] || die "no runner binary at $runner (build it, or pass --runner build-lead/bin/runner)"
[[ -x $python ]] || die "no $python (install python3-torch)"
"$python" -c 'import torch, h5py, numpy' 2>/dev/null ||
  die "$python lacks torch, h5py or numpy (install python3-torch python3-h5py python3-numpy)"
runner=$(cd "$(dirname "$runner")" && pwd)/$(basename "$runner")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lenet_epoch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {  # a run failed: say which, show its output, exit 1
  echo "lenet_epoch.sh: $1 failed (exit $2); its output:" >&2
  tail -n 30 "$3" >&2
  exit 1
}

# The environment of a setting, as arguments for env(1).
setting_env() {
  case $1 in
    default) echo "-u OPENBLAS_NUM_THREADS" ;;
    tuned) echo "OPENBLAS_NUM_THREADS=1" ;;
  esac
}

# Prints "train_s epoch_s step_median_s" of one runner epoch, from its results file.
run_runner() {  # setting, tag
  local h5="$tmp/$2.h5" log="$tmp/$2.runner.log" status=0
  # shellcheck disable=SC2046  # the setting's env arguments are meant to split
  env $(setting_env "$1") "${extra_env[@]}" "$runner" "$experiment" --set train.epochs=1 \
    --set train.threads="$threads" --set experiment.results="$h5" -q >"$log" 2>&1 || status=$?
  ((status == 0)) || fail "runner ($1, $2)" "$status" "$log"
  "$python" - "$h5" "$train_samples" >"$tmp/$2.runner.out" 2>>"$log" <<'EOF' || fail "reading the runner's results ($1, $2)" $? "$log"
import sys, h5py, numpy as np
path, train_samples = sys.argv[1], int(sys.argv[2])
with h5py.File(path, "r") as f:
    runs = [g for g in f["/"].values() if "run_id" in g.attrs]
    if len(runs) != 1 or runs[0].attrs["status"] != "completed":
        sys.exit(f"{path}: expected one completed run")
    run = runs[0]
    epoch_s = float(run["epochs/duration_s"][-1])
    train_s = train_samples / float(run["epochs/samples_per_s"][-1])  # samples_per_s: train pass
    steps = run["steps/duration_s"][()]
    if len(steps) != -(-train_samples // 64):
        sys.exit(f"{path}: {len(steps)} steps, expected {-(-train_samples // 64)}")
    print(f"{train_s:.4f} {epoch_s:.4f} {np.median(steps):.6f}")
EOF
  cat "$tmp/$2.runner.out"
}

# Prints "train_s epoch_s step_median_s" of one Python epoch.
run_python() {  # setting, tag
  local log="$tmp/$2.python.log" status=0
  # shellcheck disable=SC2046
  env $(setting_env "$1") "${extra_env[@]}" "$python" "$peer" --threads "$threads" >"$log" 2>&1 || status=$?
  ((status == 0)) || fail "python peer ($1, $2)" "$status" "$log"
  local value key train_s="" epoch_s="" step_s=""
  while IFS='=' read -r key value; do
    case $key in
      train_s) train_s=$value ;;
      epoch_s) epoch_s=$value ;;
      step_median_s) step_s=$value ;;
    esac
  done <"$log"
  [[ -n $train_s && -n $epoch_s && -n $step_s ]] || fail "python peer ($1, $2): no times in its output" 1 "$log"
  echo "$train_s $epoch_s $step_s"
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "LeNet-5, one epoch of Fashion-MNIST (60k train + 10k test), batch 64, Adam 1e-3"
echo "runner: $runner"
echo "python: $python $("$python" -c 'import torch; print("torch", torch.__version__)')"
echo "cores: $(nproc), threads: $([[ $threads == 0 ]] && echo "every core" || echo "$threads"), rounds: $rounds"
((${#extra_env[@]} == 0)) || echo "extra environment for both: ${extra_env[*]}"
echo "load average before: $(load)"
echo

declare -A rows
for ((round = 1; round <= rounds; round++)); do
  for setting in "${settings[@]}"; do
    tag="$setting.$round"
    if ((round % 2)); then
      order="runner first"
      r=$(run_runner "$setting" "$tag")
      p=$(run_python "$setting" "$tag")
    else
      order="python first"
      p=$(run_python "$setting" "$tag")
      r=$(run_runner "$setting" "$tag")
    fi
    rows[$tag]="$round|$order|$r|$p"
    echo "round $round/$rounds, $setting: runner epoch $(cut -d' ' -f2 <<<"$r") s, python epoch $(cut -d' ' -f2 <<<"$p") s" >&2
  done
done
echo

for setting in "${settings[@]}"; do
  case $setting in
    default) echo "== (a) default: OPENBLAS_NUM_THREADS unset (the runner sets OpenBLAS's threads itself, by its build; Python does not)" ;;
    tuned) echo "== (b) tuned: OPENBLAS_NUM_THREADS=1 for both (the fair comparison)" ;;
  esac
  lines=()
  for ((round = 1; round <= rounds; round++)); do lines+=("${rows[$setting.$round]}"); done
  "$python" - "${lines[@]}" <<'EOF'
import statistics, sys
header = ("round", "order", "runner train", "runner epoch", "python train", "python epoch",
          "ratio epoch", "ratio train", "step ms r/py")
print("{:>5}  {:<12}  {:>12}  {:>12}  {:>12}  {:>12}  {:>11}  {:>11}  {:>13}".format(*header))
epoch_ratios, train_ratios = [], []
for line in sys.argv[1:]:
    round_, order, r, p = line.split("|")
    r_train, r_epoch, r_step = map(float, r.split())
    p_train, p_epoch, p_step = map(float, p.split())
    epoch_ratios.append(r_epoch / p_epoch)
    train_ratios.append(r_train / p_train)
    print(f"{round_:>5}  {order:<12}  {r_train:>12.2f}  {r_epoch:>12.2f}  {p_train:>12.2f}"
          f"  {p_epoch:>12.2f}  {epoch_ratios[-1]:>11.3f}  {train_ratios[-1]:>11.3f}"
          f"  {r_step * 1e3:>6.2f}/{p_step * 1e3:<6.2f}")
median = statistics.median(epoch_ratios)
verdict = "met" if median <= 0.8 else "not met"
print(f"median ratio runner/python: epoch {median:.3f}, train pass "
      f"{statistics.median(train_ratios):.3f}  (goal: epoch <= 0.80: {verdict})")
EOF
  echo
done
echo "times in s; ratio = runner / python (below 1: the runner is faster); step ms = median train step"
echo "load average after: $(load)"
