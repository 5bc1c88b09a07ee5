// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/rank_group.h"

#include <cstdlib>

#include <unistd.h>

namespace tpacf::cli {

#ifdef TPACF_HAVE_MPI
// cli/mpi/mpi_rank_group.cpp
std::unique_ptr<RankGroup> makeMpiRankGroup(int& argc, char**& argv);
#endif

namespace {

class SingleProcess final : public RankGroup {
public:
    int rank() const noexcept override { return 0; }
    int size() const noexcept override { return 1; }
    std::string hostName() const override {
        char name[256] = {};
        if (gethostname(name, sizeof name - 1) != 0)
            return "localhost";
        return name;
    }
    std::optional<RankFailure> agree(const std::optional<RankFailure>& mine) override {
        return mine;
    }
    void announceFailure() override {}
    bool peerFailed() override { return false; }
    void sumToRoot(std::span<std::uint64_t>) override {}
    void sumToRoot(std::span<double>) override {}
    std::vector<std::string> gatherToRoot(const std::string& mine) override { return {mine}; }
    std::vector<int> ranksDifferingFromRoot(std::uint64_t) override { return {}; }
    void barrier() override {}
    double maxOverRanks(double value) override { return value; }
    void sendProgress(const RankProgress&) override {}
    void receiveProgress(std::vector<RankProgress>&) override {}
};

} // namespace

// The variables the launchers people use set in every process they start: Open MPI's mpirun,
// PMIx launchers (srun --mpi=pmix, prterun) and PMI-1/2 ones (MPICH's hydra, srun --mpi=pmi2).
bool startedByMpiLauncher() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
        if (std::getenv(name))
            return true;
    return false;
}

std::unique_ptr<RankGroup> makeSingleProcess() {
    return std::make_unique<SingleProcess>();
}

bool mpiBuilt() noexcept {
#ifdef TPACF_HAVE_MPI
    return true;
#else
    return false;
#endif
}

std::string launchedWithoutMpi() {
    if (mpiBuilt())
        return {};
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
        if (const char* value = std::getenv(name); value && std::atoi(value) > 1)
            return std::string("started as one of ") + value +
                   " MPI processes, but this tpacf was built without MPI: each would do the "
                   "whole job (build with MPI, or run one process)";
    return {};
}

std::unique_ptr<RankGroup> makeRankGroup([[maybe_unused]] int& argc,
                                         [[maybe_unused]] char**& argv) {
#ifdef TPACF_HAVE_MPI
    if (startedByMpiLauncher())
        return makeMpiRankGroup(argc, argv);
#else
    static_cast<void>(&startedByMpiLauncher);
#endif
    return makeSingleProcess();
}

} // namespace tpacf::cli
