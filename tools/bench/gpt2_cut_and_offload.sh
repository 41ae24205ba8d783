#!/usr/bin/env bash
# Runs gpt2_cut_and_offload.toml beside this script and prints its comparison table: compare
# each pipeline's compute time with ddp's (1F1B's ideal is 4 / 5 of ddp's samples/s), and
# zero-3's state memory and compute time with and without offload = "nvme" (the state files go
# to the system's temporary folder). Run on an idle machine.
#   tools/bench/gpt2_cut_and_offload.sh [path/to/runner] [extra --set arguments...]
set -euo pipefail
runner=${1:-build/bin/runner}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

"$runner" "$here/gpt2_cut_and_offload.toml" --quiet --set "experiment.results=$work/r.h5" "$@"
"$runner" report "$work/r.h5"
