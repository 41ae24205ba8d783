// ZeroStrategy: shards, buckets, layer units and optimizer set up; its steps and checkpoint state.
#include "zero_strategy.hpp"

#include <runner/strategies/data_parallel.hpp>

#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "host_optimizer.hpp"
#include "offloaded_optimizer.hpp"

namespace runner::strategies {

const OptionFields<ZeroOptions>& ZeroOptions::fields() {
  static const auto fields = [] {
    OptionFields<ZeroOptions> f(distributed_keys());
    f.integer("stage", &ZeroOptions::stage,
              "What is sharded over the ranks: 1 the optimizer state, 2 also the gradients, 3 "
              "also the parameters",
              1, 3);
    f.number("bucket_mb", &ZeroOptions::bucket_mb,
             "Stages 1 and 2: parameters per unit of sharding, in MB of fp32; each unit's "
             "gradients are reduced as soon as backward has given them all",
             0.001, 4096);
    f.flag("overlap", &ZeroOptions::overlap,
           "Reduce gradients during backward; false waits for backward to end (to measure what "
           "overlap saves)");
    f.flag("prefetch", &ZeroOptions::prefetch,
           "Stage 3: start gathering the next layer's parameters while one layer runs");
    f.text("offload", &ZeroOptions::offload,
           "cpu: the optimizer state and step in pinned host memory (runs on a GPU); nvme: the "
           "optimizer state of each rank's part in files under offload_dir, read in for its "
           "step and written back after it, one unit at a time, the next unit's reading and "
           "the last one's writing overlapping the step",
           {"none", "cpu", "nvme"});
    f.text("offload_dir", &ZeroOptions::offload_dir,
           "nvme: the folder for the optimizer state files (a local disk); empty: the system's "
           "temporary folder");
    add_drop_last(f, "the ranks");
    return f;
  }();
  return fields;
}

void ZeroStrategy::setup(const StrategyContext& context) {
  model_ = context.model;
  model_->to(context.device);
  communicator_ = context.communicator;
  check_layers_for_checkpointing(*model_, context.techniques);
  broadcast_from_rank_zero(*model_, *communicator_);
  const std::vector<torch::Tensor> parameters = trainable_parameters(*model_);
  if (stage() == ZeroStage::parameters)
    make_layer_units(parameters);
  else
    make_buckets(parameters);

  std::vector<torch::Tensor> masters;
  for (const auto& unit : units_) masters.push_back(unit->master());
  make_optimizer(masters, context);
  LayerGathering* gathering = gathering_.get();
  reduction_ = std::make_unique<GradientReduction>(reduction_order(), options_.overlap,
                                                   [gathering](ShardedUnit& unit) {
                                                     if (gathering)
                                                       gathering->backward_done_with(unit);
                                                   });
  // The hooks are on whole parameters: autograd checks gradients against those shapes.
  if (gathering) gathering->after_step();
  TrainingStep::Forward forward;
  if (gathering)
    forward = [gathering](const torch::Tensor& x, bool checkpoint) {
      return gathering->forward(x, checkpoint);
    };
  step_ = std::make_unique<TrainingStep>(model_, masters, context.techniques, context.device,
                                         context.meter, forward);
}

// cpu: the state in host memory, for a run on a GPU. nvme: a private folder per rank, of a
// name no other run, rank or user can have taken or planted a link at (the system's temporary
// folder is shared).
void ZeroStrategy::make_optimizer(const std::vector<torch::Tensor>& masters,
                                  const StrategyContext& context) {
  const OptimizerFactory& make = context.make_optimizer;
  if (options_.offload == "none") {
    optimizer_ = make(masters);
    return;
  }
  if (options_.offload == "cpu") {
    if (!context.device.is_cuda())
      throw ConfigError(
          "strategy.offload = \"cpu\" moves the optimizer state from a GPU to host "
          "memory, but this run is on the " +
              context.device.str() + " already",
          "set strategy.offload = \"none\", or \"nvme\" to keep it in files");
    optimizer_ = std::make_unique<HostOptimizer>(masters, make);
    return;
  }
  const std::filesystem::path base = options_.offload_dir.empty()
                                         ? std::filesystem::temp_directory_path()
                                         : std::filesystem::path(options_.offload_dir);
  const std::string mine = "runner-zero-rank" + std::to_string(communicator_->rank()) + "-";
  optimizer_ = std::make_unique<OffloadedOptimizer>(masters, make, make_private_folder(base, mine));
}

void ZeroStrategy::make_buckets(const std::vector<torch::Tensor>& parameters) {
  const auto bucket_bytes = static_cast<int64_t>(options_.bucket_mb * 1024 * 1024);
  units_ = bucketed_units(parameters, bucket_bytes, communicator_, stage());
}

// Stage 3: a unit per layer (a tied parameter in the layer that registers it), the
// parameters no layer lists in one more unit that stays gathered.
void ZeroStrategy::make_layer_units(const std::vector<torch::Tensor>& parameters) {
  std::unordered_map<const void*, ShardedUnit*> unit_of;
  auto add_unit = [&](const std::vector<torch::Tensor>& members) {
    std::vector<torch::Tensor> fresh;
    for (const auto& p : members)
      if (p.requires_grad() && !unit_of.count(p.unsafeGetTensorImpl())) fresh.push_back(p);
    if (fresh.empty()) return static_cast<ShardedUnit*>(nullptr);
    units_.push_back(std::make_unique<ShardedUnit>(fresh, communicator_, stage()));
    for (const auto& p : fresh) unit_of[p.unsafeGetTensorImpl()] = units_.back().get();
    return units_.back().get();
  };
  const auto& layers = model_->layers();
  for (size_t i = 0; i < layers.size(); ++i)
    if (ShardedUnit* unit = add_unit(layers[i]->parameters()))
      unit->set_name("layer " + std::to_string(i + 1) + " of " + std::to_string(layers.size()));
  std::vector<ShardedUnit*> pinned;
  if (ShardedUnit* rest = add_unit(parameters)) {
    rest->set_name(layers.empty() ? "the model" : "the parameters outside the layers");
    if (!layers.empty()) pinned.push_back(rest);
  }
  auto steps = gathering_steps(*model_, [&unit_of](const torch::Tensor& p) -> ShardedUnit* {
    auto found = unit_of.find(p.unsafeGetTensorImpl());
    return found == unit_of.end() ? nullptr : found->second;
  });
  gathering_ = std::make_unique<LayerGathering>(std::move(steps), pinned, options_.prefetch);
}

// Stage 3's units are made in layer order; backward completes them from the last.
std::vector<ShardedUnit*> ZeroStrategy::reduction_order() const {
  std::vector<ShardedUnit*> order;
  for (const auto& unit : units_) order.push_back(unit.get());
  if (stage() == ZeroStage::parameters && !model_->layers().empty()) {
    const bool has_rest = order.size() > model_->layers().size();
    std::reverse(order.begin(), order.end() - (has_rest ? 1 : 0));
  }
  return order;
}

// Gradients: stage 1 reduces once, after the last micro-batch's backward (the earlier ones
// accumulate in the flat gradients); stages 2 and 3 after every micro-batch's, into the
// masters' parts.
StepResult ZeroStrategy::train_step(const Batch& batch) {
  for (auto& unit : units_) unit->begin_step();
  const bool every_backward = stage() != ZeroStage::optimizer_state;
  TrainingStep::Hooks hooks;
  hooks.before_backward = [this, every_backward](bool last) {
    if (last || every_backward) reduction_->arm();
  };
  hooks.after_backward = [this, every_backward](bool last) {
    if (last || every_backward) reduction_->finish();
  };
  StepResult result = step_->accumulate(batch, hooks);
  Communicator* ranks = communicator_.get();
  step_->apply(*optimizer_, result, [ranks](torch::Tensor& t) { ranks->all_reduce_sum({t}); });
  share_updates();
  return result;
}

// Stages 1 and 2: each rank stepped its part; every rank needs them all before the next
// forward. Stage 3 gathers them when a layer runs; what is gathered now is stale.
void ZeroStrategy::share_updates() {
  if (gathering_) {
    gathering_->after_step();
    return;
  }
  std::vector<std::unique_ptr<PendingCollective>> sharing;
  for (auto& unit : units_) sharing.push_back(unit->start_sharing_updates());
  for (auto& pending : sharing) pending->wait();
}

StepResult ZeroStrategy::eval_step(const Batch& batch) { return step_->evaluate(batch); }

void ZeroStrategy::set_learning_rate(double lr) { strategies::set_learning_rate(*optimizer_, lr); }

void ZeroStrategy::gather_parameters() {
  if (gathering_) gathering_->gather_all();
}

torch::Tensor ZeroStrategy::shard_samples(const torch::Tensor& order, Split split) const {
  return replica_samples(order, split, communicator_->rank(), communicator_->world_size(),
                         options_.drop_last);
}

std::vector<std::unique_ptr<OptimizerState>> ZeroStrategy::optimizer_states() {
  const auto placements = master_placements(units_, *model_);
  std::vector<std::unique_ptr<OptimizerState>> states;
  if (auto* offloaded = dynamic_cast<OffloadedOptimizer*>(optimizer_.get())) {
    offloaded->read_in();
    for (size_t i = 0; i < offloaded->part_count(); ++i) {
      std::vector<std::vector<Placement>> part_placements{placements[i]};
      states.push_back(std::make_unique<OptimizerState>(offloaded->part(i), part_placements));
    }
    return states;
  }
  auto* host = dynamic_cast<HostOptimizer*>(optimizer_.get());
  states.push_back(
      std::make_unique<OptimizerState>(host ? host->on_host() : *optimizer_, placements));
  return states;
}

std::vector<StatePiece> ZeroStrategy::state_pieces() {
  optimizer_states_ = optimizer_states();
  const bool first = communicator_->rank() == 0;
  std::vector<StatePiece> pieces;
  const auto placements = master_placements(units_, *model_);
  for (size_t u = 0; u < units_.size(); ++u)
    for (const auto& placement : placements[u])
      pieces.push_back(piece_of(units_[u]->master(), placement, "model/", true));
  std::unordered_set<const void*> sharded;
  for (const auto& unit : units_)
    for (const auto& p : unit->parameters()) sharded.insert(p.unsafeGetTensorImpl());
  auto add_whole = [&](const std::string& name, const torch::Tensor& tensor) {
    if (sharded.count(tensor.unsafeGetTensorImpl())) return;
    pieces.push_back(piece_of(tensor.detach(), whole_placement(name, tensor), "model/", first));
  };
  for (const auto& item : model_->named_parameters()) add_whole(item.key(), item.value());
  for (const auto& item : model_->named_buffers()) add_whole(item.key(), item.value());
  for (auto& state : optimizer_states_)
    for (auto& piece : state->pieces(true)) pieces.push_back(std::move(piece));
  for (auto& piece : step_->state_pieces(first)) pieces.push_back(std::move(piece));
  return pieces;
}

// The masters were loaded: the host copies (offload cpu) and the parameters take their
// values; offload nvme writes the parts' loaded state to its files.
void ZeroStrategy::state_loaded() {
  for (auto& state : optimizer_states_) state->loaded();
  step_->state_loaded();
  if (auto* host = dynamic_cast<HostOptimizer*>(optimizer_.get())) host->masters_loaded();
  if (auto* offloaded = dynamic_cast<OffloadedOptimizer*>(optimizer_.get())) offloaded->write_out();
  share_updates();
}

}  // namespace runner::strategies
