"""Compares the run that saved checkpoints with the one that did not (checkpoint_save.sh).

Usage: checkpoint_save.py PLAIN.h5 SAVING.h5 SAVING.log
"""
import re
import sys

import h5py
import numpy as np

WAITED = re.compile(r"checkpoint at step (\d+): training waited ([\d.]+) s \(([\d.]+) s for the "
                    r"previous save, ([\d.]+) s to copy ([\d.]+) MiB")


def only_run(path):
    with h5py.File(path, "r") as f:
        run = f[next(iter(f.keys()))]
        return {"step_s": np.array(run["steps/duration_s"]),
                "epoch_s": float(run["epochs/duration_s"][0]),
                "total_s": float(run["summary"].attrs["total_time_s"])}


def main(plain_path, saving_path, log_path):
    plain, saving = only_run(plain_path), only_run(saving_path)
    # The first step warms up (allocations, thread pool): the others are the step time.
    step_s = float(np.median(plain["step_s"][1:]))
    saves = [tuple(float(x) for x in m.groups()) for m in WAITED.finditer(open(log_path).read())]
    in_epoch = [s for s in saves if s[0] < len(plain["step_s"])]
    print(f"step time (median, no checkpoints): {step_s:.3f} s")
    for step, waited, previous, copy, mib in saves:
        print(f"save at step {int(step)}: training waited {waited:.3f} s "
              f"(previous save {previous:.3f} s, copy of {mib:.0f} MiB {copy:.3f} s) "
              f"= {waited / step_s:.2f} steps")
    extra = (saving["epoch_s"] - plain["epoch_s"]) / max(1, len(in_epoch))
    print(f"epoch: {plain['epoch_s']:.2f} s without checkpoints, {saving['epoch_s']:.2f} s with "
          f"{len(in_epoch)} saves inside it: {extra:.3f} s per save = {extra / step_s:.2f} steps "
          f"(goal: under 2)")
    print(f"run: {plain['total_s']:.2f} s without, {saving['total_s']:.2f} s with (the last save "
          f"is waited for at the end)")


if __name__ == "__main__":
    main(*sys.argv[1:4])
