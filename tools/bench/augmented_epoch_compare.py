#!/usr/bin/python3
"""Runs augmented_epoch.py (num_workers 0, 1, 2, 4) and the runner (num_workers 0 and 1) in
alternating order for a few rounds and prints each epoch time, the ratios and the runner's
data-wait share. Called by augmented_epoch.sh, which sets the environment."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "/usr/share/datasets/fashion-mnist"
PY_WORKERS = (0, 1, 2, 4)
RUNNER_WORKERS = (0, 1)


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
        sys.exit(f"augmented_epoch: {' '.join(cmd[:3])}... failed with {done.returncode}")
    return done.stdout


def python_epoch(workers):
    out = run(["/usr/bin/python3", os.path.join(HERE, "augmented_epoch.py"),
               "--num-workers", str(workers)])
    values = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    return float(values["epoch_s"]), float(values["data_wait_s"]), float(values["test_accuracy"])


def runner_epoch(runner, experiment, workers, tmp):
    h5 = os.path.join(tmp, f"runner_{workers}_{len(os.listdir(tmp))}.h5")
    run([runner, experiment, "-q", "--set", f"dataset.data_dir={DATA}", "--set", "train.epochs=1",
         "--set", f"train.num_workers={workers}", "--set", f"experiment.results={h5}"])
    with h5py.File(h5, "r") as f:
        group = next(g for g in f["/"].values() if "run_id" in g.attrs)
        epochs = group["epochs"]
        return (float(epochs["duration_s"][-1]), float(epochs["data_wait_s"][-1]),
                float(epochs["test_accuracy"][-1]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--runner", required=True)
    parser.add_argument("--experiment", required=True)
    args = parser.parse_args()
    print("augmented LeNet-5 epoch, Fashion-MNIST 60k + 10k test, batch 64, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, cores {os.cpu_count()}")
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            jobs = [("runner", w) for w in RUNNER_WORKERS] + [("python", w) for w in PY_WORKERS]
            if round_ % 2:
                jobs.reverse()
            for side, workers in jobs:
                result = (runner_epoch(args.runner, args.experiment, workers, tmp)
                          if side == "runner" else python_epoch(workers))
                times.setdefault((side, workers), []).append(result)
                print(f"round {round_ + 1}: {side} num_workers={workers}: epoch {result[0]:.2f} s,"
                      f" data wait {result[1]:.2f} s, test acc {100 * result[2]:.2f}%",
                      flush=True)
    median = {key: statistics.median(r[0] for r in runs) for key, runs in times.items()}
    wait = {key: statistics.median(r[1] for r in runs) for key, runs in times.items()}
    print("\nmedian epoch time (s), data wait (s) and its share of the epoch:")
    for key in sorted(median):
        print(f"  {key[0]:<6} num_workers={key[1]}: {median[key]:7.2f}  wait {wait[key]:6.2f}"
              f"  ({100 * wait[key] / median[key]:4.1f}%)")
    best_runner = min(median[("runner", w)] for w in RUNNER_WORKERS)
    python_w0 = median[("python", 0)]
    best_python = min(median[("python", w)] for w in PY_WORKERS)
    print(f"\nrunner (best) / python num_workers=0: {best_runner / python_w0:.3f}  (goal <= 0.5)")
    print(f"runner (best) / python best num_workers: {best_runner / best_python:.3f}  (goal < 1)")
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
