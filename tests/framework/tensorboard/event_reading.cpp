// Reads event files back for the tests: each record's framing checked and its Event parsed.
#include "event_reading.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tensorboard/record_file.hpp"

namespace runner::tensorboard::testing {
namespace {

namespace fs = std::filesystem;

uint64_t little_endian(const std::string& bytes, size_t at, int size) {
  uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)]);
  return value;
}

}  // namespace

std::vector<proto::Event> read_events(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string bytes = text.str();
  std::vector<proto::Event> events;
  size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < 12) {
      ADD_FAILURE() << path << ": a record header cut at byte " << at;
      break;
    }
    const uint64_t length = little_endian(bytes, at, 8);
    EXPECT_EQ(little_endian(bytes, at + 8, 4), masked_crc32c(bytes.data() + at, 8))
        << path << ": length CRC at byte " << at;
    if (bytes.size() - at - 12 < length + 4) {
      ADD_FAILURE() << path << ": a record cut at byte " << at;
      break;
    }
    const std::string data = bytes.substr(at + 12, length);
    EXPECT_EQ(little_endian(bytes, at + 12 + length, 4), masked_crc32c(data.data(), data.size()))
        << path << ": data CRC at byte " << at;
    events.emplace_back();
    EXPECT_TRUE(events.back().ParseFromString(data)) << path << ": record at byte " << at;
    at += 16 + length;
  }
  return events;
}

std::vector<std::string> event_files(const std::string& folder) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().find("tfevents") != std::string::npos)
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string scratch_folder(const std::string& name) {
  const fs::path folder = fs::temp_directory_path() / ("runner-tensorboard-test-" + name);
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder.string();
}

}  // namespace runner::tensorboard::testing
