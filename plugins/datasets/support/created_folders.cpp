// CreatedFolders: which folders of a path are new, created, and removed when left empty.
#include <runner/datasets/created_folders.hpp>

#include <runner/errors.hpp>

#include <system_error>

namespace runner::datasets {
namespace {

bool path_exists(const std::filesystem::path& path) {
  std::error_code ignored;
  return std::filesystem::exists(path, ignored);
}

}  // namespace

CreatedFolders::CreatedFolders(const std::filesystem::path& dir) {
  for (std::filesystem::path at = dir; !at.empty() && !path_exists(at); at = at.parent_path()) {
    created_.push_back(at);
    if (at == at.parent_path()) break;
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    remove_empty();
    throw runner::DataError(dir.string() + ": cannot create the folder: " + error.message(),
                            "data_dir must be a folder you can create and write to");
  }
}

CreatedFolders::~CreatedFolders() { remove_empty(); }

void CreatedFolders::remove_empty() const {
  std::error_code ignored;
  for (const std::filesystem::path& folder : created_)
    if (std::filesystem::is_empty(folder, ignored)) std::filesystem::remove(folder, ignored);
}

}  // namespace runner::datasets
