"""TensorBoard's own reader over runner's event files: every run folder's step losses must
equal the results file's, and the hparams plugin must parse the sweep's experiment and each
run's session. Needs the `tensorboard` package (GPU machines have it; Debian 12 does not).

    python3 tools/gpu/read_with_tensorboard.py TB_FOLDER RESULTS.h5
"""
import os
import sys

import h5py
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.plugins.hparams import plugin_data_pb2


def accumulated(folder):
    events = event_accumulator.EventAccumulator(folder,
                                                size_guidance={"scalars": 0, "tensors": 0})
    events.Reload()
    return events


def hparams_of(events, tag):
    content = events.PluginTagToContent("hparams").get(tag)
    if content is None:
        return None
    data = plugin_data_pb2.HParamsPluginData()
    data.ParseFromString(content)
    return data


def step_losses(results, group):
    with h5py.File(results, "r", locking=False) as f:
        return dict(zip(f[group]["steps/step"][()].tolist(), f[group]["steps/loss"][()].tolist()))


def differs(shown, expected):
    return shown is None or abs(shown - expected) > 1e-6 * abs(expected)


def check_run(folder, results):
    """A run's folder is <label>-<group> (or <group>), its results group's name last."""
    events = accumulated(folder)
    if hparams_of(events, "_hparams_/session_start_info") is None:
        return f"{folder}: no hparams session start"
    group = os.path.basename(folder).rsplit("-", 1)[-1]
    shown = {e.step: e.value for e in events.Scalars("step/loss")}
    expected = step_losses(results, group)
    wrong = [s for s, loss in expected.items() if differs(shown.get(s), loss)]
    print(f"{os.path.basename(folder)}: {len(shown)} step losses, {len(events.Tags()['scalars'])} "
          f"scalar tags, {len(wrong)} differing from {group} in the results file")
    return f"{folder}: step losses differ at {wrong[:5]}" if wrong else None


def main(tb_folder, results):
    failures = []
    for experiment in sorted(os.listdir(tb_folder)):
        root = os.path.join(tb_folder, experiment)
        sweep = hparams_of(accumulated(root), "_hparams_/experiment")
        print(f"{experiment}: hparams experiment with "
              f"{len(sweep.experiment.hparam_infos) if sweep else 0} keys")
        for run in sorted(os.listdir(root)):
            if os.path.isdir(os.path.join(root, run)):
                failure = check_run(os.path.join(root, run), results)
                if failure:
                    failures.append(failure)
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
