// The library's entry: one dataset, "random_tokens".
#include <runner/plugin.hpp>

#include "random_tokens_dataset.hpp"

RUNNER_PLUGIN(plugin) { random_tokens::add_random_tokens_dataset(plugin); }
