// Checkpoints and --resume through the runner, as a user meets them: a run killed with
// SIGKILL and resumed records the same step losses and ends with the same parameters as the
// run never killed; a checkpoint of 2 ranks goes on at 1 and 4; a damaged checkpoint is
// passed over for an earlier one, and a foreign one is refused naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>

#include <hdf5.h>

#include "checkpoint/folders.hpp"
#include "checkpoint/reader.hpp"
#include "results/attributes.hpp"
#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

// The layered fixture model on blobs with adam: 3 epochs of 16 steps, a checkpoint every
// `every` (e.g. "every_steps = 5").
std::string experiment(const std::string& results, const std::string& strategy,
                       const std::string& every = "every_steps = 5") {
  std::string text = blobs_experiment(
      results, "threads = 1\n[optimizer]\nname = \"adam\"\nlr = 0.01\n[strategy]\n" + strategy +
                   "\n[checkpoint]\n" + every + "\nkeep = 20\n");
  text.replace(text.find("epochs = 1"), 10, "epochs = 3");
  text.replace(text.find("linear_probe"), 12, "layered_probe");
  return text;
}

std::string plugins() { return "--plugin-path " + fixture_plugins() + " "; }

results::RunRecord the_run(const std::string& results) {
  auto runs = results::read_runs(results);
  EXPECT_EQ(runs.size(), 1u) << results;
  return runs.at(0);
}

// Every model tensor of the run's last checkpoint, by name.
std::map<std::string, torch::Tensor> final_model(const results::RunRecord& run) {
  const auto latest = checkpoint::latest_complete(run.checkpoints);
  EXPECT_TRUE(latest.has_value()) << run.checkpoints;
  checkpoint::CheckpointReader reader(latest.value_or(""));
  std::map<std::string, torch::Tensor> model;
  for (const auto& name : reader.names())
    if (name.rfind("model/", 0) == 0) model[name] = reader.whole(name);
  return model;
}

class KilledAndResumed : public ::testing::TestWithParam<Layout> {};

TEST_P(KilledAndResumed, FollowsTheRunNeverKilledBitForBit) {
  const std::string dir = scratch_dir("resume_" + GetParam().name);
  write_file(dir + "/whole.toml", experiment(dir + "/whole.h5", GetParam().strategy));
  write_file(dir + "/killed.toml", experiment(dir + "/killed.h5", GetParam().strategy));
  const Output whole = run_runner(plugins() + "-q " + dir + "/whole.toml");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;

  // Each process counts its layers' forwards: 40 falls in the second epoch, after the
  // checkpoints of steps 5, 10 and 15 at least.
  const Output killed =
      run_runner(plugins() + "-q " + dir + "/killed.toml", "FIXTURE_KILL_AT_STEP=40");
  ASSERT_NE(killed.exit_code, 0) << killed.out;
  ASSERT_NE(the_run(dir + "/killed.h5").status, results::Status::completed);

  const Output resumed = run_runner(plugins() + dir + "/killed.toml --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("resuming from " + dir + "/killed.checkpoints/"))
      << resumed.out;

  const results::RunRecord expected = the_run(dir + "/whole.h5");
  const results::RunRecord run = the_run(dir + "/killed.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  EXPECT_THAT(run.resumed_from, HasSubstr(run.checkpoints + "/step-")) << run.resumed_from;
  ASSERT_EQ(run.steps.size(), expected.steps.size());
  for (size_t i = 0; i < run.steps.size(); ++i) {
    EXPECT_EQ(run.steps[i].step, expected.steps[i].step);
    EXPECT_EQ(run.steps[i].loss, expected.steps[i].loss) << "step " << i + 1;
  }
  ASSERT_EQ(run.epochs.size(), expected.epochs.size());
  for (size_t e = 0; e < run.epochs.size(); ++e) {
    EXPECT_EQ(run.epochs[e].epoch, static_cast<int64_t>(e) + 1);
    EXPECT_EQ(run.epochs[e].train_loss, expected.epochs[e].train_loss) << "epoch " << e + 1;
    EXPECT_EQ(run.epochs[e].test_loss, expected.epochs[e].test_loss) << "epoch " << e + 1;
  }
  const auto model = final_model(run), expected_model = final_model(expected);
  ASSERT_EQ(model.size(), expected_model.size());
  for (const auto& [name, tensor] : expected_model)
    EXPECT_TRUE(torch::equal(model.at(name), tensor)) << name;
}

INSTANTIATE_TEST_SUITE_P(
    Strategies, KilledAndResumed,
    ::testing::Values(
        Layout{"single", "name = \"single\""},
        Layout{"ddp", "name = \"ddp\"\nworld_size = 2\ntimeout_s = 30"},
        Layout{"zero3", "name = \"zero\"\nstage = 3\nworld_size = 2\ntimeout_s = 30"},
        Layout{"pipeline", "name = \"pipeline\"\nstages = 2\nworld_size = 2\ntimeout_s = 30"},
        Layout{"tensor", "name = \"tensor\"\ndegree = 2\nworld_size = 2\ntimeout_s = 30"},
        Layout{"zero2_nvme",
               "name = \"zero\"\nstage = 2\noffload = \"nvme\"\n"
               "world_size = 2\ntimeout_s = 30"}),
    [](const ::testing::TestParamInfo<Layout>& info) { return info.param.name; });

// A checkpoint written by 2 ranks after the first epoch goes on at 1 rank (single) and at 4
// (torchrun's ranks): the losses of the next steps are the 2-rank run's within 1e-5.
class ResumedElsewhere : public ::testing::TestWithParam<Layout> {};

TEST_P(ResumedElsewhere, GoesOnAtOneAndFourRanks) {
  const std::string dir = scratch_dir("reshard_" + GetParam().name);
  write_file(
      dir + "/two.toml",
      experiment(dir + "/two.h5", GetParam().strategy + "\nworld_size = 2", "every_epochs = 1"));
  const Output two = run_runner(plugins() + "-q " + dir + "/two.toml");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const results::RunRecord expected = the_run(dir + "/two.h5");
  const std::string after_epoch_1 = checkpoint::checkpoint_folder(expected.checkpoints, 16);
  ASSERT_TRUE(fs::exists(after_epoch_1 + "/manifest.json")) << after_epoch_1;

  write_file(dir + "/one.toml", experiment(dir + "/one.h5", "name = \"single\""));
  const Output one = run_runner(plugins() + "-q " + dir + "/one.toml --resume " + after_epoch_1);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  write_file(dir + "/four.toml", experiment(dir + "/four.h5", GetParam().strategy));
  const auto codes =
      run_as_torchrun(4, plugins() + "-q " + dir + "/four.toml --resume " + after_epoch_1, dir);
  ASSERT_EQ(codes, std::vector<int>(4, 0)) << read_file(dir + "/out0") << read_file(dir + "/out1");

  for (const std::string name : {"one", "four"}) {
    const results::RunRecord run = the_run(dir + "/" + name + ".h5");
    EXPECT_EQ(run.status, results::Status::completed) << name;
    EXPECT_EQ(run.resumed_from, after_epoch_1) << name;
    ASSERT_EQ(run.steps.size(), 32u) << name;
    for (size_t i = 0; i < run.steps.size(); ++i) {
      const auto& want = expected.steps[16 + i];
      EXPECT_EQ(run.steps[i].step, want.step) << name;
      EXPECT_NEAR(run.steps[i].loss, want.loss, 1e-5 * std::abs(want.loss))
          << name << " step " << want.step;
    }
    ASSERT_EQ(run.epochs.size(), 2u) << name;
    EXPECT_EQ(run.epochs[0].epoch, 2) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Strategies, ResumedElsewhere,
    ::testing::Values(Layout{"ddp", "name = \"ddp\"\ntimeout_s = 30"},
                      Layout{"zero2", "name = \"zero\"\nstage = 2\ntimeout_s = 30"},
                      Layout{"tensor", "name = \"tensor\"\ndegree = 2\ntimeout_s = 30"}),
    [](const ::testing::TestParamInfo<Layout>& info) { return info.param.name; });

// A sweep killed in its second run: --resume keeps the first, goes on with the second from its
// checkpoint, runs the third, and the table covers all three.
TEST(Resume, ASweepGoesOnWhereItWasKilled) {
  const std::string dir = scratch_dir("resume_sweep");
  write_file(dir + "/sweep.toml", experiment(dir + "/r.h5", "name = \"single\"") +
                                      "[sweep]\n\"optimizer.lr\" = [0.01, 0.02, 0.03]\n");
  // Each run counts 96 forwards (48 steps of 2 layers), and a few more before its training
  // (the model's measured forward): 166 falls past the second run's checkpoint of step 15.
  const Output killed =
      run_runner(plugins() + "-q " + dir + "/sweep.toml", "FIXTURE_KILL_AT_STEP=166");
  ASSERT_NE(killed.exit_code, 0);
  auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].status, results::Status::completed);
  EXPECT_EQ(runs[1].status, results::Status::running);

  const Output resumed = run_runner(plugins() + dir + "/sweep.toml --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("completed earlier: kept")) << resumed.out;
  EXPECT_THAT(resumed.out, HasSubstr("resuming from " + runs[1].checkpoints)) << resumed.out;
  runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 3u);
  // Each run's group on its "run i/3" line and in the table.
  for (const auto& run : runs)
    EXPECT_NE(resumed.out.find(run.group), resumed.out.rfind(run.group)) << run.group << ":\n"
                                                                         << resumed.out;
  for (const auto& run : runs) {
    EXPECT_EQ(run.status, results::Status::completed) << run.group;
    EXPECT_EQ(run.steps.size(), 48u) << run.group;
    EXPECT_EQ(run.epochs.size(), 3u) << run.group;
  }
  EXPECT_TRUE(runs[0].resumed_from.empty());
  EXPECT_FALSE(runs[1].resumed_from.empty());
  EXPECT_TRUE(runs[2].resumed_from.empty());
}

// The newest checkpoint damaged: --resume says so and takes the one before; the run still ends
// as the run never killed does.
TEST(Resume, PassesOverADamagedCheckpointForAnEarlierOne) {
  const std::string dir = scratch_dir("resume_damaged");
  write_file(dir + "/exp.toml", experiment(dir + "/r.h5", "name = \"single\""));
  ASSERT_NE(run_runner(plugins() + "-q " + dir + "/exp.toml", "FIXTURE_KILL_AT_STEP=40").exit_code,
            0);
  const std::string folder = the_run(dir + "/r.h5").checkpoints;
  const auto complete = checkpoint::complete_checkpoints(folder);
  ASSERT_GE(complete.size(), 2u);
  const std::string shard = complete.back() + "/rank-0.safetensors";
  {
    std::fstream file(shard, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-1, std::ios::end);
    file.put('\x55');
  }
  const Output resumed = run_runner(plugins() + dir + "/exp.toml --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("warning: checkpoint shard " + shard + " is damaged"))
      << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("resuming from " + complete[complete.size() - 2]))
      << resumed.out;
  const results::RunRecord run = the_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  EXPECT_EQ(run.steps.size(), 48u);
}

// A checkpoint of a format this runner does not read: named when given, passed over with a
// warning for the one before it when --resume looks for the latest.
TEST(Resume, ACheckpointOfAnotherFormatIsNamedAndTheOneBeforeTaken) {
  const std::string dir = scratch_dir("resume_format");
  write_file(dir + "/exp.toml", experiment(dir + "/r.h5", "name = \"single\""));
  ASSERT_NE(run_runner(plugins() + "-q " + dir + "/exp.toml", "FIXTURE_KILL_AT_STEP=40").exit_code,
            0);
  const auto complete = checkpoint::complete_checkpoints(the_run(dir + "/r.h5").checkpoints);
  ASSERT_GE(complete.size(), 2u);
  const std::string manifest = complete.back() + "/manifest.json";
  std::string text = read_file(manifest);
  text.replace(text.find("\"format_version\": 1"), 19, "\"format_version\": 99");
  write_file(manifest, text);

  const Output named = run_runner(plugins() + dir + "/exp.toml --resume " + complete.back());
  EXPECT_EQ(named.exit_code, 4) << named.err;
  EXPECT_THAT(named.err, HasSubstr(manifest + " is a checkpoint of format 99")) << named.err;
  const Output latest = run_runner(plugins() + dir + "/exp.toml --resume");
  ASSERT_EQ(latest.exit_code, 0) << latest.err;
  EXPECT_THAT(latest.err, HasSubstr("warning: " + manifest + " is a checkpoint of format 99"))
      << latest.err;
  EXPECT_THAT(latest.out, HasSubstr("resuming from " + complete[complete.size() - 2]))
      << latest.out;
  EXPECT_EQ(the_run(dir + "/r.h5").status, results::Status::completed);
}

// A single run killed at its 50th forward (its 25th step): its complete checkpoints, of steps 5
// to 20 or 25, oldest first.
std::vector<std::string> killed_runs_checkpoints(
    const std::string& dir, const std::string& strategy = "name = \"single\"") {
  write_file(dir + "/exp.toml", experiment(dir + "/r.h5", strategy));
  EXPECT_NE(run_runner(plugins() + "-q " + dir + "/exp.toml", "FIXTURE_KILL_AT_STEP=50").exit_code,
            0);
  return checkpoint::complete_checkpoints(the_run(dir + "/r.h5").checkpoints);
}

// The manifest's sizes and checksums of the shards made those of the files as they are now, so
// an edit passes the digests and meets the checks behind them.
void redigest(const std::string& folder) {
  checkpoint::Manifest m = checkpoint::read_manifest(folder + "/manifest.json");
  for (auto& shard : m.shards) shard.digest = checkpoint::digest_of(folder + "/" + shard.file);
  write_file(folder + "/manifest.json", checkpoint::manifest_text(m));
}

// Rank 0's shard with a 2-D model tensor's shape written transposed (the same element count),
// its bytes as they were; the manifest redigested.
void transpose_a_model_tensor(const std::string& folder) {
  const std::string shard = folder + "/rank-0.safetensors";
  for (const auto& entry : checkpoint::read_safetensors_header(shard).tensors) {
    if (entry.key.rfind("model/", 0) != 0 || entry.shape.size() != 2 ||
        entry.shape[0] == entry.shape[1])
      continue;
    std::string bytes = read_file(shard);
    const auto shape = [](int64_t rows, int64_t columns) {
      return "\"shape\":[" + std::to_string(rows) + "," + std::to_string(columns) + "]";
    };
    const std::string from = shape(entry.shape[0], entry.shape[1]);
    bytes.replace(bytes.find(from, bytes.find("\"" + entry.key + "\"")), from.size(),
                  shape(entry.shape[1], entry.shape[0]));
    write_file(shard, bytes);
    redigest(folder);
    return;
  }
  ADD_FAILURE() << "no 2-D model tensor in " << shard;
}

// `--resume` of the killed run in `dir`: it warns, naming each of `passed_over`, goes on from
// `from`, and completes the run's 48 steps.
void expect_resumed_from(const std::string& dir, const std::vector<std::string>& passed_over,
                         const std::string& from) {
  const Output latest = run_runner(plugins() + dir + "/exp.toml --resume");
  ASSERT_EQ(latest.exit_code, 0) << latest.err;
  for (const auto& warning : passed_over)
    EXPECT_THAT(latest.err, HasSubstr(warning)) << warning << "\n" << latest.err;
  EXPECT_THAT(latest.out, HasSubstr("resuming from " + from)) << latest.out;
  const results::RunRecord run = the_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  EXPECT_EQ(run.steps.size(), 48u);
  EXPECT_EQ(run.epochs.size(), 3u);
}

// `from` replaced by `to` in the checkpoint's manifest.
void edit_manifest(const std::string& folder, const std::string& from, const std::string& to) {
  std::string text = read_file(folder + "/manifest.json");
  ASSERT_THAT(text, HasSubstr(from)) << from;
  text.replace(text.find(from), from.size(), to);
  write_file(folder + "/manifest.json", text);
}

// A shard whose tensor has the element count of the run's but another shape: named when given,
// passed over for the checkpoint before it by --resume, and the run ends as it should.
TEST(Resume, AShardTensorOfAnotherShapeIsNamedAndTheOneBeforeTaken) {
  const std::string dir = scratch_dir("resume_transposed");
  const auto complete = killed_runs_checkpoints(dir);
  ASSERT_GE(complete.size(), 2u);
  transpose_a_model_tensor(complete.back());
  const Output named = run_runner(plugins() + dir + "/exp.toml --resume " + complete.back());
  EXPECT_EQ(named.exit_code, 4) << named.err;
  EXPECT_THAT(named.err, HasSubstr(complete.back() + "/rank-0.safetensors: tensor \"model/"))
      << named.err;
  EXPECT_THAT(named.err, HasSubstr("lies outside its whole tensor")) << named.err;
  expect_resumed_from(dir, {"warning: " + complete.back() + "/rank-0.safetensors"},
                      complete[complete.size() - 2]);
}

// zero-3's checkpoint of 2 ranks with rank 0's shard in place of rank 1's, the manifest made to
// match: the second half of every tensor is missing. Named, and the one before it taken.
TEST(Resume, AShardOfAnotherRankIsNamedAndTheOneBeforeTaken) {
  const std::string dir = scratch_dir("resume_other_rank");
  const auto complete =
      killed_runs_checkpoints(dir, "name = \"zero\"\nstage = 3\nworld_size = 2\ntimeout_s = 30");
  ASSERT_GE(complete.size(), 2u);
  fs::copy_file(complete.back() + "/rank-0.safetensors", complete.back() + "/rank-1.safetensors",
                fs::copy_options::overwrite_existing);
  redigest(complete.back());
  expect_resumed_from(dir, {"warning: checkpoint " + complete.back() + " holds only part of"},
                      complete[complete.size() - 2]);
}

// Manifests claiming what no run could have written (epoch -5; a global step of 2^62 its
// recorded steps do not add up to) are named, and --resume takes the checkpoint before both.
TEST(Resume, AManifestNoRunCouldHaveWrittenIsNamedAndTheOneBeforeTaken) {
  const std::string dir = scratch_dir("resume_manifest");
  const auto complete = killed_runs_checkpoints(dir);
  ASSERT_GE(complete.size(), 3u);
  const std::string& newest = complete.back();
  const std::string& second = complete[complete.size() - 2];
  const std::string epoch =
      "\"epoch\": " +
      std::to_string(checkpoint::read_manifest(newest + "/manifest.json").progress.epoch);
  edit_manifest(newest, epoch, "\"epoch\": -5");
  const std::string step =
      "\"global_step\": " +
      std::to_string(checkpoint::read_manifest(second + "/manifest.json").progress.global_step);
  edit_manifest(second, step, "\"global_step\": 4611686018427387904");
  const Output named = run_runner(plugins() + dir + "/exp.toml --resume " + newest);
  EXPECT_EQ(named.exit_code, 4) << named.err;
  EXPECT_THAT(named.err, HasSubstr(newest + "/manifest.json: progress.epoch = -5 is impossible"))
      << named.err;
  expect_resumed_from(
      dir, {"progress.epoch = -5 is impossible", "do not make global step 4611686018427387904"},
      complete[complete.size() - 3]);
}

// The last checkpoint of a completed single run in `dir`.
std::string a_completed_runs_checkpoint(const std::string& dir) {
  write_file(dir + "/exp.toml", experiment(dir + "/r.h5", "name = \"single\""));
  EXPECT_EQ(run_runner(plugins() + "-q " + dir + "/exp.toml").exit_code, 0);
  return checkpoint::latest_complete(the_run(dir + "/r.h5").checkpoints).value_or("");
}

// A checkpoint of another model shape: one line naming the checkpoint and the tensor, exit 4,
// and the checkpoint left as it was.
TEST(Resume, ACheckpointOfAnotherModelShapeIsRefusedNamingIt) {
  const std::string dir = scratch_dir("resume_other_shape");
  const std::string checkpoint = a_completed_runs_checkpoint(dir);
  std::string wider = experiment(dir + "/wider.h5", "name = \"single\"");
  wider.replace(wider.find("name = \"layered_probe\""), 22,
                "name = \"layered_probe\"\nhidden = 24");
  write_file(dir + "/wider.toml", wider);
  const Output out = run_runner(plugins() + dir + "/wider.toml --resume " + checkpoint);
  EXPECT_EQ(out.exit_code, 4) << out.err;
  EXPECT_THAT(out.err, HasSubstr("checkpoint " + checkpoint + ": \"model/")) << out.err;
  EXPECT_THAT(out.err, HasSubstr("in this run")) << out.err;
  EXPECT_NO_THROW(checkpoint::verify(checkpoint));
}

TEST(Resume, ACheckpointOfAnotherExperimentIsRefusedNamingIt) {
  const std::string dir = scratch_dir("resume_other_experiment");
  const std::string checkpoint = a_completed_runs_checkpoint(dir);
  std::string other = experiment(dir + "/other.h5", "name = \"single\"");
  other.replace(other.find("name = \"blobs\""), 14, "name = \"other\"");
  write_file(dir + "/other.toml", other);
  const Output out = run_runner(plugins() + dir + "/other.toml --resume " + checkpoint);
  EXPECT_EQ(out.exit_code, 4) << out.err;
  EXPECT_THAT(out.err, HasSubstr("checkpoint " + checkpoint + " is of experiment 'blobs'"))
      << out.err;
}

// A checkpoint of another experiment whose own run completed earlier: refused before anything,
// not passed over with "completed earlier: kept"; the results file as it was.
TEST(Resume, ACheckpointOfAnotherExperimentIsRefusedWhenTheRunCompletedToo) {
  const std::string dir = scratch_dir("resume_other_completed");
  const std::string checkpoint = a_completed_runs_checkpoint(dir);
  std::string other = experiment(dir + "/other.h5", "name = \"single\"");
  other.replace(other.find("name = \"blobs\""), 14, "name = \"other\"");
  write_file(dir + "/other.toml", other);
  ASSERT_EQ(run_runner(plugins() + "-q " + dir + "/other.toml").exit_code, 0);
  const Output out = run_runner(plugins() + dir + "/other.toml --resume " + checkpoint);
  EXPECT_EQ(out.exit_code, 4) << out.err;
  EXPECT_THAT(out.err,
              HasSubstr("checkpoint " + checkpoint + " is of experiment 'blobs', not of 'other'"))
      << out.err;
  EXPECT_THAT(out.out, Not(HasSubstr("completed earlier"))) << out.out;
  EXPECT_EQ(the_run(dir + "/other.h5").status, results::Status::completed);
}

// The checkpoint of a run that completed: the user asked to go on from it; there is nothing to
// go on with, and the message says so and what to do.
TEST(Resume, TheCheckpointOfACompletedRunIsRefusedWithTheReason) {
  const std::string dir = scratch_dir("resume_completed");
  const std::string checkpoint = a_completed_runs_checkpoint(dir);
  const Output out = run_runner(plugins() + dir + "/exp.toml --resume " + checkpoint);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("--resume " + checkpoint + ": run ")) << out.err;
  EXPECT_THAT(out.err, HasSubstr("completed earlier")) << out.err;
  EXPECT_EQ(results::read_runs(dir + "/r.h5").size(), 1u);
  EXPECT_NO_THROW(checkpoint::verify(checkpoint));
}

// The id a run had in files written while ids covered [experiment] results, table and
// description: the top 48 bits of the 64-bit FNV-1a hash of its resolved config without
// [checkpoint] (the first table), [experiment] tensorboard, and [train] max_eval_steps at 0 and
// collective_ledger at 4096.
std::string earlier_id_of(std::string config_toml) {
  const size_t checkpoint = config_toml.find("[checkpoint]\n");
  EXPECT_EQ(checkpoint, 0u) << config_toml;
  config_toml.erase(0, config_toml.find("\n\n") + 2);
  const size_t tensorboard = config_toml.find("\ntensorboard = ");
  EXPECT_NE(tensorboard, std::string::npos) << config_toml;
  config_toml.erase(tensorboard + 1, config_toml.find('\n', tensorboard + 1) - tensorboard);
  // Nor [fault] without a fault, nor how the run survives failures.
  const size_t fault = config_toml.find("[fault]\n");
  EXPECT_NE(fault, std::string::npos) << config_toml;
  config_toml.erase(fault, config_toml.find("\n\n", fault) + 2 - fault);
  // Nor the [train] and [experiment] keys those files did not have, at their defaults.
  for (const std::string line :
       {"max_eval_steps = 0\n", "collective_ledger = 4096\n", "max_restarts = 0\n",
        "stall_timeout_s = 1800\n", "check_collectives = false\n", "plan_step_s = 0.0\n"}) {
    const size_t at = config_toml.find("\n" + line);
    EXPECT_NE(at, std::string::npos) << config_toml;
    config_toml.erase(at + 1, line.size());
  }
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : config_toml) hash = (hash ^ c) * 0x100000001b3ull;
  char hex[13];
  std::snprintf(hex, sizeof hex, "%012llx", static_cast<unsigned long long>(hash >> 16));
  return hex;
}

// The run `from` of the results file and its checkpoints' folder and manifests renamed `to`,
// as a runner whose ids were `to` would have written them.
void rename_run(const std::string& results, const std::string& checkpoints, const std::string& from,
                const std::string& to) {
  const hid_t file = H5Fopen(results.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0) << results;
  ASSERT_GE(H5Lmove(file, from.c_str(), file, to.c_str(), H5P_DEFAULT, H5P_DEFAULT), 0);
  const hid_t group = H5Gopen2(file, to.c_str(), H5P_DEFAULT);
  results::detail::write_string_attribute(group, "run_id", to);
  H5Gclose(group);
  H5Fclose(file);
  const std::string folder = checkpoints + "/" + to;
  fs::rename(checkpoints + "/" + from, folder);
  for (const auto& step : checkpoint::complete_checkpoints(folder))
    edit_manifest(step, "\"run_id\": \"" + from + "\"", "\"run_id\": \"" + to + "\"");
}

// A file and checkpoints written before a run's id left out where its outputs go still resume:
// the run is found under its earlier id, goes on from its checkpoint and completes in its own
// group.
TEST(Resume, AFileOfTheEarlierIdsGoesOn) {
  const std::string dir = scratch_dir("resume_earlier_ids");
  ASSERT_FALSE(killed_runs_checkpoints(dir).empty());
  const results::RunRecord killed = the_run(dir + "/r.h5");
  const std::string earlier = earlier_id_of(killed.header.config_toml);
  ASSERT_NE(earlier, killed.header.run_id);
  rename_run(dir + "/r.h5", dir + "/r.checkpoints", killed.header.run_id, earlier);

  expect_resumed_from(dir, {}, dir + "/r.checkpoints/" + earlier + "/step-");
  EXPECT_EQ(the_run(dir + "/r.h5").group, earlier);
}

// --resume where no run completed and none saved a checkpoint: one line says so, exit 2, and
// nothing is trained or recorded. Once the run completed (keeping its final weights only),
// --resume keeps it.
TEST(Resume, NothingToResumeIsSaidInOneLineWithExitTwo) {
  const std::string dir = scratch_dir("resume_nothing");
  const std::string file = dir + "/exp.toml";
  write_file(file, experiment(dir + "/r.h5", "name = \"single\"", "every_steps = 0"));
  Output out = run_runner(plugins() + file + " --resume");
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("runner: error: --resume: nothing to resume in " + file +
                                 ": its run did not complete in " + dir +
                                 "/r.h5 and saved no checkpoint to go on from\n"))
      << out.err;
  EXPECT_THAT(out.err, HasSubstr("hint: run it without --resume to start")) << out.err;
  EXPECT_TRUE(results::read_runs(dir + "/r.h5").empty());

  ASSERT_EQ(run_runner(plugins() + "-q " + file).exit_code, 0);
  out = run_runner(plugins() + file + " --resume");
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("completed earlier: kept")) << out.out;
  EXPECT_EQ(results::read_runs(dir + "/r.h5").size(), 1u);
}

// The final weights a run without checkpoints keeps are no checkpoint to go on from: named
// with the reason (exit 4), and left as they were.
TEST(Resume, ARunsFinalWeightsAreRefusedAsACheckpointToGoOnFrom) {
  const std::string dir = scratch_dir("resume_final_weights");
  write_file(dir + "/exp.toml", experiment(dir + "/r.h5", "name = \"single\"", "every_steps = 0"));
  ASSERT_EQ(run_runner(plugins() + "-q " + dir + "/exp.toml").exit_code, 0);
  const std::string weights =
      checkpoint::latest_complete(the_run(dir + "/r.h5").checkpoints).value_or("");
  ASSERT_FALSE(weights.empty());
  write_file(dir + "/again.toml", experiment(dir + "/again.h5", "name = \"single\""));
  const Output out = run_runner(plugins() + dir + "/again.toml --resume " + weights);
  EXPECT_EQ(out.exit_code, 4) << out.err;
  EXPECT_THAT(out.err, HasSubstr("checkpoint " + weights +
                                 " holds a run's final weights only, not its training state"))
      << out.err;
  EXPECT_NO_THROW(checkpoint::verify(weights));
}

// A strategy that lists no training state (one written before checkpoints): [checkpoint] is
// refused with the reason, and so is --resume; without [checkpoint] its runs complete keeping
// no weights, and say so.
TEST(Resume, AStrategyWithoutStateRefusesCheckpoints) {
  const std::string dir = scratch_dir("resume_no_state");
  write_file(dir + "/exp.toml", experiment(dir + "/r.h5", "name = \"fixture_plain\""));
  const Output out = run_runner(plugins() + dir + "/exp.toml");
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("strategy 'fixture_plain' cannot save or load checkpoints"))
      << out.err;
  write_file(dir + "/plain.toml",
             experiment(dir + "/plain.h5", "name = \"fixture_plain\"", "every_steps = 0"));
  const Output plain = run_runner(plugins() + dir + "/plain.toml");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out,
              HasSubstr("final weights not kept: strategy 'fixture_plain' lists no training state"))
      << plain.out;
  EXPECT_TRUE(the_run(dir + "/plain.h5").checkpoints.empty());
}

}  // namespace
}  // namespace runner::testing
