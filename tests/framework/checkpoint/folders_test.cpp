// A run's checkpoint folders: only a folder with a manifest and every shard it lists, whole,
// counts as a checkpoint; pruning keeps the latest ones and clears saves cut short.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checkpoint_test_support.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

StatePiece piece(const std::string& name, const torch::Tensor& values) {
  return {name, values.sizes().vec(), -1, 0, values, true};
}

std::vector<std::vector<StatePiece>> two_shards() {
  return {{piece("a", torch::ones({4}))}, {piece("b", torch::zeros({2}))}};
}

std::vector<std::string> names_of(const std::vector<std::string>& folders) {
  std::vector<std::string> names;
  for (const auto& folder : folders) names.push_back(fs::path(folder).filename().string());
  return names;
}

TEST(CheckpointFolders, FoldersAreNamedByTheGlobalStep) {
  EXPECT_EQ(checkpoint::checkpoint_folder("/r", 42), "/r/step-000000042");
  EXPECT_EQ(checkpoint::shard_file(3), "rank-3.safetensors");
}

TEST(CheckpointFolders, OnlyWholeCheckpointsAreComplete) {
  const std::string run = fresh_folder("complete");
  write_checkpoint(run, 10, two_shards());
  const std::string no_shard = write_checkpoint(run, 20, two_shards());
  fs::remove(no_shard + "/rank-1.safetensors");
  const std::string cut = write_checkpoint(run, 30, two_shards());
  fs::resize_file(cut + "/rank-0.safetensors", 16);
  const std::string no_manifest = write_checkpoint(run, 40, two_shards());
  fs::remove(no_manifest + "/manifest.json");
  const std::string bad_manifest = write_checkpoint(run, 50, two_shards());
  std::ofstream(bad_manifest + "/manifest.json") << "{\"format\": \"runner-checkpoint\"";
  fs::create_directories(run + "/step-000000060.tmp");
  EXPECT_EQ(names_of(checkpoint::complete_checkpoints(run)),
            std::vector<std::string>{"step-000000010"});
  EXPECT_EQ(checkpoint::latest_complete(run), checkpoint::checkpoint_folder(run, 10));
  EXPECT_FALSE(checkpoint::latest_complete(run + "/missing").has_value());
}

TEST(CheckpointFolders, PruneKeepsTheLatestAndClearsSavesCutShort) {
  const std::string run = fresh_folder("prune");
  for (int64_t step : {1, 2, 3, 4}) write_checkpoint(run, step, two_shards());
  fs::remove(write_checkpoint(run, 5, two_shards()) + "/manifest.json");  // cut short
  fs::remove(write_checkpoint(run, 7, two_shards()) + "/manifest.json");  // being written
  write_checkpoint(run, 6, two_shards());
  checkpoint::prune(run, 2);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(run)) left.push_back(entry.path().filename());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"step-000000004", "step-000000006", "step-000000007"}));
}

// The manifest of a fresh checkpoint with `from` replaced by `to`; its path.
std::string edited_manifest(const std::string& name, const std::string& from,
                            const std::string& to) {
  const std::string path = write_checkpoint(fresh_folder(name), 1, two_shards()) + "/manifest.json";
  std::ifstream in(path);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  text.replace(text.find(from), from.size(), to);
  std::ofstream(path) << text;
  return path;
}

TEST(CheckpointManifest, AnotherFormatVersionIsRefusedNamingTheFile) {
  const std::string path =
      edited_manifest("version", "\"format_version\": 1", "\"format_version\": 99");
  const std::string message = message_of<DataError>([&] { checkpoint::read_manifest(path); });
  EXPECT_THAT(message, HasSubstr(path)) << message;
  EXPECT_THAT(message, HasSubstr("format 99")) << message;
  EXPECT_TRUE(checkpoint::complete_checkpoints(fs::path(path).parent_path().parent_path()).empty());
}

TEST(CheckpointManifest, ProgressNoRunCouldHaveMadeIsRefusedNamingTheField) {
  const std::string epoch = edited_manifest("epoch", "\"epoch\": 1", "\"epoch\": -5");
  std::string message = message_of<DataError>([&] { checkpoint::read_manifest(epoch); });
  EXPECT_THAT(message, HasSubstr(epoch + ": progress.epoch = -5 is impossible")) << message;
  const std::string step =
      edited_manifest("step", "\"step_in_epoch\": 0", "\"step_in_epoch\": 4611686018427387904");
  message = message_of<DataError>([&] { checkpoint::read_manifest(step); });
  EXPECT_THAT(message,
              HasSubstr("progress.global_step = 1 below step_in_epoch = 4611686018427387904"))
      << message;
}

TEST(CheckpointManifest, ShardsOutOfRankOrderAreRefused) {
  const std::string path = edited_manifest("order", "\"rank\": 1", "\"rank\": 0");
  const std::string message = message_of<DataError>([&] { checkpoint::read_manifest(path); });
  EXPECT_THAT(message, HasSubstr("lists rank 0's shard in place 1")) << message;
}

TEST(CheckpointManifest, AShardOutsideItsFolderIsRefused) {
  const std::string path = edited_manifest("outside", "rank-1.safetensors", "../../etc/passwd00");
  const std::string message = message_of<DataError>([&] { checkpoint::read_manifest(path); });
  EXPECT_THAT(message, HasSubstr("outside its folder")) << message;
}

}  // namespace
}  // namespace runner::testing
