// The library's entry: the model "gpt2" and its tensor parallelism.
#include <runner/plugin.hpp>

#include "gpt2.hpp"
#include "gpt2_parallelize.hpp"

RUNNER_PLUGIN(plugin) {
  gpt2::add_gpt2_model(plugin);
  gpt2::add_gpt2_tensor_parallel(plugin);
}
