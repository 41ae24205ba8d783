"""Figures of a results file: each run's loss and accuracy per epoch, and a sweep's time,
throughput, memory and accuracy against its swept keys (and, where some run measured them,
its ranks' time in communication and its GPU's utilisation). Each function returns its Figure, so
a notebook can show it and a test can read back what it drew."""
import os

import matplotlib

matplotlib.use("Agg")  # files only: no display needed

import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator, PercentFormatter  # noqa: E402

MIB = 1024.0 * 1024.0

# (runs column, axis title, scale applied to the values drawn)
SWEEP_PANELS = (
    ("total_time_s", "training time (s)", 1.0),
    ("samples_per_s", "samples/s", 1.0),
    ("peak_memory_bytes", "peak memory (MiB)", 1.0 / MIB),
    ("final_test_accuracy", "test accuracy", 1.0),
)
# Drawn only when some run of the sweep measured them.
MEASURED_PANELS = (
    ("communication_s", "time in communication (s)", 1.0),
    ("gpu_utilization", "GPU utilisation", 1.0),
)
FRACTIONS = ("final_test_accuracy", "gpu_utilization")


def plot_curves(results, group):
    """Train and test loss (left) and accuracy (right) per epoch of the run in `group`."""
    epochs = results.epochs[results.epochs["group"] == group]
    figure, (loss, accuracy) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    for split in ("train", "test"):
        loss.plot(epochs["epoch"], epochs[f"{split}_loss"], marker="o", label=split)
        accuracy.plot(epochs["epoch"], epochs[f"{split}_accuracy"], marker="o", label=split)
    loss.set(title="loss", xlabel="epoch")
    accuracy.set(title="accuracy", xlabel="epoch")
    accuracy.yaxis.set_major_formatter(PercentFormatter(1.0))
    for axes in (loss, accuracy):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.legend()
        axes.grid(alpha=0.3)
    figure.suptitle(_run_title(results, group))
    return figure


def plot_sweep(results):
    """Bars of time, samples/s, peak memory and test accuracy (then communication and GPU
    utilisation where measured): the first swept key along x, one bar colour per combination
    of the others. Each sweep point's latest run counts."""
    keys = results.sweep_keys
    runs = results.runs.drop_duplicates(subset=keys, keep="last")
    x_values = _distinct(runs[keys[0]])
    hues = _distinct(runs[keys[1:]].itertuples(index=False, name=None)) if keys[1:] else [()]
    shown = SWEEP_PANELS + tuple(p for p in MEASURED_PANELS
                                 if p[0] in runs and runs[p[0]].notna().any())
    columns = (len(shown) + 1) // 2
    figure, panels = plt.subplots(2, columns, figsize=(5.5 * columns, 7), constrained_layout=True)
    for axes in panels.flat[len(shown):]:
        axes.remove()
    width = 0.8 / len(hues)
    for (column, title, scale), axes in zip(shown, panels.flat):
        for h, hue in enumerate(hues):
            heights = [_value(runs, keys, (x,) + hue, column) * scale for x in x_values]
            positions = np.arange(len(x_values)) + (h - (len(hues) - 1) / 2) * width
            label = ", ".join(f"{k}={v}" for k, v in zip(keys[1:], hue)) or None
            axes.bar(positions, heights, width, label=label)
        # Every point keeps its slot, also where its bar is missing (NaN: not measured).
        axes.set(title=title, xlabel=keys[0], xticks=np.arange(len(x_values)),
                 xlim=(-0.5, len(x_values) - 0.5))
        axes.set_xticklabels([str(x) for x in x_values])
        axes.grid(axis="y", alpha=0.3)
        if column in FRACTIONS:
            axes.yaxis.set_major_formatter(PercentFormatter(1.0))
    if keys[1:]:
        panels.flat[0].legend(fontsize="small")
    figure.suptitle(f"{_experiment(results)}: sweep of {', '.join(keys)}")
    return figure


def write_figures(results, folder):
    """curves-<group>.png for every run with epochs, and sweep.png for a sweep; their paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    groups = results.epochs["group"].unique() if len(results.epochs) else []
    for group in groups:
        paths.append(_save(plot_curves(results, group), folder, f"curves-{_file_name(group)}.png"))
    if results.sweep_keys and len(results.runs):
        paths.append(_save(plot_sweep(results), folder, "sweep.png"))
    return paths


def _save(figure, folder, name):
    path = os.path.join(folder, name)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def _file_name(group):
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in group)


def _distinct(values):
    seen = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen


def _value(runs, keys, point, column):
    """The column's value at one sweep point; NaN when no run there measured it."""
    if column not in runs:
        return np.nan
    match = np.ones(len(runs), dtype=bool)
    for key, value in zip(keys, point):
        match &= (runs[key] == value).to_numpy()
    values = runs.loc[match, column]
    return float(values.iloc[-1]) if len(values) else np.nan


def _experiment(results):
    return results.runs["experiment"].iloc[0] if len(results.runs) else ""


def _run_title(results, group):
    run = results.runs[results.runs["group"] == group].iloc[0]
    point = ", ".join(f"{key}={run[key]}" for key in results.sweep_keys if key in run)
    return f"{run['experiment']} {group}" + (f" ({point})" if point else "")
