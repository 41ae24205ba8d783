#!/usr/bin/env bash
# How well `runner plan` ranks layouts: GPT-2 small (tools/bench/plan_gpt2_small.toml, 8
# sequences of 128 tokens a step) on 2 CPU ranks. First every layout that fits is run
# (`--trials` over all of them, the ground truth), and runner prints each one's predicted step
# beside its measured one and the rank correlation of the two; then `runner plan --trials 3`
# picks from its best 3, and the script prints that pick's samples/s against the best the
# ground truth measured (the goal: within 10%).
#   tools/bench/plan_ground_truth.sh [--steps 4] [--runner PATH]
# About 40 minutes on 2 cores; results in a temporary folder, printed and removed.
set -euo pipefail
cd "$(dirname "$0")/../.."
steps=4 runner=build/bin/runner
while (($#)); do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    *) echo "usage: $0 [--steps N] [--runner PATH]" >&2; exit 2 ;;
  esac
done
[[ -x $runner ]] || { echo "plan_ground_truth: no $runner (build with tools/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "load before: $(uptime)"
plan() {
  "$runner" plan tools/bench/plan_gpt2_small.toml --devices 2 --trial-steps "$steps" --top 200 \
    --set "experiment.results=\"$work/$1.h5\"" "${@:2}"
}
plan all --trials 1000 | tee "$work/all.txt" | grep -v '^epoch\|^  \|^test loss\|^run '
plan three --trials 3 | tee "$work/three.txt" | grep -A10 'predicted   measured'

# The measured table of each: "  #  layout  predicted s  measured s".
/usr/bin/python3 - "$work/all.txt" "$work/three.txt" "$work/all.h5" <<'PY'
import re, sys
def measured(path):
    rows, inside = {}, False
    for line in open(path):
        if "predicted   measured" in line:
            inside = True
            continue
        m = re.match(r"\s*\d+\s+(.*?)\s+([\d.e+-]+) s\s+([\d.e+-]+) s$", line)
        if inside and m:
            rows[m.group(1).strip()] = float(m.group(3))
    return rows
truth, three = measured(sys.argv[1]), measured(sys.argv[2])
best_label = min(truth, key=truth.get)
pick = min(three, key=three.get)
print(f"ground truth: {len(truth)} layouts measured; fastest {best_label}: {truth[best_label]:.3g} s")
ratio = truth[best_label] / truth.get(pick, three[pick])
print(f"--trials 3 picks {pick}: {three[pick]:.3g} s in its trial, "
      f"{truth.get(pick, float('nan')):.3g} s in the ground truth; "
      f"its samples/s / the best's: {ratio:.2f} (goal: at least 0.90)")
PY
echo "load after: $(uptime)"
