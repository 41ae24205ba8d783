// libFuzzer target: one split of an MNIST-format set as the plugin reads it. The input's first
// two bytes (little-endian) say how many of the rest form the images file; the others form the
// labels file. Either may be plain IDX or gzip. A runner::DataError naming the file is the
// expected answer to a bad file; anything else escaping is a finding.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "runner/errors.hpp"
#include "split_bytes.hpp"

namespace {

std::string write_file(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = "/tmp/runner-fuzz-" + std::to_string(getpid()) + "-" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t images_size = std::min<size_t>(data[0] | data[1] << 8, size - 2);
  mnist::SplitFiles files{write_file("images", data + 2, images_size),
                          write_file("labels", data + 2 + images_size, size - 2 - images_size)};
  try {
    mnist::read_split(files);
  } catch (const runner::Error&) {
  }
  return 0;
}
