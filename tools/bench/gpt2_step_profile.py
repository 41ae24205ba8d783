"""The plain PyTorch GPT-2 step of gpt2_step.py under torch.profiler: one step after a warm-up,
its operators by self CPU time, to set beside runner's phases (tools/bench/README.md).

  /usr/bin/python3 tools/bench/gpt2_step_profile.py [--tokens 256] [--batch 4] [--threads 2]
      [--precision fp32|bf16] [--rows 12]
Prints the profiled step's time and a table: operator, self CPU seconds, share of the step.
"""
import argparse
import os
import runpy

import torch
import torch.nn.functional as F

loop = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpt2_step.py"))
Gpt2, PRESETS, VOCAB = loop["Gpt2"], loop["PRESETS"], loop["VOCAB"]


def step(model, optimizer, tokens, bf16):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        logits = model(tokens)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB).float(), tokens[:, 1:].reshape(-1))
    loss.backward()
    optimizer.step()
    loss.item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    parser.add_argument("--rows", type=int, default=12)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = Gpt2(*PRESETS["small"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    tokens = torch.randint(VOCAB, (args.batch, args.tokens), generator=torch.Generator().manual_seed(1))
    bf16 = args.precision == "bf16"
    step(model, optimizer, tokens, bf16)  # warm-up: first-touch of the state, oneDNN's kernels
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        step(model, optimizer, tokens, bf16)
    events = [e for e in profile.key_averages() if e.self_cpu_time_total > 0]
    total = sum(e.self_cpu_time_total for e in events)
    print(f"GPT-2 small, {args.batch} x {args.tokens} tokens, {args.precision}: "
          f"{total / 1e6:.2f} s of self CPU time in the profiled step")
    print(f"{'operator':<40} {'self s':>8} {'share':>7}")
    for e in sorted(events, key=lambda e: -e.self_cpu_time_total)[: args.rows]:
        print(f"{e.key:<40} {e.self_cpu_time_total / 1e6:>8.3f} {e.self_cpu_time_total / total:>7.1%}")


if __name__ == "__main__":
    main()
