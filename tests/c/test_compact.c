/* test_compact.c: the compaction kernels (compact.c) against a brute-force C-order walk, in C:
 * random masks of every density over strided and broadcast (stride 0) 1-3-d operands, every item
 * size, sizes that make one chunk and many, on 1 and 4 threads (the output must not change);
 * and the gather kernel of integer-array indexing. */
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

#include "check.h"

static uint64_t rng_state = 424242;
static int rnd_int(int n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rng_state >> 33) % (uint64_t)n);
}

static void one(int ndim, const int64_t *shape, size_t item, int density, int threads)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    /* The source is a reversed-stride view of a buffer twice as long in the last dimension; the
     * mask is contiguous, or broadcast along dimension 0 when ndim > 1 and density is odd. */
    int64_t sst[3], mst[3], acc = (int64_t)item * 2;
    for (int d = ndim - 1; d >= 0; d--) {
        sst[d] = acc;
        acc *= shape[d];
    }
    char *sbuf = malloc((size_t)acc + item), *mbuf = malloc((size_t)n + 1);
    for (int64_t i = 0; i < acc; i++) sbuf[i] = (char)rnd_int(256);
    int64_t macc = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        mst[d] = macc;
        macc *= shape[d];
    }
    if (ndim > 1 && (density & 1)) mst[0] = 0;
    for (int64_t i = 0; i < n; i++) mbuf[i] = rnd_int(100) < density ? (char)(1 + rnd_int(3)) : 0;
    /* brute force */
    char *want = malloc((size_t)n * item + 1), *got = malloc((size_t)n * item + 1);
    int64_t *wi = malloc((size_t)(n * ndim + 1) * sizeof *wi), *gi = malloc((size_t)(n * ndim + 1) * sizeof *gi);
    int64_t count = 0, idx[3] = {0, 0, 0};
    for (int64_t lin = 0; lin < n; lin++) {
        int64_t q = lin, so = 0, mo = 0;
        for (int d = ndim - 1; d >= 0; d--) {
            idx[d] = q % shape[d];
            q /= shape[d];
            so += idx[d] * sst[d];
            mo += idx[d] * mst[d];
        }
        if (mbuf[mo]) {
            memcpy(want + count * (int64_t)item, sbuf + so, item);
            for (int d = 0; d < ndim; d++) wi[d * n + count] = idx[d];   /* stride n for now */
            count++;
        }
    }
    cpn_kernel_set_threads(threads);
    CHECK(cpn_kernel_count_true(ndim, shape, mbuf, mst) == count);
    CHECK(cpn_kernel_compact(item, ndim, shape, sbuf, sst, mbuf, mst, got, count) == CPN_OK);
    CHECK(memcmp(want, got, (size_t)(count * (int64_t)item)) == 0);
    CHECK(cpn_kernel_nonzero(ndim, shape, mbuf, mst, gi, count) == CPN_OK);
    for (int d = 0; d < ndim; d++)
        for (int64_t j = 0; j < count; j++) CHECK(gi[d * count + j] == wi[d * n + j]);
    /* a wrong count is an error, not a write past the end */
    if (count > 0) CHECK(cpn_kernel_compact(item, ndim, shape, sbuf, sst, mbuf, mst, got, count - 1) != CPN_OK);
    free(sbuf); free(mbuf); free(want); free(got); free(wi); free(gi);
}

/* gather: rows of a strided 3-d source named by indices (negatives, repeats) against a loop. */
static void test_gather(int threads)
{
    enum { N = 7, R = 5, L = 3, M = 40 };
    double src[N][R][2 * L], out[M][R][L];
    for (int i = 0; i < N; i++)
        for (int r = 0; r < R; r++)
            for (int l = 0; l < 2 * L; l++) src[i][r][l] = i * 100 + r * 10 + l;
    int64_t idx[M], shape[3] = {N, R, L}, st[3] = {R * 2 * L * 8, 2 * L * 8, 16};
    for (int j = 0; j < M; j++) idx[j] = rnd_int(2 * N) - N;
    cpn_kernel_set_threads(threads);
    CHECK(cpn_kernel_gather(8, 3, shape, (char *)src, st, (char *)idx, 8, M, (char *)out) == CPN_OK);
    for (int j = 0; j < M; j++)
        for (int r = 0; r < R; r++)
            for (int l = 0; l < L; l++) CHECK(out[j][r][l] == src[(idx[j] + N) % N][r][2 * l]);
    idx[3] = N;
    CHECK(cpn_kernel_gather(8, 3, shape, (char *)src, st, (char *)idx, 8, M, (char *)out) == CPN_ERR_INDEX);
}

/* scatter: rows written in index order (the last of repeats wins), other rows untouched. */
static void test_scatter(void)
{
    enum { N = 6, L = 4, M = 9 };
    double dst[N][2 * L], want[N][2 * L], val[M][L];
    for (int i = 0; i < N; i++)
        for (int l = 0; l < 2 * L; l++) dst[i][l] = want[i][l] = -1 - i - l;
    int64_t idx[M], shape[2] = {N, L}, dst_st[2] = {2 * L * 8, 16}, val_st[2] = {L * 8, 8};
    for (int j = 0; j < M; j++) {
        idx[j] = rnd_int(2 * N) - N;
        for (int l = 0; l < L; l++) {
            val[j][l] = j * 10 + l;
            want[(idx[j] + N) % N][2 * l] = val[j][l];
        }
    }
    CHECK(cpn_kernel_scatter(8, 2, shape, (char *)dst, dst_st, (char *)val, val_st, (char *)idx, 8, M) == CPN_OK);
    CHECK(memcmp(dst, want, sizeof dst) == 0);
    idx[0] = -N - 1;
    CHECK(cpn_kernel_scatter(8, 2, shape, (char *)dst, dst_st, (char *)val, val_st, (char *)idx, 8, M) == CPN_ERR_INDEX);
}

int main(void)
{
    test_scatter();
    test_gather(1);
    test_gather(4);
    const size_t items[] = {1, 2, 4, 8, 16};
    const int64_t shapes[][3] = {{1, 0, 0}, {7, 0, 0}, {300001, 0, 0}, {5, 9, 0}, {700, 301, 0},
                                 {3, 4, 5}, {2, 0, 3}, {40, 50, 70}};
    const int ndims[] = {1, 1, 1, 2, 2, 3, 3, 3};
    for (size_t s = 0; s < sizeof ndims / sizeof ndims[0]; s++)
        for (size_t it = 0; it < sizeof items / sizeof items[0]; it++)
            for (int density = 0; density <= 100; density += 25)
                for (int th = 1; th <= 4; th *= 4) one(ndims[s], shapes[s], items[it], density + (it & 1), th);
    printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
