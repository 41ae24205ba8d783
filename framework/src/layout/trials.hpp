// The trials of `runner plan --trials K`: the best predicted layouts as one experiment file of a
// zipped sweep, each run a few steps, and which layouts are still worth trying after some were
// measured (results/plan_trials.hpp reads the measured steps back).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "layout/search.hpp"

namespace runner::layout {

// The first candidate's resolved TOML with its [strategy] and techniques swept: a [sweep] in
// zip mode whose points are the candidates' strategy tables and their micro-batches, precision
// and checkpointing, and the step predicted for each (experiment.plan_step_s, no part of a
// run's id); every run `steps` steps of one epoch, each step logged.
std::string trials_toml(const std::vector<Candidate>& candidates, int64_t steps);

// A layout tried: its predicted and measured step.
struct TriedLayout {
  double predicted_s = 0;
  double measured_s = 0;
};

// The most flattering measured/predicted ratio an untried layout may be given: the smallest of
// those tried, divided by their spread (largest over smallest), since an untried layout may
// err beyond the best seen by as much as the tried ones differ. None before two were measured
// (one ratio says nothing of the spread).
std::optional<double> optimistic_ratio(const std::vector<TriedLayout>& tried);

// The fastest measured step of those tried (at least one).
double fastest_measured(const std::vector<TriedLayout>& tried);

// Whether a layout predicted to take `predicted` s a step may still beat those tried: yes
// until two were measured, then only while its prediction at the optimistic ratio is under
// the fastest measured step.
bool may_beat_the_fastest(double predicted, const std::vector<TriedLayout>& tried);

// A best layout as a runnable file: a comment naming it and its step, predicted and measured
// (none: not tried), then its whole resolved config.
std::string layout_file(const Candidate& best, const std::string& experiment_file,
                        std::optional<double> measured_step);

}  // namespace runner::layout
