// One event file: TFRecords of serialized Events, the first one the file version.
#pragma once

#include <cstdint>
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

// The largest step of a scalar in the event files of `folder`; 0 when there is none. Each
// file is read up to its first record that is cut or damaged (a writer killed mid-write).
int64_t last_scalar_step(const std::string& folder);

// `path` becomes a file of the file version and `events`, written beside it and renamed over
// it: a reader finds the earlier file or the new one, whole. Throws DataError naming it.
void replace_event_file(const std::string& path, const std::vector<proto::Event>& events);

}  // namespace runner::tensorboard
