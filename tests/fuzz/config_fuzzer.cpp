// libFuzzer target: an experiment file through parsing, --set overrides, validation and sweep
// expansion. The input is the TOML text, then optionally a line "%%" and one override
// ("dotted.key=value") per line. A runner::Error is the expected answer to bad input; anything
// else escaping (another exception, a crash, a leak, undefined behaviour) is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "config/load_experiment.hpp"
#include "fake_schemas.hpp"
#include "runner/errors.hpp"

namespace {

struct Input {
  std::string text;
  std::vector<std::string> overrides;
};

Input split(const uint8_t* data, size_t size) {
  const std::string all(reinterpret_cast<const char*>(data), size);
  const auto marker = all.find("\n%%\n");
  Input input{all.substr(0, marker), {}};
  if (marker == std::string::npos) return input;
  std::istringstream lines(all.substr(marker + 4));
  for (std::string line; std::getline(lines, line);) input.overrides.push_back(line);
  return input;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const runner::config::test::FakeSchemas schemas;
  const Input input = split(data, size);
  try {
    runner::config::parse_experiment(input.text, "fuzz.toml", input.overrides, schemas);
  } catch (const runner::Error&) {
  }
  return 0;
}
