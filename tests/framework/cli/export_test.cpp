// `runner export`: a run's trained weights as a state dict that Python's torch.load opens and a
// safetensors file, named as the plugin's model names its parameters, equal to the run's last
// checkpoint or to the final weights a run without checkpoints keeps; a run that kept none or a
// name of no run is refused in one line.
#include "checkpoint/export.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "checkpoint/folders.hpp"
#include "checkpoint/reader.hpp"
#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

// What a command printed on its standard output, and its exit code.
std::pair<int, std::string> shell(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe)) out += buffer;
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

// The layered fixture model trained with adam in `dir`, with `tables` (a [checkpoint] or
// [strategy] section, or nothing): its run.
results::RunRecord trained_run(const std::string& dir, const std::string& tables) {
  std::string text =
      blobs_experiment(dir + "/r.h5", "[optimizer]\nname = \"adam\"\nlr = 0.01\n" + tables);
  text.replace(text.find("linear_probe"), 12, "layered_probe");
  write_file(dir + "/exp.toml", text);
  EXPECT_EQ(run_runner("-q --plugin-path " + fixture_plugins() + " " + dir + "/exp.toml").exit_code,
            0);
  return results::read_runs(dir + "/r.h5").at(0);
}

TEST(Export, TorchLoadAndSafetensorsGetTheTrainedWeights) {
  const std::string dir = scratch_dir("export");
  const results::RunRecord run = trained_run(dir, "[checkpoint]\nevery_epochs = 1\n");
  const Output out = run_runner("export " + dir + "/r.h5 " + run.header.run_id);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string stem = dir + "/r-" + run.group;
  EXPECT_THAT(out.out, HasSubstr(stem + ".pt")) << out.out;

  // The fixture model's names: its layers "mlp" (up, down) and "head" (linear).
  const auto [code, listed] =
      shell(std::string(RUNNER_PYTHON) +
            " " RUNNER_SOURCE_DIR "/tests/framework/cli/load_exported.py " + stem);
  ASSERT_EQ(code, 0) << listed;
  EXPECT_EQ(listed,
            "head.linear.bias [4]\nhead.linear.weight [4, 4]\nmlp.down.bias [4]\n"
            "mlp.down.weight [4, 8]\nmlp.up.bias [8]\nmlp.up.weight [8, 4]\n");

  // The state dict holds the checkpoint's values, bit for bit.
  std::ifstream in(stem + ".pt", std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
  const c10::Dict<c10::IValue, c10::IValue> state = torch::pickle_load(bytes).toGenericDict();
  const auto weights = checkpoint::model_weights(*checkpoint::latest_complete(run.checkpoints));
  ASSERT_EQ(state.size(), weights.size());
  for (const auto& [name, tensor] : weights)
    EXPECT_TRUE(torch::equal(state.at(name).toTensor(), tensor)) << name;
}

// A run without [checkpoint] keeps its final weights all the same: the model's tensors alone,
// the ones the same run saving checkpoints ends with, and export writes them out.
TEST(Export, ARunWithoutCheckpointsKeepsItsFinalWeights) {
  const std::string dir = scratch_dir("export_final_weights");
  const results::RunRecord run = trained_run(dir, "");
  const auto folder = checkpoint::latest_complete(run.checkpoints);
  ASSERT_TRUE(folder.has_value()) << run.checkpoints;
  checkpoint::CheckpointReader reader(*folder);
  EXPECT_TRUE(reader.manifest().weights_only);
  for (const auto& name : reader.names()) EXPECT_EQ(name.rfind("model/", 0), 0u) << name;
  const Output out = run_runner("export " + dir + "/r.h5 " + run.group);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("weights of run " + run.group + " from " + *folder)) << out.out;

  const std::string with_checkpoints = scratch_dir("export_final_weights_checkpoints");
  const results::RunRecord saving =
      trained_run(with_checkpoints, "[checkpoint]\nevery_epochs = 1\n");
  const auto weights = checkpoint::model_weights(*folder);
  const auto expected = checkpoint::model_weights(*checkpoint::latest_complete(saving.checkpoints));
  ASSERT_EQ(weights.size(), expected.size());
  for (const auto& [name, tensor] : expected)
    EXPECT_TRUE(torch::equal(weights.at(name), tensor)) << name;
}

// On 2 ranks each writes its shard of the final weights and rank 0 the manifest once both are
// on disk; the run completes (no rank waits for another's save) and its weights export.
TEST(Export, ARunOnTwoRanksKeepsItsFinalWeights) {
  const std::string dir = scratch_dir("export_final_weights_ddp");
  const results::RunRecord run =
      trained_run(dir, "[strategy]\nname = \"ddp\"\nworld_size = 2\ntimeout_s = 30\n");
  EXPECT_EQ(run.status, results::Status::completed) << run.error;
  const auto folder = checkpoint::latest_complete(run.checkpoints);
  ASSERT_TRUE(folder.has_value()) << run.checkpoints;
  checkpoint::CheckpointReader reader(*folder);
  EXPECT_TRUE(reader.manifest().weights_only);
  EXPECT_EQ(reader.manifest().shards.size(), 2u);
  EXPECT_EQ(checkpoint::model_weights(*folder).size(), 6u);  // mlp.up, mlp.down, head: w, b
  EXPECT_EQ(run_runner("export " + dir + "/r.h5 " + run.group).exit_code, 0);
}

TEST(Export, ARunThatKeptNoWeightsOrANameOfNoRunIsRefused) {
  const std::string dir = scratch_dir("export_refused");
  const results::RunRecord run = trained_run(dir, "[checkpoint]\nfinal_weights = false\n");
  EXPECT_TRUE(run.checkpoints.empty()) << run.checkpoints;
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.checkpoints"));
  Output out = run_runner("export " + dir + "/r.h5 " + run.group);
  EXPECT_EQ(out.exit_code, 4);
  EXPECT_THAT(out.err, HasSubstr("run " + run.group + " of " + dir + "/r.h5 saved no checkpoints"))
      << out.err;
  EXPECT_THAT(out.err, HasSubstr("final_weights = false")) << out.err;
  out = run_runner("export " + dir + "/r.h5 nosuchrun");
  EXPECT_EQ(out.exit_code, 4);
  EXPECT_THAT(out.err, HasSubstr(dir + "/r.h5 has no run named 'nosuchrun'")) << out.err;
  EXPECT_THAT(out.err, HasSubstr(run.group)) << out.err;
}

TEST(Export, AnOutFolderThatIsMissingSaysWhatTheSystemSaid) {
  const std::string dir = scratch_dir("export_out_missing");
  const results::RunRecord run = trained_run(dir, "[checkpoint]\nevery_epochs = 1\n");
  const Output out =
      run_runner("export " + dir + "/r.h5 " + run.group + " --out " + dir + "/absent/weights");
  EXPECT_EQ(out.exit_code, 4) << out.err;
  EXPECT_THAT(out.err,
              HasSubstr("cannot write " + dir + "/absent/weights.pt: No such file or directory"))
      << out.err;
}

}  // namespace
}  // namespace runner::testing
