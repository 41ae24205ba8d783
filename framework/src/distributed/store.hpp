// The c10d TCP store through which the ranks of a run find each other, with errors that say
// which address failed and why.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <string>

namespace runner::distributed {

struct StoreAddress {
  std::string host;
  int port = 0;  // a server with port 0 takes a free one
};

std::string address_text(const StoreAddress& address);

// The server listens at `address.port` on the interface of `address.host` only (loopback for
// a local launch); it throws RunError when the port is taken or the host is no address of
// this machine. `bound` receives the port it listens on. `all_ranks_local`: every rank runs
// on this machine, so a loopback address is the right one.
c10::intrusive_ptr<c10d::Store> serve_store(const StoreAddress& address,
                                            std::chrono::milliseconds timeout, int& bound,
                                            bool all_ranks_local);

// A client; throws RunError when no server answers at `address` within `timeout`.
c10::intrusive_ptr<c10d::Store> connect_store(const StoreAddress& address,
                                              std::chrono::milliseconds timeout);

// A client of a store that a launcher serves (torchrun's agent), its keys under `prefix` so
// that they do not meet the launcher's own; throws as connect_store does.
c10::intrusive_ptr<c10d::Store> join_launcher_store(const StoreAddress& address,
                                                    const std::string& prefix,
                                                    std::chrono::milliseconds timeout);

// Keys of one run, so that the runs of a sweep sharing a store do not meet each other's.
c10::intrusive_ptr<c10d::Store> run_scope(const c10::intrusive_ptr<c10d::Store>& store,
                                          const std::string& run_key);

}  // namespace runner::distributed
