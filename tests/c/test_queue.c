/* test_queue.c: queue, executor, aliasing temporaries and the allocator's failure hook, in C. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "kernels.h"
#include "queue.h"
#include "stats.h"

#include "check.h"

static void test_overlapping_copy(void)
{
    /* a[1:] = a[:-1] must read before it writes, as NumPy does. */
    int64_t n = 10;
    struct cpn_store *s = cpn_store_new(CPN_DTYPE_INT64, 1, &n);
    int64_t *d = cpn_store_data(s);
    for (int i = 0; i < n; i++) d[i] = i;
    struct cpn_view *v = cpn_view_new(s), *hi, *lo;
    cpn_view_slice(v, 0, 1, 1, n - 1, &hi);
    cpn_view_slice(v, 0, 0, 1, n - 1, &lo);
    struct cpn_op op = {.kind = CPN_OPK_CAST, .nin = 1, .nout = 1};
    op.in[0] = lo;
    op.out[0] = hi;
    CHECK(cpn_queue_submit(&op) == CPN_OK);
    CHECK(cpn_queue_length() == 1);
    CHECK(d[1] == 1);  /* deferred: nothing ran yet */
    CHECK(cpn_queue_flush() == CPN_OK);
    for (int i = 1; i < n; i++) CHECK(d[i] == i - 1);
    CHECK(d[0] == 0);
    cpn_view_release(hi);
    cpn_view_release(lo);
    cpn_view_release(v);
    cpn_store_release(s);
}

static void test_add_and_power_error(void)
{
    int64_t n = 5;
    struct cpn_store *a = cpn_store_new(CPN_DTYPE_INT32, 1, &n), *o = cpn_store_new(CPN_DTYPE_INT32, 1, &n);
    int32_t *ad = cpn_store_data(a);
    for (int i = 0; i < n; i++) ad[i] = i - 2;
    struct cpn_view *av = cpn_view_new(a), *ov = cpn_view_new(o);
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_ADD, .dtype = CPN_DTYPE_INT32,
                        .nin = 2, .nout = 1};
    op.in[0] = av;
    op.scalar[1].i32 = 10;
    op.out[0] = ov;
    CHECK(cpn_queue_submit(&op) == CPN_OK);
    CHECK(cpn_queue_flush() == CPN_OK);
    int32_t *od = cpn_store_data(o);
    for (int i = 0; i < n; i++) CHECK(od[i] == i - 2 + 10);
    /* 2 ** a with negative exponents fails at the flush, naming the op */
    op.code = CPN_OP_POWER;
    op.in[0] = NULL;
    op.scalar[0].i32 = 2;
    op.in[1] = av;
    CHECK(cpn_queue_submit(&op) == CPN_OK);
    CHECK(cpn_queue_flush() == CPN_ERR_VALUE);
    CHECK(strstr(cpn_error_message(), "power") != NULL);
    CHECK(cpn_queue_length() == 0);
    cpn_view_release(av);
    cpn_view_release(ov);
    cpn_store_release(a);
    cpn_store_release(o);
}

static void test_reduce(void)
{
    int64_t shape[2] = {3, 4};
    struct cpn_store *a = cpn_store_new(CPN_DTYPE_INT8, 2, shape);
    int8_t *ad = cpn_store_data(a);
    for (int i = 0; i < 12; i++) ad[i] = (int8_t)(100 + i);   /* sums overflow int8, not int64 */
    int64_t m = 4;
    struct cpn_store *o = cpn_store_new(CPN_DTYPE_INT64, 1, &m);
    struct cpn_view *av = cpn_view_new(a), *ov = cpn_view_new(o);
    struct cpn_op op = {.kind = CPN_OPK_REDUCE, .code = CPN_OP_ADD, .dtype = CPN_DTYPE_INT64,
                        .nin = 1, .nout = 1, .axes = 1};
    op.in[0] = av;
    op.out[0] = ov;
    struct cpn_fpreport fp = {0};
    CHECK(cpn_op_execute(&op, &fp) == CPN_OK);
    int64_t *od = cpn_store_data(o);
    for (int j = 0; j < 4; j++) {
        int64_t expect = 0;
        for (int i = 0; i < 3; i++) expect += (int8_t)(100 + 4 * i + j);
        CHECK(od[j] == expect);
    }
    cpn_view_release(av);
    cpn_view_release(ov);
    cpn_store_release(a);
    cpn_store_release(o);
}

static void test_alloc_failure(void)
{
    int64_t n = 4;
    cpn_alloc_fail_after(1);
    CHECK(cpn_store_new(CPN_DTYPE_FLOAT64, 1, &n) == NULL);
    struct cpn_store *s = cpn_store_new(CPN_DTYPE_FLOAT64, 1, &n);
    CHECK(s != NULL);
    cpn_alloc_fail_after(1);
    CHECK(cpn_store_data(s) == NULL);   /* lazily allocated buffer fails cleanly */
    CHECK(cpn_store_data(s) != NULL);   /* and works next time */
    cpn_store_release(s);
}

static void test_philox_vector(void)
{
    /* Known-answer test from the Random123 distribution (philox4x32_10, zero counter and key). */
    uint32_t ctr[4] = {0, 0, 0, 0}, key[2] = {0, 0}, out[4];
    cpn_philox4x32_10(ctr, key, out);
    CHECK(out[0] == 0x6627e8d5u && out[1] == 0xe169c58du && out[2] == 0xbc57ac4cu && out[3] == 0x9b00dbd8u);
    uint32_t ctr2[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
    uint32_t key2[2] = {0xa4093822u, 0x299f31d0u};
    cpn_philox4x32_10(ctr2, key2, out);
    CHECK(out[0] == 0xd16cfe09u && out[1] == 0x94fdccebu && out[2] == 0x5001e420u && out[3] == 0x24126ea1u);
}

/* The uniform draws' AVX2 and AVX-512 paths (where the CPU has them) equal the baseline loop bit
 * for bit: odd lengths, odd offsets, counters crossing 2**32 inside a vector, streams and seeds
 * with high words set. */
static void test_philox_simd_equals_scalar(void)
{
    enum { N = 1000 };
    static double a[N + 8], b[N + 8];
    const int64_t firsts[] = {0, 1, 7, 13, 4096, ((int64_t)1 << 32) - 5, ((int64_t)1 << 33) - 9,
                              ((int64_t)1 << 40) + 3};
    const int64_t lens[] = {0, 1, 7, 8, 9, 15, 17, 31, 32, 33, 65, 333, N};
    const uint64_t seeds[] = {0, 42, 0x123456789abcdefull};
    for (int level = 1; level <= 2; level++)
    for (size_t f = 0; f < sizeof firsts / sizeof firsts[0]; f++)
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
            for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
                uint64_t stream = s * 0x100000001ull;
                int was = cpn_kernel_random_set_simd(level);
                cpn_kernel_random(CPN_RANDOM_UNIFORM, seeds[s], stream, a + 1, firsts[f], lens[l], -2.5, 3.0);
                cpn_kernel_random_set_simd(0);
                cpn_kernel_random(CPN_RANDOM_UNIFORM, seeds[s], stream, b + 1, firsts[f], lens[l], -2.5, 3.0);
                cpn_kernel_random_set_simd(was);
                CHECK(memcmp(a + 1, b + 1, (size_t)lens[l] * sizeof(double)) == 0);
            }
    /* And the baseline is Philox of (index >> 1, stream) under the seed: elements 4 and 5 are
     * words 0, 1 and words 2, 3 of block 2. */
    uint32_t ctr[4] = {2, 0, 0, 0}, key[2] = {42, 0}, w[4];
    cpn_philox4x32_10(ctr, key, w);
    cpn_kernel_random(CPN_RANDOM_UNIFORM, 42, 0, a, 4, 2, 0.0, 1.0);
    CHECK(a[0] == ((double)(w[0] >> 5) * 67108864.0 + (double)(w[1] >> 6)) / 9007199254740992.0);
    CHECK(a[1] == ((double)(w[2] >> 5) * 67108864.0 + (double)(w[3] >> 6)) / 9007199254740992.0);
}

/* Draws of 16 MB and more write with streaming stores (random.c: the vector loop's stores moved
 * to a 64-byte boundary, or a chunk drawn in cache and copied where the boundary falls on an odd
 * element; other distributions and int64 integers through their own paths): the same bits as the
 * baseline at every level, for outputs at every 8-byte offset within a cache line. */
static void test_philox_streaming_stores(void)
{
    enum { N = (1 << 21) + 333 };   /* past 16 MB of float64 */
    double *base = cpn_alloc((N + 16) * sizeof(double)), *ref = cpn_alloc((N + 16) * sizeof(double));
    int64_t *i64 = cpn_alloc((N + 16) * sizeof(int64_t)), *i64ref = cpn_alloc((N + 16) * sizeof(int64_t));
    CHECK(base && ref && i64 && i64ref);
    if (!base || !ref || !i64 || !i64ref) return;
    for (int level = 1; level <= 2; level++)
        for (int off = 0; off < 8; off += 3)
            for (int64_t first = 0; first < 2; first++) {
                int was = cpn_kernel_random_set_simd(0);
                cpn_kernel_random(CPN_RANDOM_UNIFORM, 7, 3, ref, first + 11, N, -1.0, 2.0);
                cpn_kernel_random_set_simd(level);
                cpn_kernel_random(CPN_RANDOM_UNIFORM, 7, 3, base + off, first + 11, N, -1.0, 2.0);
                CHECK(memcmp(base + off, ref, (size_t)N * sizeof(double)) == 0);
                cpn_kernel_random_set_simd(0);
                cpn_kernel_random(CPN_RANDOM_EXPONENTIAL, 7, 4, ref, first, N, 1.5, 0.0);
                cpn_kernel_random_to(CPN_RANDOM_INTEGER, CPN_DTYPE_INT64, 7, 5, i64ref, first, N, 3e9, 0.0, -5);
                cpn_kernel_random_set_simd(level);
                cpn_kernel_random(CPN_RANDOM_EXPONENTIAL, 7, 4, base + off, first, N, 1.5, 0.0);
                /* SLEEF's log1p at the vector levels: within a few ULP of the baseline's libm */
                int close = 1;
                for (int64_t i = 0; i < N; i++)
                    close &= fabs(base[off + i] - ref[i]) <= 1e-14 * fabs(ref[i]) + 1e-300;
                CHECK(close);
                cpn_kernel_random_to(CPN_RANDOM_INTEGER, CPN_DTYPE_INT64, 7, 5, i64 + off, first, N, 3e9, 0.0, -5);
                CHECK(memcmp(i64 + off, i64ref, (size_t)N * sizeof(int64_t)) == 0);
                /* rare rejections: the AVX-512 path from the rounds straight to int64 (a partial
                 * block at each end when first is odd); 999999: some 470 rejections (chunks redone
                 * through the staged path), 2**32 mod 641 == 0: none at all */
                for (int k = 0; k < 2; k++) {
                    const double r = k ? 641.0 : 999999.0;
                    cpn_kernel_random_set_simd(0);
                    cpn_kernel_random_to(CPN_RANDOM_INTEGER, CPN_DTYPE_INT64, 7, 6, i64ref, first, N, r, 0.0, 9);
                    cpn_kernel_random_set_simd(level);
                    cpn_kernel_random_to(CPN_RANDOM_INTEGER, CPN_DTYPE_INT64, 7, 6, i64 + off, first, N, r, 0.0, 9);
                    CHECK(memcmp(i64 + off, i64ref, (size_t)N * sizeof(int64_t)) == 0);
                }
                cpn_kernel_random_set_simd(was);
            }
    cpn_free(base);
    cpn_free(ref);
    cpn_free(i64);
    cpn_free(i64ref);
}

int main(void)
{
    test_alloc_failure();   /* first: later tests leave recycled store records in the pool */
    test_overlapping_copy();
    test_add_and_power_error();
    test_reduce();
    test_philox_vector();
    test_philox_simd_equals_scalar();
    test_philox_streaming_stores();
    CHECK(cpn_stats.stores_live == 0);
    printf("%s\n", failures ? "queue tests FAILED" : "queue tests passed");
    return failures != 0;
}
