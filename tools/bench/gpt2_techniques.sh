#!/usr/bin/env bash
# The training techniques on GPT-2 small (124M parameters, 1024 tokens), on the CPU: the 8 runs
# of experiments/gpt2_techniques.toml (fp32 / bf16, activations kept / checkpointed, 1 / 4
# micro-batches, the same 8 samples each), then the ratios the techniques are judged by:
# checkpointing's saved activation memory and extra step time, bf16 against fp32, and each
# run's planned peak against its measured tensor peak. Run on an idle machine.
#   tools/bench/gpt2_techniques.sh [path/to/runner] [extra --set arguments...]
set -euo pipefail
runner=${1:-build/bin/runner}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

"$runner" "$here/../../experiments/gpt2_techniques.toml" --quiet \
  --set "experiment.results=$work/r.h5" "$@"
"$runner" report "$work/r.h5" --csv "$work/table.csv"
"$runner" report "$work/r.h5"
python3 "$here/gpt2_techniques.py" "$work/table.csv"
