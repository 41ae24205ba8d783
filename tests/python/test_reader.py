"""runner_results.load against the same file read independently with h5py."""
import os
import shutil
import signal
import subprocess
import tempfile
import unittest

import h5py
import numpy as np

import runner_results
from results_fixture import SWEEP, sweep_results


def run_groups(f):
    return [(name, group) for name, group in f["/"].items() if "run_id" in group.attrs]


class LoadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.path = sweep_results()
        cls.results = runner_results.load(cls.path)

    def test_one_row_per_run_in_the_order_they_began(self):
        with h5py.File(self.path, "r") as f:
            names = [name for name, _ in run_groups(f)]
            ids = [group.attrs["run_id"] for _, group in run_groups(f)]
        self.assertEqual(list(self.results.runs["group"]), names)
        self.assertEqual(list(self.results.runs["run_id"]), ids)
        self.assertEqual(list(self.results.runs["status"]), ["completed"] * 3)

    def test_swept_keys_keep_their_toml_types(self):
        runs = self.results.runs
        self.assertEqual(self.results.sweep_keys, list(SWEEP))
        for key, values in SWEEP.items():
            self.assertEqual(list(runs[key]), values, key)
        self.assertEqual(runs["optimizer.lr"].dtype, np.float64)
        self.assertEqual(runs["optimizer.nesterov"].dtype, np.bool_)
        self.assertEqual(runs["train.batch_size"].dtype, np.int64)
        self.assertEqual(runs["model.activation"].dtype, object)

    def test_the_file_stores_sweep_values_typed(self):
        with h5py.File(self.path, "r") as f:
            _, first = run_groups(f)[0]
            sweep = first["sweep"].attrs
            self.assertIsInstance(sweep["optimizer.nesterov"], np.bool_)
            self.assertIsInstance(sweep["train.batch_size"], np.int64)
            self.assertIsInstance(sweep["optimizer.lr"], np.float64)
            self.assertIsInstance(sweep["model.activation"], str)

    def test_config_keys_are_dotted_and_typed(self):
        runs = self.results.runs
        self.assertEqual(list(runs["train.epochs"]), [2, 2, 2])
        self.assertEqual(list(runs["dataset.name"]), ["blobs"] * 3)
        self.assertEqual(list(runs["optimizer.momentum"]), [0.9] * 3)
        self.assertEqual(list(runs["world_size"]), [1, 1, 1])

    def test_summary_numbers_match_the_file(self):
        runs = self.results.runs.set_index("group")
        with h5py.File(self.path, "r") as f:
            for name, group in run_groups(f):
                summary = group["summary"]
                for key in ("total_time_s", "final_test_accuracy", "final_train_loss", "tflops"):
                    self.assertEqual(runs.loc[name, key], summary.attrs[key], key)
                self.assertEqual(runs.loc[name, "epochs_completed"], 2)
                peaks = summary["peak_memory_per_rank_bytes"][()]
                self.assertEqual(runs.loc[name, "peak_memory_bytes"], peaks.max())
                self.assertEqual(summary.attrs["peak_memory_bytes"], peaks.max())
                self.assertAlmostEqual(runs.loc[name, "samples_per_s"],
                                       group["epochs/samples_per_s"][()].mean())
                self.assertAlmostEqual(runs.loc[name, "step_time_s"],
                                       group["steps/duration_s"][()].mean())

    def test_epochs_and_steps_hold_every_row_of_the_file(self):
        epochs, steps = self.results.epochs, self.results.steps
        with h5py.File(self.path, "r") as f:
            for name, group in run_groups(f):
                mine = epochs[epochs["group"] == name]
                for column in ("epoch", "train_loss", "test_accuracy", "duration_s"):
                    np.testing.assert_array_equal(mine[column].to_numpy(),
                                                  group["epochs"][column][()])
                np.testing.assert_array_equal(steps[steps["group"] == name]["step"].to_numpy(),
                                              group["steps/step"][()])
        self.assertEqual(epochs["epoch"].dtype, np.int64)


class MeasuredEpochColumnsTest(unittest.TestCase):
    """Columns an epoch may leave unmeasured (NaN): NVML's readings, the ranks' waits for
    collectives; summarised per run as `runner report` does."""

    def copy(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "copy.h5")
        shutil.copy(sweep_results(), path)
        return path

    def test_a_cpu_run_has_nan_readings_and_no_gpu_numbers(self):
        results = runner_results.load(sweep_results())
        for column in ("gpu_utilization", "gpu_memory_used_bytes"):
            self.assertTrue(results.epochs[column].isna().all(), column)
        self.assertNotIn("gpu_utilization", results.runs)

    def test_measured_epochs_give_the_mean_utilisation_and_the_largest_memory(self):
        path = self.copy()
        readings = [([0.4, 0.8], [3e9, 2e9]), ([np.nan, 0.3], [np.nan, 1e9])]
        with h5py.File(path, "r+") as f:
            for (_, group), (utilization, memory) in zip(run_groups(f), readings):
                group["epochs/gpu_utilization"][...] = utilization
                group["epochs/gpu_memory_used_bytes"][...] = memory
        runs = runner_results.load(path).runs
        self.assertAlmostEqual(runs["gpu_utilization"][0], (0.4 + 0.8) / 2)
        self.assertEqual(runs["gpu_memory_bytes"][0], 3e9)
        self.assertAlmostEqual(runs["gpu_utilization"][1], 0.3)
        self.assertEqual(runs["gpu_memory_bytes"][1], 1e9)
        self.assertTrue(np.isnan(runs["gpu_utilization"][2]))

    def test_communication_is_summed_over_the_measured_epochs_of_several_ranks(self):
        path = self.copy()
        with h5py.File(path, "r+") as f:
            (_, two_ranks), (_, nccl), (_, one_rank) = run_groups(f)
            for group, waits in ((two_ranks, [0.5, 0.25]), (nccl, [np.nan, np.nan])):
                group["environment"].attrs["world_size"] = "2"
                group["epochs/communication_s"][...] = waits
            one_rank["epochs/communication_s"][...] = [0.0, 0.0]
        runs = runner_results.load(path).runs
        self.assertEqual(runs["communication_s"][0], 0.75)
        self.assertTrue(np.isnan(runs["communication_s"][1]))
        self.assertTrue(np.isnan(runs["communication_s"][2]), "one rank: nothing to wait for")


class RestartsTest(unittest.TestCase):
    """A run whose rank was killed and restarted from its checkpoint (a one-rank blobs run)."""

    def test_each_restart_is_a_row_and_the_run_counts_them(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "restarted.h5")
        experiment = os.path.join(folder, "restarted.toml")
        with open(experiment, "w") as f:
            f.write(RESTARTED.format(results=path))
        subprocess.run(
            [os.environ["RUNNER_BINARY"], "-q", "--plugin-path",
             os.environ["RUNNER_FIXTURE_PLUGINS"], "--max-restarts", "1", experiment],
            check=True)
        results = runner_results.load(path)
        with h5py.File(path, "r") as f:
            (_, run), = run_groups(f)
            written = dict(run["restarts/1"].attrs)
        self.assertEqual(len(results.restarts), 1)
        restart = results.restarts.iloc[0]
        self.assertEqual(restart["attempt"], 1)
        self.assertTrue(
            restart["cause"].startswith("rank 0 was killed by signal 9 (SIGKILL), last seen in "),
            restart["cause"])
        self.assertIn(restart["resumed_step"], (2, 4), "step 2's save is complete at step 5")
        self.assertEqual(restart["time_lost_s"], written["time_lost_s"])
        self.assertEqual(restart["resumed_from"], written["resumed_from"])
        self.assertEqual(results.runs["restarts"][0], 1)
        self.assertEqual(len(results.hang_reports), 1)
        report = results.hang_reports.iloc[0]
        self.assertEqual(report["attempt"], 0)
        self.assertEqual(report["first_line"], restart["cause"])
        self.assertTrue(report["ranks"].startswith("rank 0: was killed by signal 9"), report["ranks"])
        self.assertEqual(results.runs["time_lost_s"][0], written["time_lost_s"])
        self.assertEqual(results.runs["status"][0], "completed")

    def test_a_file_without_restarts_has_none(self):
        results = runner_results.load(sweep_results())
        self.assertTrue(results.restarts.empty)
        self.assertTrue(results.hang_reports.empty)
        self.assertNotIn("restarts", results.runs)


RESTARTED = """\
[experiment]
name = "restarted"
results = "{results}"
[dataset]
name = "blobs"
[model]
name = "linear_probe"
[train]
epochs = 1
batch_size = 32
threads = 1
[checkpoint]
every_steps = 2
[fault]
kind = "kill"
step = 5
"""


class VersionOneTest(unittest.TestCase):
    """Files of format version 1 held sweep values as their TOML text."""

    def test_text_sweep_values_are_read_typed(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "old.h5")
        shutil.copy(sweep_results(), path)
        with h5py.File(path, "r+") as f:
            f.attrs["format_version"] = np.int64(1)
            for _, group in run_groups(f):
                sweep = group["sweep"].attrs
                texts = {key: str(value).lower() if isinstance(value, np.bool_) else str(value)
                         for key, value in sweep.items()}
                for key in list(sweep):
                    del sweep[key]
                for key, text in texts.items():
                    sweep[key] = text
                del group["summary"].attrs["peak_memory_bytes"]
        runs = runner_results.load(path).runs
        for key, values in SWEEP.items():
            self.assertEqual(list(runs[key]), values, key)
        self.assertEqual(runs["train.batch_size"].dtype, np.int64)


class BadFileTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)

    def assert_error(self, path, text):
        with self.assertRaises(runner_results.ResultsFileError) as raised:
            runner_results.load(path)
        self.assertIn(text, str(raised.exception))
        self.assertIn(path, str(raised.exception))
        self.assertNotIn("\n", str(raised.exception))

    def test_a_missing_file(self):
        self.assert_error(os.path.join(self.folder, "none.h5"), "results file not found")

    def test_a_file_that_is_not_hdf5(self):
        path = os.path.join(self.folder, "notes.h5")
        with open(path, "w") as f:
            f.write("not hdf5\n")
        self.assert_error(path, "not an HDF5 file")

    def test_an_hdf5_file_of_someone_else(self):
        path = os.path.join(self.folder, "weights.h5")
        with h5py.File(path, "w") as f:
            f.attrs["format"] = "keras-weights"
        self.assert_error(path, "not a runner results file")

    def test_a_future_version(self):
        path = os.path.join(self.folder, "future.h5")
        shutil.copy(sweep_results(), path)
        with h5py.File(path, "r+") as f:
            f.attrs["format_version"] = np.int64(99)
        self.assert_error(path, "results format version 99")

    def test_a_fifo_is_refused_without_opening_it(self):
        path = os.path.join(self.folder, "fifo.h5")
        os.mkfifo(path)
        signal.alarm(30)  # an open of the FIFO would wait for a writer: fail instead
        self.addCleanup(signal.alarm, 0)
        self.assert_error(path, "is a FIFO, not a results file")

    def test_a_folder(self):
        self.assert_error(self.folder, "is a folder, not a results file")


if __name__ == "__main__":
    unittest.main()
