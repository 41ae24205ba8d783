// `runner plan` as a user runs it: the ranked table, trials recorded in the results file, the
// best layout written as a file that runs, and bad input refused with the fix.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <thread>

#include "results/read_runs.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::testing {
namespace {

std::string tiny_gpt2(const std::string& results, const std::string& extra = "") {
  return "[experiment]\nname = \"plan_cli\"\nseed = 1\nresults = \"" + results + "\"\n" +
         "[dataset]\nname = \"random_tokens\"\nsize = 256\ntest_size = 2\nseq_len = 16\n"
         "vocab_size = 64\n"
         "[model]\nname = \"gpt2\"\npreset = \"tiny\"\n"
         "[optimizer]\nname = \"adamw\"\nlr = 1e-3\n"
         "[train]\nepochs = 1\nbatch_size = 4\ntest_batch_size = 1\nthreads = 1\n" +
         extra;
}

// Every rate given but the disk's, which is quick: for the tests of what happens after (the
// rates' own measurement on 2 devices takes 14 s on 2 cores).
const std::string kGivenRates =
    " --tflops fp32=0.1 --tflops bf16=0.2 --bandwidth 1 --memory-bandwidth 10";

struct PlanFiles {
  std::string dir, experiment, results, best;
};

PlanFiles plan_files(const std::string& name, const std::string& extra = "") {
  PlanFiles f;
  f.dir = scratch_dir(name);
  f.experiment = f.dir + "/plan.toml";
  f.results = f.dir + "/results.h5";
  f.best = f.dir + "/best.toml";
  write_file(f.experiment, tiny_gpt2(f.results, extra));
  return f;
}

TEST(Plan, PrintsTheRankedLayoutsAndWritesABestThatRuns) {
  const PlanFiles f = plan_files("plan_one_device");
  const Output plan = run_runner("plan " + f.experiment + " --devices 1 --write " + f.best);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("rates: GEMM fp32")) << plan.out;
  EXPECT_THAT(plan.out, HasSubstr("48 layouts")) << plan.out;  // see layouts_test
  EXPECT_THAT(plan.out, HasSubstr("loses to #1 by")) << plan.out;
  const std::string best = read_file(f.best);
  EXPECT_THAT(best, HasSubstr("not measured")) << best;
  const Output run = run_runner(f.best + " --quiet");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(results::read_runs(f.results).size(), 1u);
}

TEST(Plan, TrialsRunTheBestPredictedAndRecordThem) {
  const PlanFiles f = plan_files("plan_trials");
  const Output plan =
      run_runner("plan " + f.experiment + " --devices 2 --trials 2 --trial-steps 2" + kGivenRates +
                 " --write " + f.best);
  ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("best measured: ")) << plan.out;
  EXPECT_THAT(plan.out, HasSubstr("predicted   measured")) << plan.out;
  const auto runs = results::read_runs(f.results);
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.status, results::Status::completed) << run.error;
    EXPECT_EQ(run.steps.size(), 2u);
  }
  EXPECT_THAT(read_file(f.best), HasSubstr("measured "));
  EXPECT_EQ(run_runner("--dry-run " + f.best).exit_code, 0);
  // Each trial's config holds its predicted step, and the results file's page tables them.
  for (const auto& run : runs) EXPECT_THAT(run.header.config_toml, HasSubstr("plan_step_s = "));
  const Output report = run_runner("report " + f.results + " --html " + f.dir + "/page.html");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string page = read_file(f.dir + "/page.html");
  EXPECT_THAT(page, HasSubstr("\"plans\":[{\"experiment\":\"plan_cli\",\"measured\":2,"));
}

TEST(Plan, ABudgetOfRunsTriesTheBestPredictedOneAtATime) {
  const PlanFiles f = plan_files("plan_budget");
  // Two runs: the budget never stops before two are measured (layout/trials.hpp).
  const Output plan = run_runner("plan " + f.experiment + " --devices 2 --budget-runs 2" +
                                 " --trial-steps 2" + kGivenRates + " --write " + f.best);
  ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("trial 1 of at most 2: ")) << plan.out;
  EXPECT_THAT(plan.out, HasSubstr("trial 2 of at most 2: ")) << plan.out;
  EXPECT_THAT(plan.out, HasSubstr("best measured: ")) << plan.out;
  const auto runs = results::read_runs(f.results);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].header.run_id, runs[1].header.run_id);
  for (const auto& run : runs) EXPECT_EQ(run.status, results::Status::completed) << run.error;
  for (const char* trial : {"/results.plan-trial-1.toml", "/results.plan-trial-2.toml"})
    EXPECT_EQ(run_runner("--dry-run " + f.dir + trial).exit_code, 0) << trial;
  EXPECT_THAT(read_file(f.best), HasSubstr("measured "));
}

TEST(Plan, ABudgetAndTrialsTogetherAreRefused) {
  const PlanFiles f = plan_files("plan_budget_and_trials");
  const Output plan =
      run_runner("plan " + f.experiment + " --devices 1 --trials 2 --budget-runs 2");
  EXPECT_EQ(plan.exit_code, 2) << plan.out;
  EXPECT_THAT(plan.err, HasSubstr("--budget-runs")) << plan.err;
  EXPECT_FALSE(std::filesystem::exists(f.results));
}

// A sweep's points that differ in what a layout sets (here the precision) are one run to the
// plan: planned once, naming the runs it stands for.
TEST(Plan, ASweepOverWhatALayoutSetsIsPlannedOnce) {
  const PlanFiles f =
      plan_files("plan_sweep_alike", "[sweep]\n\"train.precision\" = [\"fp32\", \"bf16\"]\n");
  const Output plan = run_runner("plan " + f.experiment + " --devices 1" + kGivenRates);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("runner plan " + f.experiment +
                                  " (run 1/2 train.precision=fp32; alike for the plan: run 2)"))
      << plan.out;
  EXPECT_EQ(plan.out.find("(run 2/2"), std::string::npos) << plan.out;
}

// Points that differ in more are planned one after the other; --point N plans one, and the
// refusal of --write without it names a --point that works as printed.
TEST(Plan, ASweepsPointsArePlannedApartOrOneByPoint) {
  const PlanFiles f = plan_files("plan_sweep_points", "[sweep]\n\"train.batch_size\" = [4, 8]\n");
  const std::string plan = "plan " + f.experiment + " --devices 1" + kGivenRates;
  const Output both = run_runner(plan);
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_THAT(both.out, HasSubstr("(run 1/2 train.batch_size=4): 1 CPU device")) << both.out;
  EXPECT_THAT(both.out, HasSubstr("(run 2/2 train.batch_size=8): 1 CPU device")) << both.out;
  EXPECT_THAT(both.out, HasSubstr("; batch 8\n")) << both.out;

  const Output write = run_runner(plan + " --write " + f.best);
  EXPECT_EQ(write.exit_code, 2) << write.err;
  EXPECT_THAT(write.err, HasSubstr("--write tries or writes the layout of one run, and the "
                                   "sweep makes 2 runs that plan apart"))
      << write.err;
  EXPECT_THAT(write.err, HasSubstr("hint: add --point N for run N of the sweep (1 to 2)"))
      << write.err;
  EXPECT_FALSE(std::filesystem::exists(f.best));

  const Output second = run_runner(plan + " --point 2 --write " + f.best);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_THAT(second.out, HasSubstr("(run 2/2 train.batch_size=8)")) << second.out;
  EXPECT_EQ(second.out.find("(run 1/2"), std::string::npos) << second.out;
  EXPECT_THAT(read_file(f.best), HasSubstr("batch_size = 8")) << read_file(f.best);

  const Output beyond = run_runner(plan + " --point 3");
  EXPECT_EQ(beyond.exit_code, 2) << beyond.err;
  EXPECT_THAT(beyond.err, HasSubstr("runner plan --point 3: " + f.experiment + " makes 2 runs"))
      << beyond.err;
  EXPECT_THAT(beyond.err, HasSubstr("hint: give --point 1 to 2")) << beyond.err;
}

TEST(Plan, NothingFittingNamesTheSmallestPlan) {
  const PlanFiles f = plan_files("plan_nothing_fits");
  const Output plan =
      run_runner("plan " + f.experiment + " --devices 2 --device-memory 0.0001" + kGivenRates);
  EXPECT_EQ(plan.exit_code, 2);
  EXPECT_THAT(plan.err, HasSubstr("no layout fits 2 CPU devices: the smallest plan, ")) << plan.err;
  EXPECT_THAT(plan.err, HasSubstr("over the 0.00 GiB each has")) << plan.err;
  EXPECT_THAT(plan.err, HasSubstr("hint: ")) << plan.err;
}

TEST(Plan, TrialsOnMoreRanksThanCoresAreRefused) {
  const PlanFiles f = plan_files("plan_too_many");
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const std::string devices = std::to_string(2 * cores);
  const Output plan = run_runner("plan " + f.experiment + " --devices " + devices +
                                 " --trials 1 --set train.batch_size=" + devices);
  EXPECT_EQ(plan.exit_code, 2) << plan.out;
  EXPECT_THAT(plan.err, HasSubstr("--trials 1: the layouts take " + devices + " CPU ranks"))
      << plan.err;
  const Output budget = run_runner("plan " + f.experiment + " --devices " + devices +
                                   " --budget-runs 3 --set train.batch_size=" + devices);
  EXPECT_EQ(budget.exit_code, 2) << budget.out;
  EXPECT_THAT(budget.err, HasSubstr("--budget-runs 3: the layouts take")) << budget.err;
}

TEST(Plan, RatesGivenBadlyOrMissingForAGpuAreRefused) {
  const PlanFiles f = plan_files("plan_rates");
  const Output bad = run_runner("plan " + f.experiment + " --devices 1 --tflops bf16");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--tflops 'bf16': use PRECISION=TFLOPS")) << bad.err;
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a GPU to measure";
  const Output cuda = run_runner("plan " + f.experiment +
                                 " --devices 8 --device cuda --device-memory 80 --set "
                                 "train.batch_size=8");
  EXPECT_EQ(cuda.exit_code, 2);
  EXPECT_THAT(cuda.err, HasSubstr("no GPU to measure")) << cuda.err;
  EXPECT_THAT(cuda.err, HasSubstr("--tflops bf16=T")) << cuda.err;
}

// Every quantity is a finite number in its unit's range, checked before anything is measured:
// 1e30 GiB was planned with (for as long as the rates took), nan ignored, and 0 answered with
// a range whose bound had 309 digits.
TEST(Plan, EachQuantityOutOfItsRangeIsRefusedWithItsUnit) {
  const PlanFiles f = plan_files("plan_quantities");
  const std::string plan = "plan " + f.experiment + " --devices 2 ";
  const std::string gib = "' is not a number of GiB from 0.0001 to 65536";
  for (const std::string value : {"1e30", "nan", "inf", "0", "-1", "12GB", "65537"}) {
    const Output out = run_runner(plan + "--device-memory " + value + kGivenRates);
    EXPECT_EQ(out.exit_code, 2) << value;
    EXPECT_THAT(out.err, HasSubstr("--device-memory: '" + value + gib)) << out.err;
    EXPECT_EQ(out.out.find("rates:"), std::string::npos) << "measured before refusing " << value;
  }
  const std::string rate = "' is not a number of GB/s from 0.001 to 100000";
  for (const std::string option : {"--bandwidth", "--memory-bandwidth"})
    for (const std::string value : {"nan", "0", "1e30"}) {
      const Output out = run_runner(plan + option + " " + value);
      EXPECT_EQ(out.exit_code, 2) << option << " " << value;
      EXPECT_THAT(out.err, HasSubstr(option + ": '" + value + rate)) << out.err;
    }
  for (const std::string given : {"bf16=nan", "bf16=inf", "bf16=1e30", "bf16=12abc", "fp32=0"}) {
    const Output out = run_runner(plan + "--tflops " + given);
    EXPECT_EQ(out.exit_code, 2) << given;
    EXPECT_THAT(out.err, HasSubstr("--tflops '" + given +
                                   "': use PRECISION=TFLOPS, a number of TFLOPS from 0.001 to "
                                   "100000"))
        << out.err;
  }
}

TEST(Plan, AGpuPlanOnPaperTakesGivenRates) {
  const PlanFiles f = plan_files("plan_paper");
  const Output plan = run_runner(
      "plan " + f.experiment +
      " --devices 8 --device cuda --device-memory 80 --tflops fp32=67 --tflops bf16=989 "
      "--tflops fp16=989 --memory-bandwidth 3350 --bandwidth 450 --set train.batch_size=8");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("8 CUDA devices, 80.00 GiB each")) << plan.out;
  EXPECT_THAT(plan.out, HasSubstr("GEMM bf16 989000.0 GFLOP/s")) << plan.out;
  // The layouts are planned on CUDA, where fp16 is not refused as it is on the CPU.
  EXPECT_THAT(plan.out, Not(HasSubstr("needs a CUDA device"))) << plan.out;
  EXPECT_THAT(plan.out, HasSubstr(", fp16")) << plan.out;
}

}  // namespace
}  // namespace runner::testing
