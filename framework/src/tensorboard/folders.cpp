// The experiment and run folders, path-safe names, and each new event file's unique name.
#include "tensorboard/folders.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>

#include "runner/errors.hpp"

namespace runner::tensorboard {
namespace {

namespace fs = std::filesystem;

constexpr size_t kLongestPart = 120;
constexpr const char* kEventFileMark = "tfevents";

bool kept(unsigned char c) {
  return std::isalnum(c) || c == '.' || c == '_' || c == '=' || c == ',' || c == '+' || c == '-';
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return path_part(name);
}

size_t event_files_in(const std::string& folder) {
  std::error_code error;
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(folder, error))
    if (entry.path().filename().string().find(kEventFileMark) != std::string::npos) ++count;
  return count;
}

}  // namespace

std::string path_part(const std::string& text) {
  std::string part;
  for (unsigned char c : text.substr(0, kLongestPart))
    part.push_back(c == ' ' ? ',' : kept(c) ? static_cast<char>(c) : '_');
  if (part.empty() || part == "." || part == "..") part = "_" + part;
  return part;
}

std::string experiment_folder(const std::string& dir, const std::string& experiment) {
  return (fs::path(dir) / path_part(experiment)).string();
}

std::string run_folder(const std::string& experiment_folder, const std::string& label,
                       const std::string& group) {
  const std::string name = label.empty() ? group : label + "-" + group;
  return (fs::path(experiment_folder) / path_part(name)).string();
}

void create_folder(const std::string& folder) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (!error && fs::is_directory(folder, error)) return;
  throw DataError(
      fmt::format("cannot create the TensorBoard folder {}: {}", folder,
                  error ? error.message() : "a file of that name is in the way"),
      "name a folder that can be written with [experiment] tensorboard or --tensorboard");
}

std::string new_event_file_path(const std::string& folder) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  return (fs::path(folder) / fmt::format("events.out.tfevents.{:010}.{}.{}", seconds, host_name(),
                                         event_files_in(folder)))
      .string();
}

}  // namespace runner::tensorboard
