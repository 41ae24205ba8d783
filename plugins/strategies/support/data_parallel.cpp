// The host's keys of a strategy's table, broadcasting rank 0's parameters and buffers, and a
// replica's share of an epoch's samples.
#include "runner/strategies/data_parallel.hpp"

namespace runner::strategies {

Schema distributed_keys() {
  Schema schema;
  add_distributed_keys(schema);
  return schema;
}

void broadcast_from_rank_zero(Model& model, Communicator& ranks) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> state;
  for (const auto& p : model.parameters()) state.push_back(p.detach());
  for (const auto& b : model.buffers()) state.push_back(b.detach());
  ranks.describe_next("rank 0's parameters and buffers to every rank");
  ranks.broadcast(state, 0);
}

torch::Tensor replica_samples(const torch::Tensor& order, Split split, int replica, int replicas,
                              bool drop_last) {
  if (split == Split::train) return shard_for_rank(order, replica, replicas, drop_last);
  return order.slice(0, replica, order.size(0), replicas);
}

}  // namespace runner::strategies
