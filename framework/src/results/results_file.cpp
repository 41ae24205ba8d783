// ResultsFile::open and begin_run: a new group per run, never reusing a name.
#include <memory>
#include <string>

#include "results/disk_reserve.hpp"
#include "results/file_format.hpp"
#include "results/groups.hpp"
#include "results/run_group.hpp"
#include "results/run_writer.hpp"
#include "runner/errors.hpp"

namespace runner::results {

namespace {

using detail::Handle;

// A '/' would make the id a path inside the file; "." names the root itself.
std::string base_group_name(const std::string& run_id) {
  if (run_id.empty() || run_id == ".") return "run";
  std::string name = run_id;
  for (char& c : name)
    if (c == '/') c = '_';
  return name;
}

std::string unused_group_name(hid_t file, const std::string& run_id) {
  const std::string base = base_group_name(run_id);
  if (!detail::has_member(file, base)) return base;
  for (int suffix = 2;; ++suffix) {
    std::string candidate = base + "." + std::to_string(suffix);
    if (!detail::has_member(file, candidate)) return candidate;
  }
}

class Hdf5ResultsFile final : public ResultsFile {
 public:
  Hdf5ResultsFile(std::string path, detail::WritableFile file)
      : path_(std::move(path)), file_(std::move(file)) {}

  std::unique_ptr<RunWriter> begin_run(const RunHeader& header) override {
    detail::silence_hdf5_error_printing();
    detail::reserve_disk_space(path_, detail::bytes_for_records(0));
    return detail::with_context(path_, [&] {
      std::string name = unused_group_name(file_.file.get(), header.run_id);
      Handle group = detail::create_group(file_.file.get(), name);
      detail::write_new_run(group.get(), header);
      detail::flush_file(file_.file.get());
      return std::make_unique<detail::Hdf5RunWriter>(path_, std::move(name), file_.lock,
                                                     std::move(group));
    });
  }

  std::unique_ptr<RunWriter> resume_run(const std::string& group_name) override {
    detail::silence_hdf5_error_printing();
    return detail::with_context(path_, [&] {
      Handle group = detail::open_group(file_.file.get(), group_name);
      if (!detail::is_run_group(group.get()))
        throw DataError("group '" + group_name + "' is not a run");
      return std::make_unique<detail::Hdf5RunWriter>(path_, group_name, file_.lock,
                                                     std::move(group));
    });
  }

 private:
  std::string path_;
  detail::WritableFile file_;
};

}  // namespace

std::unique_ptr<ResultsFile> ResultsFile::open(const std::string& path) {
  return std::make_unique<Hdf5ResultsFile>(path, detail::open_for_append(path));
}

}  // namespace runner::results
