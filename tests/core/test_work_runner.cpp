// SPDX-License-Identifier: GPL-3.0-or-later
// The project's one runner of worker threads (core/src/counting/work_runner.cpp): every worker runs
// once, the first error and a cancel reach the calling thread after every worker has stopped.
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"
#include "tpacf_test_main.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

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
