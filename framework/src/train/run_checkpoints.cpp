// Saving a run's checkpoints after steps and epochs, and loading the one it resumes from.
#include "train/run_checkpoints.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checkpoint/folders.hpp"
#include "checkpoint/reader.hpp"
#include "checkpoint/run_state.hpp"
#include "common/utc_now.hpp"
#include "runner/version.hpp"

namespace runner::train {
namespace {

using nlohmann::json;

// The generator of `device` (the CPU's, or a GPU's) whose state dropout and initialisation
// draw from.
at::Generator generator_of(torch::Device device) {
  if (device.is_cuda() && !device.has_index()) device = torch::Device(torch::kCUDA, 0);
  return at::globalContext().defaultGenerator(device);
}

torch::Tensor rng_state(torch::Device device) {
  at::Generator generator = generator_of(device);
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_rng_state(torch::Device device, const torch::Tensor& state) {
  at::Generator generator = generator_of(device);
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

// The run plan's peak of each rank: what the layout that wrote the checkpoint expected.
std::vector<double> planned_bytes(const Session& s) {
  std::vector<double> bytes;
  for (const auto& rank : s.measures.plan.ranks) bytes.push_back(rank.total());
  return bytes;
}

json pass_json(const TrainPass& pass) {
  json steps = json::array();
  for (const auto& step : pass.steps)
    steps.push_back({step.step, step.loss, step.learning_rate, step.duration_s});
  return {{"steps", steps},
          {"data_wait_s", pass.data_wait_s},
          {"compute_s", pass.compute_s},
          {"skipped_steps", pass.skipped_steps},
          {"loss_scale", pass.loss_scale}};
}

void read_pass(const json& j, TrainPass& pass) {
  for (const auto& step : j.at("steps"))
    pass.steps.push_back({step.at(0).get<int64_t>(), step.at(1).get<double>(),
                          step.at(2).get<double>(), step.at(3).get<double>()});
  pass.data_wait_s = j.at("data_wait_s").get<double>();
  pass.compute_s = j.at("compute_s").get<double>();
  pass.skipped_steps = j.at("skipped_steps").get<int64_t>();
  pass.loss_scale = j.at("loss_scale").get<double>();
}

json last_epoch_json(const std::optional<results::EpochRecord>& last) {
  if (!last) return nullptr;
  return {{"epoch", last->epoch},
          {"train_loss", last->train_loss},
          {"test_loss", last->test_loss},
          {"test_accuracy", last->test_accuracy}};
}

// Who wrote the checkpoint and where training stood.
checkpoint::Manifest manifest_for(const Session& s, int64_t epoch, int64_t step_in_epoch) {
  checkpoint::Manifest m;
  m.runner_version = RUNNER_VERSION;
  m.experiment = s.run.experiment.get_string("name");
  m.run_id = s.run.id;
  m.model = s.run.model.name;
  m.strategy = s.run.strategy.name;
  m.world_size = s.ranks.world_size();
  m.progress = {s.progress.global_step, epoch, step_in_epoch};
  m.written_at = utc_now();
  return m;
}

bool is_model_piece(const StatePiece& piece) { return piece.name.rfind("model/", 0) == 0; }

std::optional<results::EpochRecord> read_last_epoch(const json& j) {
  if (j.is_null()) return std::nullopt;
  results::EpochRecord last;
  last.epoch = j.at("epoch").get<int64_t>();
  last.train_loss = j.at("train_loss").get<double>();
  last.test_loss = j.at("test_loss").get<double>();
  last.test_accuracy = j.at("test_accuracy").get<double>();
  return last;
}

}  // namespace

RunCheckpoints::RunCheckpoints(Session& s, checkpoint::CheckpointSettings settings)
    : s_(s), settings_(std::move(settings)) {
  const bool checkpoints = settings_.saves() || !settings_.resume_from.empty();
  if (!checkpoints && !settings_.saves_final_weights()) return;
  const bool has_state = !in_plugin_code(s_, "listing the strategy's state", [&] {
                            return s_.strategy->state_pieces();
                          }).empty();
  if (!has_state && checkpoints)
    throw ConfigError("strategy '" + s_.run.strategy.name + "' cannot save or load checkpoints",
                      "it lists no training state (Strategy::state_pieces): remove "
                      "[checkpoint] every_epochs and every_steps, or use a strategy that saves "
                      "(single, dp, ddp, zero, pipeline, tensor)");
  if (!has_state) {
    s_.console.line("  final weights not kept: strategy '" + s_.run.strategy.name +
                    "' lists no training state");
    settings_.final_weights = false;
    return;
  }
  if (settings_.saves() || settings_.saves_final_weights())
    writer_ = std::make_unique<checkpoint::ShardWriter>(settings_.run_folder, settings_.keep,
                                                        s_.ranks.rank(), s_.ranks.world_size());
  if (writer_)
    writer_->before_commit(
        [&faults = s_.faults](int64_t step) { faults.checkpoint_written(step); });
}

bool RunCheckpoints::due_after_step() const {
  return writer_ && settings_.every_steps > 0 &&
         s_.progress.global_step % settings_.every_steps == 0;
}

bool RunCheckpoints::due_after_epoch(int64_t epoch) const {
  if (!writer_ || !settings_.saves()) return false;  // final weights alone are saved at the end
  const bool last = epoch == s_.loop.epochs;         // the trained model is always kept
  return last || (settings_.every_epochs > 0 && epoch % settings_.every_epochs == 0) ||
         due_after_step();
}

void RunCheckpoints::save(int64_t epoch, int64_t step_in_epoch, const TrainPass* pass,
                          const EarlierEpochs& earlier) {
  enter(s_, distributed::RunPhase::checkpoint);
  const auto start = Clock::now();
  writer_->finish();  // the previous save, when it is still being written
  const double previous_s = seconds_since(start);
  std::vector<StatePiece> pieces = in_plugin_code(s_, "saving the strategy's state",
                                                  [&] { return s_.strategy->state_pieces(); });
  auto add = [&](const std::string& name, const torch::Tensor& tensor) {
    pieces.push_back(
        {checkpoint::rank_entry(s_.ranks.rank(), name), tensor.sizes().vec(), -1, 0, tensor, true});
  };
  add("rng_cpu", rng_state(torch::kCPU));
  if (s_.device.is_cuda()) add("rng_cuda", rng_state(s_.device));
  if (pass) add("pass_metrics", pass->metrics.pack(torch::kCPU));

  checkpoint::Manifest m = manifest_for(s_, epoch, step_in_epoch);
  const int64_t steps_in_pass = pass ? static_cast<int64_t>(pass->steps.size()) : 0;
  m.engine = {{"epochs_recorded", earlier.completed},
              {"steps_recorded", s_.progress.global_step - steps_in_pass},
              {"elapsed_s", earlier.elapsed_s},
              {"train_compute_s", s_.measures.so_far.train_compute_s},
              {"train_samples", s_.measures.so_far.train_samples},
              {"last_epoch", last_epoch_json(earlier.last)},
              {"per_class", s_.progress.last_per_class},
              {"peak_memory_per_rank", s_.measures.so_far.peak_memory_per_rank},
              {"tensor_peak_per_rank", s_.measures.so_far.tensor_peak_per_rank},
              {"state_memory_per_rank", s_.measures.so_far.state_memory_per_rank},
              {"pass", pass ? pass_json(*pass) : json(nullptr)},
              {"config", s_.run.resolved_toml},
              {"planned_bytes_per_rank", planned_bytes(s_)}};
  const auto copy_start = Clock::now();
  writer_->save(pieces, std::move(m));
  double bytes = 0;
  for (const auto& piece : pieces)
    if (piece.saved) bytes += static_cast<double>(piece.values.nbytes());
  s_.console.line(
      fmt::format("  checkpoint at step {}: training waited {:.3f} s ({:.3f} s for the "
                  "previous save, {:.3f} s to copy {:.1f} MiB to host memory)",
                  s_.progress.global_step, seconds_since(start), previous_s,
                  seconds_since(copy_start), bytes / (1 << 20)));
}

void RunCheckpoints::finish() {
  if (writer_) writer_->finish();
}

bool RunCheckpoints::save_final_weights() {
  if (!writer_ || !settings_.saves_final_weights()) return false;
  std::vector<StatePiece> pieces =
      in_plugin_code(s_, "saving the model's weights", [&] { return s_.strategy->state_pieces(); });
  pieces.erase(std::remove_if(pieces.begin(), pieces.end(),
                              [](const StatePiece& piece) { return !is_model_piece(piece); }),
               pieces.end());
  checkpoint::Manifest m = manifest_for(s_, s_.loop.epochs + 1, 0);
  m.weights_only = true;
  writer_->save(pieces, std::move(m));
  writer_->finish();
  s_.console.line("  final weights kept in " +
                  checkpoint::checkpoint_folder(settings_.run_folder, s_.progress.global_step));
  return true;
}

ResumePoint RunCheckpoints::load() {
  ResumePoint point = load_checkpoint();
  if (writer_ && s_.ranks.rank() == 0)
    checkpoint::remove_after(settings_.run_folder, s_.progress.global_step);
  return point;
}

ResumePoint RunCheckpoints::load_checkpoint() {
  if (settings_.resume_from.empty()) return {};
  const std::string& folder = settings_.resume_from;
  if (!settings_.resume_verified) checkpoint::verify(folder);
  checkpoint::CheckpointReader reader(folder);
  const checkpoint::Manifest& m = reader.manifest();
  const std::string experiment = s_.run.experiment.get_string("name");
  if (m.experiment != experiment || m.model != s_.run.model.name)
    throw DataError(fmt::format("checkpoint {} is of experiment '{}' with model '{}', not of '{}' "
                                "with model '{}'",
                                folder, m.experiment, m.model, experiment, s_.run.model.name),
                    "resume a run from a checkpoint of its own experiment");
  checkpoint::check_engine_state(reader);
  checkpoint::check_progress_fits(m, folder, s_.loop.epochs, s_.loop.steps_per_epoch);
  std::vector<StatePiece> pieces = in_plugin_code(s_, "listing the strategy's state",
                                                  [&] { return s_.strategy->state_pieces(); });
  for (const auto& piece : pieces) reader.read_into(piece);
  in_plugin_code(s_, "loading the strategy's state", [&] {
    s_.strategy->state_loaded();
    return 0;
  });

  const int rank = s_.ranks.rank(), world = s_.ranks.world_size();
  if (reader.contains(checkpoint::rank_entry(rank, "rng_cpu")))
    set_rng_state(torch::kCPU, reader.whole(checkpoint::rank_entry(rank, "rng_cpu")));
  if (s_.device.is_cuda() && reader.contains(checkpoint::rank_entry(rank, "rng_cuda")))
    set_rng_state(s_.device, reader.whole(checkpoint::rank_entry(rank, "rng_cuda")));

  const json& engine = m.engine;
  s_.progress.global_step = m.progress.global_step;
  s_.measures.so_far.train_compute_s = engine.at("train_compute_s").get<double>();
  s_.measures.so_far.train_samples = engine.at("train_samples").get<int64_t>();
  s_.progress.last_per_class = engine.at("per_class").get<std::vector<double>>();
  s_.measures.so_far.peak_memory_per_rank =
      engine.at("peak_memory_per_rank").get<std::vector<double>>();
  s_.measures.so_far.tensor_peak_per_rank =
      engine.at("tensor_peak_per_rank").get<std::vector<double>>();
  s_.measures.so_far.state_memory_per_rank =
      engine.at("state_memory_per_rank").get<std::vector<double>>();
  ResumePoint point;
  point.epoch = m.progress.epoch;
  point.step_in_epoch = m.progress.step_in_epoch;
  point.earlier = {engine.at("epochs_recorded").get<int64_t>(),
                   read_last_epoch(engine.at("last_epoch")), engine.at("elapsed_s").get<double>()};
  if (engine.at("pass").is_null()) return point;
  TrainPass pass{PassMetrics(s_.loading.info.num_classes, s_.loading.info.task), {}, 0, 0, 0, 0};
  read_pass(engine.at("pass"), pass);
  // This rank counts the samples of the writer's ranks it stands for: a sum is a sum.
  torch::Tensor sums =
      PassMetrics(s_.loading.info.num_classes, s_.loading.info.task).pack(torch::kCPU);
  for (int old = rank; old < m.world_size; old += world)
    sums += reader.whole(checkpoint::rank_entry(old, "pass_metrics"));
  pass.metrics.unpack(sums);
  point.pass = std::move(pass);
  return point;
}

}  // namespace runner::train
