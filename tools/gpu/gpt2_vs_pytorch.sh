#!/usr/bin/env bash
# GPT-2's training step on one GPU: runner (tools/bench/gpt2_step.toml on cuda, `single`)
# against the plain PyTorch loop of tools/bench/gpt2_step.py on the same GPU and PyTorch, for
# each preset, activation checkpointing off and on, bf16. Each pair runs back to back, runner
# first in odd rounds; each side's time is the median of its steps after the first. TFLOPS
# count 6 x parameters x tokens per step (8 x with checkpointing, the recomputed forward), the
# same for both sides; MFU is that over --peak (H100/H200 SXM dense bf16: 989).
#   tools/gpu/gpt2_vs_pytorch.sh [--presets "small medium"] [--batch 16] [--tokens 1024]
#       [--steps 12] [--peak 989] [--compile] [--runner build-cuda/bin/runner] [--device cuda]
# --compile adds torch.compile's loop (checkpointing off) beside the eager one; --device cpu
# tries the script on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
presets="small medium" batch=16 tokens=1024 steps=12 peak=989 compile=0 device=cuda
runner=build-cuda/bin/runner
while (($#)); do
  case "$1" in
    --presets) presets=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --tokens) tokens=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --peak) peak=$2; shift 2 ;;
    --compile) compile=1; shift ;;
    --runner) runner=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    *) echo "usage: $0 [--presets LIST] [--batch N] [--tokens N] [--steps N] [--peak T]" \
            "[--compile] [--runner PATH] [--device cuda|cpu]" >&2; exit 2 ;;
  esac
done
[[ -x $runner ]] || { echo "gpt2_vs_pytorch: no $runner" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints "SECONDS TFLOPS MFU": the median step, and its rate by the shared formula.
runner_side() {  # preset checkpointing(none|layers)
  local results="$work/$1-$2.h5"
  "$runner" tools/bench/gpt2_step.toml --quiet --set "experiment.results=$results" \
    --set "model.preset=\"$1\"" --set "dataset.seq_len=$tokens" --set "train.device=\"$device\"" \
    --set "train.batch_size=$batch" --set "train.test_batch_size=1" \
    --set "train.max_steps_per_epoch=$steps" --set 'train.precision="bf16"' \
    --set "train.activation_checkpointing=\"$2\"" > "$work/runner.log" 2>&1 ||
    { tail -5 "$work/runner.log" >&2; echo "nan nan nan"; return; }
  python3 - "$results" "$batch" "$tokens" "$2" "$peak" <<'PY'
import sys, h5py, numpy as np
path, batch, tokens, checkpointing, peak = sys.argv[1:]
with h5py.File(path, "r") as f:
    run = next(g for g in f["/"].values() if "run_id" in g.attrs)
    median = float(np.median(run["steps/duration_s"][1:]))
    parameters = float(run["summary"].attrs["parameters"])
passes = 8 if checkpointing == "layers" else 6
tflops = passes * parameters * int(batch) * int(tokens) / median / 1e12
print(f"{median:.4f} {tflops:.1f} {100 * tflops / float(peak):.1f}")
PY
}

python_side() {  # preset checkpointing(none|layers) [--compile]
  local flags=()
  [[ $2 == layers ]] && flags+=(--checkpoint)
  [[ ${3:-} == --compile ]] && flags+=(--compile)
  python3 tools/bench/gpt2_step.py --device "$device" --preset "$1" --tokens "$tokens" \
    --batch "$batch" --steps "$steps" --precision bf16 --peak-tflops "$peak" "${flags[@]}" \
    > "$work/python.log" 2>&1 || { tail -5 "$work/python.log" >&2; echo "nan nan nan"; return; }
  local median tflops mfu
  median=$(sed -n 's/^median \([0-9.]*\) s$/\1/p' "$work/python.log")
  read -r tflops mfu < <(sed -n 's/^TFLOPS \([0-9.]*\)   MFU \([0-9.]*\)%$/\1 \2/p' "$work/python.log")
  echo "$median $tflops $mfu"
}

[[ $device == cuda ]] && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c 'import torch; print("PyTorch", torch.__version__, "CUDA", torch.version.cuda)'
echo "GPT-2, $batch x $tokens tokens, bf16, median of steps 2-$steps; peak $peak TFLOPS"
printf '%-7s %-6s | %-22s | %-22s | %s\n' preset ckpt "runner s (TFLOPS, MFU)" \
  "PyTorch s (TFLOPS, MFU)" "runner/PyTorch"
round=0
for preset in $presets; do
  for checkpointing in none layers; do
    round=$((round + 1))
    if ((round % 2)); then
      r=$(runner_side "$preset" "$checkpointing"); p=$(python_side "$preset" "$checkpointing")
    else
      p=$(python_side "$preset" "$checkpointing"); r=$(runner_side "$preset" "$checkpointing")
    fi
    read -r rs rt rm <<< "$r"; read -r ps pt pm <<< "$p"
    [[ $checkpointing == none ]] && runner_plain=$rs
    ratio=$(python3 -c "print(f'{$rs / $ps:.3f}')" 2>/dev/null || echo nan)
    printf '%-7s %-6s | %-22s | %-22s | %s\n' "$preset" "$checkpointing" \
      "$rs ($rt, $rm%)" "$ps ($pt, $pm%)" "$ratio"
  done
  if ((compile)); then
    c=$(python_side "$preset" none --compile)
    read -r cs ct cm <<< "$c"
    printf '%-7s %-6s | %-22s | %-22s | %s\n' "$preset" "none" "(torch.compile)" \
      "$cs ($ct, $cm%)" "$(python3 -c "print(f'{$runner_plain / $cs:.3f}')" 2>/dev/null || echo nan)"
  fi
done
