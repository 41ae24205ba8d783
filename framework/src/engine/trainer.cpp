#include "engine/trainer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "data/augment.hpp"
#include "engine/batch_loader.hpp"
#include "engine/estimate.hpp"
#include "engine/interrupt.hpp"
#include "engine/metrics.hpp"
#include "engine/mfu.hpp"
#include "engine/optimizers.hpp"
#include "engine/rank_memory.hpp"
#include "engine/sampler.hpp"
#include "engine/step_meter.hpp"
#include "engine/system.hpp"
#include "engine/techniques.hpp"
#include "plugin_host/call_plugin.hpp"
#include "plugin_host/op_library.hpp"

namespace runner::engine {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Everything one run holds while it trains.
struct Session {
  const config::RunConfig& run;
  Console& console;
  results::RunWriter& writer;
  const RankContext& ranks;
  torch::Device device = torch::kCPU;
  int threads = 1;
  std::shared_ptr<Dataset> dataset;
  DatasetInfo info;
  data::Augmentation augmentation;
  int64_t num_workers = 0, prefetch = 1;
  bool pin_memory = false;
  std::unique_ptr<plugin_host::RegistryOpLibrary> ops;
  std::shared_ptr<Model> model;
  std::shared_ptr<Strategy> strategy;
  std::shared_ptr<HostStepMeter> meter;
  Techniques techniques;
  std::unique_ptr<RankMemory> memory;
  RunEstimate estimate;
  int64_t epochs = 1, steps_per_epoch = 0, log_every = 1, seed = 0;
  int64_t batch_size = 1;  // this rank's: train.batch_size / world_size
  std::unique_ptr<LearningRateSchedule> schedule;
  int64_t global_step = 0;
  double train_compute_s = 0;
  int64_t train_samples = 0;
  std::vector<double> last_per_class;  // of the latest test pass
  std::vector<double> peak_memory_per_rank;  // the largest of each rank over the epochs
  std::vector<double> tensor_peak_per_rank;  // the same, of the tensors
  std::string step_components;         // the plugins a step runs, for error messages
};

// Runs plugin code of a step: a LibTorch or other exception becomes one line naming the
// plugins involved; runner errors pass as they are.
template <typename F>
auto in_plugin_code(const Session& s, const std::string& what, F&& f) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw PluginError(what + " failed: " + plugin_host::one_line(e), s.step_components);
  }
}

std::string component_text(const plugin_host::Registry& registry, Kind kind,
                           const std::string& name) {
  const plugin_host::Registered* r = registry.find(kind, name);
  return std::string(kind_name(kind)) + " '" + name + "'" +
         (r ? " (" + r->library->path() + ")" : "");
}

// Batch `index` of a pass, read, on the device and augmented: what a loader thread makes.
Batch make_batch(const Session& s, Split split, const torch::Tensor& indices, int64_t epoch,
                 int64_t index) {
  Batch batch = in_plugin_code(s, std::string("reading a ") + split_name(split) + " batch",
                               [&] { return s.dataset->get_batch(split, indices); });
  if (s.pin_memory) {
    batch.inputs = batch.inputs.pin_memory();
    batch.targets = batch.targets.pin_memory();
  }
  batch.inputs = batch.inputs.to(s.device, /*non_blocking=*/true);
  batch.targets = batch.targets.to(s.device, /*non_blocking=*/true);
  if (!s.augmentation.empty())
    batch.inputs = s.augmentation.apply(batch.inputs, split, s.seed, epoch, index);
  return batch;
}

BatchLoader loader_of(const Session& s, Split split, const std::vector<torch::Tensor>& batches,
                      int64_t epoch) {
  return BatchLoader(
      static_cast<int64_t>(batches.size()),
      [&s, split, &batches, epoch](int64_t i) {
        return make_batch(s, split, batches[static_cast<size_t>(i)], epoch, i);
      },
      s.num_workers, s.prefetch);
}

// `t` summed over the ranks (itself on one rank), on the run's device: NCCL takes no other.
torch::Tensor sum_over_ranks(const Session& s, const torch::Tensor& t) {
  torch::Tensor sum = t.to(s.device).contiguous();
  s.ranks.communicator->all_reduce_sum({sum});
  return sum;
}

void sum_over_ranks(const Session& s, PassMetrics& metrics) {
  if (s.ranks.world_size() > 1) metrics.unpack(sum_over_ranks(s, metrics.pack(s.device)));
}

int64_t local_batch_size(int64_t batch_size, int world_size) {
  if (batch_size % world_size != 0)
    throw ConfigError(fmt::format("train.batch_size = {} does not divide among {} ranks",
                                  batch_size, world_size),
                      "train.batch_size is the global batch: make it a multiple of the ranks");
  return batch_size / world_size;
}

// (world_size) each rank's `value`.
std::vector<double> per_rank(const Session& s, double value) {
  auto values = torch::zeros({s.ranks.world_size()}, torch::kFloat64);
  values[s.ranks.rank()] = value;
  auto all = sum_over_ranks(s, values).to(torch::kCPU).contiguous();
  return std::vector<double>(all.data_ptr<double>(), all.data_ptr<double>() + all.numel());
}

// Each element the larger of `kept`'s and `values`'.
void keep_largest(std::vector<double>& kept, const std::vector<double>& values) {
  kept.resize(values.size(), 0.0);
  for (size_t r = 0; r < values.size(); ++r) kept[r] = std::max(kept[r], values[r]);
}

void check_finite(double loss, const Session& s, int64_t epoch) {
  if (std::isfinite(loss)) return;
  throw RunError(fmt::format("loss became {} at step {} (epoch {})", loss, s.global_step, epoch),
                 "lower optimizer.lr, or check the data and the model");
}

struct TrainPass {
  PassMetrics metrics;
  std::vector<results::StepRecord> steps;
  double data_wait_s = 0, compute_s = 0;
  int64_t skipped_steps = 0;
  double loss_scale = 0;
};

TrainPass train_epoch(Session& s, int64_t epoch) {
  TrainPass pass{PassMetrics(s.info.num_classes, s.info.task), {}, 0, 0, 0, 0};
  auto order = s.strategy->shard_samples(
      epoch_permutation(s.dataset->size(Split::train), s.seed, epoch), Split::train);
  auto batches = batches_of(order, s.batch_size);
  batches.resize(static_cast<size_t>(s.steps_per_epoch));
  std::vector<torch::Tensor> losses;  // on the device: read in one go at the end of the epoch
  BatchLoader loader = loader_of(s, Split::train, batches, epoch);
  const auto start = Clock::now();
  for (size_t i = 0; i < batches.size(); ++i) {
    stop_if_interrupted();
    const auto step_start = Clock::now();
    Batch batch = loader.next();
    const auto loaded = Clock::now();
    const double lr = s.schedule->at(s.global_step);
    s.strategy->set_learning_rate(lr);
    StepResult result = in_plugin_code(s, "training step " + std::to_string(s.global_step + 1),
                                       [&] { return s.strategy->train_step(batch); });
    pass.metrics.add(result.loss, result.predictions, batch.targets, false);
    losses.push_back(result.loss);
    pass.skipped_steps += result.skipped ? 1 : 0;
    pass.loss_scale = result.loss_scale;
    ++s.global_step;
    const bool check = s.device.is_cpu() || (i + 1) % s.log_every == 0;
    double loss = check ? result.loss.item<double>() : NAN;  // filled in after the epoch
    if (check) check_finite(loss, s, epoch);
    pass.steps.push_back({s.global_step, loss, lr, seconds_since(step_start)});
    pass.data_wait_s += std::chrono::duration<double>(loaded - step_start).count();
    pass.compute_s += std::chrono::duration<double>(Clock::now() - loaded).count();
    if ((i + 1) % s.log_every == 0 || i + 1 == batches.size())
      s.console.progress(epoch, s.epochs, static_cast<int64_t>(i + 1), s.steps_per_epoch,
                         check ? loss : pass.metrics.mean_loss(), seconds_since(start));
  }
  // A GPU step's loss is only read at log points, so that steps do not wait for the device.
  if (losses.empty()) return pass;
  auto values = sum_over_ranks(s, torch::stack(losses).to(torch::kFloat64)) /
                static_cast<double>(s.ranks.world_size());
  values = values.to(torch::kCPU).contiguous();
  const double* value = values.data_ptr<double>();
  for (size_t i = 0; i < pass.steps.size(); ++i) pass.steps[i].loss = value[i];
  return pass;
}

PassMetrics test_epoch(Session& s, int64_t epoch, double& data_wait_s) {
  PassMetrics metrics(s.info.num_classes, s.info.task);
  const int64_t n = s.dataset->size(Split::test);
  const int64_t batch = s.run.train.get_int("test_batch_size");
  const auto batches =
      batches_of(s.strategy->shard_samples(torch::arange(n, torch::kInt64), Split::test), batch);
  BatchLoader loader = loader_of(s, Split::test, batches, epoch);
  while (!loader.done()) {
    stop_if_interrupted();
    const auto start = Clock::now();
    Batch b = loader.next();
    data_wait_s += seconds_since(start);
    StepResult result = in_plugin_code(s, "test step", [&] { return s.strategy->eval_step(b); });
    metrics.add(result.loss, result.predictions, b.targets, true);
  }
  return metrics;
}

// Augmentation may not change the sample shape: test batches keep the dataset's.
void set_up_loading(Session& s) {
  const Options& train = s.run.train;
  s.augmentation = data::Augmentation(s.run.augment);
  if (!s.augmentation.empty()) {
    const auto shape = s.augmentation.output_shape(s.info.sample_shape);
    if (shape != s.info.sample_shape)
      throw ConfigError(fmt::format("[[dataset.augment]] turns samples of shape [{}] into [{}]; "
                                    "test samples are not augmented and keep the first shape",
                                    fmt::join(s.info.sample_shape, ", "), fmt::join(shape, ", ")),
                        "give random_crop a size equal to the image size, with padding");
  }
  s.num_workers = train.get_int("num_workers");
  s.prefetch = train.get_int("prefetch");
  s.pin_memory = train.get_bool("pin_memory") && s.device.is_cuda();
}

// The run's plan, recorded beside the measured peak. A model whose measuring forward fails
// gets none: its first step reports the error where the run would meet it anyway.
RunEstimate plan_or_none(const Session& s, const plugin_host::Registry& registry) {
  try {
    return estimate_run(s.run, registry, s.ranks.world_size(), *s.dataset);
  } catch (const std::exception&) {
    return {};
  }
}

void build(Session& s, const plugin_host::Registry& registry) {
  const Options& train = s.run.train;
  s.seed = s.run.experiment.get_int("seed");
  s.threads = configure_threads(train.get_int("threads"), s.ranks.local_world_size);
  s.device = resolve_device(train.get_string("device"), s.ranks.local_rank);
  if (train.get_bool("deterministic")) at::globalContext().setDeterministicAlgorithms(true, false);
  const bool vendor_conv = train.get_string("backend_conv") == "vendor";
  at::globalContext().setUserEnabledMkldnn(vendor_conv);
  at::globalContext().setUserEnabledCuDNN(vendor_conv);
  torch::manual_seed(static_cast<uint64_t>(s.seed));
  s.dataset = registry.make_dataset(s.run.dataset, DatasetContext{s.seed});
  s.memory = std::make_unique<RankMemory>(s.device);
  s.info = s.dataset->info();
  set_up_loading(s);
  s.ops = std::make_unique<plugin_host::RegistryOpLibrary>(registry, s.run.ops);
  s.techniques = techniques_of(train);
  auto make_model = [&s, &registry] {
    return registry.make_model(s.run.model,
                               ModelContext{s.info, s.ops.get(), s.techniques.precision});
  };
  s.model = make_model();  // on the CPU: the strategy places it
  s.estimate = plan_or_none(s, registry);
  s.strategy = registry.make_strategy(s.run.strategy);
  s.step_components = "in " + component_text(registry, Kind::dataset, s.run.dataset.name) + ", " +
                      component_text(registry, Kind::model, s.run.model.name) + ", " +
                      component_text(registry, Kind::strategy, s.run.strategy.name);
  s.meter = std::make_shared<HostStepMeter>(s.device);
  s.strategy->setup(StrategyContext{s.model, s.device, s.techniques,
                                    optimizer_factory(s.run.optimizer), s.seed, s.meter,
                                    s.ranks.communicator, make_model});
  s.epochs = train.get_int("epochs");
  s.batch_size = local_batch_size(train.get_int("batch_size"), s.ranks.world_size());
  s.log_every = train.get_int("log_every");
  const int64_t shard_size =
      s.strategy->shard_samples(torch::arange(s.dataset->size(Split::train)), Split::train)
          .size(0);
  s.steps_per_epoch = (shard_size + s.batch_size - 1) / s.batch_size;
  if (train.get_int("max_steps_per_epoch") > 0)
    s.steps_per_epoch = std::min(s.steps_per_epoch, train.get_int("max_steps_per_epoch"));
  s.schedule = std::make_unique<LearningRateSchedule>(
      s.run.schedule, s.run.optimizer.get_double("lr"), s.steps_per_epoch, s.epochs);
}

results::EpochRecord run_epoch(Session& s, int64_t epoch) {
  s.memory->epoch_begins();
  const auto start = Clock::now();
  s.model->train();
  TrainPass train = train_epoch(s, epoch);
  sum_over_ranks(s, train.metrics);
  const double train_s = seconds_since(start);
  s.model->eval();
  double test_wait_s = 0;
  PassMetrics test = test_epoch(s, epoch, test_wait_s);
  sum_over_ranks(s, test);
  s.last_per_class = test.per_class_accuracy();
  s.train_compute_s += train_s;
  s.train_samples += train.metrics.samples();
  results::EpochRecord record;
  record.epoch = epoch;
  record.train_loss = train.metrics.mean_loss();
  record.train_accuracy = train.metrics.accuracy();
  record.test_loss = test.mean_loss();
  record.test_accuracy = test.accuracy();
  record.duration_s = seconds_since(start);
  record.data_wait_s = train.data_wait_s + test_wait_s;
  record.compute_s = record.duration_s - record.data_wait_s;
  record.samples_per_s = static_cast<double>(train.metrics.samples()) / train_s;
  const std::vector<double> peaks = per_rank(s, s.memory->process_peak());
  record.peak_memory_bytes = *std::max_element(peaks.begin(), peaks.end());
  keep_largest(s.peak_memory_per_rank, peaks);
  keep_largest(s.tensor_peak_per_rank, per_rank(s, s.memory->tensor_peak()));
  const PhaseTotals phases = s.meter->take();
  record.forward_s = phases.forward_s;
  record.backward_s = phases.backward_s;
  record.optimizer_s = phases.optimizer_s;
  record.activation_memory_bytes = phases.activation_bytes;
  record.skipped_steps = static_cast<double>(train.skipped_steps);
  record.loss_scale = train.loss_scale;
  record.learning_rate = s.schedule->at(std::max<int64_t>(0, s.global_step - 1));
  s.writer.append_epoch(record);
  s.writer.append_steps(train.steps);
  check_finite(record.train_loss, s, epoch);
  return record;
}

results::Summary summarize(Session& s, const std::vector<results::EpochRecord>& epochs,
                           double total_s, std::vector<double> per_class) {
  results::Summary summary;
  summary.task = task_name(s.info.task);
  summary.total_time_s = total_s;
  summary.epochs_completed = static_cast<int64_t>(epochs.size());
  summary.final_train_loss = epochs.back().train_loss;
  summary.final_test_loss = epochs.back().test_loss;
  summary.final_test_accuracy = epochs.back().test_accuracy;
  summary.class_names = s.info.class_names;
  summary.per_class_accuracy = std::move(per_class);
  summary.peak_memory_per_rank_bytes = s.peak_memory_per_rank;
  summary.tensor_peak_per_rank_bytes = s.tensor_peak_per_rank;
  for (const auto& rank : s.estimate.plan.ranks)
    summary.estimated_memory_per_rank_bytes.push_back(rank.total());
  summary.parameters = s.model->parameter_count();
  summary.flops_per_sample =
      training_flops_per_sample(s.model->forward_flops_per_sample(), s.techniques.checkpoint_layers);
  summary.tflops = summary.flops_per_sample * static_cast<double>(s.train_samples) /
                   std::max(1e-9, s.train_compute_s) / 1e12;
  const double peak = peak_tflops(s.run.train.get_double("peak_tflops"),
                                  s.device.is_cuda() ? cuda_device_name() : "",
                                  s.techniques.precision);
  summary.mfu = model_flops_utilisation(summary.tflops, peak, s.ranks.world_size());
  return summary;
}

}  // namespace

results::Summary train_run(const config::RunConfig& run, const plugin_host::Registry& registry,
                           Console& console, results::RunWriter& writer,
                           const RankContext& ranks) {
  Session s{run, console, writer, ranks};
  build(s, registry);
  console.line(fmt::format("  {} on {}: {} parameters, {} threads, {} steps/epoch",
                           run.model.name, s.device.str(), s.model->parameter_count(), s.threads,
                           s.steps_per_epoch));
  std::vector<results::EpochRecord> epochs;
  const auto start = Clock::now();
  for (int64_t epoch = 1; epoch <= s.epochs; ++epoch) {
    epochs.push_back(run_epoch(s, epoch));
    console.epoch_done(epochs.back(), s.epochs, s.info.task);
  }
  results::Summary summary = summarize(s, epochs, seconds_since(start), s.last_per_class);
  writer.write_summary(summary);
  return summary;
}

}  // namespace runner::engine
