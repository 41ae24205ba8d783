// The library's entry: one dataset, "mnist".
#include <runner/plugin.hpp>

#include "mnist_dataset.hpp"

RUNNER_PLUGIN(plugin) { mnist::add_mnist_dataset(plugin); }
