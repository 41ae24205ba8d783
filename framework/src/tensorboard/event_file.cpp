#include "tensorboard/event_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "runner/errors.hpp"
#include "tensorboard/events.hpp"

namespace runner::tensorboard {

EventFile::EventFile(const std::string& path) : records_(path) {
  write(file_version_event(wall_time_now()));
}

void EventFile::write(const proto::Event& event) { records_.write(event.SerializeAsString()); }

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
