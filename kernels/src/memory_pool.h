// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The device's default memory pool, which every stream-ordered buffer of a batch comes from
// (DeviceBuffer), kept between the batches of a counter.
//
// Why: at its default (release threshold 0) the pool returns a batch's buffers to the driver at
// the next synchronisation after they are freed, which is the batch's end: about 2 ms per device
// on the standard job's batch (one H200), spent after the last launch (BENCHMARKS.md, "The batch's
// end, one GPU"); and the next batch maps them again. A counter keeps its devices' pools for its
// lifetime and trims them when it goes, so that nothing stays held after a job.
#include <cstdint>

namespace tpacf::cuda::detail {

/// The pool of `device` keeps what it holds between batches (release threshold at its maximum).
/// A driver that refuses leaves the pool as it was (only the batches' speed depends on it).
void keepPoolBetweenBatches(int device) noexcept;

/// Returns what the pool of `device` holds unused to the driver (after synchronising the device,
/// so that the last frees count as done) and sets its release threshold back to 0. Errors are
/// ignored (a destructor's last step; nothing sensible to do).
void trimPool(int device) noexcept;

/// Bytes the pool of `device` holds from the driver, in use or not (0 where the driver cannot
/// tell).
std::uint64_t poolHeldBytes(int device) noexcept;

/// Bytes the pool of `device` holds but no buffer uses: free for the next batch's buffers as
/// much as the device's free memory is (the free-memory check adds them; 0 where the driver
/// cannot tell).
std::uint64_t poolUnusedBytes(int device) noexcept;

} // namespace tpacf::cuda::detail
