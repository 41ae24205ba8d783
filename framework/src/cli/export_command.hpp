// `runner export`: a run's latest weights as files PyTorch and safetensors read.
// Returns the process exit code; errors are thrown as runner::Error.
#pragma once

#include <string>

namespace runner::cli {

struct ExportOptions {
  std::string file;    // results file (.h5)
  std::string run;     // its group, id or label
  std::string out;     // the files' path without extension; empty: beside the results file
  bool force = false;  // --force: replace files that hold no exported weights
};

// The weights of the run's latest checkpoint as <stem>.pt (torch.load) and <stem>.safetensors.
int export_command(const ExportOptions& options);

}  // namespace runner::cli
