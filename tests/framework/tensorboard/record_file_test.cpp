// TFRecord framing: CRC-32C against its check value, the mask against its formula, the
// layout of a record, and a file that cannot be written.
#include "tensorboard/record_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "event_reading.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::tensorboard {
namespace {

using namespace std::string_literals;
using runner::testing::message_of;

// The published check value of CRC-32C: the CRC of the nine digits.
TEST(Crc32c, IsTheCastagnoliCrc) {
  const std::string digits = "123456789";
  EXPECT_EQ(crc32c(digits.data(), digits.size()), 0xE3069283u);
  EXPECT_EQ(crc32c("", 0), 0u);
}

TEST(Crc32c, MaskedIsRotatedRightBy15PlusTheDelta) {
  for (const std::string& data :
       std::vector<std::string>{"", "123456789", "an event", std::string(1000, '\x7f')}) {
    const uint32_t crc = crc32c(data.data(), data.size());
    const uint32_t rotated = (crc >> 15) | static_cast<uint32_t>(crc << 17);
    EXPECT_EQ(masked_crc32c(data.data(), data.size()), static_cast<uint32_t>(rotated + 0xa282ead8u))
        << data;
  }
}

uint32_t le32(const std::string& bytes, size_t at) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)]);
  return value;
}

TEST(Record, IsLengthItsCrcDataAndItsCrc) {
  const std::string data = "seven\0b"s;
  const std::string record = frame_record(data);
  ASSERT_EQ(record.size(), 8 + 4 + data.size() + 4);
  EXPECT_EQ(record.substr(0, 8), std::string("\x07\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(le32(record, 8), masked_crc32c(record.data(), 8));
  EXPECT_EQ(record.substr(12, data.size()), data);
  EXPECT_EQ(le32(record, 12 + data.size()), masked_crc32c(data.data(), data.size()));
}

TEST(RecordFile, HoldsItsRecordsOneAfterAnother) {
  const std::string path = testing::scratch_folder("records") + "/events";
  {
    RecordFile file(path);
    file.write("first");
    file.write(std::string(300, 'x'));
    file.flush();
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  EXPECT_EQ(bytes.str(), frame_record("first") + frame_record(std::string(300, 'x')));
}

TEST(RecordFile, ThatCannotBeCreatedIsADataErrorNamingIt) {
  const std::string path = testing::scratch_folder("missing") + "/no/such/folder/events";
  const std::string message = message_of<DataError>([&] { RecordFile file(path); });
  EXPECT_THAT(message, HasSubstr(path)) << message;
  EXPECT_THAT(message, Not(HasSubstr("\n"))) << message;
}

// /dev/full takes every open and fails every write with ENOSPC.
TEST(RecordFile, OnAFullDiskSaysSoNamingIt) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  const std::string message = message_of<DataError>([] {
    RecordFile file("/dev/full");
    file.write(std::string(1 << 16, 'x'));
    file.flush();
  });
  EXPECT_EQ(message, "no space left on /dev/full");
}

}  // namespace
}  // namespace runner::tensorboard
