// sort_hwy.cc: the C entry points of Highway's vqsort (libhwy-contrib) that sort.c calls; the
// one C++ file of the build, compiled only when meson found libhwy-contrib.  hwy::Sorter keeps
// per-object scratch and is not to be shared between threads: one per thread.
#include <stddef.h>
#include <stdint.h>

#include <hwy/base.h>
#include <hwy/contrib/sort/vqsort.h>

namespace {
thread_local hwy::Sorter sorter;   // one per thread, shared by the key types
}

extern "C" {
struct cpn_sort_pair;   // {uint64_t idx, key}: hwy::uint128_t's {lo, hi}

void cpn_vqsort_u64(uint64_t *keys, size_t n)
{
    sorter(keys, n, hwy::SortAscending());
}

void cpn_vqsort_i64(int64_t *keys, size_t n)
{
    sorter(keys, n, hwy::SortAscending());
}

void cpn_vqsort_f64(double *keys, size_t n)
{
    sorter(keys, n, hwy::SortAscending());
}

void cpn_vqsort_u128(cpn_sort_pair *pairs, size_t n)
{
    static_assert(sizeof(hwy::uint128_t) == 16, "hwy::uint128_t is {lo, hi}");
    sorter(reinterpret_cast<hwy::uint128_t *>(pairs), n, hwy::SortAscending());
}
}
