// An epoch's training and test passes over their splits.
#include "train/passes.hpp"

#include <fmt/format.h>

#include <cmath>

#include "interrupt/interrupt.hpp"
#include "train/batch_loader.hpp"
#include "train/sampler.hpp"

namespace runner::train {
namespace {

// Batch `index` of a pass, read, on the device and augmented: what a loader thread makes.
Batch make_batch(const Session& s, Split split, const torch::Tensor& indices, int64_t epoch,
                 int64_t index) {
  Batch batch = in_plugin_code(s, std::string("reading a ") + split_name(split) + " batch",
                               [&] { return s.loading.dataset->get_batch(split, indices); });
  if (s.loading.pin_memory) {
    batch.inputs = batch.inputs.pin_memory();
    batch.targets = batch.targets.pin_memory();
  }
  batch.inputs = batch.inputs.to(s.device, /*non_blocking=*/true);
  batch.targets = batch.targets.to(s.device, /*non_blocking=*/true);
  if (!s.loading.augmentation.empty())
    batch.inputs = s.loading.augmentation.apply(batch.inputs, split, s.seed, epoch, index);
  return batch;
}

// The batches from `first` on, each augmented as the batch of its index in the epoch.
BatchLoader loader_of(const Session& s, Split split, const std::vector<torch::Tensor>& batches,
                      int64_t epoch, int64_t first = 0) {
  return BatchLoader(
      static_cast<int64_t>(batches.size()) - first,
      [&s, split, &batches, epoch, first](int64_t i) {
        return make_batch(s, split, batches[static_cast<size_t>(first + i)], epoch, first + i);
      },
      s.loading.num_workers, s.loading.prefetch);
}

}  // namespace

void check_finite(double loss, const Session& s, int64_t epoch) {
  if (std::isfinite(loss)) return;
  throw RunError(
      fmt::format("loss became {} at step {} (epoch {})", loss, s.progress.global_step, epoch),
      "lower optimizer.lr, or check the data and the model");
}

// The losses of the steps since the last log point, averaged over the reporting ranks there:
// one collective per log point, the same on every rank; a GPU step's loss is read only then,
// so steps do not wait for the device.
class LossLog {
 public:
  explicit LossLog(const Session& s) : s_(s) {}

  // A non-reporting rank's step adds 0 to the sum.
  void add(const torch::Tensor& loss) {
    pending_.push_back(s_.loop.reports ? loss.detach().to(torch::kFloat64).reshape({})
                                       : torch::zeros({}, torch::kFloat64).to(s_.device));
  }

  // The pending steps' mean losses over the reporting ranks, in order.
  std::vector<double> reduce() {
    if (pending_.empty()) return {};
    torch::Tensor sums = sum_over_ranks(s_, torch::stack(pending_), "the losses of the last steps");
    pending_.clear();
    auto means = (sums / static_cast<double>(s_.loop.reporting_ranks)).to(torch::kCPU).contiguous();
    return std::vector<double>(means.data_ptr<double>(), means.data_ptr<double>() + means.numel());
  }

 private:
  const Session& s_;
  std::vector<torch::Tensor> pending_;
};

TrainPass empty_pass(const Session& s) {
  return TrainPass{PassMetrics(s.loading.info.num_classes, s.loading.info.task), {}, 0, 0, 0, 0};
}

TrainPass train_epoch(Session& s, int64_t epoch, TrainPass pass, int64_t first_step,
                      const PassCheckpoints& checkpoints) {
  auto order = s.strategy->shard_samples(
      epoch_permutation(s.loading.dataset->size(Split::train), s.seed, epoch), Split::train);
  auto batches = batches_of(order, s.loop.batch_size);
  batches.resize(static_cast<size_t>(s.loop.steps_per_epoch));
  LossLog losses(s);
  BatchLoader loader = loader_of(s, Split::train, batches, epoch, first_step);
  const auto start = Clock::now();
  for (auto i = static_cast<size_t>(first_step); i < batches.size(); ++i) {
    stop_if_interrupted();
    enter(s, distributed::RunPhase::data_loading, s.progress.global_step + 1);
    const auto step_start = Clock::now();
    s.faults.step_starts(s.progress.global_step + 1);
    Batch batch = loader.next();
    const auto loaded = Clock::now();
    const double lr = s.loop.schedule->at(s.progress.global_step);
    s.strategy->set_learning_rate(lr);
    StepResult result =
        in_plugin_code(s, "training step " + std::to_string(s.progress.global_step + 1),
                       [&] { return s.strategy->train_step(batch); });
    s.faults.step_computed(s.progress.global_step + 1, seconds_since(loaded));
    enter(s, distributed::RunPhase::metrics);
    if (s.loop.reports) pass.metrics.add(result.loss, result.predictions, batch.targets, false);
    losses.add(result.loss);
    pass.skipped_steps += result.skipped ? 1 : 0;
    pass.loss_scale = result.loss_scale;
    ++s.progress.global_step;
    // On the CPU reading a loss costs nothing: each step is checked where it happens.
    if (s.device.is_cpu() && s.loop.reports) check_finite(result.loss.item<double>(), s, epoch);
    // A step's time is the strategy's whole step and its metrics; the wait for its batch is not.
    const double step_s = seconds_since(loaded);
    pass.steps.push_back({s.progress.global_step, NAN, lr, step_s});
    pass.data_wait_s += std::chrono::duration<double>(loaded - step_start).count();
    pass.compute_s += step_s;
    // One due at an epoch's last step is saved after its test pass, as the epoch's.
    const bool save = i + 1 != batches.size() && checkpoints.due && checkpoints.due();
    if ((i + 1) % s.loop.log_every != 0 && i + 1 != batches.size() && !save) continue;
    const std::vector<double> means = losses.reduce();
    const size_t first = pass.steps.size() - means.size();
    for (size_t k = 0; k < means.size(); ++k) pass.steps[first + k].loss = means[k];
    check_finite(means.back(), s, epoch);
    s.console.progress({epoch, s.loop.epochs, static_cast<int64_t>(i + 1), s.loop.steps_per_epoch,
                        means.back(), static_cast<int64_t>(i + 1) - first_step,
                        seconds_since(start), s.run.train.batch_size});
    if (save) checkpoints.save(pass, static_cast<int64_t>(i + 1));
  }
  return pass;
}

PassMetrics test_epoch(Session& s, int64_t epoch, double& data_wait_s) {
  PassMetrics metrics(s.loading.info.num_classes, s.loading.info.task);
  const int64_t n = s.loading.dataset->size(Split::test);
  const int64_t batch = s.run.train.test_batch_size;
  auto batches = batches_in(s.strategy->shard_samples(torch::arange(n, torch::kInt64), Split::test),
                            batch, s.loop.test_batches);
  // The first batches of this rank's shard: every rank stops after as many.
  if (s.loop.max_eval_steps > 0 && static_cast<int64_t>(batches.size()) > s.loop.max_eval_steps)
    batches.resize(static_cast<size_t>(s.loop.max_eval_steps));
  BatchLoader loader = loader_of(s, Split::test, batches, epoch);
  while (!loader.done()) {
    stop_if_interrupted();
    enter(s, distributed::RunPhase::evaluation);  // each batch: progress a stall watch sees
    const auto start = Clock::now();
    Batch b = loader.next();
    data_wait_s += seconds_since(start);
    StepResult result = in_plugin_code(s, "test step", [&] { return s.strategy->eval_step(b); });
    if (s.loop.reports) metrics.add(result.loss, result.predictions, b.targets, true);
  }
  return metrics;
}

}  // namespace runner::train
