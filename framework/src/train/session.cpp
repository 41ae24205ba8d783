// Building what one run holds while it trains, from the registry and the run's keys.
#include "train/session.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <limits>

#include "measure/system.hpp"
#include "plan/estimate.hpp"
#include "train/phase_meter.hpp"
#include "train/sampler.hpp"

namespace runner::train {
namespace {

std::string component_text(const plugin_host::Registry& registry, Kind kind,
                           const std::string& name) {
  const plugin_host::Registered* r = registry.find(kind, name);
  return std::string(kind_name(kind)) + " '" + name + "'" +
         (r ? " (" + r->library->path() + ")" : "");
}

int64_t local_batch_size(int64_t batch_size, int data_parallel_degree) {
  if (batch_size % data_parallel_degree != 0)
    throw ConfigError(fmt::format("train.batch_size = {} does not divide among {} data-parallel "
                                  "ranks",
                                  batch_size, data_parallel_degree),
                      "train.batch_size is the global batch: make it a multiple of the ranks");
  return batch_size / data_parallel_degree;
}

// Augmentation may not change the sample shape: test batches keep the dataset's.
void set_up_loading(Session& s) {
  const config::TrainSettings& train = s.run.train;
  s.loading.augmentation = augment::Augmentation(s.run.augment);
  if (!s.loading.augmentation.empty()) {
    const auto shape = s.loading.augmentation.output_shape(s.loading.info.sample_shape);
    if (shape != s.loading.info.sample_shape)
      throw ConfigError(
          fmt::format("[[dataset.augment]] turns samples of shape [{}] into [{}]; "
                      "test samples are not augmented and keep the first shape",
                      fmt::join(s.loading.info.sample_shape, ", "), fmt::join(shape, ", ")),
          "give random_crop a size equal to the image size, with padding");
  }
  s.loading.num_workers = train.num_workers;
  s.loading.prefetch = train.prefetch;
  s.loading.pin_memory = train.pin_memory && s.device.is_cuda();
}

// The run's plan, recorded beside the measured peak. A model whose measuring forward fails
// gets none: its first step reports the error where the run would meet it anyway.
plan::RunEstimate plan_or_none(const Session& s, const plugin_host::Registry& registry) {
  try {
    return plan::estimate_run(s.run, registry, s.ranks.world_size(), *s.loading.dataset);
  } catch (const std::exception&) {
    return {};
  }
}

// On a GPU without NVML the run goes on, saying once why its table has no GPU readings.
void start_monitoring_the_gpu(Session& s) {
  std::string reason;
  s.measures.gpu =
      measure::start_gpu_monitor(s.device.is_cuda(), measure::pci_bus_id(s.device), reason);
  if (!s.measures.gpu && s.device.is_cuda() && s.ranks.rank() == 0)
    s.console.line("GPU utilisation is not recorded: " + reason);
}

// Measures gathered over the ranks; the time waited in collectives where the ranks time it.
void start_measuring(Session& s) {
  s.measures.device = s.device;
  s.measures.world_size = s.ranks.world_size();
  s.measures.per_rank = [&s](double value) { return per_rank(s, value); };
  s.measures.waited = [&ranks = s.ranks] {
    if (ranks.world_size() == 1) return 0.0;
    return ranks.waits ? ranks.waits->seconds() : std::numeric_limits<double>::quiet_NaN();
  };
  s.measures.memory = std::make_unique<measure::RankMemory>(s.device);
}

// The process's side of a run: seed, threads, device and the kernels' choices.
void set_up_device(Session& s) {
  const config::TrainSettings& train = s.run.train;
  s.seed = s.run.experiment.get_int("seed");
  s.threads = measure::configure_threads(train.threads, s.ranks.local_world_size);
  s.device = measure::resolve_device(train.device, s.ranks.local_rank);
  if (train.deterministic) at::globalContext().setDeterministicAlgorithms(true, false);
  at::globalContext().setUserEnabledMkldnn(train.vendor_conv);
  at::globalContext().setUserEnabledCuDNN(train.vendor_conv);
  torch::manual_seed(static_cast<uint64_t>(s.seed));
}

// On the CPU the process stays within its base and its rank's plan with a quarter more
// (measure::resident_allowance), which the budget check held against the machine's memory;
// from before the model is built, whose setup copies its weights. A run without a plan keeps
// blocks unbounded.
void bound_kept_blocks_by_plan(Session& s) {
  const std::vector<MemoryPlan>& planned = s.measures.plan.ranks;
  if (!s.device.is_cpu() || planned.empty()) return;
  const size_t rank = std::min(planned.size() - 1, static_cast<size_t>(s.ranks.rank()));
  s.kept_blocks.bound_by_plan(planned[rank].total());
}

// The run planned, the model built on the CPU and measured, then placed by the strategy.
void set_up_model_and_strategy(Session& s, const plugin_host::Registry& registry) {
  s.ops = std::make_unique<plugin_host::RegistryOpLibrary>(registry, s.run.ops);
  s.techniques = s.run.train.techniques;
  s.measures.plan = plan_or_none(s, registry).plan;
  bound_kept_blocks_by_plan(s);
  auto make_model = [&s, &registry] {
    return registry.make_model(s.run.model,
                               ModelContext{s.loading.info, s.ops.get(), s.techniques.precision});
  };
  s.model = make_model();  // on the CPU: the strategy places it
  s.measures.parameters = s.model->parameter_count();
  s.measures.forward_flops_per_sample = s.model->forward_flops_per_sample();
  s.strategy = registry.make_strategy(s.run.strategy);
  s.step_components = "in " + component_text(registry, Kind::dataset, s.run.dataset.name) + ", " +
                      component_text(registry, Kind::model, s.run.model.name) + ", " +
                      component_text(registry, Kind::strategy, s.run.strategy.name);
  s.measures.meter = std::make_shared<measure::HostStepMeter>(s.device);
  StrategyContext context{s.model,
                          s.device,
                          s.techniques,
                          optimizer_factory(s.run.optimizer),
                          s.seed,
                          std::make_shared<PhaseMeter>(s.measures.meter, s.ranks.ledger),
                          s.ranks.communicator,
                          make_model};
  if (TensorSplitter split = registry.tensor_splitter(s.run.model))
    context.split_tensor_parallel = [model = s.model, split](std::shared_ptr<Communicator> group) {
      return split(*model, std::move(group));
    };
  s.strategy->setup(context);
}

// What each rank's strategy gives it: whether it reports metrics, the samples of its train and
// test shards. One collective, the same on every rank, so each can name a rank left without.
struct RankParts {
  int reporting = 0;
  std::vector<int64_t> train, test;
};

RankParts rank_parts(const Session& s) {
  const int world = s.ranks.world_size();
  const auto shard = [&](Split split) {
    return s.strategy->shard_samples(torch::arange(s.loading.dataset->size(split)), split).size(0);
  };
  auto parts = torch::zeros({3, world}, torch::kFloat64);
  parts[0][s.ranks.rank()] = s.loop.reports ? 1.0 : 0.0;
  parts[1][s.ranks.rank()] = static_cast<double>(shard(Split::train));
  parts[2][s.ranks.rank()] = static_cast<double>(shard(Split::test));
  parts = sum_over_ranks(s, parts, "each rank's samples and whether it reports metrics")
              .to(torch::kCPU)
              .to(torch::kInt64)
              .contiguous();
  RankParts r;
  r.reporting = static_cast<int>(parts[0].sum().item<int64_t>());
  const int64_t* data = parts.data_ptr<int64_t>();
  const auto n = static_cast<std::ptrdiff_t>(world);
  r.train.assign(data + n, data + 2 * n);
  r.test.assign(data + 2 * n, data + 3 * n);
  return r;
}

// A rank without train samples would step nothing (a loss of 0, or its peers waiting in a
// collective until the timeout); one without test samples, while others have some, would
// leave a sharded model's peers gathering its parameters alone.
void check_every_rank_has_data(const Session& s, const RankParts& parts) {
  const int world = s.ranks.world_size();
  const bool drops =
      s.run.strategy.options.has("drop_last") && s.run.strategy.options.get_bool("drop_last");
  const auto check = [&](const std::vector<int64_t>& samples, Split split, const char* name) {
    const auto empty = std::find(samples.begin(), samples.end(), 0);
    if (empty == samples.end()) return;
    const int64_t size = s.loading.dataset->size(split);
    if (split == Split::test && size == 0) return;  // no test split at all: no test passes
    const bool dropped = split == Split::train && drops;
    throw ConfigError(
        fmt::format("the {} split's {} sample{} leave{} rank {} of {} without one (strategy "
                    "'{}'{}){}",
                    name, size, size == 1 ? "" : "s", size == 1 ? "s" : "", empty - samples.begin(),
                    world, s.run.strategy.name, dropped ? ", drop_last = true" : "",
                    s.run.label.empty() ? "" : " in run " + s.run.label),
        dropped ? "set strategy.drop_last = false (a short split is repeated to fill every rank), "
                  "or train on fewer ranks"
                : fmt::format("train on at most {} ranks, or on a larger {} split", size, name));
  };
  check(parts.train, Split::train, "train");
  check(parts.test, Split::test, "test");
}

// The epochs' shape, once the strategy says how the batch and the samples divide.
void set_up_loop(Session& s) {
  const config::TrainSettings& train = s.run.train;
  Loop& loop = s.loop;
  loop.epochs = train.epochs;
  loop.batch_size =
      local_batch_size(train.batch_size, s.strategy->data_parallel_degree(s.ranks.world_size()));
  loop.reports = s.strategy->reports_metrics();
  const RankParts parts = rank_parts(s);
  loop.reporting_ranks = parts.reporting;
  if (loop.reporting_ranks < 1)
    throw PluginError("no rank of strategy '" + s.run.strategy.name + "' reports metrics",
                      s.step_components);
  check_every_rank_has_data(s, parts);
  loop.log_every = train.log_every;
  const int64_t shard_size = parts.train[static_cast<size_t>(s.ranks.rank())];
  loop.steps_per_epoch = (shard_size + loop.batch_size - 1) / loop.batch_size;
  loop.test_batches = std::numeric_limits<int64_t>::max();
  for (const int64_t samples : parts.test)
    loop.test_batches =
        std::min(loop.test_batches, (samples + train.test_batch_size - 1) / train.test_batch_size);
  if (train.max_steps_per_epoch > 0)
    loop.steps_per_epoch = std::min(loop.steps_per_epoch, train.max_steps_per_epoch);
  loop.max_eval_steps = train.max_eval_steps;
  loop.schedule = std::make_unique<LearningRateSchedule>(
      s.run.schedule, s.run.optimizer.get_double("lr"), loop.steps_per_epoch, loop.epochs);
}

void set_up_fault(Session& s) {
  const FaultSettings fault = fault_settings_of(s.run.fault);
  check_fault(fault, s.ranks.world_size(), s.loop.epochs * s.loop.steps_per_epoch,
              s.run.checkpoint.get_int("every_steps"));
  s.faults = FaultInjector(fault, s.ranks.rank(), s.ranks.attempt, s.ranks.ledger);
}

}  // namespace

void enter(const Session& s, distributed::RunPhase phase) { s.ranks.ledger->enter(phase); }

void enter(const Session& s, distributed::RunPhase phase, int64_t step) {
  s.ranks.ledger->enter(phase, step);
}

torch::Tensor sum_over_ranks(const Session& s, const torch::Tensor& t, const std::string& words) {
  torch::Tensor sum = t.to(s.device).contiguous();
  s.ranks.communicator->describe_next(words);
  s.ranks.communicator->all_reduce_sum({sum});
  return sum;
}

void sum_over_ranks(const Session& s, PassMetrics& metrics) {
  if (s.ranks.world_size() > 1)
    metrics.unpack(sum_over_ranks(s, metrics.pack(s.device), "the pass's metrics"));
}

std::vector<double> per_rank(const Session& s, double value) {
  auto values = torch::zeros({s.ranks.world_size()}, torch::kFloat64);
  values[s.ranks.rank()] = value;
  auto all = sum_over_ranks(s, values, "a measure of each rank").to(torch::kCPU).contiguous();
  return std::vector<double>(all.data_ptr<double>(), all.data_ptr<double>() + all.numel());
}

void build_session(Session& s, const plugin_host::Registry& registry) {
  set_up_device(s);
  s.loading.dataset = registry.make_dataset(s.run.dataset, DatasetContext{s.seed});
  start_measuring(s);
  s.loading.info = s.loading.dataset->info();
  set_up_loading(s);
  set_up_model_and_strategy(s, registry);
  set_up_loop(s);
  set_up_fault(s);
  start_monitoring_the_gpu(s);
}

}  // namespace runner::train
