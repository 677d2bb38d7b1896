/* test_fft.c: the FFT kernel (fft.c, on FFTW3) against a direct O(n^2) DFT, in C: complex to
 * complex both ways, real to complex and back, lengths 1..40 (primes, odd, powers of two), batched
 * along either axis of a 2-d operand with strided (non-contiguous, offset) inputs, a 2-d
 * transform, single precision, and the scale.  Skipped (77) in a build without FFTW.  NumPy's
 * argument rules are checked against NumPy by tests/test_fft.py. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpn_config.h"
#include "kernels.h"

#include "check.h"

static double rnd(void)
{
    static uint64_t s = 99;
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(s >> 11) / 9007199254740992.0 - 0.5;
}

/* y[k] = sum_j x[j] exp(sign 2 pi i jk / n) */
static void dft(int n, const double complex *x, double complex *y, int sign)
{
    for (int k = 0; k < n; k++) {
        long double complex acc = 0;
        for (int j = 0; j < n; j++)
            acc += x[j] * cexpl(sign * 2.0L * 3.14159265358979323846264338327950288L * I * (long double)((long)j * k % n) / n);
        y[k] = (double complex)acc;
    }
}

static double maxabs(int n, const double complex *a) {
    double m = 1.0;
    for (int i = 0; i < n; i++) m = fmax(m, cabs(a[i]));
    return m;
}

static void test_1d_all_kinds(void)
{
    double complex x[40], y[40], ref[40], full[40];
    double r[40], rr[40];
    for (int n = 1; n <= 40; n++) {
        for (int j = 0; j < n; j++) x[j] = rnd() + I * rnd();
        int64_t sh[1] = {n}, st[1] = {16};
        for (int kind = CPN_FFT_C2C_FORWARD; kind <= CPN_FFT_C2C_BACKWARD; kind++) {
            CHECK(cpn_kernel_fft(kind, CPN_DTYPE_COMPLEX128, 1, 1, sh, (char *)x, st, sh, (char *)y, st, 0.5) == CPN_OK);
            dft(n, x, ref, kind == CPN_FFT_C2C_FORWARD ? -1 : 1);
            for (int k = 0; k < n; k++) CHECK(cabs(y[k] - 0.5 * ref[k]) <= 1e-13 * maxabs(n, ref));
        }
        /* r2c: the n//2 + 1 non-negative frequencies of a real signal */
        for (int j = 0; j < n; j++) {
            r[j] = creal(x[j]);
            full[j] = r[j];
        }
        int64_t rs[1] = {8}, hs[1] = {n / 2 + 1};
        CHECK(cpn_kernel_fft(CPN_FFT_R2C, CPN_DTYPE_COMPLEX128, 1, 1, sh, (char *)r, rs, hs, (char *)y, st, 1.0) == CPN_OK);
        dft(n, full, ref, -1);
        for (int k = 0; k <= n / 2; k++) CHECK(cabs(y[k] - ref[k]) <= 1e-13 * maxabs(n, ref));
        /* c2r: back (unnormalised: n times the signal); the input is left as it was */
        double complex keep[40];
        memcpy(keep, y, sizeof y);
        CHECK(cpn_kernel_fft(CPN_FFT_C2R, CPN_DTYPE_COMPLEX128, 1, 1, hs, (char *)y, st, sh, (char *)rr, rs, 1.0 / n) == CPN_OK);
        for (int j = 0; j < n; j++) CHECK(fabs(rr[j] - r[j]) <= 1e-13);
        CHECK(memcmp(keep, y, sizeof y) == 0);
    }
}

static void test_batched_strided_and_2d(void)
{
    enum { R = 7, C = 12 };
    double complex a[R * C * 2], out[R * C], lane[C], ref[C], col[R], refc[R];
    for (int i = 0; i < R * C * 2; i++) a[i] = rnd() + I * rnd();
    /* the operand: a[1:, ::2]-like view of a (R, 2C) array, offset one element */
    const char *base = (const char *)(a + 1);
    int64_t sh[2] = {R, C}, ist[2] = {2 * C * 16, 32}, ost[2] = {C * 16, 16};
    CHECK(cpn_kernel_fft(CPN_FFT_C2C_FORWARD, CPN_DTYPE_COMPLEX128, 2, 2, sh, base, ist, sh, (char *)out, ost, 1.0) == CPN_OK);
    for (int i = 0; i < R; i++) {
        for (int j = 0; j < C; j++) lane[j] = a[1 + i * 2 * C + 2 * j];
        dft(C, lane, ref, -1);
        for (int j = 0; j < C; j++) CHECK(cabs(out[i * C + j] - ref[j]) <= 1e-13 * maxabs(C, ref));
    }
    CHECK(cpn_kernel_fft(CPN_FFT_C2C_BACKWARD, CPN_DTYPE_COMPLEX128, 2, 1, sh, base, ist, sh, (char *)out, ost, 1.0) == CPN_OK);
    for (int j = 0; j < C; j++) {
        for (int i = 0; i < R; i++) col[i] = a[1 + i * 2 * C + 2 * j];
        dft(R, col, refc, 1);
        for (int i = 0; i < R; i++) CHECK(cabs(out[i * C + j] - refc[i]) <= 1e-13 * maxabs(R, refc));
    }
    /* 2-d: rows then columns of the row transforms */
    double complex rows[R * C];
    CHECK(cpn_kernel_fft(CPN_FFT_C2C_FORWARD, CPN_DTYPE_COMPLEX128, 2, 2, sh, base, ist, sh, (char *)rows, ost, 1.0) == CPN_OK);
    CHECK(cpn_kernel_fft(CPN_FFT_C2C_FORWARD, CPN_DTYPE_COMPLEX128, 2, 3, sh, base, ist, sh, (char *)out, ost, 1.0) == CPN_OK);
    for (int j = 0; j < C; j++) {
        for (int i = 0; i < R; i++) col[i] = rows[i * C + j];
        dft(R, col, refc, -1);
        for (int i = 0; i < R; i++) CHECK(cabs(out[i * C + j] - refc[i]) <= 1e-12 * maxabs(R, refc) * C);
    }
}

static void test_single_precision(void)
{
    enum { N = 30 };
    float complex x[N], y[N];
    double complex xd[N], ref[N];
    for (int j = 0; j < N; j++) xd[j] = x[j] = (float)rnd() + I * (float)rnd();
    int64_t sh[1] = {N}, st[1] = {8};
    CHECK(cpn_kernel_fft(CPN_FFT_C2C_FORWARD, CPN_DTYPE_COMPLEX64, 1, 1, sh, (char *)x, st, sh, (char *)y, st, 1.0) == CPN_OK);
    dft(N, xd, ref, -1);
    for (int k = 0; k < N; k++) CHECK(cabs(y[k] - ref[k]) <= 1e-5 * maxabs(N, ref));
}

int main(void)
{
#if !CPN_HAVE_FFTW
    printf("built without FFTW: skipped\n");
    return 77;
#endif
    test_1d_all_kinds();
    test_batched_strided_and_2d();
    test_single_precision();
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
