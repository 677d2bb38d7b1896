/* test_backend.c: the backend registry, device probing without a GPU, the shared Philox header
 * against the published vectors and the CPU loop, and host/device coherence of stores and the
 * executor's device path on the simulated device (backend_sim.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "cpn_config.h"
#include "kernels.h"
#include "philox.h"
#include "queue.h"
#include "stats.h"

#include "check.h"

static void test_registry(void)
{
    CHECK(cpn_backend_count() == 2 + CPN_HAVE_CUDA);
    CHECK(cpn_backend_get(0) == cpn_cpu_backend());
    CHECK(cpn_backend_find(CPN_BACKEND_SIM) == cpn_sim_backend());
    const struct cpn_backend_i *cuda = cpn_backend_find(CPN_BACKEND_CUDA);
    CHECK((cuda != NULL) == CPN_HAVE_CUDA);
    if (cuda) {
        /* Here there is no driver / no device: zero devices and a reason, never a crash. */
        const char *why = NULL;
        int n = cuda->device_count(&why);
        printf("cuda devices: %d%s%s\n", n, why ? ": " : "", why ? why : "");
        CHECK(n > 0 || (why != NULL && *why));
    }
    CHECK(!strcmp(cpn_backend_active()->name, "cpu"));
}

static void check_cpu_draws(void);

static void test_philox_shared(void)
{
    /* The shared header's rounds reproduce the Random123 vectors... */
    uint32_t c[4] = {0, 0, 0, 0};
    cpn_philox10(c, 0, 0);
    CHECK(c[0] == 0x6627e8d5u && c[1] == 0xe169c58du && c[2] == 0xbc57ac4cu && c[3] == 0x9b00dbd8u);
    uint32_t c2[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
    cpn_philox10(c2, 0xa4093822u, 0x299f31d0u);
    CHECK(c2[0] == 0xd16cfe09u && c2[1] == 0x94fdccebu && c2[2] == 0x5001e420u && c2[3] == 0x24126ea1u);
    /* ...and the CPU loops at every vector level the CPU has (0 baseline, 1 AVX2, 2 AVX-512) */
    for (int level = 0; level <= 2; level++) {
        int was = cpn_kernel_random_set_simd(level);
        check_cpu_draws();
        cpn_kernel_random_set_simd(was);
    }
    /* SLEEF's log/cos/log1p give the same bits on 4 and 8 lanes, so the draws that use them are
     * the same at the AVX2 and AVX-512 levels (on a CPU without AVX-512 both run AVX2) */
    static double e1[2011], e2[2011];
    static const struct { int dist; double p0, p1; } sl[] = {
        {CPN_RANDOM_EXPONENTIAL, 2.0, 0.0}, {CPN_RANDOM_GAMMA, 2.0, 1.5}, {CPN_RANDOM_GAMMA, 7.5, 1.0}};
    for (size_t k = 0; k < sizeof sl / sizeof sl[0]; k++) {
        int was = cpn_kernel_random_set_simd(1);
        cpn_kernel_random(sl[k].dist, 5, 3, e1, 17, 2011, sl[k].p0, sl[k].p1);
        cpn_kernel_random_set_simd(2);
        cpn_kernel_random(sl[k].dist, 5, 3, e2, 17, 2011, sl[k].p0, sl[k].p1);
        cpn_kernel_random_set_simd(was);
        CHECK(!memcmp(e1, e2, sizeof e1));
    }
}

static void check_cpu_draws(void)
{
    /* The CPU loop is the header's per-element function: bit for bit for uniforms,
     * normals (the ziggurat's vector fast path, the header's slow part) and every distribution
     * computed without transcendentals in the loop; within a few ULP where the CPU loop takes
     * SLEEF's vector log/cos/log1p (exponential, gamma above 1). */
    enum { N = 1000 };
    static double u[N], g[N], z[100000];
    cpn_kernel_random(CPN_RANDOM_UNIFORM, 12345, 7, u, 100, N, -2.0, 3.0);
    cpn_kernel_random(CPN_RANDOM_NORMAL, 12345, 8, g, 100, N, 1.0, 2.0);
    for (int i = 0; i < N; i++) {
        double a = cpn_philox_uniform(12345, 7, (uint64_t)(100 + i), -2.0, 3.0);
        double b = cpn_philox_normal(12345, 8, (uint64_t)(100 + i), 1.0, 2.0);
        CHECK(!memcmp(&a, &u[i], 8) && !memcmp(&b, &g[i], 8));   /* the ziggurat: bit for bit */
    }
    /* 10**5 normals, a few hundred through the slow part (wedges, tail): all bit for bit, and
     * at odd offsets */
    cpn_kernel_random(CPN_RANDOM_NORMAL, 777, 5, z, 3, 100000, 0.5, 2.0);
    int slow = 0;
    for (int i = 0; i < 100000; i++) {
        double b = cpn_philox_normal(777, 5, (uint64_t)(3 + i), 0.5, 2.0);
        CHECK(!memcmp(&b, &z[i], 8));
        slow += fabs(z[i] - 0.5) > 2.0 * cpn_zig_x[1];
    }
    CHECK(slow > 10 && slow < 60);   /* 2 * (1 - Phi(r)) * 10**5 = 25.8 beyond the ziggurat's r */
    static const struct { int dist, exact; double p0, p1; } cases[] = {
        {CPN_RANDOM_INTEGER, 1, 1000.0, 0.0}, {CPN_RANDOM_INTEGER, 1, 3.0 * 2251799813685248.0, 0.0},
        {CPN_RANDOM_INTEGER, 1, 4294967296.0, 0.0}, {CPN_RANDOM_INTEGER, 1, 4294967297.0, 0.0},
        {CPN_RANDOM_INTEGER, 1, 3000000000.0, 0.0},
        {CPN_RANDOM_POISSON, 1, 5.0, 0.0}, {CPN_RANDOM_POISSON, 1, 40.0, 0.0},
        {CPN_RANDOM_BINOMIAL, 1, 10.0, 0.3}, {CPN_RANDOM_BINOMIAL, 1, 10.0, 0.8},
        {CPN_RANDOM_BINOMIAL, 1, 500.0, 0.4}, {CPN_RANDOM_HYPERGEOM, 1, 20.0 * 4194304.0, 30.0 * 512 + 15},
        {CPN_RANDOM_UNIT24, 1, 0.0, 0.0}, {CPN_RANDOM_GAMMA, 1, 0.5, 2.0}, {CPN_RANDOM_BETA, 1, 2.0, 3.0},
        {CPN_RANDOM_GAMMA, 0, 2.0, 1.5}, {CPN_RANDOM_EXPONENTIAL, 0, 2.0, 0.0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cpn_kernel_random(cases[k].dist, 99, 11, g, 1000003, N, cases[k].p0, cases[k].p1);
        for (int i = 0; i < N; i++) {
            double b = cpn_philox_draw(cases[k].dist, 99, 11, (uint64_t)(1000003 + i), cases[k].p0, cases[k].p1);
            CHECK(cases[k].exact ? !memcmp(&b, &g[i], 8) : fabs(b - g[i]) <= 1e-13 * (1.0 + fabs(b)));
        }
    }
}

/* On the simulated device: a store written by a device op is read back on the host; a host
 * write is seen by the next device op; the device pool reuses freed blocks. */
static void test_sim_coherence(void)
{
    const struct cpn_backend_i *was = cpn_backend_use(cpn_sim_backend());
    CHECK(cpn_backend_on_device());
    int64_t n = 1000;
    struct cpn_store *a = cpn_store_new(CPN_DTYPE_FLOAT64, 1, &n), *o = cpn_store_new(CPN_DTYPE_FLOAT64, 1, &n);
    double *ad = cpn_store_data(a);
    for (int i = 0; i < n; i++) ad[i] = i;
    struct cpn_view *av = cpn_view_new(a), *ov = cpn_view_new(o);
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_MULTIPLY, .dtype = CPN_DTYPE_FLOAT64,
                        .nin = 2, .nout = 1};
    op.in[0] = av;
    op.in[1] = NULL;
    op.scalar[1].f64 = 3.0;
    op.out[0] = ov;
    CHECK(cpn_queue_submit(&op) == CPN_OK);
    CHECK(cpn_queue_flush() == CPN_OK);
    CHECK(o->dev != NULL && o->dev_state == CPN_WHERE_DEVICE && o->data == NULL);
    double *od = cpn_store_data(o);   /* comes back to the host */
    for (int i = 0; i < n; i++) CHECK(od[i] == 3.0 * i);
    CHECK(o->dev_state == CPN_WHERE_HOST);
    /* a host write (through a pointer taken now: taking it makes the host copy current), then a
     * device op reading it */
    ad = cpn_store_data(a);
    CHECK(a->dev_state == CPN_WHERE_HOST);
    ad[5] = -1.0;
    CHECK(cpn_queue_submit(&op) == CPN_OK);
    CHECK(cpn_queue_flush() == CPN_OK);
    od = cpn_store_data(o);
    CHECK(od[5] == -3.0 && od[6] == 18.0);
    /* an op the device lacks (integer power) runs on the host after the data came back */
    int64_t m = 4;
    struct cpn_store *b = cpn_store_new(CPN_DTYPE_INT64, 1, &m), *bo = cpn_store_new(CPN_DTYPE_INT64, 1, &m);
    struct cpn_view *bv = cpn_view_new(b), *bov = cpn_view_new(bo);
    struct cpn_op ar = {.kind = CPN_OPK_ARANGE, .nin = 0, .nout = 1};
    ar.iparam[0] = 2;
    ar.iparam[1] = 3;
    ar.out[0] = bv;
    CHECK(cpn_queue_submit(&ar) == CPN_OK);
    struct cpn_op pw = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_POWER, .dtype = CPN_DTYPE_INT64, .nin = 2, .nout = 1};
    pw.in[0] = bv;
    pw.in[1] = bv;
    pw.out[0] = bov;
    CHECK(cpn_queue_submit(&pw) == CPN_OK);
    CHECK(cpn_queue_flush() == CPN_OK);
    int64_t *bd = cpn_store_data(bo);
    CHECK(bd[0] == 4 && bd[1] == 27 && bd[2] == 256 && bd[3] == 3125);
    /* the device pool: a freed block is reused by a same-sized request */
    int64_t live = cpn_stats.bytes_live;
    void *p1 = cpn_alloc_device(4096);
    cpn_free_device(p1, 4096);
    void *p2 = cpn_alloc_device(4000);
    CHECK(p1 == p2);
    cpn_free_device(p2, 4000);
    CHECK(cpn_stats.bytes_live == live);
    /* and the failure hook covers device memory */
    cpn_alloc_fail_after(1);
    CHECK(cpn_alloc_device(64) == NULL);
    cpn_error_clear();
    cpn_view_release(av);
    cpn_view_release(ov);
    cpn_view_release(bv);
    cpn_view_release(bov);
    cpn_store_release(a);
    cpn_store_release(o);
    cpn_store_release(b);
    cpn_store_release(bo);
    cpn_alloc_trim();
    cpn_backend_use(was);
}

/* The CPU backend computes a bound op: a strided view and an inline scalar, each bound to
 * {address, shape, byte strides}, with the findings in the report it is given. */
static void test_cpu_compute(void)
{
    const struct cpn_backend_i *cpu = cpn_cpu_backend();
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_TRUE_DIVIDE, .dtype = CPN_DTYPE_FLOAT64,
                        .nin = 2, .nout = 1};
    CHECK(cpu->supports(&op));
    double x[6] = {1, -1, 2, -2, 3, -3}, out[3] = {0, 0, 0}, zero = 0.0;   /* every other: positive */
    const int64_t shape[1] = {3};
    struct cpn_bound_op b = {.op = &op};
    b.in[0] = (struct cpn_bound_arg){.ptr = (char *)x, .ndim = 1, .shape = shape, .st = {2 * sizeof(double)}};
    b.in[1] = (struct cpn_bound_arg){.ptr = (char *)&zero, .ndim = 1, .shape = shape, .st = {0}};
    b.out[0] = (struct cpn_bound_arg){.ptr = (char *)out, .ndim = 1, .shape = shape, .st = {sizeof(double)}};
    struct cpn_fpreport fp = {0};
    CHECK(cpu->compute(&b, &fp) == CPN_OK);
    for (int i = 0; i < 3; i++) CHECK(out[i] > 1e308);   /* x[2i] / 0: +inf (x[i] / 0 would be -inf at 1) */
    CHECK(fp.hw & CPN_FPE_DIVIDE);
    CHECK(!fp.dev);
    /* The simulated device answers the same op (and declines what the CUDA backend lacks). */
    CHECK(cpn_sim_backend()->supports(&op));
    struct cpn_op q = {.kind = CPN_OPK_QUANTILE, .nin = 1, .nout = 1};
    CHECK(cpu->supports(&q) && !cpn_sim_backend()->supports(&q));
}

int main(void)
{
    test_registry();
    test_philox_shared();
    test_sim_coherence();
    test_cpu_compute();
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
