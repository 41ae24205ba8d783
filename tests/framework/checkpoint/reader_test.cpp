// Reading a checkpoint back: whole tensors are assembled from the pieces of any shards, so a
// layout other than the writer's loads it; a damaged, partial or foreign checkpoint is refused
// naming the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checkpoint_test_support.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

// A (4, 6) matrix saved as two flat halves, one per rank, and a vector saved whole by rank 0.
torch::Tensor matrix() { return torch::arange(24, torch::kFloat).view({4, 6}); }

std::string two_rank_checkpoint(const std::string& name) {
  const torch::Tensor flat = matrix().view(-1);
  return write_checkpoint(
      fresh_folder(name), 8,
      {{{"m", {4, 6}, -1, 0, flat.narrow(0, 0, 12), true},
        {"v", {3}, -1, 0, torch::tensor({7.0, 8.0, 9.0}, torch::kDouble), true}},
       {{"m", {4, 6}, -1, 12, flat.narrow(0, 12, 12), true}}});
}

TEST(CheckpointReader, WholeTensorsAreAssembledFromTheShards) {
  checkpoint::CheckpointReader reader(two_rank_checkpoint("assemble"));
  EXPECT_EQ(reader.names(), (std::vector<std::string>{"m", "v"}));
  EXPECT_TRUE(torch::equal(reader.whole("m"), matrix()));
  EXPECT_EQ(reader.whole("v").scalar_type(), torch::kDouble);
  EXPECT_EQ(reader.manifest().progress.global_step, 8);
}

TEST(CheckpointReader, AnotherLayoutReadsItsOwnPieces) {
  checkpoint::CheckpointReader reader(two_rank_checkpoint("relayout"));
  // Three ranks' flat thirds, and a split along the columns (a tensor-parallel layout).
  for (int64_t third = 0; third < 3; ++third) {
    torch::Tensor values = torch::zeros({8});
    reader.read_into({"m", {4, 6}, -1, third * 8, values, true});
    EXPECT_TRUE(torch::equal(values, matrix().view(-1).narrow(0, third * 8, 8))) << third;
  }
  torch::Tensor columns = torch::zeros({4, 2}, torch::kDouble);
  reader.read_into({"m", {4, 6}, 1, 2, columns, true});
  EXPECT_TRUE(torch::equal(columns, matrix().narrow(1, 2, 2).to(torch::kDouble)));
}

TEST(CheckpointReader, AnotherShapeIsRefusedNamingTheCheckpoint) {
  const std::string folder = two_rank_checkpoint("shape");
  checkpoint::CheckpointReader reader(folder);
  torch::Tensor values = torch::zeros({5, 6});
  const std::string message = message_of<DataError>([&] {
    reader.read_into({"m", {5, 6}, -1, 0, values, true});
  });
  EXPECT_THAT(message, HasSubstr(folder)) << message;
  EXPECT_THAT(message, HasSubstr("[4, 6] there and [5, 6] in this run")) << message;
  const std::string missing = message_of<DataError>([&] {
    reader.read_into({"other", {1}, -1, 0, torch::zeros({1}), true});
  });
  EXPECT_THAT(missing, HasSubstr("has no \"other\"")) << missing;
}

TEST(CheckpointReader, AMissingPieceIsNamed) {
  const torch::Tensor flat = matrix().view(-1);
  const std::string folder = write_checkpoint(
      fresh_folder("partial"), 1, {{{"m", {4, 6}, -1, 0, flat.narrow(0, 0, 12), true}}});
  checkpoint::CheckpointReader reader(folder);
  const std::string message = message_of<DataError>([&] { reader.whole("m"); });
  EXPECT_THAT(message, HasSubstr("only part of \"m\"")) << message;
}

TEST(CheckpointReader, APieceOutsideItsWholeTensorIsRefused) {
  const std::string folder =
      write_checkpoint(fresh_folder("outside"), 1, {{{"m", {4}, -1, 2, torch::zeros({4}), true}}});
  const std::string message =
      message_of<DataError>([&] { checkpoint::CheckpointReader reader(folder); });
  EXPECT_THAT(message, HasSubstr("rank-0.safetensors")) << message;
  EXPECT_THAT(message, HasSubstr("outside its whole tensor")) << message;
}

TEST(CheckpointReader, APieceOfTheRightSizeInAnotherShapeIsRefused) {
  const std::string folder = write_checkpoint(
      fresh_folder("transposed"), 1, {{{"m", {4, 6}, -1, 0, matrix().t().contiguous(), true}}});
  const std::string message =
      message_of<DataError>([&] { checkpoint::CheckpointReader reader(folder); });
  EXPECT_THAT(message, HasSubstr("outside its whole tensor")) << message;
  const std::string columns = write_checkpoint(fresh_folder("short_columns"), 1,
                                               {{{"m", {4, 6}, 1, 0, torch::zeros({3, 6}), true}}});
  EXPECT_THROW(checkpoint::CheckpointReader{columns}, DataError);
}

TEST(CheckpointReader, CheckCompleteFindsATensorPartlySavedFromTheHeadersAlone) {
  EXPECT_NO_THROW(checkpoint::CheckpointReader(two_rank_checkpoint("complete")).check_complete());
  const torch::Tensor flat = matrix().view(-1);
  const std::string half = write_checkpoint(
      fresh_folder("half"), 1, {{{"m", {4, 6}, -1, 12, flat.narrow(0, 12, 12), true}}});
  std::string message =
      message_of<DataError>([&] { checkpoint::CheckpointReader(half).check_complete(); });
  EXPECT_THAT(message, HasSubstr("checkpoint " + half + " holds only part of \"m\"")) << message;
  // Columns 0-1 and 4-5 of a split along dim 1: 2-3 missing.
  const std::string gap = write_checkpoint(fresh_folder("gap"), 1,
                                           {{{"m", {4, 6}, 1, 0, torch::zeros({4, 2}), true}},
                                            {{"m", {4, 6}, 1, 4, torch::zeros({4, 2}), true}}});
  EXPECT_THROW(checkpoint::CheckpointReader(gap).check_complete(), DataError);
  const std::string mixed = write_checkpoint(fresh_folder("mixed"), 1,
                                             {{{"m", {4, 6}, -1, 0, flat.narrow(0, 0, 12), true}},
                                              {{"m", {4, 6}, 0, 2, torch::zeros({2, 6}), true}}});
  message = message_of<DataError>([&] { checkpoint::CheckpointReader(mixed).check_complete(); });
  EXPECT_THAT(message, HasSubstr("the pieces of \"m\" do not fit together")) << message;
}

TEST(CheckpointVerify, ADamagedTruncatedOrMissingShardIsNamed) {
  const std::string folder = two_rank_checkpoint("verify");
  EXPECT_NO_THROW(checkpoint::verify(folder));
  const std::string shard = folder + "/rank-1.safetensors";
  const auto size = fs::file_size(shard);
  {
    std::fstream file(shard, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(size - 2));
    file.put('\x7f');
  }
  std::string message = message_of<DataError>([&] { checkpoint::verify(folder); });
  EXPECT_THAT(message, HasSubstr(shard + " is damaged")) << message;
  fs::resize_file(shard, size - 4);
  message = message_of<DataError>([&] { checkpoint::verify(folder); });
  EXPECT_THAT(message, HasSubstr(shard)) << message;
  EXPECT_THAT(message, HasSubstr("truncated")) << message;
  fs::remove(shard);
  message = message_of<DataError>([&] { checkpoint::verify(folder); });
  EXPECT_THAT(message, HasSubstr(shard + " is missing")) << message;
}

// A run's final weights say so in their manifest; a manifest written before they were kept
// (no "weights_only") holds training state, and one whose flag is not a boolean is damaged.
TEST(CheckpointManifest, SaysWhetherItHoldsTheFinalWeightsOnly) {
  const std::string folder = two_rank_checkpoint("weights_only");
  const std::string path = folder + "/" + checkpoint::kManifestFile;
  EXPECT_FALSE(checkpoint::read_manifest(path).weights_only);
  checkpoint::Manifest manifest = checkpoint::read_manifest(path);
  manifest.weights_only = true;
  std::ofstream(path) << checkpoint::manifest_text(manifest);
  EXPECT_TRUE(checkpoint::read_manifest(path).weights_only);

  std::string text = checkpoint::manifest_text(manifest);
  const std::string flag = "\"weights_only\": true";
  ASSERT_NE(text.find(flag), std::string::npos) << text;
  std::ofstream(path) << std::string(text).replace(text.find(flag), flag.size(),
                                                   "\"weights_only\": \"yes\"");
  const std::string message = message_of<DataError>([&] { checkpoint::read_manifest(path); });
  EXPECT_THAT(message, HasSubstr(path + " is damaged")) << message;
  std::ofstream(path) << std::string(text).replace(text.find(flag), flag.size() + 1, "");
  EXPECT_FALSE(checkpoint::read_manifest(path).weights_only);
}

}  // namespace
}  // namespace runner::testing
