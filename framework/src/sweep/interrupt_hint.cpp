// The hint after an interrupt: the stopped run's last checkpoint and the `--resume` command.
#include "sweep/interrupt_hint.hpp"

#include <fmt/format.h>

#include "checkpoint/resume_choice.hpp"

namespace runner::sweep {
namespace {

std::string quoted(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-+=./,:@%") == std::string::npos)
    return word;
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string resume_command(const std::vector<std::string>& argv) {
  std::string command;
  for (const auto& word : argv) command += quoted(word) + " ";
  return command + "--resume";
}

std::string interrupt_hint(const std::string& run_id, const std::string& run_folder,
                           const std::string& command, size_t completed) {
  if (const auto last = checkpoint::latest_to_go_on_from(run_folder))
    return fmt::format("run {} goes on from its last checkpoint, {}, with: {}", run_id, *last,
                       command);
  const std::string kept = completed == 0
                               ? ""
                               : fmt::format("; {} keeps the {} run{} completed before it", command,
                                             completed, completed == 1 ? "" : "s");
  return fmt::format(
      "run {} saved no checkpoint to go on from: it starts over when run again "
      "([checkpoint] every_epochs or every_steps saves them){}",
      run_id, kept);
}

std::string between_runs_hint(const std::string& command, size_t completed) {
  return fmt::format("{} keeps the {} run{} completed and runs the rest", command, completed,
                     completed == 1 ? "" : "s");
}

}  // namespace runner::sweep
