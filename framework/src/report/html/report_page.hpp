// `runner report FILE --html [OUT]`: where the page goes, what may be written over, and the
// writing itself, whole or not at all.
#pragma once

#include <cstddef>
#include <string>

namespace runner::report::html {

// OUT when given, else beside the results file with .html for its extension (r.h5 -> r.html).
std::string page_path(const std::string& results_path, const std::string& out);

// Whether the file is a page this command wrote: a `<meta name="generator" content="runner`
// in its first kilobytes. Such a file is replaced without --force.
bool holds_report_page(const std::string& path);

struct WrittenPage {
  std::string path;
  size_t runs = 0;
};

// Refuses (ConfigError naming --html and the path) a page path that is the results file (also
// through a link), a folder, a FIFO, a device, a link to nothing, or a file of another kind
// unless `force`; then reads the runs and writes the page through a temporary file renamed over
// the path. A file without runs gives a page that says so.
WrittenPage write_report_page(const std::string& results_path, const std::string& out, bool force);

}  // namespace runner::report::html
