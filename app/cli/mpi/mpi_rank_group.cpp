// SPDX-License-Identifier: GPL-3.0-or-later
// The ranks of an MPI job behind RankGroup. Only the thread that called MPI_Init_thread calls
// MPI (MPI_THREAD_FUNNELED): the counting threads never do; progress reaches MPI through the
// job's progress callback, which runs on that thread.
#include "cli/rank_group.h"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <deque>
#include <stdexcept>

namespace tpacf::cli {

namespace {

// Point-to-point messages beside the collectives: progress to rank 0, failure notices to all.
constexpr int kProgressTag = 7101;
constexpr int kFailureTag = 7102;

// A progress report on the wire: fraction, pairs/s, pairs done, flags.
struct ProgressMessage {
    double fraction;
    double pairsPerSecond;
    std::uint64_t pairsDone;
    std::uint32_t flags; // 1: preparing, 2: final
    std::uint32_t padding;
};

void check(int code, const char* what) {
    if (code != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING] = {};
        int length = 0;
        MPI_Error_string(code, text, &length);
        throw std::runtime_error(std::string("MPI: ") + what + " failed: " + text);
    }
}

class MpiRankGroup final : public RankGroup {
public:
    MpiRankGroup(int& argc, char**& argv) {
        int provided = 0;
        check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
        // Errors come back as codes (check() turns them into exceptions) instead of aborting.
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &m_size);
        // The ranks that share this host (and its GPUs): each takes its own share of them.
        MPI_Comm host = MPI_COMM_NULL;
        if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL,
                                &host) == MPI_SUCCESS &&
            host != MPI_COMM_NULL) {
            MPI_Comm_rank(host, &m_hostRank);
            MPI_Comm_size(host, &m_hostSize);
            MPI_Comm_free(&host);
        }
    }

    ~MpiRankGroup() override {
        // Sends whose receiver stopped listening (a failed run) are let go; their buffers live
        // in m_outbox until here.
        for (MPI_Request& request : m_requests)
            if (request != MPI_REQUEST_NULL)
                MPI_Request_free(&request);
        MPI_Finalize();
    }

    int rank() const noexcept override { return m_rank; }
    int size() const noexcept override { return m_size; }
    int hostRank() const noexcept override { return m_hostRank; }
    int hostSize() const noexcept override { return m_hostSize; }

    std::string hostName() const override {
        char name[MPI_MAX_PROCESSOR_NAME] = {};
        int length = 0;
        if (MPI_Get_processor_name(name, &length) != MPI_SUCCESS)
            return "?";
        return std::string(name, static_cast<std::size_t>(length));
    }

    std::optional<RankFailure> agree(const std::optional<RankFailure>& mine) override {
        // Severity first (errors beat cancellations), then the lowest rank of that severity.
        const int severity = mine ? static_cast<int>(mine->kind) : 0;
        int worst = 0;
        check(MPI_Allreduce(&severity, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "agree");
        if (worst == 0)
            return std::nullopt;
        const int candidate = severity == worst ? m_rank : INT_MAX;
        int speaker = 0;
        check(MPI_Allreduce(&candidate, &speaker, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "agree");
        RankFailure failure;
        if (m_rank == speaker)
            failure = *mine;
        failure.rank = speaker;
        int header[2] = {static_cast<int>(failure.kind), failure.exitCode};
        check(MPI_Bcast(header, 2, MPI_INT, speaker, MPI_COMM_WORLD), "agree");
        failure.kind = static_cast<RankFailure::Kind>(header[0]);
        failure.exitCode = header[1];
        int length = static_cast<int>(failure.line.size());
        check(MPI_Bcast(&length, 1, MPI_INT, speaker, MPI_COMM_WORLD), "agree");
        failure.line.resize(static_cast<std::size_t>(length));
        check(MPI_Bcast(failure.line.data(), length, MPI_CHAR, speaker, MPI_COMM_WORLD), "agree");
        return failure;
    }

    void announceFailure() override {
        if (m_announced)
            return;
        m_announced = true;
        for (int other = 0; other < m_size; ++other)
            if (other != m_rank)
                post(nullptr, 0, MPI_BYTE, other, kFailureTag);
    }

    bool peerFailed() override {
        if (!m_peerFailed) {
            int flag = 0;
            MPI_Status status;
            MPI_Iprobe(MPI_ANY_SOURCE, kFailureTag, MPI_COMM_WORLD, &flag, &status);
            if (flag) {
                MPI_Recv(nullptr, 0, MPI_BYTE, status.MPI_SOURCE, kFailureTag, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                m_peerFailed = true;
            }
        }
        return m_peerFailed;
    }

    void sumToRoot(std::span<std::uint64_t> values) override {
        reduce(values.data(), values.size(), MPI_UINT64_T);
    }
    void sumToRoot(std::span<double> values) override {
        reduce(values.data(), values.size(), MPI_DOUBLE);
    }

    std::vector<std::string> gatherToRoot(const std::string& mine) override {
        const int length = static_cast<int>(mine.size());
        std::vector<int> lengths(static_cast<std::size_t>(m_size));
        check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
              "gather");
        std::vector<int> offsets(lengths.size(), 0);
        std::string all;
        if (m_rank == 0) {
            for (std::size_t r = 1; r < lengths.size(); ++r)
                offsets[r] = offsets[r - 1] + lengths[r - 1];
            all.resize(static_cast<std::size_t>(offsets.back() + lengths.back()));
        }
        check(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                          MPI_CHAR, 0, MPI_COMM_WORLD),
              "gather");
        std::vector<std::string> texts;
        if (m_rank == 0)
            for (std::size_t r = 0; r < lengths.size(); ++r)
                texts.push_back(all.substr(static_cast<std::size_t>(offsets[r]),
                                           static_cast<std::size_t>(lengths[r])));
        return texts;
    }

    std::vector<int> ranksDifferingFromRoot(std::uint64_t value) override {
        std::uint64_t root = value;
        check(MPI_Bcast(&root, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "compare");
        const int differs = root != value ? 1 : 0;
        std::vector<int> all(static_cast<std::size_t>(m_size));
        check(MPI_Allgather(&differs, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD),
              "compare");
        std::vector<int> ranks;
        for (int r = 0; r < m_size; ++r)
            if (all[static_cast<std::size_t>(r)])
                ranks.push_back(r);
        return ranks;
    }

    void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "barrier"); }

    double maxOverRanks(double value) override {
        double largest = value;
        check(MPI_Allreduce(&value, &largest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "max");
        return largest;
    }

    void sendProgress(const RankProgress& progress) override {
        if (m_rank == 0)
            return;
        // A report still in flight means rank 0 is busy: this one would only queue behind it.
        if (!progress.final && m_lastProgress < m_requests.size()) {
            int done = 0;
            MPI_Test(&m_requests[m_lastProgress], &done, MPI_STATUS_IGNORE);
            if (!done)
                return;
        }
        const ProgressMessage message{
            progress.fraction, progress.pairsPerSecond, progress.pairsDone,
            (progress.preparing ? 1u : 0u) | (progress.final ? 2u : 0u), 0};
        m_lastProgress = post(&message, sizeof message, MPI_BYTE, 0, kProgressTag);
    }

    void receiveProgress(std::vector<RankProgress>& latest) override {
        latest.resize(static_cast<std::size_t>(m_size));
        for (;;) {
            int flag = 0;
            MPI_Status status;
            MPI_Iprobe(MPI_ANY_SOURCE, kProgressTag, MPI_COMM_WORLD, &flag, &status);
            if (!flag)
                return;
            ProgressMessage message{};
            MPI_Recv(&message, sizeof message, MPI_BYTE, status.MPI_SOURCE, kProgressTag,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            RankProgress& into = latest[static_cast<std::size_t>(status.MPI_SOURCE)];
            into.fraction = message.fraction;
            into.pairsPerSecond = message.pairsPerSecond;
            into.pairsDone = message.pairsDone;
            into.preparing = (message.flags & 1u) != 0;
            into.final = into.final || (message.flags & 2u) != 0;
        }
    }

private:
    // Starts a non-blocking send whose buffer lives as long as this object: the receiver may
    // never take it (rank 0 failed) and the run must not hang on it. Returns its request slot.
    std::size_t post(const void* data, std::size_t bytes, MPI_Datatype type, int to, int tag) {
        m_outbox.emplace_back(static_cast<const char*>(data),
                              static_cast<const char*>(data) + bytes);
        m_requests.push_back(MPI_REQUEST_NULL);
        check(MPI_Isend(m_outbox.back().data(), static_cast<int>(bytes), type, to, tag,
                        MPI_COMM_WORLD, &m_requests.back()),
              "send");
        return m_requests.size() - 1;
    }

    template <typename T> void reduce(T* values, std::size_t count, MPI_Datatype type) {
        // MPI counts are int: large histograms go in slices.
        constexpr std::size_t kSlice = std::size_t{1} << 28;
        for (std::size_t begin = 0; begin < count; begin += kSlice) {
            const int n = static_cast<int>(std::min(kSlice, count - begin));
            if (m_rank == 0)
                check(MPI_Reduce(MPI_IN_PLACE, values + begin, n, type, MPI_SUM, 0, MPI_COMM_WORLD),
                      "reduce");
            else
                check(MPI_Reduce(values + begin, nullptr, n, type, MPI_SUM, 0, MPI_COMM_WORLD),
                      "reduce");
        }
        if (count == 0) {
            // Every rank still takes part, so that the collectives stay in step.
            T none{};
            if (m_rank == 0)
                check(MPI_Reduce(MPI_IN_PLACE, &none, 0, type, MPI_SUM, 0, MPI_COMM_WORLD),
                      "reduce");
            else
                check(MPI_Reduce(&none, nullptr, 0, type, MPI_SUM, 0, MPI_COMM_WORLD), "reduce");
        }
    }

    int m_rank = 0;
    int m_size = 1;
    int m_hostRank = 0;
    int m_hostSize = 1;
    bool m_announced = false;
    bool m_peerFailed = false;
    std::deque<std::vector<char>> m_outbox;
    std::deque<MPI_Request> m_requests;
    std::size_t m_lastProgress = SIZE_MAX; // slot of the last progress report; SIZE_MAX: none
};

} // namespace

std::unique_ptr<RankGroup> makeMpiRankGroup(int& argc, char**& argv) {
    return std::make_unique<MpiRankGroup>(argc, argv);
}

} // namespace tpacf::cli
