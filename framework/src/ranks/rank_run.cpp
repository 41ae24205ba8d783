// One rank of a run: connect, train, report.
#include "ranks/rank_run.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <thread>

#include "common/one_line.hpp"
#include "distributed/connect.hpp"
#include "distributed/hang_report.hpp"
#include "distributed/peer_failure.hpp"
#include "interrupt/interrupt.hpp"
#include "record/record_run.hpp"
#include "runner/errors.hpp"

namespace runner::ranks {
namespace {

distributed::RankConnection connect(const RankSetup& setup, const ThisRank& self,
                                    const c10::intrusive_ptr<c10d::Store>& store,
                                    const config::TrainSettings& train) {
  distributed::ConnectSpec spec;
  spec.backend = setup.backend;
  spec.store = distributed::run_scope(store, self.run_key);
  spec.beat_store =
      distributed::run_scope(distributed::connect_store(self.store, setup.timeout), self.run_key);
  spec.store_address = distributed::address_text(self.store);
  spec.loopback = self.loopback;
  spec.node_address = self.node_addr;
  spec.rank = self.rank;
  spec.world_size = setup.world_size;
  spec.timeout = setup.timeout;
  spec.waits = std::make_shared<distributed::WaitClock>();
  spec.ledger = std::make_shared<distributed::CollectiveLedger>(
      static_cast<size_t>(train.collective_ledger_entries));
  spec.stall_timeout = std::chrono::seconds(train.stall_timeout_s);
  spec.check_collectives = train.check_collectives;
  return distributed::connect_ranks(spec);
}

// Under torchrun or srun no launcher of ours sees the ranks end: a failed rank waits a moment
// for the others to publish where they are, then says where every rank was in its own log, and
// rank 0 keeps the report in the results file.
void report_where_ranks_were(const RankSetup& setup, const ThisRank& self,
                             results::RunWriter& writer, c10d::Store& run_store,
                             const std::string& error) {
  if (setup.start != RankStart::outside) return;
  std::this_thread::sleep_for(2 * distributed::kBeat);
  std::vector<distributed::RankSeen> ranks;
  for (int r = 0; r < setup.world_size; ++r)
    ranks.push_back({r, "", distributed::published_state(run_store, r)});
  const distributed::HangReport report = distributed::hang_report(ranks);
  const std::string first_line = report.first_line.empty() ? error : report.first_line;
  fmt::print(stderr, "rank {}: where the ranks were: {}\n", self.rank, first_line);
  for (const std::string& line : report.detail)
    fmt::print(stderr, "rank {}:   {}\n", self.rank, line);
  std::fflush(stderr);
  try {
    writer.record_hang_report({self.attempt, first_line, report.detail});
  } catch (const Error&) {
    // The failure itself is recorded next; a report that cannot be written loses no more.
  }
}

}  // namespace

results::Summary train_as_rank(const config::RunConfig& run, const plugin_host::Registry& registry,
                               record::Console& console, results::RunWriter& writer,
                               const RankSetup& setup, const ThisRank& self,
                               const c10::intrusive_ptr<c10d::Store>& store,
                               const checkpoint::CheckpointSettings& checkpoints) {
  const std::string prefix = "rank " + std::to_string(self.rank) + ": ";
  const auto record_failure = [&writer](const std::string& e) { record::record_failed(writer, e); };
  distributed::RankConnection connection = [&] {
    const InterruptibleWait rendezvous(prefix, record_failure);
    return connect(setup, self, store, run.train);
  }();
  const auto run_store = distributed::run_scope(store, self.run_key);
  train::RankContext context{connection.communicator, self.local_rank,
                             setup.local_world_size,  self.attempt,
                             connection.waits,        connection.ledger};
  // A signal stops training at the next step's start; a collective whose peer already stopped
  // would hold this rank until its timeout.
  const InterruptibleWait collectives(prefix, record_failure, std::chrono::seconds(1));
  try {
    results::Summary summary =
        train::train_run(run, registry, console, writer, context, checkpoints);
    connection.health->report_done();
    // No rank tears its connections down while another still reads from them.
    connection.communicator->barrier();
    return summary;
  } catch (const distributed::PeerFailure& e) {
    connection.health->publish_state();
    connection.health->report_peer_failure(e.what());
    report_where_ranks_were(setup, self, writer, *run_store, e.what());
    throw;
  } catch (const Error& e) {
    connection.health->publish_state();
    connection.health->report_failure(e.what(), e.hint());
    report_where_ranks_were(setup, self, writer, *run_store, e.what());
    throw;
  } catch (const std::exception& e) {
    connection.health->publish_state();
    connection.health->report_failure(one_line(e));
    report_where_ranks_were(setup, self, writer, *run_store, one_line(e));
    throw;
  }
}

}  // namespace runner::ranks
