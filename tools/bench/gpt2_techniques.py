"""Ratios of the techniques from the comparison table of experiments/gpt2_techniques.toml.

Reads the CSV of `runner report --csv` and prints, for each pair of runs that differ in one
technique, the ratio of compute time, saved activations and measured tensor peak; and each
run's planned peak over its measured one.
"""
import csv
import sys

UNITS = {"s": 1.0, "ms": 1e-3, "m": 60.0, "h": 3600.0, "KiB": 1024.0, "MiB": 1024.0**2, "GiB": 1024.0**3,
         "B": 1.0}


def number(cell):
    """'12.3 s' -> 12.3; '2 m 01 s' -> 121; '512.0 MiB' -> bytes; '0.095' -> 0.095; '' -> None."""
    parts = cell.split()
    if not parts:
        return None
    if len(parts) == 1:
        return float(parts[0].rstrip("%"))
    total = 0.0
    for value, unit in zip(parts[0::2], parts[1::2]):
        total += float(value) * UNITS[unit]
    return total


def main(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    runs = {}
    for row in rows:
        key = (row["train.precision"], row["train.activation_checkpointing"],
               row["train.micro_batches"])
        runs[key] = {name: number(row[name]) for name in
                     ("compute", "saved act", "est mem", "tensor peak", "TFLOPS")}

    print("\ncheckpointing (layers over none): compute time, saved activations, tensor peak")
    for (precision, ckpt, micro), run in sorted(runs.items()):
        if ckpt != "layers":
            continue
        kept = runs[(precision, "none", micro)]
        print(f"  {precision} micro_batches={micro}: time x{run['compute'] / kept['compute']:.2f}, "
              f"saved activations {100 * (1 - run['saved act'] / kept['saved act']):.0f}% less, "
              f"tensor peak x{run['tensor peak'] / kept['tensor peak']:.2f}")

    print("\nbf16 over fp32: compute time, tensor peak")
    for (precision, ckpt, micro), run in sorted(runs.items()):
        if precision != "bf16":
            continue
        fp32 = runs[("fp32", ckpt, micro)]
        print(f"  checkpointing={ckpt} micro_batches={micro}: "
              f"time x{run['compute'] / fp32['compute']:.2f}, "
              f"tensor peak x{run['tensor peak'] / fp32['tensor peak']:.2f}")

    print("\nplanned over measured tensor peak")
    for key, run in sorted(runs.items()):
        print(f"  {' '.join(key)}: {run['est mem'] / run['tensor peak']:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
