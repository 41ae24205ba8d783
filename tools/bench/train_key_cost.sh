#!/usr/bin/env bash
# What a [train] key's setting costs: `ddp` LeNet-5 on 2 local ranks of 1 thread each, 1 MB
# buckets (so several all-reduces a step), with the key at value A against value B, the two
# alternating in each round. Training samples/s of rank 0's epoch line, and A's as a ratio of
# B's. Run on an idle machine. Goals: the collective ledger (collective_ledger 4096 against 0)
# at least 0.99; train.check_collectives, a debugging aid, is measured rather than bound.
#   tools/bench/train_key_cost.sh KEY A B [path/to/runner] [rounds]
#   tools/bench/train_key_cost.sh collective_ledger 4096 0
#   tools/bench/train_key_cost.sh check_collectives true false
# TRAIN_SIZE (default 60000, the whole of Fashion-MNIST's training set): the samples of each
# run's one epoch; a run of a few seconds is too short to read a 1% difference on a noisy
# machine.
set -euo pipefail
if (($# < 3)); then
  echo "usage: $0 KEY A B [path/to/runner] [rounds]" >&2
  exit 2
fi
key=$1 a=$2 b=$3
runner=${4:-build/bin/runner}
rounds=${5:-5}
train_size=${TRAIN_SIZE:-60000}
fashion=/usr/share/datasets/fashion-mnist
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

# samples/s of one run with the key at `value`.
samples_per_s() {
  local value=$1
  cat > "$work/cost.toml" <<TOML
[experiment]
name = "cost"
results = "$work/cost.h5"
[dataset]
name = "mnist"
data_dir = "$fashion"
train_size = $train_size
test_size = 500
[model]
name = "lenet5"
[train]
batch_size = 64
epochs = 1
threads = 1
$key = $value
[strategy]
name = "ddp"
world_size = 2
bucket_mb = 1
TOML
  rm -f "$work/cost.h5"
  "$runner" "$work/cost.toml" | grep -o '[0-9]* samples/s' | head -1 | cut -d' ' -f1
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
printf '%-6s %16s %16s %8s\n' round "$key=$a" "$key=$b" ratio
total_a=0 total_b=0
for round in $(seq "$rounds"); do
  if ((round % 2)); then
    on=$(samples_per_s "$a")
    off=$(samples_per_s "$b")
  else
    off=$(samples_per_s "$b")
    on=$(samples_per_s "$a")
  fi
  total_a=$((total_a + on)) total_b=$((total_b + off))
  awk -v r="$round" -v on="$on" -v off="$off" 'BEGIN { printf "%-6s %16s %16s %8.3f\n", r, on, off, on / off }'
done
awk -v on="$total_a" -v off="$total_b" 'BEGIN { printf "%-6s %16s %16s %8.3f\n", "all", on, off, on / off }'
