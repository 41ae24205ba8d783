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

// Where a page goes and what it must never be written over.
struct PageTarget {
  std::string results_path;
  std::string out;  // --html's value: "" for beside the results file (page_path())
  bool force = false;
  std::string experiment_file;  // a run's experiment file; "" for `runner report`, which
                                // reads the results file and takes --force
};

// Refuses (ConfigError naming --html and the path) a page path that is the results file or the
// experiment file (also through a link, and even with `force`), a folder, a FIFO, a device, a
// link to nothing, or a file of another kind unless `force`. Returns the page's path.
std::string check_page_target(const PageTarget& target);

// check_page_target, then reads the runs and writes the page through a temporary file renamed
// over the path. A file without runs gives a page that says so.
WrittenPage write_report_page(const PageTarget& target);

}  // namespace runner::report::html
