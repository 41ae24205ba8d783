// read_runs: every run group of a results file, in the order the runs began.
#include "results/read_runs.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/file_format.hpp"
#include "results/groups.hpp"
#include "results/read_in_a_child.hpp"
#include "results/run_group.hpp"
#include "results/writer_lock.hpp"

namespace runner::results {

namespace {

// The run in member `name` of the root, or nullopt when the member is something a user
// added. A member that cannot even be opened is a run whose writer was killed creating it.
std::optional<RunRecord> read_member(hid_t file, const std::string& name) {
  try {
    const detail::Handle member = detail::open_member(file, name);
    if (H5Iget_type(member.get()) != H5I_GROUP || !detail::is_run_group(member.get()))
      return std::nullopt;
    return detail::read_run_group(member.get(), name);
  } catch (const DataError& error) {
    RunRecord run;
    run.group = name;
    run.damage = error.what();
    return run;
  }
}

std::vector<RunRecord> read_runs_here(const std::string& path) {
  const detail::Handle file = detail::open_for_reading(path);
  return detail::with_context(path, [&] {
    std::vector<RunRecord> runs;
    for (const std::string& name : detail::member_names(file.get()))
      if (std::optional<RunRecord> run = read_member(file.get(), name))
        runs.push_back(std::move(*run));
    return runs;
  });
}

}  // namespace

std::vector<RunRecord> read_runs(const std::string& path) {
  detail::read_first_in_a_child(path, [&] { read_runs_here(path); });
  std::vector<RunRecord> runs = read_runs_here(path);
  const bool running = std::any_of(runs.begin(), runs.end(),
                                   [](const RunRecord& r) { return r.status == Status::running; });
  if (running && !being_written(path))
    for (RunRecord& run : runs) run.abandoned = run.status == Status::running;
  return runs;
}

}  // namespace runner::results
