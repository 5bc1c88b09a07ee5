// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The processes of one tpacf command: this process alone, or the ranks of an MPI job
// (`mpirun -np K tpacf run ...`). Subcommands speak to this interface only; the MPI calls live in
// cli/mpi/ and are built where CMake finds MPI. Every collective call here must be made by every
// rank in the same order, whatever happened on it: that is why failures are agreed on (agree)
// rather than thrown past a collective.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tpacf::cli {

/// How a rank's part of a step failed: the exit code and the one line tpacf prints for it.
/// Errors outrank cancellations: a rank that stopped because another failed reports a
/// cancellation, and the run ends with the other's error.
struct RankFailure {
    enum class Kind : int { Cancelled = 1, Error = 2 };
    Kind kind = Kind::Error;
    int exitCode = 1;
    std::string line; ///< the complete message ("tpacf: ..."), one line
    int rank = 0;     ///< the rank it happened on (set by agree)
};

/// One rank's progress, as rank 0 aggregates it.
struct RankProgress {
    double fraction = 0; ///< 0..1 of the rank's share
    std::uint64_t pairsDone = 0;
    double pairsPerSecond = 0;
    bool preparing = false;
    bool final = false; ///< the rank's count is over (done, failed or cancelled)
};

class RankGroup {
public:
    virtual ~RankGroup() = default;

    virtual int rank() const noexcept = 0;
    virtual int size() const noexcept = 0;
    bool isRoot() const noexcept { return rank() == 0; }
    bool distributed() const noexcept { return size() > 1; }
    /// The node this rank runs on (for the result's metadata).
    virtual std::string hostName() const = 0;
    /// This rank among the ranks of its node, and how many there are: the GPUs of a node are
    /// shared out among its ranks (devicesOfRank), so that each starts only its own.
    virtual int hostRank() const noexcept { return 0; }
    virtual int hostSize() const noexcept { return 1; }

    /// Collective: every rank says how its part went (nullopt: well). Returns, on every rank,
    /// the failure that ends the run (the lowest rank's error, else the lowest rank's
    /// cancellation), or nullopt when every rank did well.
    virtual std::optional<RankFailure> agree(const std::optional<RankFailure>& mine) = 0;
    /// Not collective: tells every other rank that this one failed, so that they stop counting
    /// instead of finishing work whose result is lost (they see it in peerFailed()).
    virtual void announceFailure() = 0;
    /// Whether another rank announced a failure. Polled while counting; cheap.
    virtual bool peerFailed() = 0;

    /// Collective: sums every rank's values element by element into rank 0's (64-bit integers
    /// exactly; doubles in the library's order). Other ranks' values are left as they were.
    virtual void sumToRoot(std::span<std::uint64_t> values) = 0;
    virtual void sumToRoot(std::span<double> values) = 0;
    /// Collective: every rank's text, in rank order, on rank 0 (empty elsewhere).
    virtual std::vector<std::string> gatherToRoot(const std::string& mine) = 0;
    /// Collective: the ranks whose `value` differs from rank 0's, on every rank (empty: all
    /// hold the same).
    virtual std::vector<int> ranksDifferingFromRoot(std::uint64_t value) = 0;

    /// Collective: returns once every rank called it (benchmarks start their clocks together).
    virtual void barrier() = 0;
    /// Collective: the largest of every rank's `value`, on every rank.
    virtual double maxOverRanks(double value) = 0;

    /// Not collective: a rank other than 0 reports its progress to rank 0 (dropped while the
    /// previous report is still in flight, except a final one). Rank 0 ignores it.
    virtual void sendProgress(const RankProgress& progress) = 0;
    /// Rank 0: the reports that arrived since the last call, into latest[rank] (sized size()).
    virtual void receiveProgress(std::vector<RankProgress>& latest) = 0;
};

/// This process alone: every collective is the identity.
std::unique_ptr<RankGroup> makeSingleProcess();
/// The ranks of an MPI job where this build has MPI and an MPI launcher started the process
/// (mpirun, srun: it sets OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_SIZE); this process alone
/// otherwise, so a plain `tpacf` never starts MPI. Initialises MPI; the group finalises it.
std::unique_ptr<RankGroup> makeRankGroup(int& argc, char**& argv);
/// Whether this build can run under MPI.
bool mpiBuilt() noexcept;
/// Whether an MPI launcher started this process (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_SIZE set).
bool startedByMpiLauncher();
/// Why this process must not run: an MPI launcher started several processes and this build has
/// no MPI, so each would do the whole job and write the same files. "" otherwise.
std::string launchedWithoutMpi();

} // namespace tpacf::cli
