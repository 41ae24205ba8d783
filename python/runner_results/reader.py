"""load(): a results file as DataFrames of runs, epochs, steps, restarts and hang reports."""
import os
import stat
from dataclasses import dataclass, field

import h5py
import numpy as np
import pandas as pd

from runner_results.toml_values import config_values, value_of

FORMAT = "runner-results"
READABLE_VERSIONS = (1, 2)  # version 1 held sweep values as their TOML text

# Lists of one value per rank in a run's summary group.
PER_RANK_LISTS = (
    "peak_memory_per_rank_bytes",
    "estimated_memory_per_rank_bytes",
    "tensor_peak_per_rank_bytes",
    "state_memory_per_rank_bytes",
)


class ResultsFileError(Exception):
    """The file is missing, not HDF5, or not a runner results file of a version read here."""


@dataclass
class Results:
    runs: pd.DataFrame
    epochs: pd.DataFrame
    steps: pd.DataFrame
    sweep_keys: list = field(default_factory=list)  # in the order the sweep declares them
    # One row per restart of a run's ranks after a failure (train.max_restarts).
    restarts: pd.DataFrame = field(default_factory=pd.DataFrame)
    # One row per failed attempt with a hang report: its first line, and a line per rank.
    hang_reports: pd.DataFrame = field(default_factory=pd.DataFrame)


def load(path):
    """Every run of the results file at `path`, in the order the runs began."""
    with _open(path) as f:
        runs, epochs, steps, sweep_keys, restarts, hang_reports = [], [], [], [], [], []
        for name, run in f["/"].items():  # f["/"] iterates in creation order, f by name
            if not isinstance(run, h5py.Group) or "run_id" not in run.attrs:
                continue  # a user's own group
            row = _run_row(name, run, int(f.attrs["format_version"]))
            for key in run["sweep"].attrs:
                if key not in sweep_keys:
                    sweep_keys.append(key)
            runs.append(row)
            epochs.append(_series(run, "epochs", name, row["run_id"]))
            steps.append(_series(run, "steps", name, row["run_id"]))
            restarts.extend(_restarts(run, name, row["run_id"]))
            hang_reports.extend(_attempts(run, "hang_reports", name, row["run_id"]))
    return Results(
        runs=pd.DataFrame(runs),
        epochs=_concat(epochs),
        steps=_concat(steps),
        sweep_keys=sweep_keys,
        restarts=pd.DataFrame(restarts),
        hang_reports=pd.DataFrame(hang_reports),
    )


# What a path is when it is no regular file, in the words of runner's own refusals.
SPECIAL_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _refuse_special_file(path):
    """Before anything opens it: opening a FIFO waits for a writer."""
    mode = os.stat(path).st_mode
    for is_kind, kind in SPECIAL_KINDS:
        if is_kind(mode):
            raise ResultsFileError(f"{path}: is {kind}, not a results file")


def _open(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ResultsFileError(f"results file not found: {path}")
    _refuse_special_file(path)
    if not h5py.is_hdf5(path):
        raise ResultsFileError(f"{path}: not an HDF5 file")
    f = h5py.File(path, "r", locking=False)  # an experiment may still be writing it
    if f.attrs.get("format") != FORMAT:
        f.close()
        raise ResultsFileError(f"{path}: not a runner results file (no format = '{FORMAT}')")
    version = int(f.attrs.get("format_version", -1))
    if version not in READABLE_VERSIONS:
        f.close()
        raise ResultsFileError(
            f"{path}: results format version {version}, but this reader reads "
            f"versions {READABLE_VERSIONS[0]} to {READABLE_VERSIONS[-1]}")
    return f


def _python_value(value):
    """numpy scalars as Python's: bool, int, float, str."""
    return value.item() if isinstance(value, np.generic) else value


def _run_row(name, run, version):
    row = {"group": name}
    for key in ("run_id", "label", "experiment", "status", "error", "started_at", "finished_at"):
        row[key] = run.attrs.get(key, "")
    environment = dict(run["environment"].attrs)
    row["world_size"] = int(environment.get("world_size", 1))
    row.update({f"environment.{key}": value for key, value in environment.items()})
    row.update(config_values(run["config"].asstr()[()]))
    for key, value in run["sweep"].attrs.items():
        row[key] = value_of(value) if version == 1 else _python_value(value)
    row.update(_summary(run))
    row.update(_throughput(run, row["world_size"]))
    restarts = _restarts(run, name, row["run_id"])
    if restarts:
        row["restarts"] = len(restarts)
        row["time_lost_s"] = sum(restart["time_lost_s"] for restart in restarts)
    return row


def _restarts(run, group_name, run_id):
    """The run's restarts after failures, in order: attributes of restarts/<number>."""
    return _attempts(run, "restarts", group_name, run_id)


def _attempts(run, kind, group_name, run_id):
    """The attributes of each <kind>/<attempt> group of the run, by attempt."""
    if kind not in run:
        return []
    found = []
    for attempt in run[kind].values():
        row = {"group": group_name, "run_id": run_id}
        row.update({key: _python_value(value) for key, value in attempt.attrs.items()})
        found.append(row)
    return sorted(found, key=lambda row: row["attempt"])


def _summary(run):
    if "summary" not in run:
        return {}
    summary = run["summary"]
    values = {key: _python_value(value) for key, value in summary.attrs.items()}
    for name in PER_RANK_LISTS:
        if name in summary:
            values[name] = list(summary[name][()])
    if "peak_memory_bytes" not in values:  # version 1: the per-rank list only
        values["peak_memory_bytes"] = max(values.get("peak_memory_per_rank_bytes") or [0.0])
    return values


def _columns(group):
    """A series group's columns, cut to the shortest (a writer killed mid-row)."""
    columns = {key: dataset[()] for key, dataset in group.items()}
    length = min((len(values) for values in columns.values()), default=0)
    return {key: values[:length] for key, values in columns.items()}


def _throughput(run, world_size):
    """What `runner report` shows: the epochs' mean training throughput, the mean step time,
    the ranks' waits for collectives, and where NVML measured them, the GPU's mean
    utilisation and its largest memory use."""
    epochs, steps = _columns(run["epochs"]), _columns(run["steps"])
    values = {}
    if len(epochs.get("samples_per_s", [])):
        values["samples_per_s"] = float(np.mean(epochs["samples_per_s"]))
    measured_columns = [("gpu_utilization", "gpu_utilization", np.mean),
                        ("gpu_memory_used_bytes", "gpu_memory_bytes", np.max)]
    if world_size > 1:
        measured_columns.append(("communication_s", "communication_s", np.sum))
    for column, name, combine in measured_columns:
        measured = np.asarray(epochs.get(column, []), dtype=float)
        measured = measured[~np.isnan(measured)]
        if len(measured):
            values[name] = float(combine(measured))
    values.update(_waits_spread(epochs))
    if len(steps.get("duration_s", [])):
        values["step_time_s"] = float(np.mean(steps["duration_s"]))
    return values


def _waits_spread(epochs):
    """The most one rank waited for collectives, over the measured epochs, and the rank the
    others waited for in most epochs (the lowest on a tie), as `runner report` shows them."""
    most = np.asarray(epochs.get("communication_max_s", []), dtype=float)
    most = most[~np.isnan(most)]
    slowest = np.asarray(epochs.get("slowest_rank", []), dtype=float)
    slowest = slowest[~np.isnan(slowest)].astype(int)
    values = {}
    if len(most):
        values["communication_max_s"] = float(np.sum(most))
    if len(slowest):
        values["slowest_rank"] = int(np.argmax(np.bincount(slowest)))
    return values


def _series(run, name, group_name, run_id):
    frame = pd.DataFrame(_columns(run[name]))
    frame.insert(0, "run_id", run_id)
    frame.insert(0, "group", group_name)
    return frame


def _concat(frames):
    frames = [frame for frame in frames if len(frame)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
