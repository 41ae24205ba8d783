// End to end: LeNet trains on a slice of Fashion-MNIST, and h5dump reads the results file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/version.h>

#include <cmath>

#include "machine/blas_kernels.hpp"
#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

TEST(EndToEnd, LeNetTrainsOnASliceOfFashionMnistAndRecordsTheRun) {
  if (!have_fashion_mnist()) GTEST_SKIP() << kFashionMnist << " is missing (dataset-fashion-mnist)";
  std::string dir = scratch_dir("fashion_slice");
  write_file(dir + "/slice.toml", fashion_slice_experiment(dir + "/slice.h5"));
  Output o = run_runner(dir + "/slice.toml");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* part : {"epoch 1/1", "train loss", "test loss", "samples/s",
                           "per-class test accuracy", "total training time", "completed"})
    EXPECT_THAT(o.out, HasSubstr(part)) << part << " missing from\n" << o.out;

  auto runs = results::read_runs(dir + "/slice.h5");
  ASSERT_EQ(runs.size(), 1u);
  const auto& run = runs[0];
  EXPECT_EQ(run.status, results::Status::completed);
  ASSERT_EQ(run.epochs.size(), 1u);
  EXPECT_EQ(run.steps.size(), static_cast<size_t>(std::ceil(3000 / 64.0)));
  EXPECT_GT(run.epochs[0].test_accuracy, 0.6) << "chance is 0.1";
  ASSERT_TRUE(run.summary.has_value());
  EXPECT_EQ(run.summary->parameters, 61706);
  EXPECT_EQ(run.summary->per_class_accuracy.size(), 10u);
  EXPECT_EQ(run.header.environment.at("torch_version"), TORCH_VERSION);
  // OpenBLAS's Prescott kernels on a CPU with AVX2 mean it did not know the CPU, and runner
  // did not start again on its own ones.
  const std::string kernels = run.header.environment.at("blas_kernels");
  if (machine::this_cpu().avx2_fma && !std::getenv("OPENBLAS_CORETYPE")) {
    EXPECT_NE(kernels, "Prescott") << "OpenBLAS's SSE3 kernels on a CPU with AVX2";
  }
  EXPECT_THAT(run.header.config_toml, HasSubstr("name = \"lenet5\"")) << run.header.config_toml;

  Output again = run_runner("-q " + dir + "/slice.toml");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  auto both = results::read_runs(dir + "/slice.h5");
  ASSERT_EQ(both.size(), 2u) << "a second run appends";
  EXPECT_EQ(both[0].header.run_id, both[1].header.run_id) << "same config, same id";
  EXPECT_NE(both[0].group, both[1].group);
  ASSERT_EQ(both[0].steps.size(), both[1].steps.size());
  for (size_t i = 0; i < both[0].steps.size(); ++i)
    ASSERT_EQ(both[0].steps[i].loss, both[1].steps[i].loss) << "bit-identical, step " << i + 1;
}

TEST(EndToEnd, H5dumpReadsTheResultsFile) {
  if (std::system("command -v h5dump >/dev/null") != 0) GTEST_SKIP() << "h5dump not installed";
  std::string dir = scratch_dir("h5dump");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5"));
  ASSERT_EQ(run_runner("-q --plugin-path " + fixture_plugins() + " " + dir + "/exp.toml").exit_code,
            0);
  std::string command = "h5dump -A " + dir + "/r.h5 >" + dir + "/dump.txt 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << read_file(dir + "/dump.txt");
  EXPECT_THAT(read_file(dir + "/dump.txt"), HasSubstr("runner-results"));
}

}  // namespace
}  // namespace runner::testing
