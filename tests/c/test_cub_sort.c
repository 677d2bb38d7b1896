/* test_cub_sort.c: the CUDA backend's sort and argsort (cuda/sort.cu through cuda/sort_op.c's
 * layouts), without a GPU.
 *
 * cpn_cub_sort with stream CPN_CUB_HOST runs the device path's own keys (sort.cu's sort_key),
 * layouts and output writes on host memory, with a stable sort of each row where the GPU runs
 * CUB's radix sort (itself stable).  Every dtype the device takes (devsort.h) x 1-D and 2-D shapes
 * x axis x contiguous, strided and reversed layouts, values with duplicates, NaN, +-inf and
 * +-0.0, is compared bit for bit with the CPU kernel (cpn_kernel_sort), sort and argsort. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "kernels.h"
#include "sort.h"

#include "check.h"

static const enum cpn_dtype dts[] = {
    CPN_DTYPE_BOOL, CPN_DTYPE_INT8, CPN_DTYPE_UINT8, CPN_DTYPE_INT16, CPN_DTYPE_UINT16,
    CPN_DTYPE_INT32, CPN_DTYPE_UINT32, CPN_DTYPE_INT64, CPN_DTYPE_UINT64, CPN_DTYPE_FLOAT32,
    CPN_DTYPE_FLOAT64};
#define NDT (int)(sizeof dts / sizeof dts[0])

static int64_t checked;

static void put(char *p, enum cpn_dtype dt, double v)
{
    int64_t iv = isfinite(v) ? (int64_t)v : 7;
    switch (dt) {
    case CPN_DTYPE_BOOL: *(_Bool *)p = v != 0; break;
    case CPN_DTYPE_INT8: *(int8_t *)p = (int8_t)iv; break;
    case CPN_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)iv; break;
    case CPN_DTYPE_INT16: *(int16_t *)p = (int16_t)(iv * 1000); break;
    case CPN_DTYPE_UINT16: *(uint16_t *)p = (uint16_t)(iv * 1000); break;
    case CPN_DTYPE_INT32: *(int32_t *)p = (int32_t)(iv * 100000); break;
    case CPN_DTYPE_UINT32: *(uint32_t *)p = (uint32_t)(iv * 100000); break;
    case CPN_DTYPE_INT64: *(int64_t *)p = iv * 10000000000LL; break;
    case CPN_DTYPE_UINT64: *(uint64_t *)p = (uint64_t)(iv * 10000000000LL); break;
    case CPN_DTYPE_FLOAT32: *(float *)p = (float)v; break;
    default: *(double *)p = v; break;
    }
}

/* A value of a small set with many duplicates and the float specials. */
static double value(uint64_t *s)
{
    static const double vals[] = {0.0, -0.0, 1.5, -1.5, 3.0, -2.0, 2.0, 1.0, -1.0};
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    const unsigned r = (unsigned)(*s >> 33) % 12;
    if (r == 9) return NAN;
    if (r == 10) return INFINITY;
    if (r == 11) return -INFINITY;
    return vals[r];
}

/* One case: an (r x c) array (r == 0: 1-D of c) laid out with element strides (sr, sc) in a
 * buffer, sorted along `axis` by both paths into C-ordered outputs. */
static void one(enum cpn_dtype dt, bool arg, int64_t r, int64_t c, int axis, int64_t sr, int64_t sc, uint64_t seed)
{
    const size_t item = cpn_dtype_size(dt), oitem = arg ? 8 : item;
    const int nd = r ? 2 : 1;
    const int64_t rows = r ? r : 1, n = rows * c;
    const int64_t span = (rows - 1) * (sr < 0 ? -sr : sr) + (c - 1) * (sc < 0 ? -sc : sc) + 1;
    char *buf = cpn_alloc((size_t)(n ? span : 1) * item), *o1 = cpn_alloc((size_t)n * oitem + 1),
         *o2 = cpn_alloc((size_t)n * oitem + 1);
    memset(buf, 0, (size_t)(n ? span : 1) * item);
    memset(o1, 0x5a, (size_t)n * oitem + 1);
    memset(o2, 0xa5, (size_t)n * oitem + 1);
    /* the origin so that every stride sign stays inside the buffer */
    const int64_t org = (sr < 0 ? (rows - 1) * -sr : 0) + (sc < 0 ? (c - 1) * -sc : 0);
    const char *in = buf + org * (int64_t)item;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < c; j++) put(buf + (org + i * sr + j * sc) * (int64_t)item, dt, value(&seed));
    int64_t shape[2], ist[2], ost[2];
    if (nd == 1) {
        shape[0] = c;
        ist[0] = sc * (int64_t)item;
        ost[0] = (int64_t)oitem;
    } else {
        shape[0] = r;
        shape[1] = c;
        ist[0] = sr * (int64_t)item;
        ist[1] = sc * (int64_t)item;
        ost[0] = c * (int64_t)oitem;
        ost[1] = (int64_t)oitem;
    }
    CHECK(cpn_kernel_sort(dt, arg, in, nd, shape, ist, nd == 1 ? 0 : axis, o1, ost, 0) == CPN_OK);
    /* sort_op.c's layouts: the other axis outer, the sorted one inner */
    struct cpn_cub_layout il, ol;
    memset(&il, 0, sizeof il);
    memset(&ol, 0, sizeof ol);
    int k = 0;
    const int ax = nd == 1 ? 0 : axis;
    for (int d = 0; d < nd; d++) {
        if (d == ax) continue;
        il.shape[k] = ol.shape[k] = shape[d];
        il.stride[k] = ist[d];
        ol.stride[k++] = ost[d];
    }
    il.shape[k] = ol.shape[k] = shape[ax];
    il.stride[k] = ist[ax];
    ol.stride[k++] = ost[ax];
    il.ndim = ol.ndim = k;
    CHECK(cpn_cub_sort(dt, arg, in, &il, n / (shape[ax] ? shape[ax] : 1), shape[ax], o2, &ol, CPN_CUB_HOST) ==
          cudaSuccess);
    const bool eq = memcmp(o1, o2, (size_t)n * oitem) == 0;
    CHECK(eq);
    if (!eq && failures < 5)
        printf("  dtype %s arg %d shape (%lld, %lld) axis %d strides (%lld, %lld)\n", cpn_dtype_name(dt), arg,
               (long long)r, (long long)c, axis, (long long)sr, (long long)sc);
    checked++;
    cpn_free(buf);
    cpn_free(o1);
    cpn_free(o2);
}

int main(void)
{
    for (int t = 0; t < NDT; t++)
        for (int arg = 0; arg < 2; arg++) {
            for (int64_t c = 0; c <= 40; c += (c < 3 ? 1 : 37)) {
                one(dts[t], arg, 0, c, 0, 0, 1, (uint64_t)c + 1);
                one(dts[t], arg, 0, c, 0, 0, -1, (uint64_t)c + 2);
                one(dts[t], arg, 0, c, 0, 0, 3, (uint64_t)c + 3);
            }
            for (int axis = 0; axis < 2; axis++) {
                one(dts[t], arg, 5, 7, axis, 7, 1, 11);        /* C order */
                one(dts[t], arg, 5, 7, axis, 1, 5, 12);        /* F order */
                one(dts[t], arg, 6, 9, axis, -20, 2, 13);      /* reversed rows, strided */
                one(dts[t], arg, 1, 300, axis, 300, 1, 14);
                one(dts[t], arg, 300, 1, axis, 1, 1, 15);
            }
        }
    printf("%lld comparisons\n", (long long)checked);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
