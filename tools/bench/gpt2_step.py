"""A plain PyTorch GPT-2 training loop, the one runner's GPT-2 step is measured against
(tools/bench/gpt2_step.sh). The model is nanoGPT's shape, written here: token and position
embeddings, pre-LayerNorm blocks (q, k, v in one linear, attention written out with a causal
mask, tanh GELU), a final LayerNorm and a head tied to the token embedding; the initialisation
of runner's gpt2 (normal 0.02, the projections 0.02 / sqrt(2 layers)); no dropout. The loss is
the next-token cross-entropy over positions 0..T-2, as runner's. Each step: zero_grad, forward,
loss, backward, AdamW's step, and loss.item(); its time from zero_grad to the item.

Attention is PyTorch's scaled_dot_product_attention where PyTorch has it (2.x), as runner's
on LibTorch 2.x; written out on 1.13, as runner's there. On CUDA, --checkpoint recomputes each
block in backward (torch.utils.checkpoint) and --compile runs the model through torch.compile.

  python3 tools/bench/gpt2_step.py --tokens 256 [--batch 4] [--steps 6] [--threads 2]
      [--precision fp32|bf16] [--preset small|medium|...] [--device cpu|cuda] [--checkpoint]
      [--compile] [--peak-tflops T]
Prints one line per step ("step 3 8.123 s"), the median of the steps after the first, OpenBLAS's
kernels (as runner's results record them: environment/blas_kernels), and the TFLOPS of that
median (6 x parameters x tokens per step, 8 x with --checkpoint, as runner counts them), with
MFU when --peak-tflops is given.
"""
import argparse
import ctypes
import math
import os
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

PRESETS = {"tiny": (64, 4, 2), "small": (768, 12, 12), "medium": (1024, 16, 24),
           "large": (1280, 20, 36), "xl": (1600, 32, 48)}
VOCAB, POSITIONS = 50257, 1024


class Block(nn.Module):
    def __init__(self, hidden, heads, layers):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.c_attn = nn.Linear(hidden, 3 * hidden)
        self.attn_proj = nn.Linear(hidden, hidden)
        self.c_fc = nn.Linear(hidden, 4 * hidden)
        self.mlp_proj = nn.Linear(4 * hidden, hidden)
        for linear in (self.c_attn, self.c_fc):
            nn.init.normal_(linear.weight, std=0.02)
            nn.init.zeros_(linear.bias)
        for linear in (self.attn_proj, self.mlp_proj):
            nn.init.normal_(linear.weight, std=0.02 / math.sqrt(2 * layers))
            nn.init.zeros_(linear.bias)

    def attention(self, x):  # (B, T, C) -> (B, T, C)
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        if hasattr(F, "scaled_dot_product_attention"):
            attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)  # (B, heads, T, T)
            future = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
            weights = F.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
            attended = weights @ v  # (B, heads, T, head_dim)
        return self.attn_proj(attended.transpose(1, 2).reshape(b, t, c))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class Gpt2(nn.Module):
    def __init__(self, hidden, heads, layers, checkpoint=False):
        super().__init__()
        self.checkpoint = checkpoint
        self.wte, self.wpe = nn.Embedding(VOCAB, hidden), nn.Embedding(POSITIONS, hidden)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.02)
        self.blocks = nn.ModuleList(Block(hidden, heads, layers) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)

    def forward(self, tokens):  # (B, T) -> (B, T, V)
        positions = torch.arange(tokens.size(1), device=tokens.device)
        x = self.wte(tokens) + self.wpe(positions)
        for block in self.blocks:
            if self.checkpoint:
                x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)


def openblas_kernels():
    """openblas_get_corename() of the OpenBLAS that torch multiplies with ("SkylakeX",
    "Prescott"); "" where its BLAS is another."""
    for name in ("libblas.so.3", "libopenblas.so.0"):
        try:
            core_name = ctypes.CDLL(name, mode=os.RTLD_NOLOAD).openblas_get_corename
        except (OSError, AttributeError):
            continue
        core_name.restype = ctypes.c_char_p
        return core_name().decode()
    return ""


def parameter_count(model):
    return sum(p.numel() for p in model.parameters())  # the tied head counted once


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="small")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--checkpoint", action="store_true")
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--peak-tflops", type=float, default=0.0)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device(args.device)
    model = Gpt2(*PRESETS[args.preset], checkpoint=args.checkpoint).to(device)
    forward = torch.compile(model) if args.compile else model
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    generator = torch.Generator().manual_seed(1)
    times = []
    for step in range(1, args.steps + 1):
        tokens = torch.randint(VOCAB, (args.batch, args.tokens), generator=generator).to(device)
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.precision == "bf16"):
            logits = forward(tokens)
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB).float(),
                                   tokens[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        loss.item()
        times.append(time.perf_counter() - start)
        print(f"step {step} {times[-1]:.3f} s", flush=True)
    median = statistics.median(times[1:])
    print(f"median {median:.3f} s")
    print(f"blas_kernels {openblas_kernels()}")
    passes = 8 if args.checkpoint else 6
    tflops = passes * parameter_count(model) * args.batch * args.tokens / median / 1e12
    mfu = f"   MFU {100 * tflops / args.peak_tflops:.1f}%" if args.peak_tflops > 0 else ""
    print(f"TFLOPS {tflops:.1f}{mfu}")


if __name__ == "__main__":
    main()
