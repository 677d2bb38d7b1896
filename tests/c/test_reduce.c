/* test_reduce.c: the reduction kernels against brute-force loops, in C: any binary op as a
 * reduction (in-order fold, initial value), argmax/argmin (first extreme, first NaN), scans along
 * each axis of a strided 3-d array, and the where select loop. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels.h"

#include "check.h"

enum { A = 3, B = 4, C = 5 };

static void fill(double *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = (double)((i * 7919) % 23) - 11.0;
}

static void test_reduce_subtract_in_order(void)
{
    double x[A * B * C], out[A * C];
    fill(x, A * B * C);
    int64_t shape[3] = {A, B, C}, st[3] = {B * C * 8, C * 8, 8}, ost[2] = {C * 8, 8};
    /* subtract over axis 1: ((x0 - x1) - x2) - x3 */
    CHECK(cpn_kernel_reduce(CPN_OP_SUBTRACT, CPN_DTYPE_FLOAT64, CPN_DTYPE_FLOAT64, (char *)x, 3, shape,
                            st, 2, (char *)out, ost, NULL, NULL) == CPN_OK);
    for (int i = 0; i < A; i++)
        for (int k = 0; k < C; k++) {
            double r = x[i * B * C + k];
            for (int j = 1; j < B; j++) r -= x[i * B * C + j * C + k];
            CHECK(out[i * C + k] == r);
        }
    /* add over axes 0 and 2 with an initial value */
    double init = 100.0, o2[B];
    int64_t ost2[1] = {8};
    CHECK(cpn_kernel_reduce(CPN_OP_ADD, CPN_DTYPE_FLOAT64, CPN_DTYPE_FLOAT64, (char *)x, 3, shape, st,
                            5, (char *)o2, ost2, &init, NULL) == CPN_OK);
    for (int j = 0; j < B; j++) {
        double r = 100.0;
        for (int i = 0; i < A; i++)
            for (int k = 0; k < C; k++) r += x[i * B * C + j * C + k];
        CHECK(fabs(o2[j] - r) < 1e-12);
    }
    /* bitwise_xor of int64 over everything */
    int64_t iv[A * B * C], io, ir = 0;
    for (int i = 0; i < A * B * C; i++) { iv[i] = i * 37 % 101; ir ^= iv[i]; }
    int64_t ist[3] = {B * C * 8, C * 8, 8};
    CHECK(cpn_kernel_reduce(CPN_OP_BITWISE_XOR, CPN_DTYPE_INT64, CPN_DTYPE_INT64, (char *)iv, 3, shape,
                            ist, 7, (char *)&io, ost2, NULL, NULL) == CPN_OK);
    CHECK(io == ir);
}

static void test_argreduce(void)
{
    double x[8] = {1, 5, 5, 2, NAN, 7, NAN, 0};
    int64_t shape[1] = {8}, st[1] = {8}, ost[1] = {8}, r;
    CHECK(cpn_kernel_argreduce(CPN_OP_MAXIMUM, CPN_DTYPE_FLOAT64, (char *)x, 1, shape, st, 1,
                               (char *)&r, ost) == CPN_OK);
    CHECK(r == 4);   /* the first NaN */
    shape[0] = 4;
    CHECK(cpn_kernel_argreduce(CPN_OP_MAXIMUM, CPN_DTYPE_FLOAT64, (char *)x, 1, shape, st, 1,
                               (char *)&r, ost) == CPN_OK);
    CHECK(r == 1);   /* the first of equal maxima */
    CHECK(cpn_kernel_argreduce(CPN_OP_MINIMUM, CPN_DTYPE_FLOAT64, (char *)x, 1, shape, st, 1,
                               (char *)&r, ost) == CPN_OK);
    CHECK(r == 0);
    /* reversed view: strides negative */
    int64_t rst[1] = {-8};
    CHECK(cpn_kernel_argreduce(CPN_OP_MAXIMUM, CPN_DTYPE_FLOAT64, (char *)(x + 3), 1, shape, rst, 1,
                               (char *)&r, ost) == CPN_OK);
    CHECK(r == 1);   /* x[3], x[2], x[1], x[0]: the first 5 is at index 1 */
}

static void test_scan(void)
{
    double x[A * B * C], out[A * B * C];
    fill(x, A * B * C);
    int64_t shape[3] = {A, B, C}, st[3] = {B * C * 8, C * 8, 8};
    for (int axis = 0; axis < 3; axis++) {
        CHECK(cpn_kernel_scan(CPN_OP_ADD, CPN_DTYPE_FLOAT64, (char *)x, st, (char *)out, st, 3, shape,
                              axis, NULL) == CPN_OK);
        for (int i = 0; i < A; i++)
            for (int j = 0; j < B; j++)
                for (int k = 0; k < C; k++) {
                    int idx[3] = {i, j, k};
                    double r = 0;
                    for (int t = 0; t <= idx[axis]; t++) {
                        int q[3] = {i, j, k};
                        q[axis] = t;
                        r += x[q[0] * B * C + q[1] * C + q[2]];
                    }
                    CHECK(out[i * B * C + j * C + k] == r);
                }
    }
    /* a long lane (lane-by-lane path), in place */
    double y[1000];
    for (int i = 0; i < 1000; i++) y[i] = i % 3;
    int64_t n = 1000, s1 = 8;
    CHECK(cpn_kernel_scan(CPN_OP_MAXIMUM, CPN_DTYPE_FLOAT64, (char *)y, &s1, (char *)y, &s1, 1, &n, 0,
                          NULL) == CPN_OK);
    CHECK(y[0] == 0 && y[1] == 1 && y[999] == 2);
}

static void test_where_loop(void)
{
    cpn_loop_fn f = cpn_kernel_elementwise(CPN_OP_WHERE, CPN_DTYPE_INT32);
    _Bool c[4] = {1, 0, 0, 1};
    int32_t a[4] = {1, 2, 3, 4}, b = -1, o[4];
    char *args[4] = {(char *)c, (char *)a, (char *)&b, (char *)o};
    int64_t st[4] = {1, 4, 0, 4};
    f(args, st, 4, NULL);
    CHECK(o[0] == 1 && o[1] == -1 && o[2] == -1 && o[3] == 4);
}

int main(void)
{
    test_reduce_subtract_in_order();
    test_argreduce();
    test_scan();
    test_where_loop();
    printf("%s\n", failures ? "reduce tests FAILED" : "reduce tests passed");
    return failures != 0;
}
