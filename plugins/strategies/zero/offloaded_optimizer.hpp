// ZeRO's optimizer state offloaded to a disk (ZeRO-Infinity's NVMe offload): each master part
// has an optimizer of its own whose state lives in a file under a folder. While one part steps,
// the next part's state is read in and the previous part's written back, on threads of their
// own, so at most three parts' state is in memory at a time.
#pragma once

#include <torch/torch.h>
#include <runner/strategy.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace runner::strategies {

// A new folder under `base` (made if missing) that only this user may enter, named `prefix` and
// six random characters: never a path another user could have made or planted a link at.
// Throws a ConfigError naming strategy.offload_dir when `base` cannot hold one.
std::filesystem::path make_private_folder(const std::filesystem::path& base,
                                          const std::string& prefix);

class OffloadedOptimizer : public torch::optim::Optimizer {
 public:
  // `folder` is made if missing, and removed with its files when this goes. Throws a
  // ConfigError naming strategy.offload_dir when it cannot be written.
  OffloadedOptimizer(const std::vector<torch::Tensor>& masters, const OptimizerFactory& make,
                     std::filesystem::path folder);
  ~OffloadedOptimizer() override;

  // Each part in turn: its state read, the step at this optimizer's learning rate, its state
  // written (to a temporary file, then renamed) and dropped; the reading of the next part and
  // the writing of the previous overlap the step. Throws a RunError naming the file when one
  // cannot be read or written (a full disk).
  torch::Tensor step(LossClosure closure = nullptr) override;

  // For a checkpoint: every part's state read in from its file (a part never stepped has
  // none), each part's optimizer then holding it until its next step; and after a checkpoint's
  // state was loaded into them, every part's state written to its file and dropped.
  void read_in();
  void write_out();
  size_t part_count() const { return parts_.size(); }
  torch::optim::Optimizer& part(size_t i) { return *parts_[i]; }

  const std::filesystem::path& folder() const { return folder_; }
  // Bytes of the parts' state files.
  uintmax_t bytes_on_disk() const;

 private:
  OffloadedOptimizer(const std::vector<torch::Tensor>& masters,
                     std::vector<std::unique_ptr<torch::optim::Optimizer>> parts,
                     std::filesystem::path folder);
  void step_part(size_t i);  // its state already read in
  void read_part(size_t i);
  void write_part(size_t i);  // then dropped from memory

  std::vector<std::unique_ptr<torch::optim::Optimizer>> parts_;
  std::vector<std::filesystem::path> files_;
  std::filesystem::path folder_;
};

}  // namespace runner::strategies
