// `runner --dry-run`: each run's resolved TOML and plan, what this machine does with it, and a
// summary table, with nothing trained.
#include "sweep/dry_run.hpp"

#include <fmt/format.h>

#include <optional>

#include "common/one_line.hpp"
#include "plan/dataset_cache.hpp"
#include "plan/estimate.hpp"
#include "ranks/rank_setup.hpp"
#include "report/cells.hpp"
#include "report/print_table.hpp"
#include "sweep/experiment_exit.hpp"
#include "sweep/experiment_runner.hpp"
#include "sweep/run_checks.hpp"

namespace runner::sweep {
namespace {

struct Plan {
  std::optional<plan::RunEstimate> estimate;
  std::string text;
  int failed_exit_code = 0;  // 0: planned
};

void print_error(std::ostream& errors, const std::string& name, const std::string& message,
                 const std::string& hint) {
  errors << "runner: error: " << name << ": " << message << '\n';
  if (!hint.empty()) errors << "  hint: " << hint << '\n';
}

Plan plan_of(const config::RunConfig& run, const ranks::RankSetup& ranks,
             const plugin_host::Registry& registry, plan::DatasetCache& datasets,
             const std::string& name, std::ostream& errors) {
  try {
    plan::RunEstimate estimate =
        plan::estimate_run(run, registry, ranks.world_size, datasets.get(run));
    std::string text = "# estimate: " + plan::estimate_text(estimate) + "\n# plan per rank:\n" +
                       plan::plan_table(estimate);
    return {std::move(estimate), std::move(text), 0};
  } catch (const Error& e) {
    print_error(errors, name, e.what(), e.hint());
    return {std::nullopt, std::string("# estimate: unavailable: ") + e.what() + "\n",
            e.exit_code()};
  } catch (const std::exception& e) {
    print_error(errors, name, one_line(e), "");
    return {std::nullopt, "# estimate: unavailable: " + one_line(e) + "\n",
            static_cast<int>(ErrorClass::runtime)};
  }
}

// What this machine does with the run: nothing to say when it runs it.
struct Here {
  enum class Verdict { runs, skipped, refused, fails } verdict = Verdict::runs;
  std::string why;
};

Here here_of(const config::RunConfig& run, const ranks::RankSetup& setup, const Plan& planned) {
  if (planned.failed_exit_code != 0)
    return {Here::Verdict::fails, "its plan cannot be made (above)"};
  try {
    check_run(run, setup, planned.estimate);
  } catch (const Error& e) {
    return {Here::Verdict::refused, e.what()};
  }
  if (setup.start == ranks::RankStart::local)
    if (auto why = ranks::cannot_run_here(setup)) return {Here::Verdict::skipped, *why};
  return {};
}

std::string verdict_comment(const Here& here) {
  switch (here.verdict) {
    case Here::Verdict::runs: return "";
    case Here::Verdict::skipped: return "# here: skipped: " + here.why + "\n";
    case Here::Verdict::refused:
      return "# here: would refuse the sweep before any run: " + here.why + "\n";
    case Here::Verdict::fails: return "# here: fails: " + here.why + "\n";
  }
  return "";
}

// One table row a run; the reasons below it (the table's notes), each once.
class Summary {
 public:
  void add(size_t index, size_t total, const config::RunConfig& run, const ranks::RankSetup& setup,
           const Plan& planned, const Here& here) {
    table_.rows.push_back({fmt::format("{}/{}", index + 1, total), run.id,
                           run.label.empty() ? "-" : report::note_line(run.label, 44),
                           run.strategy.name, std::to_string(setup.world_size),
                           planned.estimate ? plan::gibibytes(planned.estimate->peak_bytes()) : "-",
                           here_cell(here)});
    ++counts_[static_cast<size_t>(here.verdict)];
  }

  void print(std::ostream& out) const {
    report::print_table(table_, out);
    out << fmt::format("{} of {} run{} here", counts_[0], table_.rows.size(),
                       table_.rows.size() == 1 ? " runs" : "s run");
    if (counts_[1]) out << fmt::format(", {} skipped", counts_[1]);
    if (counts_[3]) out << fmt::format(", {} failing", counts_[3]);
    if (counts_[2])
      out << fmt::format("; {} would refuse the sweep here: none would start", counts_[2]);
    out << "\n";
  }

 private:
  std::string here_cell(const Here& here) {
    static const char* const names[] = {"runs", "skipped", "refused", "fails"};
    const char* name = names[static_cast<size_t>(here.verdict)];
    if (here.verdict == Here::Verdict::runs) return name;
    std::vector<std::string>& notes = table_.notes;
    size_t number = 0;
    while (number < notes.size() && notes[number] != here.why) ++number;
    if (number == notes.size()) notes.push_back(here.why);
    return fmt::format("{} ({})", name, number + 1);
  }

  report::Table table_{{"run", "id", "label", "strategy", "ranks", "est peak/rank", "here"},
                       {},
                       {false, false, false, false, true, true, false}};
  size_t counts_[4] = {0, 0, 0, 0};
};

}  // namespace

int dry_run(const config::Experiment& experiment, const plugin_host::Registry& registry,
            std::ostream& out, std::ostream& errors, bool quiet) {
  const size_t total = experiment.runs.size();
  if (!quiet)
    out << "experiment " << experiment.name << " (" << experiment.file << "): " << total
        << " run(s), results in " << results_path(experiment) << "\n";
  // Planned as if started by hand: a dry run starts no ranks.
  const std::vector<ranks::RankSetup> rank_setups = ranks::rank_setups_of(experiment, {});
  plan::DatasetCache datasets(registry);
  std::vector<int> failed;
  Summary summary;
  for (size_t i = 0; i < total; ++i) {
    const auto& run = experiment.runs[i];
    const std::string name = fmt::format("run {}/{} id {}", i + 1, total, run.id);
    const Plan planned = plan_of(run, rank_setups[i], registry, datasets, name, errors);
    const Here here = here_of(run, rank_setups[i], planned);
    if (!quiet)
      out << "\n# " << name << (run.label.empty() ? "" : "  " + run.label) << "\n"
          << run.resolved_toml << planned.text << verdict_comment(here);
    if (planned.failed_exit_code != 0) failed.push_back(planned.failed_exit_code);
    summary.add(i, total, run, rank_setups[i], planned, here);
  }
  if (!quiet) out << "\n";
  summary.print(out);
  return experiment_exit_code(failed, total);
}

}  // namespace runner::sweep
