// SPDX-License-Identifier: GPL-3.0-or-later
// The project's one runner of worker threads (core/src/counting/work_runner.cpp): every worker runs
// once, the first error and a cancel reach the calling thread after every worker has stopped; runs
// nested in a worker reuse the outermost run's threads, which it joins.
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"
#include "tpacf_test_main.h"

#include <QTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <latch>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

namespace {

// The process's threads, as the kernel lists them.
std::size_t osThreads() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry :
         std::filesystem::directory_iterator("/proc/self/task"))
        ++count;
    return count;
}

// The kernel thread ids of a run of `workers` workers, all running at once; with `during`, the
// process's threads while they are.
std::vector<long> nestedThreadIds(std::size_t workers, std::size_t* during = nullptr) {
    std::vector<long> ids(workers);
    std::latch allRunning(static_cast<std::ptrdiff_t>(workers));
    std::latch counted(1);
    tpacf::runWorkers(workers, [&](std::size_t worker, const std::atomic<bool>&) {
        ids[worker] = static_cast<long>(::syscall(SYS_gettid));
        allRunning.count_down();
        if (worker == 0) {
            allRunning.wait();
            if (during)
                *during = osThreads();
            counted.count_down();
        }
        counted.wait();
    });
    return ids;
}

} // namespace

class TestWorkRunner : public QObject {
    Q_OBJECT

private slots:
    void everyWorkerRunsOnce_data() {
        QTest::addColumn<int>("workers");
        for (int workers : {1, 2, 3, 8, 33})
            QTest::addRow("%d workers", workers) << workers;
    }

    void everyWorkerRunsOnce() {
        QFETCH(int, workers);
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(workers));
        const auto caller = std::this_thread::get_id();
        std::atomic<bool> ranOnCaller{false};
        tpacf::runWorkers(std::size_t(workers), [&](std::size_t worker, const std::atomic<bool>&) {
            ++runs[worker];
            if (std::this_thread::get_id() == caller)
                ranOnCaller = true;
        });
        for (const auto& count : runs)
            QCOMPARE(count.load(), 1);
        QVERIFY(!ranOnCaller); // the caller only watches
    }

    void firstErrorStopsTheOthers() {
        std::atomic<int> sawStop{0};
        bool threw = false;
        try {
            tpacf::runWorkers(4, [&](std::size_t worker, const std::atomic<bool>& stop) {
                if (worker == 2)
                    throw std::runtime_error("worker 2 failed");
                while (!stop.load())
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                ++sawStop;
            });
        } catch (const std::runtime_error& error) {
            threw = QByteArray(error.what()) == "worker 2 failed";
        }
        QVERIFY(threw);
        QCOMPARE(sawStop.load(), 3); // every other worker was stopped and joined
    }

    void cancelThrowsCancelledAfterJoin() {
        std::atomic<bool> cancel{false};
        std::atomic<int> stopped{0};
        std::atomic<int> ticks{0};
        tpacf::RunnerWatch watch;
        watch.cancel = &cancel;
        watch.interval = std::chrono::milliseconds(5);
        watch.tick = [&] {
            if (++ticks == 3)
                cancel = true;
        };
        bool cancelled = false;
        try {
            tpacf::runWorkers(
                3,
                [&](std::size_t, const std::atomic<bool>& stop) {
                    while (!stop.load())
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    ++stopped;
                },
                watch);
        } catch (const tpacf::Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        QCOMPARE(stopped.load(), 3);
        QVERIFY(ticks.load() >= 3);
    }

    void tickErrorIsRethrown() {
        tpacf::RunnerWatch watch;
        watch.interval = std::chrono::milliseconds(2);
        watch.tick = [] { throw tpacf::ConfigError("progress sink failed"); };
        bool threw = false;
        try {
            tpacf::runWorkers(
                2,
                [](std::size_t, const std::atomic<bool>& stop) {
                    while (!stop.load())
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                },
                watch);
        } catch (const tpacf::ConfigError&) {
            threw = true;
        }
        QVERIFY(threw);
    }

    // Runs nested in a worker take the threads the outermost run keeps (the steps of a GPU
    // batch's list); the outermost run joins them all.
    void nestedRunsReuseThreadsAndNoneOutlivesTheRun() {
        const std::size_t before = osThreads();
        std::vector<long> first, second;
        std::size_t duringSecond = 0, afterPark = 0, duringParked = 0;
        tpacf::runWorkers(1, [&](std::size_t, const std::atomic<bool>&) {
            first = nestedThreadIds(6);
            second = nestedThreadIds(6, &duringSecond);
            tpacf::parkWorkers(10);
            afterPark = osThreads();
            nestedThreadIds(10, &duringParked);
        });
        // The second run's workers are the first's, parked in between (kernel thread ids are not
        // reused soon, unlike std::thread ids).
        std::sort(first.begin(), first.end());
        for (long id : second)
            QVERIFY2(std::binary_search(first.begin(), first.end(), id),
                     "a nested run started a thread while the last run's were parked");
        QCOMPARE(duringSecond, before + 1 + 6); // the outer worker and the six parked ones
        QCOMPARE(duringParked, afterPark);      // parkWorkers started what the run then used
        QVERIFY(afterPark >= before + 1 + 10);
        QCOMPARE(osThreads(), before); // every thread joined as the outermost run returned
    }

    void nestedErrorReachesTheOuterRun() {
        const std::size_t before = osThreads();
        bool threw = false;
        try {
            tpacf::runWorkers(2, [&](std::size_t worker, const std::atomic<bool>&) {
                tpacf::runWorkers(3, [&](std::size_t inner, const std::atomic<bool>&) {
                    if (worker == 1 && inner == 2)
                        throw std::runtime_error("inner failed");
                });
                tpacf::runWorkers(3, [](std::size_t, const std::atomic<bool>&) {});
            });
        } catch (const std::runtime_error& error) {
            threw = QByteArray(error.what()) == "inner failed";
        }
        QVERIFY(threw);
        QCOMPARE(osThreads(), before);
        // The next outermost run starts from nothing and works as usual.
        std::atomic<int> runs{0};
        tpacf::runWorkers(4, [&](std::size_t, const std::atomic<bool>&) { ++runs; });
        QCOMPARE(runs.load(), 4);
    }

    void rangesCoverEveryIndexOnce_data() {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("minPerWorker");
        for (int count : {0, 1, 7, 1000, 1001})
            for (int threads : {0, 1, 3, 16})
                QTest::addRow("count %d, threads %d", count, threads) << count << threads << 1;
        QTest::newRow("min per worker limits workers") << 100 << 8 << 60;
    }

    void rangesCoverEveryIndexOnce() {
        QFETCH(int, count);
        QFETCH(int, threads);
        QFETCH(int, minPerWorker);
        std::vector<int> visits(static_cast<std::size_t>(count), 0);
        std::mutex mutex;
        int calls = 0;
        tpacf::parallelForRanges(
            std::size_t(count),
            [&](std::size_t begin, std::size_t end) {
                const std::lock_guard lock(mutex);
                ++calls;
                for (std::size_t i = begin; i < end; ++i)
                    ++visits[i];
            },
            threads, std::size_t(minPerWorker));
        for (int v : visits)
            QCOMPARE(v, 1);
        if (minPerWorker > 1)
            QCOMPARE(calls, 1);
    }
};

TPACF_TEST_MAIN(TestWorkRunner)
#include "test_work_runner.moc"
