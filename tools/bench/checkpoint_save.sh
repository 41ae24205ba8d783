#!/usr/bin/env bash
# What saving a checkpoint costs a run: GPT-2 small on the CPU (checkpoint_save.toml) trained
# twice, without checkpoints and with one every 4 steps (at steps 4 and 8 inside the epoch, and
# the last after it). Prints the step time, how long training waited at each save (the copy to
# host memory; the files are written in the background), and the epoch's extra time per save
# in steps. The goal: a save costs training less than 2 steps. Run on an idle machine.
#   tools/bench/checkpoint_save.sh [path/to/runner]
set -euo pipefail
runner=${1:-build/bin/runner}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

"$runner" "$here/checkpoint_save.toml" --quiet --set "experiment.results=$work/plain.h5"
"$runner" "$here/checkpoint_save.toml" --set "experiment.results=$work/saving.h5" \
  --set checkpoint.every_steps=4 >"$work/saving.log"
du -sh "$work/saving.checkpoints"/*/step-* | sed 's/^/checkpoint on disk: /'
/usr/bin/python3 "$here/checkpoint_save.py" "$work/plain.h5" "$work/saving.h5" "$work/saving.log"
