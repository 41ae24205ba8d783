// A folder made for a download, and the parents it lacked, taken away again when the download
// left nothing in them: a failed download leaves no empty folders behind.
#pragma once

#include <filesystem>
#include <vector>

namespace runner::datasets {

class CreatedFolders {
 public:
  // Creates `dir` and the parents it lacks. Throws a runner::DataError naming `dir` when it
  // cannot be created, having removed what it made of it.
  explicit CreatedFolders(const std::filesystem::path& dir);
  // Removes those of the folders it created that are still empty, innermost first.
  ~CreatedFolders();
  CreatedFolders(const CreatedFolders&) = delete;
  CreatedFolders& operator=(const CreatedFolders&) = delete;

 private:
  void remove_empty() const;

  std::vector<std::filesystem::path> created_;  // innermost first
};

}  // namespace runner::datasets
