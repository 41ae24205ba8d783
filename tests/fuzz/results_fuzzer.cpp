// libFuzzer target: a results file as the runner reads it (`runner report`, --resume). The
// input is written to a file and read back with read_runs. A runner::Error (a DataError naming
// the file) is the expected answer to a damaged file; anything else escaping is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "runner/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/runner-fuzz-results-" + std::to_string(getpid()) + ".h5";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    runner::results::read_runs(path);
  } catch (const runner::Error&) {
  }
  return 0;
}
