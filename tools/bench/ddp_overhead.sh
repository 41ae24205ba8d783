#!/usr/bin/env bash
# What DDP's communication costs: `ddp` on 2 local ranks of 1 thread each against `single`
# with 2 threads, the same global batch and steps, with the buckets reduced during backward
# (overlap) and after it. Two models: LeNet-5 on Fashion-MNIST (small: communication weighs)
# and a GPT-2 of 4 layers, hidden 256, 256 tokens (compute-bound). Both fit one 25 MB bucket,
# which has nothing to overlap with: the overlap runs use 1 MB buckets. Training samples/s of
# rank 0's epoch line; goal on the GPT-2: ddp at least 85% of single. Run on an idle machine.
#   tools/bench/ddp_overhead.sh [path/to/runner] [rounds] [models, default "lenet gpt2"]
set -euo pipefail
runner=${1:-build/bin/runner}
rounds=${2:-2}
models=${3:-lenet gpt2}
fashion=/usr/share/datasets/fashion-mnist
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

lenet='[dataset]
name = "mnist"
data_dir = "'$fashion'"
train_size = 19200
test_size = 500
[model]
name = "lenet5"
[train]
batch_size = 64'

gpt2='[dataset]
name = "random_tokens"
size = SAMPLES
test_size = 32
seq_len = 256
vocab_size = 512
[model]
name = "gpt2"
hidden = 256
heads = 4
layers = 4
seq_len = 256
vocab_size = 512
[optimizer]
name = "adamw"
lr = 3e-4
[train]
batch_size = 16
test_batch_size = 32'
gpt2=${gpt2/SAMPLES/${GPT2_SAMPLES:-640}}  # 40 steps of 16

# samples/s of one run: `model` text, then strategy keys.
samples_per_s() {
  local name=$1 model=$2 strategy=$3 threads=$4
  printf '[experiment]\nname = "%s"\nresults = "%s/%s.h5"\n%s\nepochs = 1\nthreads = %s\n%s\n' \
    "$name" "$work" "$name" "$model" "$threads" "$strategy" > "$work/$name.toml"
  "$runner" "$work/$name.toml" | grep -o '[0-9]* samples/s' | head -1 | cut -d' ' -f1
}

printf '%-6s %-30s %12s %10s\n' model run samples/s "/ single"
for config in $models; do
  model=${!config}
  for round in $(seq "$rounds"); do
    single=$(samples_per_s "${config}_single" "$model" '[strategy]
name = "single"' 2)
    overlap=$(samples_per_s "${config}_ddp" "$model" '[strategy]
name = "ddp"
world_size = 2' 1)
    small=$(samples_per_s "${config}_ddp_small" "$model" '[strategy]
name = "ddp"
world_size = 2
bucket_mb = 1' 1)
    after=$(samples_per_s "${config}_ddp_after" "$model" '[strategy]
name = "ddp"
world_size = 2
bucket_mb = 1
overlap = false' 1)
    printf '%-6s %-30s %12s %10s\n' "$config" "single, 2 threads" "$single" "1.00"
    for pair in "ddp 2x1, 25 MB buckets:$overlap" "ddp 2x1, 1 MB, overlap:$small" \
                "ddp 2x1, 1 MB, after backward:$after"; do
      awk -v model="$config" -v run="${pair%%:*}" -v rate="${pair##*:}" -v single="$single" \
        'BEGIN { printf "%-6s %-30s %12s %10.2f\n", model, run, rate, rate / single }'
    done
  done
  # Where the time went in the last round: forward, backward (with the wait for the last
  # buckets) and the rest.
  "$runner" report "$work/${config}_single.h5" | head -2
  for run in single ddp ddp_small ddp_after; do "$runner" report "$work/${config}_$run.h5" | tail -1; done
done
