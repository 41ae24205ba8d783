// Small CIFAR-10 binary sets written to a temporary folder: 5 training files of 2 records and a
// test file of 3, every pixel and label known, and the means to write any file's bytes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <runner/errors.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cifar10_dataset.hpp"

namespace cifar10::testing {

constexpr int kRecordsPerTrainFile = 2;
constexpr int kTrainFiles = 5;
constexpr int kTrainImages = kRecordsPerTrainFile * kTrainFiles;
constexpr int kTestImages = 3;

inline const char* const kTestFile = "test_batch.bin";

inline std::string train_file(int number) {  // number: 1..5
  return "data_batch_" + std::to_string(number) + ".bin";
}

// The known value of every pixel; test images follow the training ones.
inline uint8_t pixel(int image, int channel, int row, int col) {
  return static_cast<uint8_t>((image * 37 + channel * 71 + row * 3 + col * 5) % 256);
}
inline uint8_t label(int image) { return static_cast<uint8_t>(image % 10); }

// One record: the label byte, then the red, green and blue planes, each row by row.
inline std::vector<uint8_t> record_bytes(int image) {
  std::vector<uint8_t> bytes{label(image)};
  for (int channel = 0; channel < 3; ++channel)
    for (int row = 0; row < 32; ++row)
      for (int col = 0; col < 32; ++col) bytes.push_back(pixel(image, channel, row, col));
  return bytes;
}

inline std::vector<uint8_t> records_bytes(int first, int count) {
  std::vector<uint8_t> bytes;
  for (int image = first; image < first + count; ++image) {
    std::vector<uint8_t> record = record_bytes(image);
    bytes.insert(bytes.end(), record.begin(), record.end());
  }
  return bytes;
}

inline void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// Runs `action`, expects a runner error of type E and returns it.
template <typename E, typename F>
E expect_error(F&& action) {
  try {
    action();
  } catch (const E& e) {
    return e;
  }
  ADD_FAILURE() << "expected an exception, none was thrown";
  return E("");
}

// A fresh folder per test, removed afterwards.
class CifarFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("runner_cifar10_" + std::string(test->test_suite_name()) + "_" + test->name() + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::filesystem::path path = dir_ / name;
    write_file(path, bytes);
    return path;
  }

  // The six files in `dir_ / subfolder`; images 0..9 in training, 10..12 in test.
  void write_set(const std::string& subfolder = "") {
    std::filesystem::create_directories(dir_ / subfolder);
    for (int number = 1; number <= kTrainFiles; ++number)
      write_file(dir_ / subfolder / train_file(number),
                 records_bytes((number - 1) * kRecordsPerTrainFile, kRecordsPerTrainFile));
    write_file(dir_ / subfolder / kTestFile, records_bytes(kTrainImages, kTestImages));
  }

  Cifar10Options options(bool normalize = false) const {
    Cifar10Options o;
    o.data_dir = dir_;
    o.normalize = normalize;
    return o;
  }

  std::filesystem::path dir_;
};

}  // namespace cifar10::testing
