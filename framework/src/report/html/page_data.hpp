// The data of `runner report --html`'s page: the runs of a results file as the JSON that the
// page's script reads. Its every key is documented in page_data.md, the contract with report.js.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/results.hpp"

namespace runner::report::html {

inline constexpr int kPageDataVersion = 2;

// Where the runs came from.
struct PageSource {
  std::string file_name;      // the results file's name, without its folder
  std::string written_at;     // when the page is written, ISO 8601 UTC
  bool writer_alive = false;  // a process still writes the results file
};

// The page's JSON: the table of `runner report --csv`, each run with its role, epochs,
// decimated steps and summary, the sweep's points, and `runner plan`'s trials. NaN and
// infinite numbers are null.
nlohmann::json page_data(const std::vector<results::RunRecord>& runs, const PageSource& source);

}  // namespace runner::report::html
