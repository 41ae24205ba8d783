#!/usr/bin/env bash
# Trains experiments/gpt2_1p6b_one_machine.toml (GPT-2 1.6B, zero-3 with the AdamW state in
# files, bf16, checkpointing: 3 steps of one sample, about 4 minutes on 2 cores) and prints
# where a step's time and the process's memory went: each step's time, forward, backward and
# optimizer per step, the plan against the tensor peak and the process peak (RSS), page faults
# and the bytes the state files moved. Run on an idle machine with 24 GB.
#   tools/bench/gpt2_1p6b_one_machine.sh [path/to/runner] [extra --set arguments...]
set -euo pipefail
runner=${1:-build/bin/runner}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -v -o "$work/time.txt" "$runner" "$here/../../experiments/gpt2_1p6b_one_machine.toml" \
  --quiet --set "experiment.results=$work/r.h5" --set "strategy.offload_dir=$work" "$@"
"$runner" report "$work/r.h5" --csv > "$work/runs.csv"
run_id=$(sed -n 2p "$work/runs.csv" | cut -d, -f1)
data() { h5dump -d "/$run_id/$1" "$work/r.h5" | sed -n 's/^ *(0): //p'; }
echo "step times (s): $(data steps/duration_s)"
python3 - "$work/runs.csv" "$work/time.txt" "$(data epochs/optimizer_s)" <<'PY'
import csv, re, sys
run = next(csv.DictReader(open(sys.argv[1])))
steps = 3
gib = lambda key: float(run[key]) / 2**30
print(f"per step: forward {float(run['forward_s']) / steps:.1f} s, "
      f"backward {float(run['backward_s']) / steps:.1f} s, "
      f"optimizer {float(sys.argv[3]) / steps:.1f} s; median step {float(run['step_time_s']):.1f} s")
print(f"plan {gib('estimated_memory_bytes'):.2f} GiB, tensor peak {gib('tensor_peak_bytes'):.2f} GiB "
      f"(plan / peak {float(run['estimated_memory_bytes']) / float(run['tensor_peak_bytes']):.3f}), "
      f"process peak {gib('peak_memory_bytes'):.2f} GiB, state between steps "
      f"{gib('state_memory_bytes'):.2f} GiB")
time = open(sys.argv[2]).read()
field = lambda name: re.search(name + r": (.*)", time).group(1)
print(f"whole process: {field('Elapsed .wall clock. time .h:mm:ss or m:ss.')} wall, user "
      f"{field('User time .seconds.')} s, system {field('System time .seconds.')} s, "
      f"{int(field('Minor .reclaiming a frame. page faults')):,} minor page faults, "
      f"max RSS {int(field('Maximum resident set size .kbytes.')) / 2**20:.2f} GiB, "
      f"read {int(field('File system inputs')) * 512 / 1e9:.1f} GB, "
      f"written {int(field('File system outputs')) * 512 / 1e9:.1f} GB")
PY
