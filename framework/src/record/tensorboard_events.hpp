// TensorBoard event files beside the results file, when [experiment] tensorboard (or
// --tensorboard) names a folder: <folder>/<experiment>/ holds the sweep's hparams experiment,
// and each run writes its own folder there (tensorboard/run_events.hpp).
#pragma once

#include <memory>
#include <string>

#include "config/experiment.hpp"
#include "results/results.hpp"

namespace runner::record {

// The experiment's folder of event files; empty when it writes none.
std::string tensorboard_folder(const config::Experiment& experiment);

// The hparams experiment (the swept keys, their values, the final metrics), replacing the
// one an earlier sweep of this experiment wrote. Throws DataError naming the folder when it
// cannot be written, before any run starts.
void write_tensorboard_experiment(const config::Experiment& experiment);

// `results` with the run's events beside it; nullptr when the experiment writes none.
std::unique_ptr<results::RunWriter> with_tensorboard(const config::Experiment& experiment,
                                                     const config::RunConfig& run,
                                                     results::RunWriter& results);

// The end of a run whose rank 0 could not record it (killed): failed, in the run's folder
// when its rank 0 began one. A folder that cannot take it leaves the results file's status as
// the record.
void end_tensorboard_run(const config::Experiment& experiment, const config::RunConfig& run,
                         const std::string& group, results::Status status);

}  // namespace runner::record
