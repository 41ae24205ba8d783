// `runner export`: a run's latest complete checkpoint as a torch state dict and safetensors.
#include "cli/export_command.hpp"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "checkpoint/export.hpp"
#include "checkpoint/folders.hpp"
#include "common/output_path.hpp"
#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "runner/errors.hpp"

namespace runner::cli {
namespace {

// The run named by its group, else the last run of that id or label.
results::RunRecord find_run(const std::string& file, const std::string& name) {
  const auto runs = results::read_runs(file);
  std::optional<results::RunRecord> found;
  for (const auto& run : runs)
    if (run.group == name) return run;
  for (const auto& run : runs)
    if (run.header.run_id == name || (!run.header.label.empty() && run.header.label == name))
      found = run;
  if (found) return *found;
  std::string groups;
  for (size_t i = 0; i < runs.size() && i < 5; ++i) groups += (i ? ", " : "") + runs[i].group;
  throw DataError(fmt::format("{} has no run named '{}'", file, name),
                  runs.empty() ? "the file holds no runs"
                               : "name a run by its group, id or label: " + groups +
                                     (runs.size() > 5 ? ", ..." : ""));
}

std::string checkpoint_of(const std::string& file, const results::RunRecord& run) {
  if (run.checkpoints.empty())
    throw DataError(fmt::format("run {} of {} saved no checkpoints", run.group, file),
                    "a run keeps its weights when it completes (unless [checkpoint] "
                    "final_weights = false), and checkpoints on the way with [checkpoint] "
                    "every_epochs or every_steps");
  const auto latest = checkpoint::latest_complete(run.checkpoints);
  if (!latest)
    throw DataError(fmt::format("run {} of {} has no complete checkpoint in {}", run.group, file,
                                run.checkpoints));
  return *latest;
}

// --out without its extension, else the results file's path and the run's group. A folder is
// no stem: its files would be hidden ones named ".pt" in it.
std::string stem_of(const ExportOptions& options, const results::RunRecord& run) {
  std::filesystem::path out = options.out;
  std::error_code error;
  if (!out.empty() && (!out.has_filename() || std::filesystem::is_directory(out, error)))
    throw ConfigError("--out " + options.out +
                          ": is a folder, not the files' path without "
                          "their extension",
                      "name the files in it: --out " + (out / "weights").string());
  if (out.empty())
    return std::filesystem::path(options.file).replace_extension().string() + "-" + run.group;
  if (out.extension() == ".pt" || out.extension() == ".safetensors") out.replace_extension();
  return out.string();
}

bool starts_with_bytes(const std::string& path, const char* bytes, size_t size) {
  std::string start(size, '\0');
  std::ifstream in(path, std::ios::binary);
  return in.read(start.data(), static_cast<std::streamsize>(size)) &&
         std::memcmp(start.data(), bytes, size) == 0;
}

// A state dict as torch.save and LibTorch's pickle_save write it: a zip archive.
bool holds_state_dict(const std::string& path) { return starts_with_bytes(path, "PK\x03\x04", 4); }

// A safetensors file: a little-endian header length, then the header's JSON object.
bool holds_safetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char length[8] = {};
  char brace = 0;
  if (!in.read(reinterpret_cast<char*>(length), 8) || !in.get(brace) || brace != '{') return false;
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | length[i];
  std::error_code error;
  return header + 8 <= std::filesystem::file_size(path, error) && !error;
}

void check_exported_files(const ExportOptions& options, const std::string& stem,
                          const std::string& folder) {
  const std::vector<NamedInput> inputs = {{options.file, "the results file this export reads"},
                                          {folder, "the checkpoint this export reads"}};
  // Without --out the files go beside the results file, and the refusal says so.
  const std::string option = options.out.empty() ? "the exported file" : "--out";
  check_output_file({option, stem + ".pt", inputs, options.force, holds_state_dict});
  check_output_file({option, stem + ".safetensors", inputs, options.force, holds_safetensors});
}

}  // namespace

int export_command(const ExportOptions& options) {
  const results::RunRecord run = find_run(options.file, options.run);
  const std::string folder = checkpoint_of(options.file, run);
  const std::string stem = stem_of(options, run);
  check_exported_files(options, stem, folder);
  const auto files = checkpoint::export_weights(folder, stem);
  std::cout << "weights of run " << run.group << " from " << folder << ":\n  " << files.state_dict
            << "  (torch.load)\n  " << files.safetensors << "  (safetensors)\n";
  return 0;
}

}  // namespace runner::cli
