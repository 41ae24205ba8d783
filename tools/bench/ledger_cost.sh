#!/usr/bin/env bash
# What the collective ledger costs: `ddp` LeNet-5 on 2 local ranks of 1 thread each, 1 MB
# buckets (so several all-reduces a step), with train.collective_ledger at its default (4096
# entries kept per rank) against 0 (none kept), alternating in each round. Training samples/s
# of rank 0's epoch line; goal: the ledger's runs at least 0.99 of the others. Run on an idle
# machine.
#   tools/bench/ledger_cost.sh [path/to/runner] [rounds]
set -euo pipefail
runner=${1:-build/bin/runner}
rounds=${2:-5}
fashion=/usr/share/datasets/fashion-mnist
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

# samples/s of one run with `entries` kept in each rank's ledger.
samples_per_s() {
  local entries=$1
  cat > "$work/ledger_$entries.toml" <<TOML
[experiment]
name = "ledger_$entries"
results = "$work/ledger_$entries.h5"
[dataset]
name = "mnist"
data_dir = "$fashion"
train_size = 19200
test_size = 500
[model]
name = "lenet5"
[train]
batch_size = 64
epochs = 1
threads = 1
collective_ledger = $entries
[strategy]
name = "ddp"
world_size = 2
bucket_mb = 1
TOML
  rm -f "$work/ledger_$entries.h5"
  "$runner" "$work/ledger_$entries.toml" | grep -o '[0-9]* samples/s' | head -1 | cut -d' ' -f1
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
printf '%-6s %14s %14s %8s\n' round "ledger 4096" "ledger 0" ratio
total_on=0 total_off=0
for round in $(seq "$rounds"); do
  if ((round % 2)); then
    on=$(samples_per_s 4096)
    off=$(samples_per_s 0)
  else
    off=$(samples_per_s 0)
    on=$(samples_per_s 4096)
  fi
  total_on=$((total_on + on)) total_off=$((total_off + off))
  awk -v r="$round" -v on="$on" -v off="$off" 'BEGIN { printf "%-6s %14s %14s %8.3f\n", r, on, off, on / off }'
done
awk -v on="$total_on" -v off="$total_off" 'BEGIN { printf "%-6s %14s %14s %8.3f\n", "all", on, off, on / off }'
