// Registers strategy `single`.
#include "single_strategy.hpp"

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy("single", "1.0.0", "one process on one device: forward, backward, step",
                      runner::Schema(), [](const runner::Options&) {
                        return std::make_shared<runner::strategies::SingleStrategy>();
                      });
}
