# SPDX-License-Identifier: GPL-3.0-or-later
"""Ctrl-C stops a long count within a second (KeyboardInterrupt) and leaves nothing running."""
import os
import signal
import threading
import time

import numpy as np
import pytest

import tpacf


def os_threads():
    return len(os.listdir("/proc/self/task"))


@pytest.fixture(scope="module")
def big():
    # 3 x 10^5 points over the whole sky and bins to 160 deg: ~4.5e10 pairs, minutes of work here.
    rng = np.random.default_rng(1)
    n = 300_000
    return tpacf.Catalog(rng.uniform(0, 360, n), np.degrees(np.arcsin(rng.uniform(-1, 1, n))))


BINS = tpacf.Bins.log(1, 9600, per_decade=5, unit="arcmin")


def interrupt_after(seconds):
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


@pytest.mark.parametrize("call", ["count", "correlate"])
def test_sigint_stops_a_long_count(big, call):
    small = tpacf.Catalog(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]))
    before = os_threads()
    timer = interrupt_after(0.5)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            if call == "count":
                tpacf.count(big, bins=BINS, backend="cpu")
            else:
                tpacf.correlate(big, big, bins=BINS, backend="cpu")
    finally:
        timer.cancel()
        timer.join()
    stopped = time.monotonic() - start
    assert stopped < 0.5 + 1.0, "stopped %.2f s after the start" % stopped
    # Every worker joined: the threads of the process are those of before.
    deadline = time.monotonic() + 1.0
    while os_threads() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert os_threads() <= before
    # And the next call counts as usual.
    assert tpacf.count(small, bins=tpacf.Bins.log(1, 60, unit="deg")).counts.sum() == 3


def test_the_gil_is_released_while_counting(big):
    # Another Python thread runs while the count does: it ticks many times, and stops it.
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()

    def stop_after_a_while(report):
        if len(ticks) > 30:
            raise TimeoutError("enough")

    try:
        with pytest.raises(TimeoutError):
            tpacf.count(big, bins=BINS, backend="cpu", progress=stop_after_a_while)
    finally:
        done.set()
        ticker.join()
    assert len(ticks) > 30


def test_sigint_stops_a_long_file_read(tmp_path):
    # A file that takes about 3 s to parse on one thread on this machine (its rate measured on a
    # tenth of a million-row file first), interrupted early in the read.
    rng = np.random.default_rng(2)
    n = 100_000
    chunk = "".join("%r %r\n" % (float(a), float(d))
                    for a, d in zip(rng.uniform(0, 360, n), rng.uniform(-80, 80, n)))
    path = tmp_path / "big.txt"

    def write(chunks):
        with open(path, "w") as f:
            for _ in range(chunks):
                f.write(chunk)

    write(10)
    start = time.monotonic()
    tpacf.Catalog.read(path, threads=1)
    per_chunk = (time.monotonic() - start) / 10
    chunks = min(400, max(10, int(np.ceil(3.0 / per_chunk))))
    write(chunks)
    after = min(0.3, 0.1 * chunks * per_chunk)
    before = os_threads()
    timer = interrupt_after(after)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            tpacf.Catalog.read(path, threads=1)
    finally:
        timer.cancel()  # where the read ended first, no stray Ctrl-C later
        timer.join()
    stopped = time.monotonic() - start
    assert stopped < after + 1.0, "stopped %.2f s after the start" % stopped
    deadline = time.monotonic() + 1.0
    while os_threads() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert os_threads() <= before
    # The same file reads in full afterwards.
    assert tpacf.Catalog.read(path, threads=0).size == chunks * n
