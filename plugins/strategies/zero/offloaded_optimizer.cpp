// OffloadedOptimizer: one optimizer per master part, its state read from a file and written back.
#include "offloaded_optimizer.hpp"

#include <runner/errors.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <future>
#include <sstream>
#include <system_error>

namespace runner::strategies {
namespace {

namespace fs = std::filesystem;

std::vector<std::unique_ptr<torch::optim::Optimizer>> optimizer_per_part(
    const std::vector<torch::Tensor>& masters, const OptimizerFactory& make) {
  RUNNER_CHECK(!masters.empty(), "an offloaded optimizer needs parameters to step");
  std::vector<std::unique_ptr<torch::optim::Optimizer>> parts;
  for (const auto& m : masters) parts.push_back(make({m}));
  return parts;
}

ConfigError unwritable_offload_folder(const fs::path& folder, const std::string& why) {
  return ConfigError(
      "strategy.offload_dir: cannot write in " + folder.string() + (why.empty() ? "" : ": " + why),
      "set strategy.offload_dir to a folder on a local disk with room for the "
      "optimizer state");
}

void make_writable_folder(const fs::path& folder) {
  std::error_code error;
  fs::create_directories(folder, error);
  const fs::path probe = folder / ".probe";
  std::ofstream(probe) << "runner";
  if (error || !fs::exists(probe))
    throw unwritable_offload_folder(folder, error ? error.message() : "");
  fs::remove(probe, error);
}

// `bytes` into a new file at `path`, each write checked. torch::save straight to a file ends
// the process on a full disk: its writer throws again from its destructor (std::terminate).
void write_state_file(const fs::path& path, const std::string& bytes) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  size_t done = 0;
  while (fd >= 0 && done < bytes.size()) {
    const ssize_t wrote = write(fd, bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) break;
    done += static_cast<size_t>(wrote);
  }
  const int error = fd < 0 || done < bytes.size() ? errno : 0;
  if (fd >= 0) close(fd);
  if (error == 0) return;
  if (error == ENOSPC || error == EDQUOT)
    throw DataError("no space left on " + path.string(),
                    "free space on the disk of strategy.offload_dir, or set it to a folder on "
                    "another disk");
  if (error == EFBIG)
    throw DataError("the file size limit (ulimit -f) stops the writing of " + path.string(),
                    "raise the limit (ulimit -f)");
  throw DataError("cannot write " + path.string() + ": " + std::strerror(error),
                  "set strategy.offload_dir to a folder on a local disk with room for the "
                  "optimizer state");
}

}  // namespace

fs::path make_private_folder(const fs::path& base, const std::string& prefix) {
  std::error_code error;
  fs::create_directories(base, error);
  if (error) throw unwritable_offload_folder(base, error.message());
  std::string name = (base / (prefix + "XXXXXX")).string();
  if (mkdtemp(name.data()) == nullptr) throw unwritable_offload_folder(base, std::strerror(errno));
  return name;
}

OffloadedOptimizer::OffloadedOptimizer(const std::vector<torch::Tensor>& masters,
                                       const OptimizerFactory& make, fs::path folder)
    : OffloadedOptimizer(masters, optimizer_per_part(masters, make), std::move(folder)) {}

OffloadedOptimizer::OffloadedOptimizer(const std::vector<torch::Tensor>& masters,
                                       std::vector<std::unique_ptr<torch::optim::Optimizer>> parts,
                                       fs::path folder)
    : torch::optim::Optimizer({torch::optim::OptimizerParamGroup(masters)},
                              parts.front()->defaults().clone()),
      parts_(std::move(parts)),
      folder_(std::move(folder)) {
  make_writable_folder(folder_);
  for (size_t i = 0; i < parts_.size(); ++i)
    files_.push_back(folder_ / ("part" + std::to_string(i) + ".pt"));
}

OffloadedOptimizer::~OffloadedOptimizer() {
  std::error_code ignored;
  fs::remove_all(folder_, ignored);
}

// Throws a RunError naming the file; runner's own errors (a full disk) pass as they are.
template <typename Action>
void on_state_file(const fs::path& file, Action&& action) {
  try {
    action();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError("offloaded optimizer state " + file.string() + ": " + e.what(),
                   "check the disk of strategy.offload_dir has room for the optimizer state");
  }
}

void OffloadedOptimizer::read_part(size_t i) {
  const fs::path& file = files_[i];
  on_state_file(file, [&] {
    if (fs::exists(file)) torch::load(*parts_[i], file.string());
  });
}

void OffloadedOptimizer::write_part(size_t i) {
  const fs::path& file = files_[i];
  on_state_file(file, [&] {
    const fs::path written = file.string() + ".tmp";
    std::ostringstream bytes;
    torch::save(*parts_[i], bytes);
    write_state_file(written, bytes.str());
    fs::rename(written, file);
  });
  parts_[i]->state().clear();
}

void OffloadedOptimizer::step_part(size_t i) {
  torch::optim::Optimizer& part = *parts_[i];
  part.param_groups()[0].options().set_lr(param_groups()[0].options().get_lr());
  on_state_file(files_[i], [&] { part.step(); });
}

void OffloadedOptimizer::read_in() {
  for (size_t i = 0; i < parts_.size(); ++i) read_part(i);
}

void OffloadedOptimizer::write_out() {
  for (size_t i = 0; i < parts_.size(); ++i) write_part(i);
}

torch::Tensor OffloadedOptimizer::step(LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    torch::AutoGradMode grad(true);
    loss = closure();
  }
  // A future's end waits for its thread: after a failure, the file work in flight ends before
  // the parts it uses can go.
  std::future<void> reading = std::async(std::launch::async, [this] { read_part(0); });
  std::future<void> writing;
  for (size_t i = 0; i < parts_.size(); ++i) {
    reading.get();
    if (i + 1 < parts_.size())
      reading = std::async(std::launch::async, [this, i] { read_part(i + 1); });
    step_part(i);
    if (writing.valid()) writing.get();
    writing = std::async(std::launch::async, [this, i] { write_part(i); });
  }
  writing.get();
  return loss;
}

uintmax_t OffloadedOptimizer::bytes_on_disk() const {
  uintmax_t bytes = 0;
  std::error_code ignored;
  for (const auto& file : files_)
    if (fs::exists(file)) bytes += fs::file_size(file, ignored);
  return bytes;
}

}  // namespace runner::strategies
