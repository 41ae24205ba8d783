// A run's status in the results file, and its name there.
#pragma once

#include <string>

namespace runner::results {

enum class Status { running, completed, failed, skipped };
const char* status_name(Status status);
Status status_from_name(const std::string& name);  // throws DataError on an unknown name

}  // namespace runner::results
