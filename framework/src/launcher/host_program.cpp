// Where the host program lies, from the launcher's own path.
#include "launcher/host_program.hpp"

#include <filesystem>

namespace fs = std::filesystem;

namespace runner::launcher {

std::string this_program() {
  std::error_code error;
  return fs::read_symlink("/proc/self/exe", error).string();
}

std::string host_program(const std::string& launcher) {
  const fs::path prefix = fs::path(launcher).parent_path().parent_path();
  return (prefix / "libexec" / "runner" / "runner").lexically_normal().string();
}

}  // namespace runner::launcher
