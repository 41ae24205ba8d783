// write_report_page: the page's path checked before anything is read, the page written whole.
#include "report/html/report_page.hpp"

#include <filesystem>
#include <fstream>

#include "common/output_path.hpp"
#include "common/utc_now.hpp"
#include "report/html/html_page.hpp"
#include "report/html/page_data.hpp"
#include "results/read_runs.hpp"
#include "results/writer_lock.hpp"

namespace runner::report::html {

namespace {

// The generator line sits in the template's <head>, before the style sheets.
constexpr size_t kGeneratorSearchBytes = 4096;

PageSource source_of(const std::string& results_path) {
  return {std::filesystem::path(results_path).filename().string(), utc_now(),
          results::being_written(results_path)};
}

}  // namespace

std::string page_path(const std::string& results_path, const std::string& out) {
  if (!out.empty()) return out;
  return std::filesystem::path(results_path).replace_extension(".html").string();
}

bool holds_report_page(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string start(kGeneratorSearchBytes, '\0');
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  start.resize(static_cast<size_t>(in.gcount()));
  return start.find("<meta name=\"generator\" content=\"runner") != std::string::npos;
}

std::string check_page_target(const PageTarget& target) {
  const std::string path = page_path(target.results_path, target.out);
  const bool run = !target.experiment_file.empty();
  std::vector<NamedInput> inputs{{target.results_path, run ? "the results file this run writes"
                                                           : "the results file this report reads"}};
  if (run) inputs.push_back({target.experiment_file, "the experiment file this run reads"});
  check_output_file({"--html", path, inputs, target.force, holds_report_page, !run});
  return path;
}

WrittenPage write_report_page(const PageTarget& target) {
  const std::string path = check_page_target(target);
  const std::vector<results::RunRecord> runs = results::read_runs(target.results_path);
  write_file_whole(path, html_page(page_data(runs, source_of(target.results_path))));
  return {path, runs.size()};
}

}  // namespace runner::report::html
