// The trials' experiment file, which layouts are still worth a trial, and the written best
// layout.
#include "layout/trials.hpp"
#include "config/load_experiment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/run_fixtures.hpp>

using ::testing::HasSubstr;

namespace runner::layout {
namespace {

using testing::fixture_registry;

const std::string kTinyGpt2 =
    "[experiment]\nname = \"trials\"\nseed = 1\n"
    "[dataset]\nname = \"random_tokens\"\nsize = 64\ntest_size = 4\nseq_len = 16\n"
    "vocab_size = 64\n"
    "[model]\nname = \"gpt2\"\npreset = \"tiny\"\n"
    "[optimizer]\nname = \"adamw\"\nlr = 1e-3\n"
    "[train]\nepochs = 3\nthreads = 1\ntest_batch_size = 1\nbatch_size = 4\n"
    "[strategy]\nname = \"ddp\"\nbackend = \"gloo\"\ntimeout_s = 77\n";

std::vector<Candidate> three_candidates(const plugin_host::Registry& registry) {
  Rates rates;
  rates.gemm[Precision::fp32] = {{1.0, 1e10}};
  rates.gemm[Precision::bf16] = {{1.0, 2e10}};
  rates.memory_bytes_per_s = rates.link_bytes_per_s = rates.all_reduce_bytes_per_s =
      rates.all_gather_bytes_per_s = rates.reduce_scatter_bytes_per_s = 1e10;
  rates.cast_bytes_per_s = 1e10;
  for (Precision p : {Precision::fp32, Precision::bf16}) rates.extra_pass_s_per_parameter[p] = 1e-9;
  rates.disk_bytes_per_s = rates.host_bytes_per_s = 1e9;
  const Search search =
      search_layouts({kTinyGpt2, "trials.toml", {}, {2, false}, 1e12}, registry, rates);
  std::vector<Candidate> picked;
  for (const auto& c : search.fitting) {
    const bool zero3 = c.layout.strategy == "zero" && c.layout.zero_stage == 3 &&
                       c.layout.offload == "nvme" && c.layout.micro_batches == 2 &&
                       c.layout.checkpoint_layers;
    const bool pipeline = c.layout.strategy == "pipeline" && c.layout.schedule == "gpipe" &&
                          c.layout.micro_batches == 4 && c.layout.precision == Precision::bf16;
    const bool tensor = c.layout.strategy == "tensor" && c.layout.micro_batches == 1 &&
                        c.layout.precision == Precision::fp32 && !c.layout.checkpoint_layers;
    if (zero3 || pipeline || tensor) picked.push_back(c);
  }
  return picked;
}

TEST(Trials, TheTrialsFileIsOneRunPerLayoutOfAFewSteps) {
  auto registry = fixture_registry();
  const auto candidates = three_candidates(registry);
  ASSERT_GE(candidates.size(), 3u);
  const auto runs =
      config::parse_experiment(trials_toml(candidates, 3), "t.toml", {}, registry).runs;
  ASSERT_EQ(runs.size(), candidates.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    const Layout& l = candidates[i].layout;
    EXPECT_EQ(runs[i].strategy.name, l.strategy) << l.label();
    EXPECT_EQ(runs[i].train.techniques.micro_batches, l.micro_batches) << l.label();
    EXPECT_EQ(runs[i].train.techniques.precision, l.precision);
    EXPECT_EQ(runs[i].train.techniques.checkpoint_layers, l.checkpoint_layers);
    EXPECT_EQ(runs[i].train.epochs, 1);
    EXPECT_EQ(runs[i].train.max_steps_per_epoch, 3);
    EXPECT_EQ(runs[i].train.log_every, 1);
    EXPECT_EQ(runs[i].checkpoint.get_int("every_steps"), 0);
    EXPECT_FALSE(runs[i].checkpoint.get_bool("final_weights")) << "trials keep no weights";
    // The file's backend and timeout stay with every strategy that has them.
    EXPECT_EQ(runs[i].strategy.options.get_int("timeout_s"), 77);
    EXPECT_DOUBLE_EQ(runs[i].experiment.get_double("plan_step_s"), candidates[i].cost.total());
  }
  EXPECT_EQ(runs[0].experiment.get_string("name"), "trials");
}

TEST(Trials, ABestLayoutsFileResolvesToItsRun) {
  auto registry = fixture_registry();
  const auto candidates = three_candidates(registry);
  ASSERT_FALSE(candidates.empty());
  const std::string text = layout_file(candidates.front(), "trials.toml", 0.25);
  EXPECT_THAT(text, HasSubstr(candidates.front().layout.label()));
  EXPECT_THAT(text, HasSubstr("measured 0.25 s"));
  const auto runs = config::parse_experiment(text, "best.toml", {}, registry).runs;
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, candidates.front().run.id);
  EXPECT_THAT(layout_file(candidates.front(), "trials.toml", std::nullopt),
              HasSubstr("not measured"));
}

TEST(Trials, ALayoutMayBeatTheFastestUnlessEvenTheOptimisticRatioLeavesItSlower) {
  EXPECT_TRUE(may_beat_the_fastest(100, {}));
  EXPECT_TRUE(may_beat_the_fastest(100, {{1, 3}}));  // one ratio says nothing of the spread
  EXPECT_FALSE(optimistic_ratio({{1, 3}}));
  // Ratios 3 and 2: the smallest 2 over the spread 3 / 2 is 4 / 3; the fastest measured is 3 s,
  // so a prediction p may win while 4 p / 3 < 3, p < 2.25.
  const std::vector<TriedLayout> tried{{1, 3}, {1.5, 3}};
  EXPECT_DOUBLE_EQ(*optimistic_ratio(tried), 4.0 / 3);
  EXPECT_DOUBLE_EQ(fastest_measured({{1, 5}, {2, 3}, {3, 4}}), 3.0);
  EXPECT_TRUE(may_beat_the_fastest(2.2, tried));
  EXPECT_FALSE(may_beat_the_fastest(2.3, tried));
  // Equal ratios leave no spread: only a prediction under the fastest's may win.
  const std::vector<TriedLayout> even{{1, 2}, {2, 4}};
  EXPECT_TRUE(may_beat_the_fastest(0.99, even));
  EXPECT_FALSE(may_beat_the_fastest(1.0, even));
}

}  // namespace
}  // namespace runner::layout
