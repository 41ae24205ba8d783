// The keys the host owns, for `runner describe` and validation.
#pragma once

#include "runner/options.hpp"

namespace runner::config {

const Schema& experiment_schema();
const Schema& train_schema();
const Schema& optimizer_schema();
const Schema& schedule_schema();
const Schema& checkpoint_schema();
// [fault]: a fault injected at a rank and step, for studies of fault tolerance and for tests.
const Schema& fault_schema();
// [sweep]'s own keys (mode, max_points); its other keys are the swept ones.
const Schema& sweep_schema();

}  // namespace runner::config
