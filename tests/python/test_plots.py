"""The figures are drawn from the file's numbers: read back what was plotted and compare it
with the file read independently with h5py."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

import runner_results
from results_fixture import SWEEP, sweep_results

MIB = 1024.0 * 1024.0


def run_groups(f):
    return [(name, group) for name, group in f["/"].items() if "run_id" in group.attrs]


class PlotCurvesTest(unittest.TestCase):
    def test_lines_are_the_epochs_of_the_run(self):
        path = sweep_results()
        results = runner_results.load(path)
        with h5py.File(path, "r") as f:
            name, group = run_groups(f)[1]
            figure = runner_results.plot_curves(results, name)
            loss, accuracy = figure.axes
            epochs = group["epochs"]
            for axes, metric in ((loss, "loss"), (accuracy, "accuracy")):
                train, test = axes.lines
                np.testing.assert_array_equal(train.get_xdata(), epochs["epoch"][()])
                np.testing.assert_array_equal(train.get_ydata(), epochs[f"train_{metric}"][()])
                np.testing.assert_array_equal(test.get_ydata(), epochs[f"test_{metric}"][()])
        self.assertIn(name, figure._suptitle.get_text())


class PlotSweepTest(unittest.TestCase):
    def test_bars_are_the_summaries_against_the_first_swept_key(self):
        path = sweep_results()
        figure = runner_results.plot_sweep(runner_results.load(path))
        time, throughput, memory, accuracy = figure.axes
        self.assertEqual(time.get_xlabel(), "optimizer.lr")
        self.assertEqual([t.get_text() for t in time.get_xticklabels()],
                         [str(lr) for lr in SWEEP["optimizer.lr"]])
        with h5py.File(path, "r") as f:
            expected = {}  # panel -> {lr: value}, from the file
            for _, group in run_groups(f):
                lr = group["sweep"].attrs["optimizer.lr"]
                summary = group["summary"]
                for axes, value in (
                        (time, summary.attrs["total_time_s"]),
                        (throughput, group["epochs/samples_per_s"][()].mean()),
                        (memory, summary["peak_memory_per_rank_bytes"][()].max() / MIB),
                        (accuracy, summary.attrs["final_test_accuracy"])):
                    expected.setdefault(axes.get_title(), {})[lr] = value
        for axes in (time, throughput, memory, accuracy):
            drawn = {}
            for bar in axes.patches:
                if not np.isnan(bar.get_height()):
                    lr = SWEEP["optimizer.lr"][round(bar.get_x() + bar.get_width() / 2)]
                    drawn[lr] = bar.get_height()
            self.assertEqual(sorted(drawn), sorted(SWEEP["optimizer.lr"]), axes.get_title())
            for lr, height in drawn.items():
                self.assertAlmostEqual(height, expected[axes.get_title()][lr],
                                       msg=axes.get_title())


class MeasuredPanelsTest(unittest.TestCase):
    """Communication and GPU utilisation get a panel only where some run measured them."""

    def test_a_distributed_sweep_adds_its_time_in_communication(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "ranks.h5")
        shutil.copy(sweep_results(), path)
        expected = {}
        with h5py.File(path, "r+") as f:
            for i, (_, group) in enumerate(run_groups(f)):
                group["environment"].attrs["world_size"] = "2"
                waits = np.array([0.1, 0.2]) * (i + 1)
                group["epochs/communication_s"][...] = waits
                expected[group["sweep"].attrs["optimizer.lr"]] = waits.sum()
        figure = runner_results.plot_sweep(runner_results.load(path))
        self.assertEqual(len(figure.axes), 5)
        communication = figure.axes[4]
        self.assertEqual(communication.get_title(), "time in communication (s)")
        drawn = {SWEEP["optimizer.lr"][round(bar.get_x() + bar.get_width() / 2)]: bar.get_height()
                 for bar in communication.patches if not np.isnan(bar.get_height())}
        self.assertEqual(sorted(drawn), sorted(expected))
        for lr, height in drawn.items():
            self.assertAlmostEqual(height, expected[lr])

    def test_a_cpu_sweep_of_one_rank_has_the_four_panels_only(self):
        figure = runner_results.plot_sweep(runner_results.load(sweep_results()))
        self.assertEqual([axes.get_title() for axes in figure.axes],
                         ["training time (s)", "samples/s", "peak memory (MiB)", "test accuracy"])


class CommandLineTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)

    def run_module(self, *arguments):
        return subprocess.run([sys.executable, "-m", "runner_results", *arguments],
                              capture_output=True, text=True)

    def test_plot_writes_a_png_per_run_and_one_for_the_sweep(self):
        path = sweep_results()
        out = os.path.join(self.folder, "figures")
        done = self.run_module("plot", path, "-o", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        with h5py.File(path, "r") as f:
            expected = [f"curves-{name}.png" for name, _ in run_groups(f)] + ["sweep.png"]
        self.assertEqual(sorted(os.listdir(out)), sorted(expected))
        for name in expected:
            with open(os.path.join(out, name), "rb") as png:
                self.assertEqual(png.read(8), b"\x89PNG\r\n\x1a\n", name)

    def test_a_missing_file_is_one_line_naming_it(self):
        missing = os.path.join(self.folder, "none.h5")
        done = self.run_module("plot", missing, "-o", self.folder)
        self.assertEqual(done.returncode, 4)
        self.assertEqual(done.stderr, f"runner_results: error: results file not found: {missing}\n")


if __name__ == "__main__":
    unittest.main()
