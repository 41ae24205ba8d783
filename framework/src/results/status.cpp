// A run's status as the name the results file stores (running, completed, ...), and back.
#include "results/status.hpp"

#include "runner/errors.hpp"

namespace runner::results {

const char* status_name(Status status) {
  switch (status) {
    case Status::running: return "running";
    case Status::completed: return "completed";
    case Status::failed: return "failed";
    case Status::skipped: return "skipped";
  }
  return "unknown";
}

Status status_from_name(const std::string& name) {
  for (Status status : {Status::running, Status::completed, Status::failed, Status::skipped})
    if (name == status_name(status)) return status;
  throw DataError("unknown run status '" + name + "'");
}

}  // namespace runner::results
