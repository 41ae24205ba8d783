// `runner export`: a run's trained weights as a state dict that Python's torch.load opens and a
// safetensors file, named as the plugin's model names its parameters, equal to the run's last
// checkpoint; a run without checkpoints or a name of no run is refused in one line.
#include "checkpoint/export.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "checkpoint/folders.hpp"
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

// The layered fixture model trained with adam in `dir`, with `checkpoint` (a [checkpoint]
// section or nothing): its run.
results::RunRecord trained_run(const std::string& dir, const std::string& checkpoint) {
  std::string text =
      blobs_experiment(dir + "/r.h5", "[optimizer]\nname = \"adam\"\nlr = 0.01\n" + checkpoint);
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

TEST(Export, ARunWithoutCheckpointsOrANameOfNoRunIsRefused) {
  const std::string dir = scratch_dir("export_refused");
  const results::RunRecord run = trained_run(dir, "");
  Output out = run_runner("export " + dir + "/r.h5 " + run.group);
  EXPECT_EQ(out.exit_code, 4);
  EXPECT_THAT(out.err, HasSubstr("run " + run.group + " of " + dir + "/r.h5 saved no checkpoints"))
      << out.err;
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
