// `runner export`: a run's latest complete checkpoint as a torch state dict and safetensors.
#include "cli/export_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "checkpoint/export.hpp"
#include "checkpoint/folders.hpp"
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

// --out without its extension, else the results file's path and the run's group.
std::string stem_of(const ExportOptions& options, const results::RunRecord& run) {
  std::filesystem::path out = options.out;
  if (out.empty())
    return std::filesystem::path(options.file).replace_extension().string() + "-" + run.group;
  if (out.extension() == ".pt" || out.extension() == ".safetensors") out.replace_extension();
  return out.string();
}

}  // namespace

int export_command(const ExportOptions& options) {
  const results::RunRecord run = find_run(options.file, options.run);
  const std::string folder = checkpoint_of(options.file, run);
  const auto files = checkpoint::export_weights(folder, stem_of(options, run));
  std::cout << "weights of run " << run.group << " from " << folder << ":\n  " << files.state_dict
            << "  (torch.load)\n  " << files.safetensors << "  (safetensors)\n";
  return 0;
}

}  // namespace runner::cli
