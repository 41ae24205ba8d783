// A whole file's bytes, for tests that compare what was written with what was meant.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace runner::testing {

// Empty when the file cannot be opened.
inline std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace runner::testing
