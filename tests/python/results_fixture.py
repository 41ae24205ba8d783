"""A results file from a short real run: the fixture plugin's blobs, a zipped sweep of one key
of each TOML type. Made once per test process."""
import functools
import os
import subprocess
import tempfile

SWEEP = {
    "optimizer.lr": [0.01, 0.1, 0.05],
    "optimizer.nesterov": [True, False, True],
    "train.batch_size": [16, 32, 16],
    "model.activation": ["fixture_identity", "relu", "relu"],
}

EXPERIMENT = """\
[experiment]
name = "blobs_sweep"
results = "{results}"
[dataset]
name = "blobs"
[model]
name = "linear_probe"
[optimizer]
name = "sgd"
momentum = 0.9
[train]
epochs = 2
batch_size = 32
[sweep]
mode = "zip"
"optimizer.lr" = [0.01, 0.1, 0.05]
"optimizer.nesterov" = [true, false, true]
"train.batch_size" = [16, 32, 16]
"model.activation" = ["fixture_identity", "relu", "relu"]
"""


@functools.lru_cache(maxsize=None)
def sweep_results():
    """The path of a results file holding the three runs of SWEEP."""
    folder = tempfile.mkdtemp(prefix="runner-python-")
    results = os.path.join(folder, "blobs_sweep.h5")
    experiment = os.path.join(folder, "blobs_sweep.toml")
    with open(experiment, "w") as f:
        f.write(EXPERIMENT.format(results=results))
    subprocess.run(
        [os.environ["RUNNER_BINARY"], "-q", "--plugin-path", os.environ["RUNNER_FIXTURE_PLUGINS"],
         experiment],
        check=True)
    return results
