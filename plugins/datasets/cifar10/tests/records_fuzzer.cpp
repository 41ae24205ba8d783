// libFuzzer target: one CIFAR-10 binary file as the plugin reads it. A runner::DataError naming
// the file is the expected answer to a bad file; anything else escaping is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "records.hpp"
#include "runner/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/runner-fuzz-cifar-" + std::to_string(getpid()) + ".bin";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    cifar10::read_records(path);
  } catch (const runner::Error&) {
  }
  return 0;
}
