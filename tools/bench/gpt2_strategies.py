"""Ratios of the strategies from the comparison table of experiments/gpt2_small_strategies.toml.

Reads the CSV of `runner report --csv` (plain numbers, units in the headers) and the model's
parameter count, and prints for each run its samples/s over ddp's, its model state per rank in
bytes per parameter, and its planned peak over the measured tensor peak (the largest rank of
each).
"""
import csv
import sys


def main(path, parameters):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    ddp = next(row for row in rows if row["strategy"] == "ddp")
    print(f"\n{'strategy':36} {'samples/s / ddp':>16} {'state B/param':>14} {'plan / measured':>16}")
    for row in rows:
        speed = float(row["samples_per_s"]) / float(ddp["samples_per_s"])
        state = float(row["state_memory_bytes"]) / parameters
        plan = float(row["estimated_memory_bytes"]) / float(row["tensor_peak_bytes"])
        print(f"{row['strategy']:36} {speed:16.2f} {state:14.2f} {plan:16.3f}")


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
