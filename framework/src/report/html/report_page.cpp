// write_report_page: the page's path checked before anything is read, the page written whole.
#include "report/html/report_page.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "common/output_path.hpp"
#include "report/html/html_page.hpp"
#include "report/html/page_data.hpp"
#include "results/read_runs.hpp"
#include "results/writer_lock.hpp"

namespace runner::report::html {

namespace {

// The generator line sits in the template's <head>, before the style sheets.
constexpr size_t kGeneratorSearchBytes = 4096;

std::string utc_now_text() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[sizeof "2024-01-31T23:59:59Z"];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

PageSource source_of(const std::string& results_path) {
  return {std::filesystem::path(results_path).filename().string(), utc_now_text(),
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

WrittenPage write_report_page(const std::string& results_path, const std::string& out, bool force) {
  const std::string path = page_path(results_path, out);
  check_output_file({"--html",
                     path,
                     {{results_path, "the results file this report reads"}},
                     force,
                     holds_report_page});
  const std::vector<results::RunRecord> runs = results::read_runs(results_path);
  write_file_whole(path, html_page(page_data(runs, source_of(results_path))));
  return {path, runs.size()};
}

}  // namespace runner::report::html
