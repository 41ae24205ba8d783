// PipelineStrategy: groups, tied weights, stage layers, the schedule's steps, gradients, sharding.
#include "pipeline_strategy.hpp"

#include <runner/strategies/activation_checkpointing.hpp>
#include <runner/strategies/data_parallel.hpp>
#include <runner/strategies/micro_batches.hpp>

#include <chrono>
#include <map>
#include <set>
#include <unordered_map>

namespace runner::strategies {
namespace {

using Impl = const void*;

Impl impl(const torch::Tensor& t) { return t.unsafeGetTensorImpl(); }

// What a message between stages is, in the rank's ledger.
const std::string kEvaluation = "a test batch's activations";
std::string activations_of(int micro) {
  return "micro-batch " + std::to_string(micro + 1) + "'s activations";
}
std::string gradients_of(int micro) {
  return "micro-batch " + std::to_string(micro + 1) + "'s input gradients";
}

LayerWeights weights_of(const std::vector<std::shared_ptr<Layer>>& layers) {
  LayerWeights weights;
  for (const auto& layer : layers) {
    double n = 0;
    for (const auto& p : layer->parameters()) n += static_cast<double>(p.numel());
    weights.parameters.push_back(n);
    weights.flops.push_back(layer->forward_flops_per_sample());
  }
  return weights;
}

}  // namespace

const OptionFields<PipelineOptions>& PipelineOptions::fields() {
  static const auto fields = [] {
    OptionFields<PipelineOptions> f(distributed_keys());
    f.integer("stages", &PipelineOptions::stages,
              "Pipeline stages: the model's layers cut into this many ranks in a row; the "
              "world's ranks form world_size / stages data-parallel pipelines",
              1, 1024);
    f.text("schedule", &PipelineOptions::schedule,
           "gpipe: every micro-batch's forward, then the backwards; 1f1b: one forward, one "
           "backward in turn once the pipeline is full (keeps fewer activations)",
           {"gpipe", "1f1b"});
    f.text("balance", &PipelineOptions::balance,
           "Where to cut: stages of about equal forward FLOPs (by parameters when the model's "
           "layers do not say theirs), of equal parameters, or of equal layer counts",
           {"flops", "parameters", "layers"});
    f.integer("zero_stage", &PipelineOptions::zero_stage,
              "1: each stage's optimizer state sharded over the pipelines (ZeRO-1 across the "
              "data-parallel replicas); 0: every replica keeps it whole. Higher stages are not "
              "supported with a pipeline",
              0, 1);
    f.number("bucket_mb", &PipelineOptions::bucket_mb,
             "zero_stage 1: parameters per sharded unit, in MB of fp32", 0.001, 4096);
    add_drop_last(f, "the pipelines");
    return f;
  }();
  return fields;
}

void PipelineStrategy::setup(const StrategyContext& context) {
  model_ = context.model;
  world_ = context.communicator;
  meter_ = context.meter;
  device_ = context.device;
  const int world = world_->world_size(), k = options_.stages;
  if (world % k != 0)
    throw ConfigError("strategy.stages = " + std::to_string(k) + " does not divide the " +
                          std::to_string(world) + " ranks into pipelines",
                      "set strategy.world_size to a multiple of strategy.stages");
  const auto layers = model_->layers();
  if (layers.empty())
    throw ConfigError("strategy pipeline needs a model that lists its layers; this one lists none",
                      "use gpt2, vgg or conv_stack, or another strategy");
  stage_ = world_->rank() % k;
  pipeline_index_ = world_->rank() / k;
  pipelines_ = world / k;
  try {
    ranges_ = cut_layers(options_.balance, weights_of(layers), k);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string("strategy.stages: ") + e.what(), "use fewer stages");
  }
  const LayerRange mine = ranges_[static_cast<size_t>(stage_)];
  layers_.assign(layers.begin() + static_cast<std::ptrdiff_t>(mine.begin),
                 layers.begin() + static_cast<std::ptrdiff_t>(mine.end));
  broadcast_from_rank_zero(*model_, *world_);
  make_groups();
  tie_weights();
  place_layers(context.device);
  make_optimizer(context);
  messages_ = std::make_unique<Messages>(pipeline_, context.device);
}

// zero_stage 1 with replicas: the stage's weights laid out in units over the replicas, each
// rank stepping its part (the gradients' mean reduce-scattered into it), as zero's stage 1.
void PipelineStrategy::make_optimizer(const StrategyContext& context) {
  std::vector<torch::Tensor> stepped = owned_;
  if (options_.zero_stage == 1 && replicas_ && !owned_.empty()) {
    const auto bucket_bytes = static_cast<int64_t>(options_.bucket_mb * 1024 * 1024);
    units_ = bucketed_units(owned_, bucket_bytes, replicas_, ZeroStage::optimizer_state);
    stepped.clear();
    for (const auto& unit : units_) stepped.push_back(unit->master());
  }
  optimizer_ = context.make_optimizer(stepped);
  step_ = std::make_unique<TrainingStep>(model_, stepped, context.techniques, context.device,
                                         context.meter);
}

// Every rank makes every group, in one order: a pipeline's consecutive ranks, and the ranks
// of one stage across the pipelines.
void PipelineStrategy::make_groups() {
  const int k = options_.stages;
  pipeline_ = world_;
  if (pipelines_ == 1) return;
  for (int p = 0; p < pipelines_; ++p) {
    std::vector<int> ranks;
    for (int s = 0; s < k; ++s) ranks.push_back(p * k + s);
    if (auto group = world_->subgroup(ranks)) pipeline_ = group;
  }
  for (int s = 0; s < k; ++s) {
    std::vector<int> ranks;
    for (int p = 0; p < pipelines_; ++p) ranks.push_back(p * k + s);
    if (auto group = world_->subgroup(ranks)) replicas_ = group;
  }
}

// A weight belongs to the stage whose layer registers it; a layer of another stage that reads
// it (tied_parameters()) makes the two stages share it.
void PipelineStrategy::tie_weights() {
  const auto layers = model_->layers();
  std::vector<int> stage_of(layers.size());
  for (size_t s = 0; s < ranges_.size(); ++s)
    for (size_t l = ranges_[s].begin; l < ranges_[s].end; ++l) stage_of[l] = static_cast<int>(s);
  std::unordered_map<Impl, int> owner;
  for (size_t l = 0; l < layers.size(); ++l)
    for (const auto& p : layers[l]->parameters()) owner.emplace(impl(p), stage_of[l]);
  std::map<Impl, std::set<int>> readers;  // of weights read on more than one stage
  std::map<Impl, torch::Tensor> weights;
  for (size_t l = 0; l < layers.size(); ++l)
    for (const auto& t : layers[l]->tied_parameters()) {
      auto found = owner.find(impl(t));
      if (found == owner.end() || found->second == stage_of[l]) continue;
      readers[impl(t)].insert({found->second, stage_of[l]});
      weights[impl(t)] = t;
    }
  // One group per set of stages and pipeline, made by every rank in the same order.
  std::map<std::set<int>, std::shared_ptr<Communicator>> groups;
  for (const auto& [weight, stages] : readers) {
    if (groups.count(stages)) continue;
    for (int p = 0; p < pipelines_; ++p) {
      std::vector<int> ranks;
      for (int s : stages) ranks.push_back(p * options_.stages + s);
      if (auto group = world_->subgroup(ranks)) groups[stages] = group;
    }
  }
  for (const auto& [weight, stages] : readers) {
    if (!stages.count(stage_)) continue;
    const int owning = owner.at(weight);
    tied_.push_back({weights.at(weight), groups.at(stages),
                     static_cast<int>(std::distance(stages.begin(), stages.find(owning)))});
  }
  std::set<Impl> seen;
  for (const auto& layer : layers_)
    for (const auto& p : layer->parameters())
      if (p.requires_grad() && seen.insert(impl(p)).second) owned_.push_back(p);
}

// Weights no layer of this stage reads are dropped; the rest go to the device.
void PipelineStrategy::place_layers(torch::Device device) {
  std::set<Impl> read;
  for (const auto& layer : layers_) {
    for (const auto& p : layer->parameters()) read.insert(impl(p));
    for (const auto& t : layer->tied_parameters()) read.insert(impl(t));
  }
  torch::NoGradGuard no_grad;
  for (auto& p : model_->parameters())
    if (!read.count(impl(p))) p.set_data(torch::empty({0}, p.options()));
  model_->to(device);
}

torch::Tensor PipelineStrategy::run_layers(const torch::Tensor& x, bool checkpoint) const {
  torch::Tensor h = x;
  for (const auto& layer : layers_)
    h = checkpoint ? checkpointed_forward(layer, h) : layer->forward(h);
  return h;
}

// A training step's receive: the time it waited is the stage's share of the bubble.
torch::Tensor PipelineStrategy::timed_receive(int from, const std::string& words) {
  const auto start = std::chrono::steady_clock::now();
  torch::Tensor received = messages_->receive(from, words);
  meter_->waited(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return received;
}

void PipelineStrategy::forward(int micro, const std::vector<MicroBatch>& micro_batches,
                               StepResult& result, std::vector<torch::Tensor>& predictions) {
  const MicroBatch& mb = micro_batches[static_cast<size_t>(micro)];
  InFlight& slot = in_flight_[static_cast<size_t>(micro)];
  slot.input = first_stage() ? mb.batch.inputs : timed_receive(stage_ - 1, activations_of(micro));
  if (slot.input.is_floating_point()) slot.input.requires_grad_(true);
  meter_->forward_begins();
  {
    compat::AutocastScope autocast(device_.type(), step_->autocast());
    torch::Tensor output = run_layers(slot.input, step_->techniques().checkpoint_layers);
    if (last_stage()) {
      torch::Tensor loss = model_->loss(output, mb.batch.targets);
      slot.output = weighted_loss(loss, mb, micro_batches.size());
      predictions.push_back(predictions_of(output));
      const torch::Tensor part = slot.output.detach().to(torch::kFloat);
      result.loss = result.loss.defined() ? result.loss + part : part;
    } else {
      slot.output = output;
    }
  }
  meter_->forward_ends();
  if (!last_stage()) messages_->send(slot.output, stage_ + 1, activations_of(micro));
}

void PipelineStrategy::backward(int micro) {
  InFlight& slot = in_flight_[static_cast<size_t>(micro)];
  if (last_stage()) {
    step_->loss_for_backward(slot.output).backward();
  } else {
    const torch::Tensor grad = timed_receive(stage_ + 1, gradients_of(micro));
    torch::autograd::backward({slot.output}, {grad});
  }
  meter_->backward_ends();
  if (!first_stage()) {
    const torch::Tensor& grad = slot.input.grad();
    messages_->send(grad.defined() ? grad : torch::zeros_like(slot.input), stage_ - 1,
                    gradients_of(micro));
  }
  slot = InFlight{};
}

// Sharded units keep their gradients as views of one flat vector: zeroed, not dropped.
void PipelineStrategy::drop_gradients() {
  for (auto& unit : units_) unit->begin_step();
  if (units_.empty())
    for (auto& p : owned_) p.mutable_grad().reset();
  for (auto& t : tied_)
    if (units_.empty() || t.group->rank() != t.owner) t.weight.mutable_grad().reset();
}

StepResult PipelineStrategy::train_step(const Batch& batch) {
  drop_gradients();
  const std::vector<MicroBatch> micro =
      split_micro_batches(batch, step_->techniques().micro_batches);
  const int m = static_cast<int>(micro.size());
  in_flight_.assign(micro.size(), InFlight{});
  StepResult result;
  std::vector<torch::Tensor> predictions;
  for (const auto& action : schedule_named(options_.schedule, stage_, options_.stages, m)) {
    if (action.kind == PipelineAction::forward)
      forward(action.micro_batch, micro, result, predictions);
    else
      backward(action.micro_batch);
  }
  messages_->wait_for_sends();
  reduce_gradients();
  if (!last_stage())
    result.loss = torch::zeros({}, torch::kFloat);
  else
    result.predictions = joined_predictions(predictions);
  // Clipping's squares and fp16's overflow flags: over the stages, and the replicas' parts.
  const bool sharded = options_.zero_stage == 1 && replicas_;  // alike on every rank
  Communicator* holders = sharded ? world_.get() : pipeline_.get();
  step_->apply(*optimizer_, result, [holders](torch::Tensor& t) {
    holders->describe_next("pipeline sums the gradients' norms or overflows");
    holders->all_reduce_sum({t});
  });
  share_updates();
  share_tied_weights();
  return result;
}

// Tied weights: every reader's gradient summed. Then each stage's over the pipelines, averaged.
void PipelineStrategy::reduce_gradients() {
  for (auto& t : tied_) {
    torch::Tensor& grad = t.weight.mutable_grad();
    if (!grad.defined()) grad = torch::zeros_like(t.weight);
    t.group->describe_next("pipeline sums a tied weight's gradient");
    t.group->all_reduce_sum({grad});
  }
  if (!replicas_) return;
  if (!units_.empty()) {
    for (auto& unit : units_) unit->start_reduction();
    for (auto& unit : units_) unit->finish_reduction();
    return;
  }
  std::vector<torch::Tensor> grads;
  for (auto& p : owned_) {
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    grads.push_back(p.mutable_grad().div_(pipelines_));
  }
  replicas_->describe_next("pipeline averages a stage's gradients over the replicas");
  replicas_->all_reduce_sum(grads);
}

// zero_stage 1: every replica's stepped part into the weights, before a tied weight's owner
// sends its new value on.
void PipelineStrategy::share_updates() {
  std::vector<std::unique_ptr<PendingCollective>> sharing;
  for (auto& unit : units_) sharing.push_back(unit->start_sharing_updates());
  for (auto& pending : sharing) pending->wait();
}

// The owner stepped a tied weight: the other readers take its new value.
void PipelineStrategy::share_tied_weights() {
  torch::NoGradGuard no_grad;
  for (auto& t : tied_) {
    t.group->describe_next("pipeline shares a tied weight's update");
    t.group->broadcast({t.weight.detach()}, t.owner);
  }
}

StepResult PipelineStrategy::eval_step(const Batch& batch) {
  c10::InferenceMode inference;
  torch::Tensor x = first_stage() ? batch.inputs : messages_->receive(stage_ - 1, kEvaluation);
  torch::Tensor output;
  {
    compat::AutocastScope autocast(device_.type(), step_->autocast());
    output = run_layers(x, false);
  }
  StepResult result;
  if (!last_stage()) {
    messages_->send(output, stage_ + 1, kEvaluation);
    messages_->wait_for_sends();
    result.loss = torch::zeros({}, torch::kFloat);
    return result;
  }
  {
    compat::AutocastScope autocast(device_.type(), step_->autocast());
    result.loss = model_->loss(output, batch.targets).to(torch::kFloat);
  }
  result.predictions = predictions_of(output);
  return result;
}

void PipelineStrategy::set_learning_rate(double lr) {
  strategies::set_learning_rate(*optimizer_, lr);
}

// Every stage of a pipeline takes the same samples; the pipelines split them as ddp's ranks.
torch::Tensor PipelineStrategy::shard_samples(const torch::Tensor& order, Split split) const {
  return replica_samples(order, split, pipeline_index_, pipelines_, options_.drop_last);
}

}  // namespace runner::strategies
