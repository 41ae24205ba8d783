// Reads an event file back for the tests: each record's framing checked, its Event parsed.
#pragma once

#include <string>
#include <vector>

#include "tensorboard/proto/event.pb.h"

namespace runner::tensorboard::testing {

// The events of the file at `path`; a test failure for a record whose length or CRCs are wrong.
std::vector<proto::Event> read_events(const std::string& path);

// The event files of `folder`, by name.
std::vector<std::string> event_files(const std::string& folder);

// A folder of its own under the system's temporary folder, emptied first.
std::string scratch_folder(const std::string& name);

}  // namespace runner::tensorboard::testing
