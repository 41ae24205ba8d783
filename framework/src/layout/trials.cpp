// The trial experiment of a plan, and which layouts may still beat those measured.
#include "layout/trials.hpp"
#include "layout/plan_points.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <runner/errors.hpp>

#include <algorithm>
#include <sstream>

namespace runner::layout {
namespace {

// The run's resolved [strategy] as a table, through its TOML text.
toml::table strategy_table(const config::ComponentConfig& strategy) {
  std::string text = "name = \"" + strategy.name + "\"\n";
  for (const auto& [key, value] : strategy.options.values())
    text += key + " = " + value_to_string(value) + "\n";
  return toml::parse(text);
}

template <typename Each>
toml::array list_of(const std::vector<Candidate>& candidates, const Each& each) {
  toml::array list;
  for (const auto& c : candidates) list.push_back(each(c.layout));
  return list;
}

}  // namespace

std::string trials_toml(const std::vector<Candidate>& candidates, int64_t steps) {
  RUNNER_CHECK(!candidates.empty(), "no layout to try");
  toml::table document = without_layout(candidates.front().run);
  toml::table& train = *document["train"].as_table();
  train.insert_or_assign("epochs", 1);
  train.insert_or_assign("max_steps_per_epoch", steps);
  train.insert_or_assign("log_every", 1);
  // Trials measure steps: they save no checkpoint and keep no weights.
  toml::table checkpoint;
  checkpoint.insert("every_epochs", 0);
  checkpoint.insert("every_steps", 0);
  checkpoint.insert("final_weights", false);
  document.insert_or_assign("checkpoint", checkpoint);
  toml::array strategies;
  for (const auto& c : candidates) strategies.push_back(strategy_table(c.run.strategy));
  toml::table sweep;
  sweep.insert("mode", "zip");
  sweep.insert("strategy", strategies);
  sweep.insert("train.micro_batches",
               list_of(candidates, [](const Layout& l) { return l.micro_batches; }));
  sweep.insert("train.precision", list_of(candidates, [](const Layout& l) {
                 return std::string(precision_name(l.precision));
               }));
  sweep.insert("train.activation_checkpointing", list_of(candidates, [](const Layout& l) {
                 return std::string(l.checkpoint_layers ? "layers" : "none");
               }));
  toml::array predicted;
  for (const auto& c : candidates) predicted.push_back(c.cost.total());
  sweep.insert("experiment.plan_step_s", predicted);
  document.insert_or_assign("sweep", sweep);
  std::ostringstream text;
  text << "# runner plan's trials: the best predicted layouts, " << steps << " steps each\n"
       << document << "\n";
  return text.str();
}

std::optional<double> optimistic_ratio(const std::vector<TriedLayout>& tried) {
  if (tried.size() < 2) return std::nullopt;
  double smallest = tried.front().measured_s / tried.front().predicted_s, largest = smallest;
  for (const auto& t : tried) {
    smallest = std::min(smallest, t.measured_s / t.predicted_s);
    largest = std::max(largest, t.measured_s / t.predicted_s);
  }
  return smallest / (largest / smallest);
}

double fastest_measured(const std::vector<TriedLayout>& tried) {
  RUNNER_CHECK(!tried.empty(), "no layout tried");
  double fastest = tried.front().measured_s;
  for (const auto& t : tried) fastest = std::min(fastest, t.measured_s);
  return fastest;
}

bool may_beat_the_fastest(double predicted, const std::vector<TriedLayout>& tried) {
  const std::optional<double> ratio = optimistic_ratio(tried);
  return !ratio || predicted * *ratio < fastest_measured(tried);
}

std::string layout_file(const Candidate& best, const std::string& experiment_file,
                        std::optional<double> measured_step) {
  const std::string measured =
      measured_step ? fmt::format("measured {:.3g} s", *measured_step) : "not measured";
  return fmt::format(
      "# The layout `runner plan` found fastest for {}: {}\n"
      "# {:.3g} s a step predicted, {}; the whole resolved config follows.\n{}",
      experiment_file, best.layout.label(), best.cost.total(), measured, best.run.resolved_toml);
}

}  // namespace runner::layout
