#!/usr/bin/env bash
# How well `runner plan` ranks layouts: GPT-2 small (tools/bench/plan_gpt2_small.toml, 8
# sequences of 128 tokens a step) on 2 CPU ranks. First every layout that fits is run
# (`--trials` over all of them, the ground truth), and runner prints each one's predicted step
# beside its measured one and the rank correlation of the two; then `runner plan --trials 3`
# picks from its best 3, and the script prints that pick's samples/s against the best the
# ground truth measured (the goal: within 10%).
#   tools/bench/plan_ground_truth.sh [--steps 4] [--runner PATH] [--keep DIR]
#   tools/bench/plan_ground_truth.sh --rescore DIR/all.txt [--runner PATH]
# About 40 minutes on 2 cores; results in a temporary folder, printed and removed (--keep DIR
# keeps runner's output there). --rescore runs nothing: a fresh plan's predictions (a minute)
# scored against a kept ground truth, as the same two numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."
steps=4 runner=build/bin/runner keep="" rescore=""
while (($#)); do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --rescore) rescore=$2; shift 2 ;;
    *) echo "usage: $0 [--steps N] [--runner PATH] [--keep DIR] [--rescore ALL.txt]" >&2; exit 2 ;;
  esac
done
[[ -x $runner ]] || { echo "plan_ground_truth: no $runner (build with tools/setup.sh)" >&2; exit 2; }
[[ -z $rescore || -f $rescore ]] || { echo "plan_ground_truth: no $rescore" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "load before: $(uptime)"
plan() {
  "$runner" plan tools/bench/plan_gpt2_small.toml --devices 2 --trial-steps "$steps" --top 200 \
    --set "experiment.results=\"$work/$1.h5\"" "${@:2}"
}
if [[ -n $rescore ]]; then
  cp "$rescore" "$work/all.txt"
  plan predicted | tee "$work/predicted.txt" | grep '^rates'
else
  plan all --trials 1000 | tee "$work/all.txt" | grep -v '^epoch\|^  \|^test loss\|^run '
  plan three --trials 3 | tee "$work/three.txt" | grep -A10 'predicted   measured'
fi
[[ -z $keep ]] || { mkdir -p "$keep" && cp "$work"/*.txt "$keep/"; }

# The measured table of a trial run: "  #  layout  predicted s  measured s"; the ranked table
# of a plan: "  #  layout  memory GiB  step s  samples/s  ...".
/usr/bin/python3 - "$work" <<'PY'
import math, os, re, sys
work = sys.argv[1]
def trial_table(path):
    rows, inside = {}, False
    for line in open(path):
        if "predicted   measured" in line:
            inside = True
            continue
        m = re.match(r"\s*\d+\s+(.*?)\s+([\d.e+-]+) s\s+([\d.e+-]+) s$", line)
        if inside and m:
            rows[m.group(1).strip()] = float(m.group(3))
    return rows
def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    result, i = [0.0] * len(values), 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result
truth = trial_table(os.path.join(work, "all.txt"))
best_label = min(truth, key=truth.get)
print(f"ground truth: {len(truth)} layouts measured; fastest {best_label}: {truth[best_label]:.3g} s")
predicted_path = os.path.join(work, "predicted.txt")
if os.path.exists(predicted_path):
    predicted = {}
    for line in open(predicted_path):
        m = re.match(r"\s*\d+\s+(.*?)\s+[\d.]+ GiB\s+([\d.e+-]+) s", line)
        if m and m.group(1).strip() in truth:
            predicted[m.group(1).strip()] = float(m.group(2))
    labels = list(predicted)
    a, b = ranks([predicted[k] for k in labels]), ranks([truth[k] for k in labels])
    mean = (len(a) + 1) / 2
    rho = sum((x - mean) * (y - mean) for x, y in zip(a, b)) / math.sqrt(
        sum((x - mean) ** 2 for x in a) * sum((y - mean) ** 2 for y in b))
    best3 = sorted(labels, key=predicted.get)[:3]
    pick = min(best3, key=truth.get)
    print(f"re-scored: rank correlation {rho:.3f} over {len(labels)} layouts; the best 3 "
          f"predicted: {'; '.join(best3)}")
    print(f"--trials 3 would pick {pick}: its samples/s / the best's in the ground truth: "
          f"{truth[best_label] / truth[pick]:.2f} (goal: at least 0.90)")
else:
    three = trial_table(os.path.join(work, "three.txt"))
    pick = min(three, key=three.get)
    ratio = truth[best_label] / truth.get(pick, three[pick])
    print(f"--trials 3 picks {pick}: {three[pick]:.3g} s in its trial, "
          f"{truth.get(pick, float('nan')):.3g} s in the ground truth; "
          f"its samples/s / the best's: {ratio:.2f} (goal: at least 0.90)")
PY
echo "load after: $(uptime)"
