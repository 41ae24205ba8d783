// The sweep's cache of datasets built for its checks and plans.
#include "plan/dataset_cache.hpp"

namespace runner::plan {
namespace {

std::string dataset_key(const config::RunConfig& run) {
  std::string key = run.dataset.name + "\nseed=" + std::to_string(run.experiment.get_int("seed"));
  for (const auto& [name, value] : run.dataset.options.values())
    key += "\n" + name + "=" + value_to_string(value);
  return key;
}

}  // namespace

Dataset& DatasetCache::get(const config::RunConfig& run) {
  Built& built = built_[dataset_key(run)];
  if (!built.dataset && !built.error) {
    try {
      built.dataset =
          registry_.make_dataset(run.dataset, DatasetContext{run.experiment.get_int("seed")});
    } catch (const Error& e) {
      built.error = Error(e.error_class(), e.what(), e.hint());
    }
  }
  if (built.error) throw *built.error;
  return *built.dataset;
}

}  // namespace runner::plan
