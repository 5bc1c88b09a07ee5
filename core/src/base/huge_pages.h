// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Large arrays backed by 2 MB pages where the system offers them for the asking (Linux's
// transparent huge pages in "madvise" mode): a catalog of 10^6 points first touches 40 MB, and
// filling 11 such catalogs on every core at once faulted in 4 KB pages was bound by the page
// faults, which also hold up a GPU driver starting beside the reading.
#include <cstddef>
#include <vector>

namespace tpacf::detail {

/// Asks for 2 MB pages on the whole 2 MB pages inside [data, data + bytes); advice only: without
/// transparent huge pages nothing changes. Call it before the memory is first touched.
void adviseHugePages(void* data, std::size_t bytes) noexcept;

/// A column's room for `n` values, reserved (nothing touched yet) and advised as above.
template <class T> void reserveLargeColumn(std::vector<T>& column, std::size_t n) {
    column.reserve(n);
    adviseHugePages(column.data(), column.capacity() * sizeof(T));
}

} // namespace tpacf::detail
