// The layouts of the epoch and step records: each field's dataset name and member.
#include "results/record_layout.hpp"

namespace runner::results {

const RecordLayout<EpochRecord>& epoch_layout() {
  static const RecordLayout<EpochRecord> layout{
      "epoch",
      &EpochRecord::epoch,
      {{"train_loss", &EpochRecord::train_loss},
       {"train_accuracy", &EpochRecord::train_accuracy},
       {"test_loss", &EpochRecord::test_loss},
       {"test_accuracy", &EpochRecord::test_accuracy},
       {"duration_s", &EpochRecord::duration_s},
       {"data_wait_s", &EpochRecord::data_wait_s},
       {"compute_s", &EpochRecord::compute_s},
       {"samples_per_s", &EpochRecord::samples_per_s},
       {"peak_memory_bytes", &EpochRecord::peak_memory_bytes},
       {"learning_rate", &EpochRecord::learning_rate}},
      {{"forward_s", &EpochRecord::forward_s},
       {"backward_s", &EpochRecord::backward_s},
       {"optimizer_s", &EpochRecord::optimizer_s},
       {"activation_memory_bytes", &EpochRecord::activation_memory_bytes},
       {"skipped_steps", &EpochRecord::skipped_steps},
       {"loss_scale", &EpochRecord::loss_scale},
       {"bubble_fraction", &EpochRecord::bubble_fraction},
       {"communication_s", &EpochRecord::communication_s},
       {"gpu_utilization", &EpochRecord::gpu_utilization},
       {"gpu_memory_used_bytes", &EpochRecord::gpu_memory_used_bytes},
       {"communication_max_s", &EpochRecord::communication_max_s},
       {"communication_min_s", &EpochRecord::communication_min_s},
       {"slowest_rank", &EpochRecord::slowest_rank}}};
  return layout;
}

const RecordLayout<StepRecord>& step_layout() {
  static const RecordLayout<StepRecord> layout{"step",
                                               &StepRecord::step,
                                               {{"loss", &StepRecord::loss},
                                                {"learning_rate", &StepRecord::learning_rate},
                                                {"duration_s", &StepRecord::duration_s}}};
  return layout;
}

}  // namespace runner::results
