// The library's entry: one dataset, "cifar10".
#include <runner/plugin.hpp>

#include "cifar10_dataset.hpp"

RUNNER_PLUGIN(plugin) { cifar10::add_cifar10_dataset(plugin); }
