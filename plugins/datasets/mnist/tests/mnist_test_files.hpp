// Small MNIST-format sets written to a temporary folder: 5 training and 3 test images of
// 28x28 with known pixels, plain or gzip, and the means to damage any of the files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include <runner/errors.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mnist_dataset.hpp"

namespace mnist::testing {

constexpr int kTrainImages = 5;
constexpr int kTestImages = 3;
constexpr int kSide = 28;

inline const char* const kTrainImagesStem = "train-images-idx3-ubyte";
inline const char* const kTrainLabelsStem = "train-labels-idx1-ubyte";
inline const char* const kTestImagesStem = "t10k-images-idx3-ubyte";
inline const char* const kTestLabelsStem = "t10k-labels-idx1-ubyte";

// The known value of every pixel; test images follow the training ones.
inline uint8_t pixel(int image, int row, int col) {
  return static_cast<uint8_t>((image * 31 + row * 3 + col) % 256);
}
inline uint8_t label(int image) { return static_cast<uint8_t>(image % 10); }

inline void append_u32(std::vector<uint8_t>& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(value >> shift));
}

// An IDX file: magic, big-endian sizes, data.
inline std::vector<uint8_t> idx_bytes(uint32_t magic, const std::vector<uint32_t>& dims,
                                      const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out;
  append_u32(out, magic);
  for (uint32_t d : dims) append_u32(out, d);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

inline std::vector<uint8_t> images_bytes(int first, int count, int rows = kSide, int cols = kSide) {
  std::vector<uint8_t> data;
  for (int i = first; i < first + count; ++i)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) data.push_back(pixel(i, r, c));
  return idx_bytes(2051, {uint32_t(count), uint32_t(rows), uint32_t(cols)}, data);
}

inline std::vector<uint8_t> labels_bytes(int first, int count) {
  std::vector<uint8_t> data;
  for (int i = first; i < first + count; ++i) data.push_back(label(i));
  return idx_bytes(2049, {uint32_t(count)}, data);
}

inline std::vector<uint8_t> gzip(const std::vector<uint8_t>& bytes) {
  uLongf size = compressBound(bytes.size()) + 32;
  std::vector<uint8_t> out(size);
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
  EXPECT_EQ(
      deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY),
      Z_OK);
  stream.next_in = const_cast<uint8_t*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

inline void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// Runs `action`, expects a runner error of type E and returns its message.
template <typename E, typename F>
std::string error_message(F&& action) {
  try {
    action();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception, none was thrown";
  return {};
}

// The [dataset] table a run would pass: every key at its default, data_dir = `dir`.
inline runner::Options default_options(const std::filesystem::path& dir) {
  runner::Options options("dataset");
  const runner::Schema schema = mnist_schema();
  for (const runner::KeySpec& key : schema.keys())
    if (key.default_value) options.set(key.name, *key.default_value);
  options.set("data_dir", dir.string());
  return options;
}

// A fresh folder per test, removed afterwards.
class MnistFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("runner_mnist_" + std::string(test->test_suite_name()) + "_" + test->name() + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `stem` (plain) or `stem`.gz.
  std::filesystem::path write(const std::string& stem, const std::vector<uint8_t>& bytes,
                              bool gzipped = false) {
    std::filesystem::path path = dir_ / (gzipped ? stem + ".gz" : stem);
    write_file(path, gzipped ? gzip(bytes) : bytes);
    return path;
  }

  void write_set(bool gzipped = false) {
    write(kTrainImagesStem, images_bytes(0, kTrainImages), gzipped);
    write(kTrainLabelsStem, labels_bytes(0, kTrainImages), gzipped);
    write(kTestImagesStem, images_bytes(kTrainImages, kTestImages), gzipped);
    write(kTestLabelsStem, labels_bytes(kTrainImages, kTestImages), gzipped);
  }

  MnistOptions options(bool normalize = false) const {
    MnistOptions o;
    o.data_dir = dir_;
    o.normalize = normalize;
    return o;
  }

  std::filesystem::path dir_;
};

}  // namespace mnist::testing
