// Safetensors files: what is written reads back bit for bit, the layout is the published one
// (so Python's safetensors reads it), and a damaged file is refused naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "checkpoint_test_support.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"
#include "runner_testing/files.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

using checkpoint::NamedTensor;

std::vector<NamedTensor> sample_tensors() {
  torch::manual_seed(3);
  return {{"w", torch::randn({3, 5})},
          {"b16", torch::randn({7}).to(torch::kBFloat16)},
          {"half", torch::randn({2, 2}).to(torch::kHalf)},
          {"steps", torch::tensor({int64_t{1}, int64_t{-9}})},
          {"flags", torch::tensor({true, false, true})},
          {"scalar", torch::tensor(2.5, torch::kDouble)},
          {"empty", torch::empty({0, 4})}};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(Safetensors, WhatIsWrittenReadsBackBitForBit) {
  const std::string path = fresh_folder("round_trip") + "/t.safetensors";
  const auto tensors = sample_tensors();
  checkpoint::write_safetensors(path, tensors, {{"note", "kept"}});
  const auto header = checkpoint::read_safetensors_header(path);
  EXPECT_EQ(header.metadata.at("note"), "kept");
  ASSERT_EQ(header.tensors.size(), tensors.size());
  for (const auto& [key, tensor] : tensors) {
    const auto entry = std::find_if(header.tensors.begin(), header.tensors.end(),
                                    [&, k = key](const auto& e) { return e.key == k; });
    ASSERT_NE(entry, header.tensors.end()) << key;
    const torch::Tensor back = checkpoint::read_tensor(path, header, *entry);
    EXPECT_EQ(back.scalar_type(), tensor.scalar_type()) << key;
    EXPECT_TRUE(torch::equal(back, tensor)) << key;
  }
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

// The published layout: 8 bytes of little-endian header length, the JSON header, the data.
TEST(Safetensors, TheLayoutIsThePublishedOne) {
  const std::string path = fresh_folder("layout") + "/t.safetensors";
  checkpoint::write_safetensors(path, {{"x", torch::tensor({1.0f, 2.0f})}}, {});
  const std::string bytes = runner::testing::file_bytes(path);
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = length << 8 | static_cast<unsigned char>(bytes[i]);
  EXPECT_EQ(length % 8, 0u);
  const std::string header = bytes.substr(8, length);
  EXPECT_THAT(header, HasSubstr(R"("x":{"data_offsets":[0,8],"dtype":"F32","shape":[2]})"))
      << header;
  float values[2];
  std::memcpy(values, bytes.data() + 8 + length, sizeof values);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], 2.0f);
  EXPECT_EQ(bytes.size(), 8 + length + 8);
}

TEST(Safetensors, TheDigestIsTheFilesCrc) {
  const std::string path = fresh_folder("digest") + "/t.safetensors";
  const auto written = checkpoint::write_safetensors(path, sample_tensors(), {});
  EXPECT_EQ(written, checkpoint::digest_of(path));
  EXPECT_EQ(written.bytes, std::filesystem::file_size(path));
  std::string bytes = runner::testing::file_bytes(path);
  bytes[bytes.size() - 3] ^= 1;
  write_bytes(path, bytes);
  EXPECT_EQ(checkpoint::digest_of(path).bytes, written.bytes);
  EXPECT_NE(checkpoint::digest_of(path).crc32, written.crc32);
}

TEST(Safetensors, ATruncatedFileIsRefusedNamingIt) {
  const std::string path = fresh_folder("truncated") + "/t.safetensors";
  checkpoint::write_safetensors(path, sample_tensors(), {});
  const std::string bytes = runner::testing::file_bytes(path);
  for (size_t keep : {size_t{0}, size_t{5}, size_t{20}, bytes.size() - 1}) {
    write_bytes(path, bytes.substr(0, keep));
    const std::string message =
        message_of<DataError>([&] { checkpoint::read_safetensors_header(path); });
    EXPECT_THAT(message, HasSubstr(path)) << keep << ": " << message;
  }
}

TEST(Safetensors, AHeaderWithImpossibleShapesIsRefused) {
  const std::string path = fresh_folder("hostile") + "/t.safetensors";
  for (const std::string header :
       {R"({"x":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}})",
        R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})",
        R"({"x":{"dtype":"Q7","shape":[1],"data_offsets":[0,4]}})",
        R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[4,0]}})", R"({"x":)"}) {
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(header.size() >> (8 * i));
    write_bytes(path, bytes + header + std::string(8, '\0'));
    const std::string message =
        message_of<DataError>([&] { checkpoint::read_safetensors_header(path); });
    EXPECT_THAT(message, HasSubstr(path)) << header << ": " << message;
  }
}

TEST(Safetensors, AnUnwritableFolderIsNamed) {
  const std::string path = "/proc/runner-no-such-folder/t.safetensors";
  const std::string message =
      message_of<DataError>([&] { checkpoint::write_safetensors(path, sample_tensors(), {}); });
  EXPECT_THAT(message, HasSubstr(path)) << message;
}

}  // namespace
}  // namespace runner::testing
