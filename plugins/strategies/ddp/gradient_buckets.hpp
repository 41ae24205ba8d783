// DDP's gradient buckets: the parameters, in reverse order of registration (about the order
// backward produces their gradients), packed into flat buffers of at most bucket_bytes. As the
// last gradient of a bucket arrives, the bucket is averaged over the ranks with an all-reduce
// that runs while backward goes on; buckets start strictly in order, so every rank issues the
// same collectives in the same order.
#pragma once

#include <runner/runner.hpp>

#include <memory>
#include <vector>

namespace runner::strategies {

class GradientBuckets {
 public:
  GradientBuckets(std::vector<torch::Tensor> parameters, int64_t bucket_bytes,
                  std::shared_ptr<Communicator> communicator, bool overlap);

  // Before the backward that reduces: no bucket has a gradient yet. Outside
  // begin_backward()..finish_backward() gradients only accumulate in .grad (micro-batches).
  void begin_backward();
  // After that backward: starts the buckets still waiting (a parameter that backward did not
  // reach contributes what .grad holds, or zeros), waits for all, and points each parameter's
  // .grad into its bucket.
  void finish_backward();

  size_t bucket_count() const { return buckets_.size(); }
  // (bucket -> parameter indices), for tests and the README's numbers.
  std::vector<std::vector<size_t>> layout() const;

 private:
  struct Slot {
    size_t bucket = 0;
    int64_t offset = 0;  // in elements, into the bucket's flat buffer
    bool ready = false;
  };
  struct Bucket {
    torch::Tensor flat;  // (elements) one dtype, one device
    std::vector<size_t> parameters;
    size_t ready = 0;
    std::unique_ptr<PendingCollective> reduction;
  };

  void assign_buckets(int64_t bucket_bytes);
  void gradient_ready(size_t parameter, const torch::Tensor& grad);
  void start_ready_buckets();
  void start(Bucket& bucket);
  torch::Tensor view_in_bucket(size_t parameter);

  std::vector<torch::Tensor> parameters_;
  std::shared_ptr<Communicator> communicator_;
  bool overlap_;
  std::vector<Slot> slots_;
  std::vector<Bucket> buckets_;
  size_t next_to_start_ = 0;
  bool armed_ = false;  // between begin_backward() and finish_backward()
};

}  // namespace runner::strategies
