// One rank of a run: connect, train, report.
#include "ranks/rank_run.hpp"

#include "common/one_line.hpp"
#include "distributed/connect.hpp"
#include "distributed/peer_failure.hpp"
#include "interrupt/interrupt.hpp"
#include "record/record_run.hpp"
#include "runner/errors.hpp"

namespace runner::ranks {
namespace {

distributed::RankConnection connect(const RankSetup& setup, const ThisRank& self,
                                    const c10::intrusive_ptr<c10d::Store>& store,
                                    size_t ledger_entries) {
  distributed::ConnectSpec spec;
  spec.backend = setup.backend;
  spec.store = distributed::run_scope(store, self.run_key);
  spec.beat_store =
      distributed::run_scope(distributed::connect_store(self.store, setup.timeout), self.run_key);
  spec.store_address = distributed::address_text(self.store);
  spec.loopback = self.loopback;
  spec.rank = self.rank;
  spec.world_size = setup.world_size;
  spec.timeout = setup.timeout;
  if (setup.backend != "nccl") spec.waits = std::make_shared<distributed::WaitClock>();
  spec.ledger = std::make_shared<distributed::CollectiveLedger>(ledger_entries);
  return distributed::connect_ranks(spec);
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
    return connect(setup, self, store, static_cast<size_t>(run.train.collective_ledger_entries));
  }();
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
    connection.health->report_peer_failure(e.what());
    throw;
  } catch (const Error& e) {
    connection.health->report_failure(e.what(), e.hint());
    throw;
  } catch (const std::exception& e) {
    connection.health->report_failure(one_line(e));
    throw;
  }
}

}  // namespace runner::ranks
