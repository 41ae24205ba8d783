"""The figures are drawn from the file's numbers: read back what was plotted and compare it
with the file read independently with h5py."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np
from matplotlib.ticker import PercentFormatter

try:
    import tomllib
except ImportError:  # Python before 3.11
    import tomli as tomllib

import runner_results
from choice_fixture import choice_results
from results_fixture import SWEEP, sweep_results

MIB = 1024.0 * 1024.0
TITLES = ["training time (s)", "samples/s", "peak memory (MiB)", "test accuracy"]


def run_groups(f):
    return [(name, group) for name, group in f["/"].items() if "run_id" in group.attrs]


def copy_of(test, path):
    """A copy of the results file at `path` that the test may edit, removed after it."""
    folder = tempfile.mkdtemp()
    test.addCleanup(shutil.rmtree, folder)
    copy = os.path.join(folder, os.path.basename(path))
    shutil.copy(path, copy)
    return copy


def keep_swept_keys(path, keys):
    """Edits the file as if its sweep had declared only `keys`."""
    with h5py.File(path, "r+") as f:
        for _, group in run_groups(f):
            for key in list(group["sweep"].attrs):
                if key not in keys:
                    del group["sweep"].attrs[key]


def panel_values(group):
    """{panel title: the number it draws for the run}, read from the run's group."""
    summary = group["summary"]
    return {
        "training time (s)": summary.attrs["total_time_s"],
        "samples/s": group["epochs/samples_per_s"][()].mean(),
        "peak memory (MiB)": summary["peak_memory_per_rank_bytes"][()].max() / MIB,
        "test accuracy": summary.attrs["final_test_accuracy"],
        "step_time_s": group["steps/duration_s"][()].mean(),
        "tflops": summary.attrs["tflops"],
    }


def slot_of(group, keys):
    """(its colour's legend label, its x tick) of a run's sweep point."""
    sweep = group["sweep"].attrs
    return (", ".join(f"{key}={sweep[key]}" for key in keys[1:]), str(sweep[keys[0]]))


def expected_slots(f, groups, keys, titles):
    """{panel title: {slot: value}} of the runs in `groups`."""
    expected = {title: {} for title in titles}
    for name in groups:
        values = panel_values(f[name])
        for title in titles:
            expected[title][slot_of(f[name], keys)] = values[title]
    return expected


def assert_spans(test, axes, values):
    """The panel draws points on a y range that holds the values with a margin of at most a
    quarter of their spread and one percentage point; no bars, whose baseline it would hide."""
    low, high = axes.get_ylim()
    spread = max(values) - min(values)
    test.assertLess(low, min(values))
    test.assertGreater(high, max(values))
    test.assertGreaterEqual(low, min(values) - 0.25 * spread - 0.01)
    test.assertLessEqual(high, max(values) + 0.25 * spread + 0.01)
    test.assertEqual(len(axes.patches), 0)
    test.assertIsInstance(axes.yaxis.get_major_formatter(), PercentFormatter)


def legend_label(artist):
    label = artist.get_label()
    return "" if label is None or label.startswith("_") else label


def drawn_slots(axes):
    """{slot: value} of every bar or point a panel drew (NaN: nothing drawn)."""
    ticks = [tick.get_text() for tick in axes.get_xticklabels()]
    drawn = {}
    for container in axes.containers:
        for bar in container:
            if not np.isnan(bar.get_height()):
                x = ticks[round(bar.get_x() + bar.get_width() / 2)]
                drawn[(legend_label(container), x)] = bar.get_height()
    for line in axes.lines:
        for x, y in zip(line.get_xdata(), line.get_ydata()):
            if not np.isnan(y):
                drawn[(legend_label(line), ticks[round(x)])] = y
    return drawn


def slot_texts(axes):
    """{x tick: the texts at that slot} of a panel."""
    ticks = [tick.get_text() for tick in axes.get_xticklabels()]
    texts = {}
    for text in axes.texts:
        texts.setdefault(ticks[round(text.get_position()[0])], []).append(text.get_text())
    return texts


def steps_in_epochs(group):
    """(x, loss) of a run's recorded steps, x in epochs, from its group."""
    steps, epochs = group["steps/step"][()], group["epochs/epoch"][()]
    return steps / (steps[-1] / epochs[-1]), group["steps/loss"][()]


def roles_at(f, roles, role):
    """{optimizer.lr: group} of the runs that one invocation of the choice file added."""
    return {f[name]["sweep"].attrs["optimizer.lr"]: name for name in roles[role]}


def chosen_in_choice_file(f, roles):
    """The groups a user reads as the sweep's runs: per rate, its longest completed run."""
    full, again = roles_at(f, roles, "full"), roles_at(f, roles, "full_again")
    return [full[0.01], again[0.1]]


class ChosenRunsTest(unittest.TestCase):
    """Which run stands for a sweep point that holds several (choice_fixture's invocations)."""

    @classmethod
    def setUpClass(cls):
        cls.path, cls.roles = choice_results()
        cls.chosen = runner_results.chosen_runs(runner_results.load(cls.path))
        cls.by_rate = cls.chosen.set_index("optimizer.lr")

    def test_the_completed_run_that_trained_most_stands_for_its_point(self):
        with h5py.File(self.path, "r") as f:
            full = roles_at(f, self.roles, "full")[0.01]
            later = [roles_at(f, self.roles, role)[0.01] for role in ("short", "nan")]
            names = [name for name, _ in run_groups(f)]
            # The file as the test means it: both later runs, the failed one with more steps.
            self.assertTrue(all(names.index(name) > names.index(full) for name in later))
            self.assertLess(len(f[later[0]]["steps/step"]), len(f[full]["steps/step"]))
            self.assertEqual(f[later[0]].attrs["status"], "completed")
            self.assertGreater(len(f[later[1]]["steps/step"]), len(f[full]["steps/step"]))
            self.assertEqual(f[later[1]].attrs["status"], "failed")
            steps = len(f[full]["steps/step"])
        self.assertEqual(self.by_rate.loc[0.01, "group"], full)
        self.assertEqual(self.by_rate.loc[0.01, "point_status"], "completed")
        self.assertEqual(self.by_rate.loc[0.01, "recorded_steps"], steps)

    def test_of_runs_that_trained_alike_the_latest_stands(self):
        with h5py.File(self.path, "r") as f:
            first = roles_at(f, self.roles, "full")[0.1]
            again = roles_at(f, self.roles, "full_again")[0.1]
            self.assertEqual(len(f[first]["steps/step"]), len(f[again]["steps/step"]))
        self.assertEqual(self.by_rate.loc[0.1, "group"], again)

    def test_a_point_without_a_completed_run_shows_its_latest_run_and_status(self):
        with h5py.File(self.path, "r") as f:
            statuses = {role: f[self.roles[role][0]].attrs["status"]
                        for role in ("failed", "killed", "skipped")}
            killed_epochs = len(f[self.roles["killed"][0]]["epochs/epoch"])
        self.assertGreater(killed_epochs, 0, "the fixture's killed run recorded no epoch")
        self.assertEqual(statuses, {"failed": "failed", "killed": "running",
                                    "skipped": "skipped"})
        for rate, role, shown in ((0.2, "failed", "failed"), (0.3, "killed", "partial"),
                                  (0.4, "skipped", "skipped")):
            self.assertEqual(self.by_rate.loc[rate, "group"], self.roles[role][0])
            self.assertEqual(self.by_rate.loc[rate, "point_status"], shown)

    def test_one_row_per_point_in_the_order_the_points_began(self):
        self.assertEqual(list(self.chosen["optimizer.lr"]), [0.01, 0.1, 0.2, 0.3, 0.4])

    def test_a_file_without_a_sweep_is_one_point(self):
        path = copy_of(self, self.path)
        keep_swept_keys(path, [])
        chosen = runner_results.chosen_runs(runner_results.load(path))
        # Every full run trained as long: the latest of them.
        self.assertEqual(list(chosen["group"]), self.roles["full_again"])


class PlotCurvesTest(unittest.TestCase):
    def test_lines_are_the_steps_and_epochs_of_the_run(self):
        path = sweep_results()
        results = runner_results.load(path)
        with h5py.File(path, "r") as f:
            name, group = run_groups(f)[1]
            figure = runner_results.plot_curves(results, name)
            loss, accuracy = figure.axes
            epochs = group["epochs"]
            per_step, train, test = loss.lines
            x, step_loss = steps_in_epochs(group)
            np.testing.assert_allclose(per_step.get_xdata(), x)
            np.testing.assert_array_equal(per_step.get_ydata(), step_loss)
            self.assertAlmostEqual(per_step.get_xdata()[-1], epochs["epoch"][-1])
            for axes, metric in ((loss, "loss"), (accuracy, "accuracy")):
                train, test = axes.lines[-2:]
                np.testing.assert_array_equal(train.get_xdata(), epochs["epoch"][()])
                np.testing.assert_array_equal(train.get_ydata(), epochs[f"train_{metric}"][()])
                np.testing.assert_array_equal(test.get_ydata(), epochs[f"test_{metric}"][()])
        self.assertIn(name, figure._suptitle.get_text())
        self.assertEqual(len(accuracy.lines), 2)

    def test_the_title_names_the_status_of_a_run_that_did_not_complete(self):
        path, roles = choice_results()
        results = runner_results.load(path)
        with h5py.File(path, "r") as f:
            shown = {name: f[name].attrs["status"].replace("running", "partial")
                     for name in roles["nan"] + roles["killed"] + roles["full"]}
        for name, status in shown.items():
            title = runner_results.plot_curves(results, name)._suptitle.get_text()
            if status == "completed":
                self.assertTrue(title.endswith("(optimizer.lr=0.01)")
                                or title.endswith("(optimizer.lr=0.1)"), title)
            else:
                self.assertTrue(title.endswith(f": {status}"), title)
        self.assertEqual(sorted(set(shown.values())), ["completed", "failed", "partial"])

    def test_a_run_of_one_step_per_epoch_has_a_step_at_each_epoch(self):
        path, roles = choice_results()
        name = roles["short"][0]
        with h5py.File(path, "r") as f:
            epochs = f[name]["epochs/epoch"][()]
            losses = f[name]["steps/loss"][()]
        per_step = runner_results.plot_curves(runner_results.load(path), name).axes[0].lines[0]
        np.testing.assert_array_equal(per_step.get_xdata(), epochs)
        np.testing.assert_array_equal(per_step.get_ydata(), losses)


class PlotSweepTest(unittest.TestCase):
    def assert_panels_draw(self, figure, expected):
        for axes in figure.axes:
            title = axes.get_title()
            if title not in expected:
                continue
            drawn = drawn_slots(axes)
            self.assertEqual(sorted(drawn), sorted(expected[title]), title)
            for slot, value in drawn.items():
                self.assertAlmostEqual(value, expected[title][slot], msg=f"{title} {slot}")

    def test_a_sweep_of_several_keys_draws_each_run_at_its_point(self):
        path = sweep_results()
        figure = runner_results.plot_sweep(runner_results.load(path))
        self.assertEqual([axes.get_title() for axes in figure.axes], TITLES)
        time = figure.axes[0]
        self.assertEqual(time.get_xlabel(), "optimizer.lr")
        self.assertEqual([t.get_text() for t in time.get_xticklabels()],
                         [str(lr) for lr in SWEEP["optimizer.lr"]])
        keys = list(SWEEP)
        with h5py.File(path, "r") as f:
            expected = expected_slots(f, [name for name, _ in run_groups(f)], keys, TITLES)
        self.assert_panels_draw(figure, expected)
        # Three points of a zip over a grid of three rates and three other combinations: six
        # slots have no run and stay empty, unlabelled.
        self.assertEqual(len(expected["training time (s)"]), 3)
        self.assertEqual(len(time.patches), 9)
        for axes in figure.axes:
            self.assertEqual(len(axes.texts), 0, axes.get_title())

    def test_a_sweep_of_two_keys_gives_the_second_its_colours(self):
        path = copy_of(self, sweep_results())
        keys = ["optimizer.lr", "model.activation"]
        keep_swept_keys(path, keys)
        figure = runner_results.plot_sweep(runner_results.load(path))
        with h5py.File(path, "r") as f:
            expected = expected_slots(f, [name for name, _ in run_groups(f)], keys, TITLES)
        self.assert_panels_draw(figure, expected)
        legends = [axes.get_legend() for axes in figure.axes if axes.get_legend()]
        self.assertEqual(len(legends), 1)
        labels = [text.get_text() for text in legends[0].get_texts()]
        self.assertEqual(labels, ["model.activation=fixture_identity", "model.activation=relu"])
        self.assertEqual(len(figure.axes[0].patches), 3 * 2)

    def test_a_sweep_of_one_key_draws_the_chosen_runs_and_labels_the_other_points(self):
        path, roles = choice_results()
        figure = runner_results.plot_sweep(runner_results.load(path))
        titles = TITLES + ["step_time_s", "tflops"]
        self.assertEqual([axes.get_title() for axes in figure.axes], titles)
        with h5py.File(path, "r") as f:
            expected = expected_slots(f, chosen_in_choice_file(f, roles), ["optimizer.lr"], titles)
        self.assert_panels_draw(figure, expected)
        for axes in figure.axes:
            self.assertEqual([t.get_text() for t in axes.get_xticklabels()],
                             ["0.01", "0.1", "0.2", "0.3", "0.4"])
            self.assertEqual(slot_texts(axes), {"0.2": ["failed"], "0.3": ["partial"],
                                                "0.4": ["skipped"]}, axes.get_title())

    def test_accuracy_is_points_on_an_axis_spanning_them(self):
        path, roles = choice_results()
        accuracy = runner_results.plot_sweep(runner_results.load(path)).axes[3]
        with h5py.File(path, "r") as f:
            values = [f[name]["summary"].attrs["final_test_accuracy"]
                      for name in chosen_in_choice_file(f, roles)]
        assert_spans(self, accuracy, values)

    def test_table_names_that_are_no_number_are_named_in_the_title(self):
        path, _ = choice_results()
        figure = runner_results.plot_sweep(runner_results.load(path))
        title = figure._suptitle.get_text()
        self.assertIn("forward_s not drawn", title)
        self.assertNotIn("tflops", title)

    def test_table_names_of_numbers_already_drawn_add_no_panel(self):
        path = copy_of(self, choice_results()[0])
        table = 'table = ["time_s", "peak_memory_bytes", "test_accuracy", "train.batch_size"]'
        with h5py.File(path, "r+") as f:
            for _, group in run_groups(f):
                config = re.sub(r"^table = .*$", table, group["config"].asstr()[()],
                                flags=re.MULTILINE)
                del group["config"]
                group["config"] = config
            batches = {slot_of(f[name], ["optimizer.lr"]):
                       tomllib.loads(f[name]["config"].asstr()[()])["train"]["batch_size"]
                       for name in chosen_in_choice_file(f, choice_results()[1])}
        figure = runner_results.plot_sweep(runner_results.load(path))
        self.assertEqual([axes.get_title() for axes in figure.axes],
                         TITLES + ["train.batch_size"])
        self.assertNotIn("not drawn", figure._suptitle.get_text())
        self.assertEqual(drawn_slots(figure.axes[4]), batches)

    def test_a_file_without_a_sweep_has_no_sweep_figures(self):
        path = copy_of(self, sweep_results())
        keep_swept_keys(path, [])
        results = runner_results.load(path)
        for plot in (runner_results.plot_sweep, runner_results.plot_sweep_curves):
            with self.assertRaisesRegex(ValueError, "no sweep"):
                plot(results)


class PlotSweepCurvesTest(unittest.TestCase):
    def test_each_chosen_run_is_a_line_labelled_by_its_point(self):
        path, roles = choice_results()
        figure = runner_results.plot_sweep_curves(runner_results.load(path))
        loss, accuracy = figure.axes
        with h5py.File(path, "r") as f:
            groups = chosen_in_choice_file(f, roles)
            labels = [f"optimizer.lr={f[name]['sweep'].attrs['optimizer.lr']}" for name in groups]
            for axes in (loss, accuracy):
                self.assertEqual([line.get_label() for line in axes.lines], labels)
            for name, line in zip(groups, loss.lines):
                x, step_loss = steps_in_epochs(f[name])
                np.testing.assert_allclose(line.get_xdata(), x)
                np.testing.assert_array_equal(line.get_ydata(), step_loss)
            for name, line in zip(groups, accuracy.lines):
                np.testing.assert_array_equal(line.get_xdata(), f[name]["epochs/epoch"][()])
                np.testing.assert_array_equal(line.get_ydata(),
                                              f[name]["epochs/test_accuracy"][()])
        self.assertEqual([t.get_text() for t in loss.get_legend().get_texts()], labels)
        self.assertIsInstance(accuracy.yaxis.get_major_formatter(), PercentFormatter)
        title = figure._suptitle.get_text()
        for point in ("optimizer.lr=0.2 (failed)", "optimizer.lr=0.3 (partial)",
                      "optimizer.lr=0.4 (skipped)"):
            self.assertIn(point, title)

    def test_a_sweep_of_several_keys_labels_each_line_with_the_whole_point(self):
        path = sweep_results()
        loss, _ = runner_results.plot_sweep_curves(runner_results.load(path)).axes
        with h5py.File(path, "r") as f:
            labels = [", ".join(f"{key}={group['sweep'].attrs[key]}" for key in SWEEP)
                      for _, group in run_groups(f)]
        self.assertEqual([line.get_label() for line in loss.lines], labels)
        self.assertNotIn("not drawn", loss.figure._suptitle.get_text())


class MeasuredPanelsTest(unittest.TestCase):
    """Communication and GPU utilisation get a panel only where some run measured them."""

    def test_a_distributed_sweep_adds_its_time_in_communication(self):
        path = copy_of(self, sweep_results())
        expected = {}
        with h5py.File(path, "r+") as f:
            for i, (_, group) in enumerate(run_groups(f)):
                group["environment"].attrs["world_size"] = "2"
                waits = np.array([0.1, 0.2]) * (i + 1)
                group["epochs/communication_s"][...] = waits
                expected[slot_of(group, list(SWEEP))] = waits.sum()
        figure = runner_results.plot_sweep(runner_results.load(path))
        self.assertEqual(len(figure.axes), 5)
        communication = figure.axes[4]
        self.assertEqual(communication.get_title(), "time in communication (s)")
        drawn = drawn_slots(communication)
        self.assertEqual(sorted(drawn), sorted(expected))
        for slot, height in drawn.items():
            self.assertAlmostEqual(height, expected[slot])

    def test_gpu_utilisation_is_points_on_an_axis_spanning_them(self):
        path = copy_of(self, sweep_results())
        readings = ([0.90, 0.92], [0.95, 0.97], [0.91, 0.91])
        with h5py.File(path, "r+") as f:
            for (_, group), utilization in zip(run_groups(f), readings):
                group["epochs/gpu_utilization"][...] = utilization
        figure = runner_results.plot_sweep(runner_results.load(path))
        gpu = figure.axes[4]
        self.assertEqual(gpu.get_title(), "GPU utilisation")
        means = [np.mean(utilization) for utilization in readings]
        self.assertEqual(sorted(drawn_slots(gpu).values()), sorted(means))
        assert_spans(self, gpu, means)

    def test_a_cpu_sweep_of_one_rank_has_the_four_panels_only(self):
        figure = runner_results.plot_sweep(runner_results.load(sweep_results()))
        self.assertEqual([axes.get_title() for axes in figure.axes], TITLES)


class CommandLineTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)

    def run_module(self, *arguments):
        return subprocess.run([sys.executable, "-m", "runner_results", *arguments],
                              capture_output=True, text=True)

    def assert_writes(self, path, sweep_figures):
        out = os.path.join(self.folder, "figures")
        done = self.run_module("plot", path, "-o", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        with h5py.File(path, "r") as f:
            expected = [f"curves-{name}.png" for name, group in run_groups(f)
                        if len(group["epochs/epoch"])] + sweep_figures
        self.assertEqual(sorted(os.listdir(out)), sorted(expected))
        self.assertEqual(sorted(done.stdout.splitlines()),
                         sorted(os.path.join(out, name) for name in expected))
        for name in expected:
            with open(os.path.join(out, name), "rb") as png:
                self.assertEqual(png.read(8), b"\x89PNG\r\n\x1a\n", name)

    def test_plot_writes_a_png_per_run_and_the_sweep_figures(self):
        self.assert_writes(sweep_results(), ["sweep.png", "sweep-curves.png"])

    def test_runs_without_epochs_get_no_curves(self):
        self.assert_writes(choice_results()[0], ["sweep.png", "sweep-curves.png"])

    def test_a_file_without_a_sweep_gets_the_curves_only(self):
        path = copy_of(self, sweep_results())
        keep_swept_keys(path, [])
        self.assert_writes(path, [])

    def test_a_missing_file_is_one_line_naming_it(self):
        missing = os.path.join(self.folder, "none.h5")
        done = self.run_module("plot", missing, "-o", self.folder)
        self.assertEqual(done.returncode, 4)
        self.assertEqual(done.stderr, f"runner_results: error: results file not found: {missing}\n")

    def test_a_fifo_or_a_file_as_the_output_folder_is_one_line_naming_it(self):
        fifo = os.path.join(self.folder, "fifo")
        os.mkfifo(fifo)
        for output in (fifo, sweep_results()):
            done = self.run_module("plot", sweep_results(), "-o", output)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertEqual(done.stderr, f"runner_results: error: -o {output}: is no folder\n")

    def test_a_fifo_as_the_results_file_is_one_line_naming_it(self):
        fifo = os.path.join(self.folder, "fifo.h5")
        os.mkfifo(fifo)
        done = subprocess.run([sys.executable, "-m", "runner_results", "plot", fifo, "-o",
                               self.folder], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 4)
        self.assertEqual(done.stderr,
                         f"runner_results: error: {fifo}: is a FIFO, not a results file\n")


if __name__ == "__main__":
    unittest.main()
