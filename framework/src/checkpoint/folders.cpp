// Listing a run's step folders, which are complete, the latest one, and pruning the rest.
#include "checkpoint/folders.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "checkpoint/manifest.hpp"
#include "runner/errors.hpp"

namespace runner::checkpoint {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPrefix = "step-";

// The step folders of the run, by global step.
std::vector<fs::path> step_paths(const std::string& run_folder) {
  std::vector<fs::path> folders;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(run_folder, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.rfind(kPrefix, 0) == 0 && name.find('.') == std::string::npos)
      folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

bool is_complete(const fs::path& folder) {
  try {
    const Manifest manifest = read_manifest((folder / kManifestFile).string());
    for (const auto& shard : manifest.shards) {
      std::error_code error;
      if (fs::file_size(folder / shard.file, error) != shard.digest.bytes || error) return false;
    }
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

std::vector<std::string> step_folders(const std::string& run_folder) {
  std::vector<std::string> folders;
  for (const auto& folder : step_paths(run_folder)) folders.push_back(folder.string());
  return folders;
}

std::string checkpoint_folder(const std::string& run_folder, int64_t global_step) {
  return (fs::path(run_folder) / fmt::format("{}{:09d}", kPrefix, global_step)).string();
}

std::string shard_file(int rank) { return fmt::format("rank-{}.safetensors", rank); }

std::vector<std::string> complete_checkpoints(const std::string& run_folder) {
  std::vector<std::string> complete;
  for (const auto& folder : step_paths(run_folder))
    if (is_complete(folder)) complete.push_back(folder.string());
  return complete;
}

std::optional<std::string> latest_complete(const std::string& run_folder) {
  const auto complete = complete_checkpoints(run_folder);
  if (complete.empty()) return std::nullopt;
  return complete.back();
}

void remove_after(const std::string& run_folder, int64_t global_step) {
  const std::string last_kept = checkpoint_folder(run_folder, global_step);
  std::error_code ignored;
  for (const auto& folder : step_paths(run_folder))
    if (folder.string() > last_kept) fs::remove_all(folder, ignored);
}

void prune(const std::string& run_folder, int64_t keep) {
  const auto complete = complete_checkpoints(run_folder);
  if (complete.empty()) return;
  const auto kept_from = complete.size() > static_cast<size_t>(keep)
                             ? complete[complete.size() - static_cast<size_t>(keep)]
                             : complete.front();
  std::error_code ignored;
  for (const auto& folder : step_paths(run_folder)) {
    const bool older_than_kept = folder.string() < kept_from;
    const bool cut_short = folder.string() < complete.back() && !is_complete(folder);
    if (older_than_kept || cut_short) fs::remove_all(folder, ignored);
  }
}

std::chrono::system_clock::time_point committed_at(const std::string& checkpoint) {
  struct stat manifest {};
  const std::string path = checkpoint + "/" + kManifestFile;
  if (checkpoint.empty() || ::stat(path.c_str(), &manifest) != 0) return {};
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(manifest.st_mtim.tv_sec) +
          std::chrono::nanoseconds(manifest.st_mtim.tv_nsec)));
}

}  // namespace runner::checkpoint
