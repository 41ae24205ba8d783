"""The runner's TensorBoard event files against its results file: every scalar at its step,
the hparams of each run and the sweep, a run killed and resumed as TensorBoard shows it, and
a folder that cannot be written. Run by run_tests.py."""
import os
import subprocess
import tempfile
import unittest

import h5py
import numpy

import event_reader
import results_fixture

MODULES = event_reader.compile_protos(os.environ["RUNNER_PROTO_DIR"],
                                      os.environ.get("RUNNER_PROTOC", "protoc"))

# The results package's sweep: one swept key of each TOML type.
SWEEP = results_fixture.EXPERIMENT

# The layered fixture model, 3 epochs of 16 steps, a checkpoint every 10 steps.
KILLED = """\
[experiment]
name = "killed"
results = "{results}"
tensorboard = "{tensorboard}"
[dataset]
name = "blobs"
[model]
name = "layered_probe"
[optimizer]
name = "adam"
lr = 0.01
[train]
epochs = 3
batch_size = 32
threads = 1
[checkpoint]
every_steps = 10
keep = 20
"""

EPOCH_TAGS = ["train_loss", "train_accuracy", "test_loss", "test_accuracy", "samples_per_s",
              "peak_memory_bytes", "data_wait_s", "compute_s", "duration_s", "communication_s"]
FINAL_TAGS = {"final/test_accuracy": "final_test_accuracy", "final/test_loss": "final_test_loss",
              "final/train_loss": "final_train_loss", "final/total_time_s": "total_time_s",
              "final/peak_memory_bytes": "peak_memory_bytes", "final/tflops": "tflops"}
SUCCESS, FAILURE = 1, 2  # hparams Status.STATUS_SUCCESS, STATUS_FAILURE


def run_runner(*args, environment=None):
    return subprocess.run(
        [os.environ["RUNNER_BINARY"], "-q", "--plugin-path", os.environ["RUNNER_FIXTURE_PLUGINS"],
         *args],
        capture_output=True, text=True, env={**os.environ, **(environment or {})})


def f32(value):
    return float(numpy.float32(value))


def runs_of(results):
    """{group: h5py group} of the file's runs, read whole."""
    f = h5py.File(results, "r")
    return {name: run for name, run in f["/"].items() if "run_id" in run.attrs}


def run_folder(experiment_folder, group):
    """The one folder of the run: its name ends with its group."""
    found = [name for name in os.listdir(experiment_folder) if name.endswith("-" + group)
             or name == group]
    assert len(found) == 1, (group, os.listdir(experiment_folder))
    return os.path.join(experiment_folder, found[0])


class ScalarsMatchTheResultsFile:
    def series(self, folder):
        """{tag: {step: value}}, each step once."""
        shown = {}
        for tag, points in event_reader.scalars(folder, MODULES).items():
            steps = [step for step, _ in points]
            self.assertEqual(len(steps), len(set(steps)), f"{tag}: a step shown twice")
            shown[tag] = dict(points)
        return shown

    def assert_scalars_match(self, folder, run):
        shown = self.series(folder)
        steps = run["steps/step"][()]
        self.assertEqual(sorted(shown["step/loss"]), [int(s) for s in steps])
        for i, step in enumerate(steps):
            self.assertEqual(shown["step/loss"][step], f32(run["steps/loss"][i]), step)
            self.assertEqual(shown["step/learning_rate"][step],
                             f32(run["steps/learning_rate"][i]), step)
        epochs = run["epochs/epoch"][()]
        steps_per_epoch = len(steps) // len(epochs)
        self.assertEqual(shown["epoch/epoch"],
                         {int(e) * steps_per_epoch: float(e) for e in epochs})
        for i, epoch in enumerate(epochs):
            at = int(epoch) * steps_per_epoch
            for tag in EPOCH_TAGS:
                self.assertEqual(shown["epoch/" + tag][at], f32(run["epochs/" + tag][i]),
                                 (epoch, tag))
        for tag in ("gpu_utilization", "gpu_memory_used_bytes"):  # a CPU run: not measured
            self.assertNotIn("epoch/" + tag, shown)
        summary = run["summary"].attrs
        for tag, name in FINAL_TAGS.items():
            self.assertEqual(shown[tag], {int(steps[-1]): f32(summary[name])}, tag)

    def assert_ended(self, folder, status):
        ends = event_reader.plugin_data(folder, "_hparams_/session_end_info", MODULES)
        self.assertEqual([end.session_end_info.status for end in ends], [status])


class Sweep(unittest.TestCase, ScalarsMatchTheResultsFile):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="runner-tensorboard-")
        cls.results = os.path.join(cls.dir, "sweep.h5")
        experiment = os.path.join(cls.dir, "sweep.toml")
        with open(experiment, "w") as f:
            f.write(SWEEP.format(results=cls.results))
        cls.tensorboard = os.path.join(cls.dir, "tb")
        done = run_runner("--tensorboard", cls.tensorboard, experiment)
        assert done.returncode == 0, done.stderr
        cls.runs = runs_of(cls.results)
        cls.experiment_folder = os.path.join(cls.tensorboard, "blobs_sweep")

    def test_every_scalar_is_the_results_files_at_its_step(self):
        self.assertEqual(len(self.runs), 3)
        for group, run in self.runs.items():
            with self.subTest(group=group):
                self.assert_scalars_match(run_folder(self.experiment_folder, group), run)

    def test_each_session_holds_its_runs_sweep_values_typed(self):
        for group, run in self.runs.items():
            folder = run_folder(self.experiment_folder, group)
            starts = event_reader.plugin_data(folder, "_hparams_/session_start_info", MODULES)
            self.assertEqual(len(starts), 1)
            start = starts[0].session_start_info
            self.assertEqual(start.group_name, run.attrs["run_id"])
            sweep = dict(run["sweep"].attrs)
            self.assertEqual(set(start.hparams), set(sweep))
            self.assertEqual(start.hparams["optimizer.lr"].number_value, sweep["optimizer.lr"])
            self.assertEqual(start.hparams["train.batch_size"].number_value,
                             float(sweep["train.batch_size"]))
            self.assertEqual(start.hparams["optimizer.nesterov"].WhichOneof("kind"), "bool_value")
            self.assertEqual(start.hparams["optimizer.nesterov"].bool_value,
                             bool(sweep["optimizer.nesterov"]))
            self.assertEqual(start.hparams["model.activation"].string_value,
                             sweep["model.activation"])
            self.assert_ended(folder, SUCCESS)

    def test_the_experiment_lists_the_swept_values_and_the_final_metrics(self):
        found = event_reader.plugin_data(self.experiment_folder, "_hparams_/experiment", MODULES)
        self.assertEqual(len(found), 1)
        experiment = found[0].experiment
        points = [dict(run["sweep"].attrs) for run in self.runs.values()]
        domains = {}
        for info in experiment.hparam_infos:
            values = info.domain_discrete.values
            domains[info.name] = [v.number_value if v.WhichOneof("kind") == "number_value"
                                  else getattr(v, v.WhichOneof("kind")) for v in values]
        self.assertEqual(set(domains), set(points[0]))
        for key, values in domains.items():
            expected = []
            for point in points:
                value = point[key].item() if hasattr(point[key], "item") else point[key]
                if value not in expected:
                    expected.append(value)
            self.assertEqual(values, expected, key)
        self.assertEqual(sorted(m.name.tag for m in experiment.metric_infos), sorted(FINAL_TAGS))


class KilledAndResumed(unittest.TestCase, ScalarsMatchTheResultsFile):
    def test_tensorboard_shows_what_the_results_file_holds(self):
        folder = tempfile.mkdtemp(prefix="runner-tensorboard-killed-")
        results = os.path.join(folder, "killed.h5")
        tensorboard = os.path.join(folder, "tb")
        experiment = os.path.join(folder, "killed.toml")
        with open(experiment, "w") as f:
            f.write(KILLED.format(results=results, tensorboard=tensorboard))
        # The 85th forward falls in the third epoch, after the second was written and before
        # the checkpoint of step 40: the run goes on from step 30, inside the second epoch.
        killed = run_runner(experiment, environment={"FIXTURE_KILL_AT_STEP": "85"})
        self.assertNotEqual(killed.returncode, 0)
        resumed = run_runner(experiment, "--resume")
        self.assertEqual(resumed.returncode, 0, resumed.stderr)

        (group, run), = runs_of(results).items()
        self.assertEqual(run.attrs["status"], "completed")
        run_events = run_folder(os.path.join(tensorboard, "killed"), group)
        first, second, end = event_reader.event_files(run_events)
        self.assertTrue(end.endswith("session-end"))
        starts = [e for e in event_reader.events(second, MODULES)
                  if e.WhichOneof("what") == "session_log"]
        self.assertEqual(len(starts), 1)
        restart = starts[0].step
        killed_steps = {e.step for e in event_reader.events(first, MODULES)
                        for v in e.summary.value if v.tag == "step/loss"}
        self.assertGreaterEqual(max(killed_steps), restart, "the killed run's steps go past it")
        self.assert_scalars_match(run_events, run)
        self.assert_ended(run_events, SUCCESS)


class TwoRanks(unittest.TestCase, ScalarsMatchTheResultsFile):
    def run_ddp(self, model_keys=""):
        """The results file's one run and its events folder, of a run on 2 local ranks."""
        folder = tempfile.mkdtemp(prefix="runner-tensorboard-ddp-")
        results = os.path.join(folder, "ddp.h5")
        experiment = os.path.join(folder, "ddp.toml")
        text = SWEEP.format(results=results).split("[sweep]")[0]
        text = text.replace('name = "linear_probe"\n', 'name = "linear_probe"\n' + model_keys)
        with open(experiment, "w") as f:
            f.write(text + "threads = 1\n[strategy]\nname = \"ddp\"\nworld_size = 2\n"
                    "timeout_s = 30\n")
        tensorboard = os.path.join(folder, "tb")
        self.done = run_runner("--tensorboard", tensorboard, experiment)
        (group, run), = runs_of(results).items()
        return run, run_folder(os.path.join(tensorboard, "blobs_sweep"), group)

    def test_rank_0_of_a_local_launch_writes_the_events(self):
        run, run_events = self.run_ddp()
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        self.assertEqual(os.path.basename(run_events), run.name.lstrip("/"))  # no label
        self.assert_scalars_match(run_events, run)
        self.assert_ended(run_events, SUCCESS)

    def test_the_launcher_ends_the_session_of_a_killed_rank_0(self):
        run, run_events = self.run_ddp(
            'fail_at_step = 5\nfail_on_rank = 0\nfail_how = "kill"\n')
        self.assertNotEqual(self.done.returncode, 0)
        self.assertEqual(run.attrs["status"], "failed")
        self.assert_ended(run_events, FAILURE)


class UnwritableFolder(unittest.TestCase):
    def test_is_an_error_naming_it_before_any_run(self):
        folder = tempfile.mkdtemp(prefix="runner-tensorboard-blocked-")
        blocker = os.path.join(folder, "a_file")
        with open(blocker, "w") as f:
            f.write("in the way")
        experiment = os.path.join(folder, "sweep.toml")
        with open(experiment, "w") as f:
            f.write(SWEEP.format(results=os.path.join(folder, "sweep.h5")))
        done = run_runner("--tensorboard", blocker, experiment)
        self.assertEqual(done.returncode, 2, done.stderr)
        lines = done.stderr.splitlines()
        self.assertIn(f"[experiment] tensorboard {blocker}: is a file, not a folder", lines[0])
        self.assertTrue(lines[1].startswith("  hint: "), done.stderr)
        self.assertFalse(os.path.exists(os.path.join(folder, "sweep.h5")), "a run started")
        with open(blocker) as f:
            self.assertEqual(f.read(), "in the way")


if __name__ == "__main__":
    unittest.main()
