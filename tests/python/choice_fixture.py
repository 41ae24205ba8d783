"""A results file whose sweep points hold several runs each, as a user's file gathers them
when an experiment is run again: a sweep of optimizer.lr written by the runner binary on the
fixture plugin's blobs, invocation after invocation. Made once per test process."""
import functools
import os
import subprocess
import tempfile

import h5py

EXPERIMENT = """\
[experiment]
name = "blobs_choice"
results = "{results}"
table = ["step_time_s", "tflops", "forward_s"]
[dataset]
name = "blobs"
[model]
name = "linear_probe"
[optimizer]
name = "sgd"
momentum = 0.9
[train]
epochs = 2
batch_size = 64
[sweep]
"optimizer.lr" = {rates}
"""

STEPS_PER_EPOCH = 8  # blobs' 512 training samples in batches of 64

# (role, the sweep's rates, --set overrides, environment), in the order they run. Every role
# but the last is a real run of the binary; "skipped" is an edit of the file (see below).
INVOCATIONS = (
    ("full", [0.01, 0.1], [], {}),
    ("short", [0.01, 0.1], ["train.max_steps_per_epoch=1"], {}),
    # Fails later, at the first step of its fourth epoch (a NaN loss), with three epochs
    # recorded: more steps than "full".
    ("nan", [0.01, 0.1], ["train.epochs=4", f"model.poison_at_step={3 * STEPS_PER_EPOCH + 1}"],
     {}),
    ("full_again", [0.1], [], {}),
    ("failed", [0.2], ["model.fail_at_step=1"], {}),
    # Killed (SIGKILL) at the process's 20th training forward, which counts the forwards
    # runner makes before the first epoch too: before the run ends, so its status stays
    # "running" (here with its first epoch recorded).
    ("killed", [0.3], [], {"FIXTURE_KILL_AT_STEP": "20"}),
    ("skipped", [0.4], ["model.fail_at_step=1"], {}),
)


@functools.lru_cache(maxsize=None)
def choice_results():
    """(path, {role: the groups its invocation added, in the order they began}). The rates
    0.01 and 0.1 have a full, a shorter and a failed run (0.1 a second full one after them),
    0.2 a failed run only, 0.3 a killed one, 0.4 a skipped one."""
    folder = tempfile.mkdtemp(prefix="runner-python-choice-")
    results = os.path.join(folder, "blobs_choice.h5")
    roles = {}
    for role, rates, overrides, environment in INVOCATIONS:
        before = _groups(results)
        _run(folder, results, rates, overrides, environment)
        roles[role] = [name for name in _groups(results) if name not in before]
    _mark_skipped(results, roles["skipped"])
    return results, roles


def _run(folder, results, rates, overrides, environment):
    experiment = os.path.join(folder, "blobs_choice.toml")
    with open(experiment, "w") as f:
        f.write(EXPERIMENT.format(results=results, rates=rates))
    command = [os.environ["RUNNER_BINARY"], "-q", "--plugin-path",
               os.environ["RUNNER_FIXTURE_PLUGINS"]]
    for override in overrides:
        command += ["--set", override]
    # Failed and killed runs end the binary with an error: the file is what counts.
    subprocess.run(command + [experiment], env={**os.environ, **environment},
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _groups(path):
    if not os.path.exists(path):
        return []
    with h5py.File(path, "r", locking=False) as f:
        return [name for name, group in f["/"].items() if "run_id" in group.attrs]


def _mark_skipped(path, groups):
    """A run is skipped where the machine cannot run it (a backend or GPUs it lacks), which
    this machine may not show: the failed run's status is set to "skipped" with h5py."""
    with h5py.File(path, "r+", locking=False) as f:
        for name in groups:
            f[name].attrs["status"] = "skipped"
            f[name].attrs["error"] = "backend nccl needs LibTorch built with CUDA"
