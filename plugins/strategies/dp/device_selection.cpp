// dp's schema, the devices its `devices` key asks for, and the CUDA devices they resolve to.
#include "device_selection.hpp"

#include <numeric>
#include <set>

namespace runner::strategies {
namespace {

std::string key_text(const std::vector<int64_t>& devices) {
  return "strategy.devices = " + value_to_string(Value(devices));
}

void check_in_range(const std::vector<int64_t>& requested, int64_t visible) {
  for (int64_t index : requested) {
    if (index >= 0 && index < visible) continue;
    throw ConfigError(key_text(requested) + ": device " + std::to_string(index) +
                          " is out of range; this machine has CUDA devices 0 to " +
                          std::to_string(visible - 1),
                      "indices count from 0; [] takes every visible device");
  }
}

}  // namespace

Schema dp_schema() {
  Schema schema;
  schema.integers("devices", std::vector<int64_t>{},
                  "CUDA device indices to run on, the first the one train.device names; "
                  "[] takes every visible device",
                  0);
  return schema;
}

std::vector<int64_t> requested_devices(const Options& options) {
  std::vector<int64_t> devices = options.get_ints("devices");
  std::set<int64_t> seen;
  for (int64_t index : devices) {
    if (seen.insert(index).second) continue;
    throw ConfigError(key_text(devices) + ": device " + std::to_string(index) + " appears twice",
                      "list each CUDA device once; one replica per device");
  }
  return devices;
}

std::vector<torch::Device> select_cuda_devices(const std::vector<int64_t>& requested,
                                               int64_t visible, int64_t first) {
  std::vector<int64_t> indices = requested;
  if (indices.empty()) {
    indices.resize(static_cast<size_t>(visible));
    std::iota(indices.begin(), indices.end(), int64_t{0});
  }
  check_in_range(indices, visible);
  if (!indices.empty() && indices.front() != first)
    throw ConfigError(key_text(requested) + " must start with " + std::to_string(first) +
                          ", the device train.device places the model and the batches on",
                      "list " + std::to_string(first) + " first");
  std::vector<torch::Device> devices;
  for (int64_t index : indices)
    devices.emplace_back(torch::kCUDA, static_cast<torch::DeviceIndex>(index));
  return devices;
}

}  // namespace runner::strategies
