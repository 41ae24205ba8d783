"""Causal self-attention's forward and backward on the CPU, one GPT-2 small layer's (12 heads of
64): PyTorch's fused scaled_dot_product_attention on bf16 inputs, the same on the inputs cast to
float and its output cast back (what runner::compat::causal_self_attention does with bf16 on
LibTorch 2.x), and the softmax written out in bf16 (its LibTorch 1.13 path). Each row: the
median of 5 timed passes after a warm-up, times 12 layers, and the largest distance of the
output from float64 attention of the same bf16 inputs.

  python3 tools/bench/attention_cpu.py [--threads 2] [--shapes 4x256,1x1024] [--rounds 2]
Needs PyTorch 2.x (scaled_dot_product_attention).
"""
import argparse
import math
import statistics
import time

import torch
import torch.nn.functional as F

HEADS, HEAD_SIZE, LAYERS = 12, 64, 12


def fused(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def fused_in_float(q, k, v):
    with torch.autocast("cpu", enabled=False):
        return fused(q.float(), k.float(), v.float()).to(q.dtype)


def written_out(q, k, v):
    steps = q.size(-2)
    scores = torch.matmul(q * (1 / math.sqrt(q.size(-1))), k.transpose(-2, -1))
    scores.masked_fill_(torch.ones(steps, steps, dtype=torch.bool).triu(1), float("-inf"))
    return torch.matmul(torch.softmax(scores, -1), v)


def seconds_per_pass(attend, inputs):
    times = []
    for _ in range(6):
        q, k, v = (t.detach().requires_grad_() for t in inputs)
        start = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = attend(q, k, v)
        out.float().sum().backward()
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:]), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--shapes", default="4x256,1x1024")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"PyTorch {torch.__version__}, {args.threads} threads")
    for shape in args.shapes.split(","):
        batch, steps = (int(n) for n in shape.split("x"))
        torch.manual_seed(0)
        exact = [torch.randn(batch, HEADS, steps, HEAD_SIZE) for _ in range(3)]
        inputs = [t.to(torch.bfloat16) for t in exact]
        reference = fused(*(t.double() for t in inputs))
        for _ in range(args.rounds):
            for name, attend in (("fused, bf16", fused), ("fused, in float", fused_in_float),
                                 ("written out, bf16", written_out)):
                seconds, out = seconds_per_pass(attend, inputs)
                error = (out.double() - reference).abs().max().item()
                print(f"{batch} x {steps:4d}  {name:18s} {1000 * seconds:7.1f} ms a layer, "
                      f"{LAYERS * seconds:5.2f} s for {LAYERS}   max error {error:.1e}")


if __name__ == "__main__":
    main()
