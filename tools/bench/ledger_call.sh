#!/usr/bin/env bash
# The collective ledger's cost against a ddp LeNet-5 step: ns per issued()+ended() and per
# enter() (tools/bench/ledger_call.cpp, built here against framework/src/distributed's ledger
# with -O2 as the host builds it), and the median step of `ddp` LeNet-5 on 2 local ranks of 1
# thread, 1 MB buckets, read from the run's results file. A step makes COLLECTIVES (default
# 2: LeNet-5's 247 KB of gradients fill one 1 MB bucket, and the logged losses) and PHASES
# (default 6: data, forward, backward, optimizer, metrics, and one spare) ledger calls; the
# ledger's share of a step is their cost over the step's time. Goal: at most 1%. Run on an
# idle machine (the load is printed).
#   tools/bench/ledger_call.sh [path/to/runner] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
runner=${1:-build/bin/runner}
rounds=${2:-7}
collectives=${COLLECTIVES:-2}
phases=${PHASES:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

g++ -O2 -std=c++17 -Iframework/src tools/bench/ledger_call.cpp \
  framework/src/distributed/collective_ledger.cpp -o "$work/ledger_call" -lfmt -pthread
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores;$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
"$work/ledger_call" 4096 "$rounds" | tee "$work/calls.txt"
read -r collective_ns phase_ns < <(awk '$1 == "median" { print $2, $3 }' "$work/calls.txt")

cat > "$work/step.toml" <<TOML
[experiment]
name = "ledger_step"
results = "$work/step.h5"
[dataset]
name = "mnist"
data_dir = "/usr/share/datasets/fashion-mnist"
train_size = 12800
test_size = 500
[model]
name = "lenet5"
[train]
batch_size = 64
epochs = 1
threads = 1
[strategy]
name = "ddp"
world_size = 2
bucket_mb = 1
TOML
OPENBLAS_NUM_THREADS=1 "$runner" "$work/step.toml" > /dev/null
step_s=$(/usr/bin/python3 - "$work/step.h5" <<'PY'
import sys, h5py, numpy
with h5py.File(sys.argv[1], "r") as results:
    run = next(iter(results.values()))
    print(numpy.median(run["steps"]["duration_s"][1:]))
PY
)
awk -v c="$collectives" -v p="$phases" -v cn="$collective_ns" -v pn="$phase_ns" -v s="$step_s" 'BEGIN {
  ledger_us = (c * cn + p * pn) / 1000
  printf "ddp LeNet-5 median step: %.2f ms; ledger per step (%d collectives, %d phases): %.3f us = %.4f%% of the step (goal: 1%%)\n",
         s * 1000, c, p, ledger_us, 100 * ledger_us / (s * 1e6)
}'
