// SPDX-License-Identifier: GPL-3.0-or-later
// Host arrays of the work list (host_array.h).
#include "host_array.h"

#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tpacf::cuda::detail {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kLargeArray = std::size_t{8} << 20;
} // namespace

void* allocateHostArray(std::size_t bytes) {
    if (bytes < kLargeArray)
        return ::operator new(bytes);
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* memory = std::aligned_alloc(kHugePage, rounded);
    if (!memory)
        throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    // Advice only: where transparent huge pages are off, the pages stay small.
    ::madvise(memory, rounded, MADV_HUGEPAGE);
#endif
    return memory;
}

void freeHostArray(void* memory, std::size_t bytes) noexcept {
    if (bytes < kLargeArray)
        ::operator delete(memory);
    else
        std::free(memory);
}

} // namespace tpacf::cuda::detail
