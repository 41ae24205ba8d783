#!/usr/bin/env bash
# The strategies on GPT-2 small (124M parameters, 1024 tokens) on 2 CPU ranks: the runs of
# experiments/gpt2_small_strategies.toml (ddp, zero stages 1, 2 and 3, tensor, pipeline; the
# same samples each), then each run's samples/s over ddp's, its model state per rank in bytes
# per parameter (the counting allocator's, after the last step), and its planned peak over the
# measured tensor peak. Run on an idle machine.
#   tools/bench/gpt2_strategies.sh [path/to/runner] [extra --set arguments...]
set -euo pipefail
runner=${1:-build/bin/runner}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

"$runner" "$here/../../experiments/gpt2_small_strategies.toml" --quiet \
  --set "experiment.results=$work/r.h5" "$@"
"$runner" report "$work/r.h5" --csv "$work/table.csv"
"$runner" report "$work/r.h5"
python3 "$here/gpt2_strategies.py" "$work/table.csv" 124439808
