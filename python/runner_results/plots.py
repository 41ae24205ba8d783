"""Figures of a results file: each run's losses and accuracy, a sweep's time, throughput,
memory, accuracy and the study's own table columns against its swept keys, and a sweep's runs
overlaid. Every sweep figure draws the runs that chosen_runs() picks, one per sweep point.
Each function returns its Figure, so a notebook can show it and a test can read back what it
drew."""
import math
import os

import matplotlib

matplotlib.use("Agg")  # files only: no display needed

import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator, PercentFormatter  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402
from pandas.api.types import is_bool_dtype, is_numeric_dtype  # noqa: E402

MIB = 1024.0 * 1024.0
COMPLETED = "completed"
PARTIAL = "partial"  # a run left "running" in the file: killed, or still training

# (runs column, axis title, scale applied to the values drawn)
SWEEP_PANELS = (
    ("total_time_s", "training time (s)", 1.0),
    ("samples_per_s", "samples/s", 1.0),
    ("peak_memory_bytes", "peak memory (MiB)", 1.0 / MIB),
    ("final_test_accuracy", "test accuracy", 1.0),
)
# Drawn only when some chosen run of the sweep measured them.
MEASURED_PANELS = (
    ("communication_s", "time in communication (s)", 1.0),
    ("gpu_utilization", "GPU utilisation", 1.0),
)
# Drawn as points on an axis spanning the values, not as bars from 0: 86.85% against 84.90%
# would be bars of the same height.
FRACTIONS = ("final_test_accuracy", "gpu_utilization")
# An [experiment] table name as `runner report` spells it -> the runs column of that number.
REPORT_NAMES = {"time_s": "total_time_s", "test_accuracy": "final_test_accuracy"}
# The smallest margin around the values on a fraction axis: one value still gets a range.
MIN_FRACTION_MARGIN = 0.005
# The per-step training loss shares the colour of the train points per epoch.
SPLIT_COLORS = {"train": "C0", "test": "C1"}


def chosen_runs(results):
    """The run that stands for each sweep point: one row of `results.runs` per point, in the
    order the points' first runs began. Among a point's completed runs the one that trained the
    most is chosen (the most recorded steps; ties: the latest); a point with no completed run
    gets its latest run. Two columns are added: `recorded_steps`, and `point_status`:
    "completed", or else that latest run's status, "failed", "skipped" or "partial" (for a run
    left "running": killed, or still training). A file without a sweep is one point."""
    runs = results.runs.assign(recorded_steps=_recorded_steps(results))
    chosen, statuses = [], []
    for indices in _points(runs, results.sweep_keys).values():
        at_point = runs.loc[indices]
        completed = at_point[at_point["status"] == COMPLETED]
        if len(completed):
            most = completed["recorded_steps"] == completed["recorded_steps"].max()
            chosen.append(completed.index[most.to_numpy()][-1])
            statuses.append(COMPLETED)
        else:
            chosen.append(indices[-1])
            statuses.append(_shown_status(at_point["status"].iloc[-1]))
    return runs.loc[chosen].assign(point_status=statuses).reset_index(drop=True)


def plot_curves(results, group):
    """The run in `group`: its training loss at every recorded step and its train and test
    loss per epoch (left), its train and test accuracy per epoch (right); the title names its
    status unless it completed. x is in epochs:
    step s at s / (steps per epoch), so each epoch's point sits where its last step does."""
    epochs = _epochs_of(results, group)
    figure, (loss, accuracy) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    loss.plot(*_step_losses(results, group), linewidth=0.8, alpha=0.5, color=SPLIT_COLORS["train"],
              label="train (per step)")
    for split, color in SPLIT_COLORS.items():
        loss.plot(epochs["epoch"], epochs[f"{split}_loss"], marker="o", color=color, label=split)
        accuracy.plot(epochs["epoch"], epochs[f"{split}_accuracy"], marker="o", color=color,
                      label=split)
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
    """One panel per number of the chosen runs (chosen_runs): time, samples/s, peak memory
    and test accuracy; time in communication and GPU utilisation where some chosen run
    measured them; then each numeric runs column that the experiment's `[experiment] table`
    names and no panel shows yet (a name that is no such column is listed in the title). The
    first swept key is along x, each combination of the others has its colour. Accuracy and
    GPU utilisation are points on an axis spanning their values; the others are bars from 0.
    A point with no completed run keeps its slot, empty, labelled with its status."""
    grid = _SweepGrid(results)
    completed = grid.chosen[grid.chosen["point_status"] == COMPLETED]
    shown = SWEEP_PANELS + tuple(p for p in MEASURED_PANELS if _measured(completed, p[0]))
    table_panels, not_drawn = _table_panels(results, grid.chosen, [p[0] for p in shown])
    shown += table_panels
    columns = (len(shown) + 1) // 2
    figure, panels = plt.subplots(2, columns, figsize=(5.5 * columns, 7), constrained_layout=True,
                                  squeeze=False)
    for axes in panels.flat[len(shown):]:
        axes.remove()
    for panel, axes in zip(shown, panels.flat):
        _draw_panel(axes, panel, grid)
    if len(grid.hues) > 1:
        _legend_below(panels[1, 0])
    title = f"{_experiment(results)}: sweep of {', '.join(grid.keys)}"
    if not_drawn:
        title += f"\n[experiment] table: {', '.join(not_drawn)} not drawn (no such number)"
    figure.suptitle(title)
    return figure


def plot_sweep_curves(results):
    """The chosen run of every sweep point with a completed run, overlaid: its training loss
    at every recorded step (left) and its test accuracy per epoch (right), x in epochs as in
    plot_curves, one colour and legend entry per run, labelled by its sweep point. Points with
    no completed run are listed in the title with their status."""
    keys = _sweep_keys(results)
    chosen = chosen_runs(results)
    figure, (loss, accuracy) = plt.subplots(1, 2, figsize=(11, 5.5), constrained_layout=True)
    completed = chosen[chosen["point_status"] == COMPLETED]
    for i, (_, run) in enumerate(completed.iterrows()):
        label, color = _point_label(keys, run), f"C{i % 10}"
        epochs = _epochs_of(results, run["group"])
        loss.plot(*_step_losses(results, run["group"]), linewidth=1, color=color, label=label)
        accuracy.plot(epochs["epoch"], epochs["test_accuracy"], marker="o", color=color,
                      label=label)
    loss.set(title="training loss per step", xlabel="epoch")
    accuracy.set(title="test accuracy", xlabel="epoch")
    accuracy.yaxis.set_major_formatter(PercentFormatter(1.0))
    for axes in (loss, accuracy):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.grid(alpha=0.3)
    if len(completed):
        _legend_below(loss)
    title = f"{_experiment(results)}: runs of the sweep of {', '.join(keys)}"
    unfinished = chosen[chosen["point_status"] != COMPLETED]
    if len(unfinished):
        title += "\nnot drawn: " + "; ".join(f"{_point_label(keys, run)} ({run['point_status']})"
                                             for _, run in unfinished.iterrows())
    figure.suptitle(title)
    return figure


def write_figures(results, folder):
    """curves-<group>.png for every run with epochs, and sweep.png and sweep-curves.png for a
    sweep; their paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    groups = results.epochs["group"].unique() if len(results.epochs) else []
    for group in groups:
        paths.append(_save(plot_curves(results, group), folder, f"curves-{_file_name(group)}.png"))
    if results.sweep_keys and len(results.runs):
        paths.append(_save(plot_sweep(results), folder, "sweep.png"))
        paths.append(_save(plot_sweep_curves(results), folder, "sweep-curves.png"))
    return paths


class _SweepGrid:
    """The slots of a sweep figure: the first swept key's values along x, one slot per
    combination of the other keys beside each other, and the chosen run in each slot."""

    def __init__(self, results):
        self.keys = _sweep_keys(results)
        self.chosen = chosen_runs(results)
        points = _point_tuples(self.chosen, self.keys)
        self.slot_rows = dict(zip(points, range(len(points))))
        self.x_values = _distinct(point[0] for point in points)
        self.hues = _distinct(point[1:] for point in points)
        self.width = 0.8 / len(self.hues)

    def positions(self, hue_index):
        offset = (hue_index - (len(self.hues) - 1) / 2) * self.width
        return np.arange(len(self.x_values)) + offset

    def run(self, x, hue):
        """The chosen run of the slot, None where no run has that point."""
        index = self.slot_rows.get((x,) + hue)
        return None if index is None else self.chosen.iloc[index]

    def value(self, x, hue, column):
        """The column's value in the slot; NaN where no completed run measured it."""
        run = self.run(x, hue)
        if run is None or run["point_status"] != COMPLETED or column not in run:
            return np.nan
        return float(run[column])

    def hue_label(self, hue):
        return ", ".join(f"{key}={value}" for key, value in zip(self.keys[1:], hue)) or None


def _draw_panel(axes, panel, grid):
    column, title, scale = panel
    drawn = []
    for h, hue in enumerate(grid.hues):
        values = [grid.value(x, hue, column) * scale for x in grid.x_values]
        positions = grid.positions(h)
        style = {"color": f"C{h % 10}", "label": grid.hue_label(hue)}
        if column in FRACTIONS:
            axes.plot(positions, values, linestyle="none", marker="o", **style)
        else:
            axes.bar(positions, values, grid.width, **style)
        _label_unfinished_slots(axes, grid, hue, positions)
        drawn += values
    # Every point keeps its slot, also where it has nothing to draw.
    axes.set(title=title, xlabel=grid.keys[0], xticks=np.arange(len(grid.x_values)),
             xlim=(-0.5, len(grid.x_values) - 0.5))
    axes.set_xticklabels([str(x) for x in grid.x_values])
    axes.grid(axis="y", alpha=0.3)
    if column in FRACTIONS:
        _span_values(axes, drawn)
        axes.yaxis.set_major_formatter(PercentFormatter(1.0))


def _legend_below(axes):
    """The axes' legend under them, where labels of whole sweep points hide no data."""
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(0.0, -0.15))


def _label_unfinished_slots(axes, grid, hue, positions):
    """The status of each slot whose point has no completed run, upright in its slot."""
    at_slot = blended_transform_factory(axes.transData, axes.transAxes)
    for x, position in zip(grid.x_values, positions):
        run = grid.run(x, hue)
        if run is not None and run["point_status"] != COMPLETED:
            axes.text(position, 0.5, run["point_status"], transform=at_slot, rotation=90,
                      ha="center", va="center", color="0.4")


def _span_values(axes, values):
    """The y range of the values with a margin: their differences stay visible."""
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return
    low, high = min(finite), max(finite)
    margin = max(0.15 * (high - low), MIN_FRACTION_MARGIN)
    axes.set_ylim(low - margin, high + margin)


def _table_panels(results, chosen, shown_columns):
    """Panels of the numbers the chosen runs' `[experiment] table` names that no panel shows
    yet, and the names that are no numeric runs column."""
    tables = chosen["experiment.table"] if "experiment.table" in chosen else []
    names = _distinct(name for table in tables if isinstance(table, list) for name in table)
    panels, not_drawn = [], []
    for name in names:
        column = REPORT_NAMES.get(name, name)
        if column in shown_columns:
            continue
        if _is_number_column(results.runs, column):
            panels.append(_table_panel(column))
            shown_columns.append(column)
        else:
            not_drawn.append(name)
    return tuple(panels), not_drawn


def _table_panel(column):
    if column.endswith("_bytes"):
        return (column, f"{column} (MiB)", 1.0 / MIB)
    return (column, column, 1.0)


def _is_number_column(runs, column):
    return column in runs and is_numeric_dtype(runs[column]) and not is_bool_dtype(runs[column])


def _measured(runs, column):
    return column in runs and runs[column].notna().any()


def _sweep_keys(results):
    if not results.sweep_keys or not len(results.runs):
        raise ValueError("the results hold no sweep: plot_curves draws each run")
    return results.sweep_keys


def _recorded_steps(results):
    if not len(results.steps):
        return np.zeros(len(results.runs), dtype=np.int64)
    counts = results.steps.groupby("group").size()
    return results.runs["group"].map(counts).fillna(0).astype(np.int64).to_numpy()


def _points(runs, keys):
    """{sweep point: the runs' indices there, in the order they began}, points in the order
    of their first run."""
    points = {}
    for index, point in zip(runs.index, _point_tuples(runs, keys)):
        points.setdefault(point, []).append(index)
    return points


def _point_tuples(runs, keys):
    """Each run's sweep point: its values of the keys, in their order."""
    if not keys:
        return [()] * len(runs)
    return [tuple(_comparable(v) for v in point) for point in zip(*(runs[key] for key in keys))]


def _comparable(value):
    """NaN (a run without that swept key) as None: NaN equals nothing, not even itself."""
    return None if isinstance(value, float) and math.isnan(value) else value


def _shown_status(status):
    return PARTIAL if status == "running" else status


def _point_label(keys, run):
    return ", ".join(f"{key}={run[key]}" for key in keys)


def _epochs_of(results, group):
    if not len(results.epochs):
        return results.epochs.reindex(columns=["epoch", "train_loss", "test_loss",
                                               "train_accuracy", "test_accuracy"])
    return results.epochs[results.epochs["group"] == group]


def _step_losses(results, group):
    """(x in epochs, loss) of the run's recorded steps. Every epoch of a run has as many steps
    and records them with its row, so steps per epoch = the last step / the last epoch."""
    epochs = _epochs_of(results, group)
    if not len(results.steps) or not len(epochs):
        return np.array([]), np.array([])
    steps = results.steps[results.steps["group"] == group]
    if not len(steps):
        return np.array([]), np.array([])
    per_epoch = steps["step"].iloc[-1] / epochs["epoch"].iloc[-1]
    return steps["step"].to_numpy() / per_epoch, steps["loss"].to_numpy()


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


def _experiment(results):
    return results.runs["experiment"].iloc[0] if len(results.runs) else ""


def _run_title(results, group):
    """The run's experiment, group and sweep point, and its status unless it completed: a
    failed or killed run's curves end early."""
    run = results.runs[results.runs["group"] == group].iloc[0]
    point = ", ".join(f"{key}={run[key]}" for key in results.sweep_keys if key in run)
    title = f"{run['experiment']} {group}" + (f" ({point})" if point else "")
    return title if run["status"] == COMPLETED else f"{title}: {_shown_status(run['status'])}"
