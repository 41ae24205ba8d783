// Registers strategy `dp`.
#include "device_selection.hpp"
#include "dp_strategy.hpp"

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy("dp", "1.0.0",
                      "one process over several CUDA devices, as nn.DataParallel: the batch "
                      "split across replicas, gradients summed on the first device",
                      runner::strategies::dp_schema(), runner::strategies::make_dp_strategy);
}
