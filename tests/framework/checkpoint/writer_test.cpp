// Saving in the background: each rank writes its shard, rank 0 the manifest once every shard
// is on disk, and the run keeps only its latest checkpoints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "checkpoint/writer.hpp"
#include "checkpoint_test_support.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

checkpoint::Manifest manifest_at(int64_t step, int world_size) {
  checkpoint::Manifest manifest;
  manifest.experiment = "exp";
  manifest.run_id = "run";
  manifest.world_size = world_size;
  manifest.progress.global_step = step;
  return manifest;
}

TEST(ShardWriter, TwoRanksWriteOneCompleteCheckpointPerSave) {
  const std::string run = fresh_folder("two_ranks");
  // Rank r holds the elements [4r, 4r + 4) of "w", (2, 4), equal to the step.
  auto rank = [&](int r) {
    checkpoint::ShardWriter writer(run, 2, r, 2);
    for (int64_t step = 1; step <= 3; ++step) {
      // The copy is taken before save returns: the next step may change the tensor at once.
      torch::Tensor mine = torch::full({4}, static_cast<float>(step));
      writer.save({{"w", {2, 4}, -1, 4 * static_cast<int64_t>(r), mine, true},
                   {"replica", {1}, -1, 0, torch::ones({1}), r == 0}},
                  manifest_at(step, 2));
      mine.fill_(-1.0f);
    }
    writer.finish();
  };
  std::thread rank1(rank, 1);
  rank(0);
  rank1.join();
  const auto complete = checkpoint::complete_checkpoints(run);
  ASSERT_EQ(complete.size(), 2u);
  EXPECT_EQ(complete.back(), checkpoint::checkpoint_folder(run, 3));
  checkpoint::verify(complete.back());
  checkpoint::CheckpointReader reader(complete.back());
  EXPECT_TRUE(torch::equal(reader.whole("w"), torch::full({2, 4}, 3.0f)));
  EXPECT_EQ(reader.manifest().shards.size(), 2u);
  for (const auto& entry : fs::directory_iterator(complete.back()))
    EXPECT_EQ(entry.path().extension(),
              entry.path().filename() == "manifest.json" ? ".json" : ".safetensors")
        << entry.path();
}

TEST(ShardWriter, AFailedWriteIsRethrownNamingTheFolder) {
  const std::string blocker = fresh_folder("blocked") + "/a-file";
  std::ofstream(blocker) << "not a folder";
  checkpoint::ShardWriter writer(blocker + "/run", 2, 0, 1);
  writer.save({{"x", {1}, -1, 0, torch::ones({1}), true}}, manifest_at(1, 1));
  const std::string message = message_of<DataError>([&] { writer.finish(); });
  EXPECT_THAT(message, HasSubstr(blocker)) << message;
}

TEST(ShardWriter, RemoveAfterClearsTheStepsARunWritesAgain) {
  const std::string run = fresh_folder("remove_after");
  for (int64_t step : {2, 4, 6}) write_checkpoint(run, step, {{}});
  checkpoint::remove_after(run, 4);
  EXPECT_EQ(checkpoint::complete_checkpoints(run),
            (std::vector<std::string>{checkpoint::checkpoint_folder(run, 2),
                                      checkpoint::checkpoint_folder(run, 4)}));
  checkpoint::remove_after(run, 0);
  EXPECT_TRUE(checkpoint::complete_checkpoints(run).empty());
}

}  // namespace
}  // namespace runner::testing
