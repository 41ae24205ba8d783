// One event file: TFRecords of serialized Events, the first one the file version.
#pragma once

#include <string>
#include <vector>

#include "tensorboard/proto/event.pb.h"
#include "tensorboard/record_file.hpp"

namespace runner::tensorboard {

class EventFile {
 public:
  // A new file at `path`, holding the file version event.
  explicit EventFile(const std::string& path);
  void write(const proto::Event& event);
  void flush() { records_.flush(); }
  const std::string& path() const { return records_.path(); }

 private:
  RecordFile records_;
};

// `path` becomes a file of the file version and `events`, written beside it and renamed over
// it: a reader finds the earlier file or the new one, whole. Throws DataError naming it.
void replace_event_file(const std::string& path, const std::vector<proto::Event>& events);

}  // namespace runner::tensorboard
