// Event files written record by record, read back up to a damaged record, and replaced whole.
#include "tensorboard/event_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runner/errors.hpp"
#include "tensorboard/events.hpp"

namespace runner::tensorboard {
namespace {

namespace fs = std::filesystem;

uint64_t little_endian(const std::string& bytes, size_t at, size_t size) {
  uint64_t value = 0;
  for (size_t i = size; i-- > 0;) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The events of `bytes` up to the first record that is cut or fails its CRCs.
std::vector<proto::Event> intact_events(const std::string& bytes) {
  std::vector<proto::Event> events;
  size_t at = 0;
  while (bytes.size() - at >= 16) {
    const uint64_t length = little_endian(bytes, at, 8);
    if (little_endian(bytes, at + 8, 4) != masked_crc32c(bytes.data() + at, 8)) break;
    if (bytes.size() - at - 16 < length) break;
    const char* data = bytes.data() + at + 12;
    if (little_endian(bytes, at + 12 + length, 4) != masked_crc32c(data, length)) break;
    if (!events.emplace_back().ParseFromArray(data, static_cast<int>(length))) break;
    at += 16 + length;
  }
  return events;
}

}  // namespace

EventFile::EventFile(const std::string& path) : records_(path) {
  write(file_version_event(wall_time_now()));
}

void EventFile::write(const proto::Event& event) { records_.write(event.SerializeAsString()); }

int64_t last_scalar_step(const std::string& folder) {
  int64_t last = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.path().filename().string().find("tfevents") == std::string::npos) continue;
    for (const auto& event : intact_events(file_bytes(entry.path())))
      for (const auto& value : event.summary().value())
        if (value.value_case() == proto::Summary::Value::kSimpleValue)
          last = std::max(last, event.step());
  }
  return last;
}

void replace_event_file(const std::string& path, const std::vector<proto::Event>& events) {
  // No "tfevents" in the name: TensorBoard reads no half-written file.
  const std::string partial =
      (std::filesystem::path(path).parent_path() / ".being-written").string();
  {
    EventFile file(partial);
    for (const auto& event : events) file.write(event);
    file.flush();
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0)
    throw DataError("cannot write TensorBoard event file " + path + ": " + std::strerror(errno));
}

}  // namespace runner::tensorboard
