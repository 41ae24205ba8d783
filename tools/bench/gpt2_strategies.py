"""Ratios of the strategies from the comparison table of experiments/gpt2_small_strategies.toml.

Reads the CSV of `runner report --csv` and the model's parameter count, and prints for each run
its samples/s over ddp's, its model state per rank in bytes per parameter, and its planned peak
over the measured tensor peak (the largest rank of each).
"""
import csv
import sys

UNITS = {"s": 1.0, "ms": 1e-3, "m": 60.0, "h": 3600.0, "KiB": 1024.0, "MiB": 1024.0**2,
         "GiB": 1024.0**3, "B": 1.0}


def seconds_of(cell):
    """'12.3 s' -> 12.3; '2 m 01 s' -> 121."""
    parts = cell.split()
    return sum(float(v) * UNITS[u] for v, u in zip(parts[0::2], parts[1::2]))


def bytes_of(cell):
    """'512.0 MiB / 510.2 MiB' (one per rank) -> the largest, in bytes."""
    largest = 0.0
    for part in cell.split(" / "):
        value, unit = part.split()
        largest = max(largest, float(value) * UNITS[unit])
    return largest


def main(path, parameters):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    ddp = next(row for row in rows if row["strategy"] == "ddp")
    # samples/s is not a column: the same samples per run, so the ratio of compute times.
    print(f"\n{'strategy':16} {'samples/s / ddp':>16} {'state B/param':>14} {'plan / measured':>16}")
    for row in rows:
        speed = seconds_of(ddp["compute"]) / seconds_of(row["compute"])
        state = bytes_of(row["state mem"]) / parameters
        plan = bytes_of(row["est mem"]) / bytes_of(row["tensor peak"])
        print(f"{row['strategy']:16} {speed:16.2f} {state:14.2f} {plan:16.3f}")


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
