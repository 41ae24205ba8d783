// Tensors between neighbouring stages: a fixed-size header (dimensions and type) and then the
// data, so the receiver allocates what the sender computed. Sends are started and waited for
// later: two stages that send to each other at once must not wait on each other.
#pragma once

#include <runner/communicator.hpp>

#include <memory>
#include <vector>

namespace runner::strategies {

class Messages {
 public:
  Messages(std::shared_ptr<Communicator> pipeline, torch::Device device)
      : pipeline_(std::move(pipeline)), device_(device) {}

  // `words`: what the message is, for the rank's ledger ("micro-batch 2's activations").
  void send(const torch::Tensor& tensor, int to, const std::string& words);
  torch::Tensor receive(int from, const std::string& words);  // blocks until it has arrived
  void wait_for_sends();                                      // before the tensors sent may change

 private:
  std::shared_ptr<Communicator> pipeline_;
  torch::Device device_;
  std::vector<std::unique_ptr<PendingCollective>> sends_;
};

}  // namespace runner::strategies
