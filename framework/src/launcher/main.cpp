// runner: checks what would end the host before its main could say why (a thread count or
// OpenMP variable its libraries refuse, an address-space limit too small to load them), then
// becomes the host program, libexec/runner/runner under the same prefix.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <system_error>

#include "launcher/host_program.hpp"
#include "launcher/start_checks.hpp"

namespace {

int refuse(const runner::launcher::StartProblem& problem) {
  std::cerr << "runner: error: " << problem.message << '\n';
  if (!problem.hint.empty()) std::cerr << "  hint: " << problem.hint << '\n';
  return problem.exit_code;
}

}  // namespace

int main(int /*argc*/, char** argv) {
  const std::string host = runner::launcher::host_program(runner::launcher::this_program());
  try {
    if (const auto problem = runner::launcher::start_problem(host)) return refuse(*problem);
  } catch (const std::system_error& e) {
    return refuse({std::string("cannot check runner's start: ") + e.what(),
                   "the machine refused a process; see ulimit -u", 5});
  }
  execv(host.c_str(), argv);
  return refuse({"cannot start " + host + ": " + std::strerror(errno),
                 "reinstall runner: bin/runner starts libexec/runner/runner", 5});
}
