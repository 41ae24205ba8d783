"""A sweep killed with SIGKILL at random moments and resumed until it completes: every run
must end completed, its epochs and steps recorded once, and its step losses those of the same
sweep run without a kill.

The sweep: blobs with the layered fixture model, ddp on 2 local ranks, 3 epochs of 128 steps, a
checkpoint every 20 steps; one point per learning rate. The whole process group (the launcher
and its ranks) is killed each time, at a moment drawn uniformly from [min, max] seconds.

Usage (from the checkout, after building; Debian's python3 with h5py):
  /usr/bin/python3 tools/soak/resume_soak.py [--points 200] [--seed 1] [--kill-after 1 6]
Prints the figures: points, launches, kills, runs resumed from a checkpoint, time, and every
difference from the reference sweep; exit 1 when there is one.
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def sweep_toml(results, points):
    rates = ", ".join(f"{0.002 + 0.0001 * i:.4f}" for i in range(points))
    return f"""[experiment]
name = "soak"
results = "{results}"
[dataset]
name = "blobs"
train_size = 4096
[model]
name = "layered_probe"
[optimizer]
name = "adam"
lr = 0.01
[train]
epochs = 3
batch_size = 32
threads = 1
[strategy]
name = "ddp"
world_size = 2
timeout_s = 30
[checkpoint]
every_steps = 20
keep = 2
[sweep]
"optimizer.lr" = [{rates}]
"""


def runner_command(args, toml, resume):
    command = [args.runner, "--quiet", "--plugin-path", args.plugin_path, toml]
    return command + (["--resume"] if resume else [])


def runs_by_point(path):
    """{lr: (status, epochs, step losses, resumed_from)} of the file's runs, and their count."""
    runs = {}
    with h5py.File(path, "r") as f:
        groups = len(f)
        for name, run in f.items():
            lr = float(run["sweep"].attrs["optimizer.lr"])
            resumed = run.attrs.get("resumed_from", b"")
            runs[round(lr, 6)] = (
                run.attrs["status"].decode() if isinstance(run.attrs["status"], bytes)
                else str(run.attrs["status"]),
                np.array(run["epochs/epoch"]), np.array(run["steps/loss"]),
                resumed.decode() if isinstance(resumed, bytes) else str(resumed))
    return runs, groups


def soak(args, toml, rng):
    launches = kills = 0
    start = time.monotonic()
    while True:
        process = subprocess.Popen(runner_command(args, toml, launches > 0),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        launches += 1
        try:
            code = process.wait(timeout=rng.uniform(*args.kill_after))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            kills += 1
            continue
        if code == 0:
            return launches, kills, time.monotonic() - start
        if launches > args.points * 20:
            sys.exit(f"the sweep never completed: {launches} launches, the last exit {code}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runner", default=os.path.join(ROOT, "build/bin/runner"))
    parser.add_argument("--plugin-path", default=os.path.join(ROOT, "build/tests/fixtures/good"))
    parser.add_argument("--points", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kill-after", type=float, nargs=2, default=[1.0, 6.0])
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="runner-soak-")
    reference, soaked = os.path.join(work, "reference.toml"), os.path.join(work, "soak.toml")
    with open(reference, "w") as f:
        f.write(sweep_toml(os.path.join(work, "reference.h5"), args.points))
    with open(soaked, "w") as f:
        f.write(sweep_toml(os.path.join(work, "soak.h5"), args.points))

    begin = time.monotonic()
    subprocess.run(runner_command(args, reference, False), check=True, stdout=subprocess.DEVNULL)
    reference_s = time.monotonic() - begin
    launches, kills, soak_s = soak(args, soaked, rng)

    expected, _ = runs_by_point(os.path.join(work, "reference.h5"))
    got, groups = runs_by_point(os.path.join(work, "soak.h5"))
    if groups != len(got):
        differences_of_count = [f"{groups} run groups for {len(got)} points"]
    else:
        differences_of_count = []
    differences = differences_of_count
    for lr, (status, epochs, losses, _) in expected.items():
        if lr not in got:
            differences.append(f"lr {lr}: no run")
            continue
        s_status, s_epochs, s_losses, _ = got[lr]
        if s_status != "completed" or list(s_epochs) != list(epochs):
            differences.append(f"lr {lr}: {s_status}, epochs {list(s_epochs)}")
        elif not np.array_equal(s_losses, losses):
            differences.append(f"lr {lr}: step losses differ ({len(s_losses)} of {len(losses)})")
    resumed = sum(1 for run in got.values() if run[3])
    print(f"points: {args.points}; reference sweep {reference_s:.0f} s")
    print(f"soak: {launches} launches, {kills} kills (after {args.kill_after[0]:g} to "
          f"{args.kill_after[1]:g} s), {resumed} runs resumed from a checkpoint, {soak_s:.0f} s")
    print(f"run groups in the soaked file: {groups}; differences from the reference: "
          f"{len(differences)}")
    for line in differences[:20]:
        print("  " + line)
    print(f"files kept in {work}" if differences else "")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
