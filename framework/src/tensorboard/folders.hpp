// Where the event files go: <dir>/<experiment>/ holds the experiment's hparams summary and
// one folder per run, <label>-<group> (the group alone for a run without a sweep label).
#pragma once

#include <string>

namespace runner::tensorboard {

// `text` as one path component: characters other than letters, digits and ._=,+- become
// '_', a space ',' (a label's keys apart), and it is cut to 120 characters.
std::string path_part(const std::string& text);

std::string experiment_folder(const std::string& dir, const std::string& experiment);
std::string run_folder(const std::string& experiment_folder, const std::string& label,
                       const std::string& group);

// Creates `folder` and its parents; throws DataError naming it when it cannot.
void create_folder(const std::string& folder);

// events.out.tfevents.<Unix seconds>.<host>.<n>, n the event files already there: a name
// that sorts after theirs when they were written in the same second, so TensorBoard reads the
// files in the order they were written.
std::string new_event_file_path(const std::string& folder);

}  // namespace runner::tensorboard
