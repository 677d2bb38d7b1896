/* test_select.c: the order-statistics kernel (select.c) against sorting, in C: many random lanes
 * (ties, lengths 1..300) through lower/higher/nearest quantiles and medians, strided lanes of a
 * 2-d array, several quantiles at once (the multiselect), NaN lanes and the nan- compaction.
 * NumPy's interpolation arithmetic itself is checked against NumPy by tests/test_quantile_sweep.py. */
#include <math.h>
#include <stdlib.h>

#include "kernels.h"

#include "check.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t rng_state = 12345;
static int rnd_int(int n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rng_state >> 33) % (uint64_t)n);
}

static void test_discrete_against_sort(void)
{
    double x[300], s[300], q[5] = {0.0, 0.1, 0.5, 0.77, 1.0}, out[5];
    for (int trial = 0; trial < 400; trial++) {
        int n = 1 + rnd_int(300), ties = 1 + rnd_int(50);
        for (int i = 0; i < n; i++) s[i] = x[i] = rnd_int(ties) - ties / 2;
        qsort(s, (size_t)n, sizeof *s, cmp_d);
        int64_t shape[1] = {n}, st[1] = {8};
        enum cpn_quantile_method ms[3] = {CPN_QM_LOWER, CPN_QM_HIGHER, CPN_QM_NEAREST};
        for (int mi = 0; mi < 3; mi++) {
            struct cpn_quantile_args qa = {.method = ms[mi], .take = 1, .gdt = CPN_DTYPE_FLOAT64,
                                           .cdt = CPN_DTYPE_FLOAT64, .odt = CPN_DTYPE_FLOAT64,
                                           .nq = 5, .q = q};
            CHECK(cpn_kernel_quantile(&qa, CPN_DTYPE_FLOAT64, (char *)x, 1, shape, st, 1,
                                      (char *)out) == CPN_OK);
            for (int k = 0; k < 5; k++) {
                double v = (n - 1) * q[k];
                int64_t idx = mi == 0 ? (int64_t)floor(v) : mi == 1 ? (int64_t)ceil(v)
                                                                     : (int64_t)nearbyint(v);
                CHECK(out[k] == s[idx]);
            }
        }
        struct cpn_quantile_args qm = {.method = CPN_QM_MEDIAN, .gdt = CPN_DTYPE_FLOAT64,
                                       .cdt = CPN_DTYPE_FLOAT64, .odt = CPN_DTYPE_FLOAT64, .nq = 1};
        CHECK(cpn_kernel_quantile(&qm, CPN_DTYPE_FLOAT64, (char *)x, 1, shape, st, 1,
                                  (char *)out) == CPN_OK);
        CHECK(out[0] == (n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2));
    }
}

static void test_strided_lanes_and_nan(void)
{
    enum { R = 7, C = 4 };
    int32_t x[R * C];
    for (int i = 0; i < R * C; i++) x[i] = (i * 37) % 11;
    int64_t shape[2] = {R, C}, st[2] = {C * 4, 4};
    double out[C];
    struct cpn_quantile_args qm = {.method = CPN_QM_MEDIAN, .gdt = CPN_DTYPE_FLOAT64,
                                   .cdt = CPN_DTYPE_FLOAT64, .odt = CPN_DTYPE_FLOAT64, .nq = 1};
    CHECK(cpn_kernel_quantile(&qm, CPN_DTYPE_INT32, (char *)x, 2, shape, st, 1, (char *)out) == CPN_OK);
    for (int c = 0; c < C; c++) {   /* median of column c: 7 values */
        double col[R];
        for (int r = 0; r < R; r++) col[r] = x[r * C + c];
        qsort(col, R, sizeof *col, cmp_d);
        CHECK(out[c] == col[R / 2]);
    }
    double y[6] = {3, NAN, 1, 2, NAN, 5}, o;
    int64_t s1[1] = {6}, t1[1] = {8};
    CHECK(cpn_kernel_quantile(&qm, CPN_DTYPE_FLOAT64, (char *)y, 1, s1, t1, 1, (char *)&o) == CPN_OK);
    CHECK(isnan(o));
    qm.skip_nan = 1;   /* median of 3, 1, 2, 5 */
    CHECK(cpn_kernel_quantile(&qm, CPN_DTYPE_FLOAT64, (char *)y, 1, s1, t1, 1, (char *)&o) == CPN_OK);
    CHECK(o == 2.5);
    double z[3] = {NAN, NAN, NAN};
    s1[0] = 3;
    CHECK(cpn_kernel_quantile(&qm, CPN_DTYPE_FLOAT64, (char *)z, 1, s1, t1, 1, (char *)&o) == CPN_OK);
    CHECK(isnan(o));
}

int main(void)
{
    test_discrete_against_sort();
    test_strided_lanes_and_nan();
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
