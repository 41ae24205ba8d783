// The layout search on a tiny GPT-2: refusals counted by reason, plans against the memory,
// the fitting layouts ranked by predicted step time, and the error when nothing fits.
#include "layout/search.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/run_fixtures.hpp>

#include <algorithm>

#include "layout/search_table.hpp"
#include "runner_testing/byte_units.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::layout {
namespace {

using testing::fixture_registry;

using runner::testing::kGiB;

// The file's [strategy] is zero's, with a key ddp, tensor and pipeline do not have.
std::string tiny_gpt2(int64_t batch_size) {
  return "[experiment]\nname = \"plan\"\nseed = 1\n"
         "[dataset]\nname = \"random_tokens\"\nsize = 64\ntest_size = 4\nseq_len = 16\n"
         "vocab_size = 64\n"
         "[model]\nname = \"gpt2\"\npreset = \"tiny\"\n"
         "[optimizer]\nname = \"adamw\"\nlr = 1e-3\n"
         "[train]\nepochs = 1\nthreads = 1\ntest_batch_size = 1\nbatch_size = " +
         std::to_string(batch_size) +
         "\n"
         "[strategy]\nname = \"zero\"\nstage = 2\nbackend = \"gloo\"\n";
}

Rates flat_rates() {
  Rates r;
  r.gemm[Precision::fp32] = {{1.0, 1e10}};
  r.gemm[Precision::bf16] = {{1.0, 2e10}};
  r.memory_bytes_per_s = r.cast_bytes_per_s = 1e10;
  for (Precision p : {Precision::fp32, Precision::bf16}) r.extra_pass_s_per_parameter[p] = 1e-9;
  r.link_bytes_per_s = r.all_reduce_bytes_per_s = r.all_gather_bytes_per_s =
      r.reduce_scatter_bytes_per_s = 1e9;
  r.disk_bytes_per_s = 1e8;
  r.host_bytes_per_s = 1e9;
  return r;
}

SearchRequest request(int devices, int64_t batch_size, double memory) {
  return {tiny_gpt2(batch_size), "plan.toml", {}, {devices, false}, memory};
}

size_t refused_for(const Search& search, const std::string& part) {
  size_t n = 0;
  for (const auto& [reason, count] : search.refused)
    if (reason.find(part) != std::string::npos) n += count;
  return n;
}

TEST(Search, EveryLayoutOnTwoDevicesIsPlannedAndRankedByPredictedTime) {
  auto registry = fixture_registry();
  const Search search = search_layouts(request(2, 4, 64 * kGiB), registry, flat_rates());
  EXPECT_EQ(search.layouts, enumerate_layouts({2, false}, 4).size());
  EXPECT_TRUE(search.refused.empty()) << search.refused.front().first;
  EXPECT_TRUE(search.over_memory.empty());
  // Every zero layout that offloads (3 stages, micro-batches 1 and 2, 2 precisions,
  // checkpointing off and on) has a twin that fits without.
  EXPECT_EQ(search.needless_offloads, 3 * 2 * 2 * 2u);
  ASSERT_EQ(search.fitting.size(), search.layouts - search.needless_offloads);
  EXPECT_TRUE(
      std::is_sorted(search.fitting.begin(), search.fitting.end(),
                     [](const auto& a, const auto& b) { return a.cost.total() < b.cost.total(); }));
  for (const auto& c : search.fitting) {
    EXPECT_EQ(c.run.strategy.name, c.layout.strategy);
    EXPECT_EQ(c.estimate.plan.ranks.size(), c.layout.strategy == "single" ? 1u : 2u);
  }
}

TEST(Search, AnOffloadStaysWhenItsTwinWithoutDoesNotFit) {
  auto registry = fixture_registry();
  const auto peak_of = [&](const Search& search, const std::string& offload) {
    for (const auto& c : search.fitting)
      if (c.layout.strategy == "zero" && c.layout.zero_stage == 3 && c.layout.offload == offload &&
          c.layout.micro_batches == 1 && c.layout.precision == Precision::fp32 &&
          !c.layout.checkpoint_layers)
        return c.estimate.peak_bytes();
    return -1.0;
  };
  const Search roomy = search_layouts(request(2, 4, 64 * kGiB), registry, flat_rates());
  const double twin = peak_of(roomy, "none");
  // Without the needless-offload rule the nvme layout's own peak is in the search's planner:
  const Search tight = search_layouts(request(2, 4, twin - 1), registry, flat_rates());
  ASSERT_GT(twin, 0);
  const double offloaded = peak_of(tight, "nvme");
  ASSERT_GT(offloaded, 0) << "zero-3 with nvme offload plans less than without and fits";
  EXPECT_LT(offloaded, twin);
  EXPECT_LT(peak_of(tight, "none"), 0);
}

TEST(Search, APipelinesMicroBatchesSplitItsReplicasWholeShare) {
  auto registry = fixture_registry();
  const Search search = search_layouts(request(2, 4, 64 * kGiB), registry, flat_rates());
  const auto four = std::find_if(search.fitting.begin(), search.fitting.end(), [](const auto& c) {
    return c.layout.strategy == "pipeline" && c.layout.micro_batches == 4;
  });
  ASSERT_NE(four, search.fitting.end());
  EXPECT_EQ(four->estimate.plan.micro_batch_size, 1);
}

TEST(Search, RefusalsAreCountedByReason) {
  auto registry = fixture_registry();
  // 3 ranks, a batch of 6: tensor degree 3 does not divide the tiny model's 4 heads.
  const Search search = search_layouts(request(3, 6, 64 * kGiB), registry, flat_rates());
  EXPECT_EQ(refused_for(search, "strategy.degree = 3"), 4 * 2 * 2u);  // micro-batches 1, 2, 3, 6
  EXPECT_TRUE(std::is_sorted(search.refused.begin(), search.refused.end(),
                             [](const auto& a, const auto& b) { return a.second > b.second; }));
  size_t refused = 0;
  for (const auto& r : search.refused) refused += r.second;
  EXPECT_EQ(refused + search.fitting.size() + search.over_memory.size() + search.needless_offloads,
            search.layouts);
}

TEST(Search, AModelWithoutAnEstimateIsBuiltToBeSizedAndTheTableSaysSo) {
  auto registry = fixture_registry();
  const SearchRequest one_device{
      testing::blobs_experiment(), "blobs.toml", {}, {1, false}, 64 * kGiB};
  const Search search = search_layouts(one_device, registry, flat_rates());
  ASSERT_FALSE(search.fitting.empty());
  EXPECT_FALSE(search.fitting.front().estimate.from_options);
  EXPECT_GT(search.fitting.front().estimate.model.parameters, 0);
  EXPECT_THAT(search_text(search, 3),
              HasSubstr("model 'linear_probe' has no estimate of its own: built "
                        "once per precision and measured"))
      << search_text(search, 3);
  // gpt2 sizes itself from its options.
  const Search gpt2 = search_layouts(request(2, 4, 64 * kGiB), registry, flat_rates());
  EXPECT_THAT(search_text(gpt2, 3), Not(HasSubstr("no estimate of its own")));
}

TEST(Search, ABatchThatDoesNotDivideAmongTheRanksRefusesEveryLayoutOfThem) {
  auto registry = fixture_registry();
  const Search search = search_layouts(request(3, 4, 64 * kGiB), registry, flat_rates());
  EXPECT_EQ(refused_for(search, "train.batch_size = 4 does not divide among 3 ranks"),
            search.layouts);
}

TEST(Search, LayoutsOverTheMemoryAreSetApartSmallestFirst) {
  auto registry = fixture_registry();
  const double memory = 3.0 * 1024 * 1024;
  const Search search = search_layouts(request(2, 4, memory), registry, flat_rates());
  ASSERT_FALSE(search.over_memory.empty());
  for (const auto& c : search.fitting) EXPECT_LE(c.estimate.peak_bytes(), memory);
  for (const auto& c : search.over_memory) EXPECT_GT(c.estimate.peak_bytes(), memory);
  EXPECT_TRUE(std::is_sorted(search.over_memory.begin(), search.over_memory.end(),
                             [](const auto& a, const auto& b) {
                               return a.estimate.peak_bytes() < b.estimate.peak_bytes();
                             }));
}

TEST(Search, NothingFittingNamesTheSmallestPlanAndByHowMuch) {
  auto registry = fixture_registry();
  const SearchRequest r = request(2, 4, 1024.0);
  const Search search = search_layouts(r, registry, flat_rates());
  ASSERT_TRUE(search.fitting.empty());
  const ConfigError e = nothing_fits(search, r);
  const std::string text = e.what();
  EXPECT_THAT(text, HasSubstr("no layout fits 2 CPU devices")) << text;
  EXPECT_THAT(text, HasSubstr(search.over_memory.front().layout.label())) << text;
  EXPECT_THAT(text, HasSubstr(plan::gibibytes(search.over_memory.front().estimate.peak_bytes())))
      << text;
  EXPECT_FALSE(e.hint().empty());
}

}  // namespace
}  // namespace runner::layout
