// What would end the host before its main could say why, found before it starts.
#include "launcher/start_checks.hpp"

#include <sys/resource.h>

#include <csignal>
#include <cstring>
#include <sstream>

#include "machine/thread_variables.hpp"

extern char** environ;

namespace runner::launcher {
namespace {

const std::string kLoaderFailure = "error while loading shared libraries: ";
const std::string kOpenMpRefusal = "libgomp: Invalid value for environment variable ";

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The rest of the first line of `text` after `marker`; nullopt where `marker` is not there.
std::optional<std::string> after(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const size_t from = at + marker.size();
  return text.substr(from, text.find('\n', from) - from);
}

std::string first_line(const std::string& text) {
  const size_t begin = text.find_first_not_of('\n');
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find('\n', begin) - begin);
}

std::string value_of(const std::vector<std::string>& environment, const std::string& name) {
  for (const std::string& entry : environment)
    if (starts_with(entry, name + "=")) return entry.substr(name.size() + 1);
  return "";
}

std::string limit_text(uint64_t bytes) {
  return "ulimit -v " + std::to_string(bytes / 1024) + " KiB";
}

StartProblem loader_problem(const std::string& failure, std::optional<uint64_t> address_limit) {
  if (address_limit)
    return {"the address-space limit (" + limit_text(*address_limit) +
                ") is too small to load runner's libraries: " + failure,
            "raise it or lift it (ulimit -v unlimited): LibTorch maps its libraries before a run "
            "allocates anything",
            5};
  return {"runner's libraries do not load: " + failure,
          "reinstall runner, or the LibTorch it was built against", 5};
}

StartProblem signal_problem(int signal, std::optional<uint64_t> address_limit) {
  const char* name = strsignal(signal);
  std::string message = "runner's program ended by signal " + std::to_string(signal) + " (" +
                        (name ? name : "unknown") + ") before it started";
  if (address_limit) message += ", under " + limit_text(*address_limit);
  return {message, "raise or lift the limits runner starts under (ulimit -a shows them)", 5};
}

}  // namespace

std::optional<uint64_t> address_space_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<uint64_t>(limit.rlim_cur);
}

bool needs_trial_start(const std::vector<std::string>& environment,
                       std::optional<uint64_t> address_limit) {
  if (address_limit) return true;
  for (const std::string& entry : environment)
    if (starts_with(entry, "OMP_") || starts_with(entry, "GOMP_")) return true;
  return false;
}

std::optional<StartProblem> trial_problem(const TrialStart& trial,
                                          const std::vector<std::string>& environment,
                                          std::optional<uint64_t> address_limit) {
  if (const auto failure = after(trial.errors, kLoaderFailure))
    return loader_problem(*failure, address_limit);
  if (const auto refused = after(trial.errors, kOpenMpRefusal)) {
    // GCC 12's libgomp names the variable; GCC 14's adds ": VALUE".
    const std::string name = refused->substr(0, refused->find_first_of(": "));
    return StartProblem{
        name + "=" + value_of(environment, name) + ": OpenMP (libgomp) does not take this value",
        "unset it, or give it a value the OpenMP specification allows", 2};
  }
  if (trial.signal != 0) return signal_problem(trial.signal, address_limit);
  if (trial.exit_code == 127)
    return StartProblem{first_line(trial.errors),
                        "reinstall runner: bin/runner starts libexec/runner/runner", 5};
  return std::nullopt;
}

std::optional<StartProblem> start_problem(const std::string& host) {
  if (const auto problem = machine::thread_variable_problem())
    return StartProblem{*problem, machine::kThreadVariableHint, 2};
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
  const std::optional<uint64_t> address_limit = address_space_limit();
  if (!needs_trial_start(environment, address_limit)) return std::nullopt;
  return trial_problem(start_once(host), environment, address_limit);
}

}  // namespace runner::launcher
