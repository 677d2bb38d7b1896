/* interp.c: numpy.interp of real values in one pass (NumPy's compiled_base.c, arr_interp).
 *
 * For each query x[i]: the segment of the table xp found by NumPy's binary_search_with_guess
 * (the previous query's segment tried first, so sorted queries cost a compare or two each), then
 * NumPy's formula -- slope (fp[j+1] - fp[j]) / (xp[j+1] - xp[j]), value slope * (x - xp[j]) +
 * fp[j], retried from the right end where that is NaN, fp[j] where both are NaN and the ends
 * agree -- with NumPy's cases: NaN queries give themselves, below xp[0] lval, above xp[-1] rval,
 * on a point (or the last one) its value.  The same operations in the same order as NumPy's loop,
 * so results are its bits; the search reproduces NumPy's even for an unsorted xp, whose queries
 * are then searched in order as NumPy's are; a sorted table's are split among the threads. */
#include <math.h>
#include <stdbool.h>

#include "kernels.h"

#define LIKELY_IN_CACHE_SIZE 8

/* NumPy's binary_search_with_guess: the j with arr[j] <= key < arr[j + 1] (-1 below arr[0],
 * len above arr[len - 1]) for a sorted arr, searched near `guess` first. */
static int64_t search_with_guess(double key, const double *arr, int64_t len, int64_t guess)
{
    int64_t imin = 0, imax = len;
    if (key > arr[len - 1]) return len;
    if (key < arr[0]) return -1;
    if (len <= 4) {   /* linear search; key >= arr[0] here */
        int64_t i;
        for (i = 1; i < len && key >= arr[i]; ++i) {}
        return i - 1;
    }
    if (guess > len - 3) guess = len - 3;
    if (guess < 1) guess = 1;
    /* the most likely values: guess - 1, guess, guess + 1 */
    if (key < arr[guess]) {
        if (key < arr[guess - 1]) {
            imax = guess - 1;
            if (guess > LIKELY_IN_CACHE_SIZE && key >= arr[guess - LIKELY_IN_CACHE_SIZE])
                imin = guess - LIKELY_IN_CACHE_SIZE;
        } else {
            return guess - 1;
        }
    } else {
        if (key < arr[guess + 1]) return guess;
        if (key < arr[guess + 2]) return guess + 1;
        imin = guess + 2;
        if (guess < len - LIKELY_IN_CACHE_SIZE - 1 && key < arr[guess + LIKELY_IN_CACHE_SIZE])
            imax = guess + LIKELY_IN_CACHE_SIZE;
    }
    while (imin < imax) {
        const int64_t imid = imin + ((imax - imin) >> 1);
        if (key >= arr[imid]) imin = imid + 1;
        else imax = imid;
    }
    return imin - 1;
}

static void interp_run(const double *x, int64_t n, const double *xp, const double *fp, int64_t lenxp,
                       double lval, double rval, double *out)
{
    if (lenxp == 1) {
        const double xv = xp[0], fv = fp[0];
        for (int64_t i = 0; i < n; i++) out[i] = x[i] < xv ? lval : x[i] > xv ? rval : fv;
        return;
    }
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
        const double xv = x[i];
        if (isnan(xv)) {
            out[i] = xv;
            continue;
        }
        j = search_with_guess(xv, xp, lenxp, j);
        if (j == -1) {
            out[i] = lval;
        } else if (j == lenxp) {
            out[i] = rval;
        } else if (j == lenxp - 1 || xp[j] == xv) {   /* on a point: no non-finite slope */
            out[i] = fp[j];
        } else {
            const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
            double r = slope * (xv - xp[j]) + fp[j];
            if (isnan(r)) {   /* NaN in one direction: try the other */
                r = slope * (xv - xp[j + 1]) + fp[j + 1];
                if (isnan(r) && fp[j] == fp[j + 1]) r = fp[j];
            }
            out[i] = r;
        }
    }
}

/* Is xp sorted (no NaN)?  Then each query's segment is the last j with xp[j] <= x whatever the
 * guess, and the queries may be split among threads, each chain of guesses starting afresh. */
static bool sorted_table(const double *xp, int64_t n)
{
    for (int64_t i = 0; i + 1 < n; i++)
        if (!(xp[i] <= xp[i + 1])) return false;
    return true;
}

void cpn_kernel_interp(const double *x, int64_t n, const double *xp, const double *fp, int64_t lenxp,
                       double lval, double rval, double *out)
{
    /* the team where it pays, measured (a search costs about 16 element-instructions) */
    struct cpn_team_timer tm = {.bucket = -1};
    const int nth = n >= 4096 && sorted_table(xp, lenxp) ? cpn_kernel_team_pick(CPN_TEAM_ELEMENTWISE, 16 * n, &tm) : 1;
    if (nth == 1) {   /* no region (reduce_rows) */
        interp_run(x, n, xp, fp, lenxp, lval, rval, out);
    } else {
#pragma omp parallel for num_threads(nth) schedule(static)
        for (int t = 0; t < nth; t++) {
            const int64_t a = n * t / nth, b = n * (t + 1) / nth;
            interp_run(x + a, b - a, xp, fp, lenxp, lval, rval, out + a);
        }
    }
    cpn_kernel_team_done(&tm);
}
