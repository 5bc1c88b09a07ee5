// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Host arrays of the work list (plain C++): millions of units written once, in parallel.
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tpacf::cuda::detail {

/// Memory for an array of `bytes`: from 8 MB on, aligned to 2 MB and advised for transparent
/// huge pages (Linux), so that a list of 10^6 units (tens of MB, written once on the host's
/// cores and freed with its batch) takes a few hundred page faults rather than tens of
/// thousands; smaller arrays from operator new. Throws std::bad_alloc.
void* allocateHostArray(std::size_t bytes);
/// Gives back what allocateHostArray(bytes) returned.
void freeHostArray(void* memory, std::size_t bytes) noexcept;

/// An allocator that leaves elements of trivial types uninitialised on resize: a work list of
/// millions of units is written once, in parallel, rather than zeroed first on one core.
template <class T> struct DefaultInitAllocator : std::allocator<T> {
    template <class U> struct rebind { using other = DefaultInitAllocator<U>; };
    DefaultInitAllocator() = default;
    template <class U> DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        if (n > std::size_t(-1) / sizeof(T))
            throw std::bad_array_new_length();
        return static_cast<T*>(allocateHostArray(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t n) noexcept { freeHostArray(p, n * sizeof(T)); }
    template <class U> void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
template <class T> using HostArray = std::vector<T, DefaultInitAllocator<T>>;

} // namespace tpacf::cuda::detail
