/* devfft.h: which fft ops (CPN_OPK_FFT) a device FFT library takes, and how: one cuFFT
 * "advanced layout" plan (rank 1-3, one batch dimension) repeated over outer blocks.  The CUDA
 * backend (cuda/fft.c) and the simulated device (backend_sim.c) decide with this one function,
 * so the simulated device runs exactly the coverage of the GPU.  Pure, Local. */
#ifndef CPN_DEVFFT_H
#define CPN_DEVFFT_H

#include <stdbool.h>
#include <stdint.h>

#include "opsem.h"
#include "view.h"

struct cpn_devfft {
    int kind;                      /* enum cpn_fft_kind */
    int rank;                      /* transformed dimensions, slowest first */
    long long n[3];                /* logical lengths (the real side's for r2c / c2r) */
    long long inembed[3], onembed[3];
    long long istride, ostride, idist, odist, batch;
    long long loops, iloop, oloop; /* outer blocks: element offsets between them */
};

/* Can the device transform op: input and output C-contiguous whole layouts, the transformed
 * dimensions one run of at most 3 (r2c / c2r: 1)?  Fills *p (may be NULL) when it can. */
static inline bool cpn_devfft_plan(const struct cpn_op *op, struct cpn_devfft *p)
{
    if (op->kind != CPN_OPK_FFT || op->nin != 1 || !op->in[0]) return false;
    const struct cpn_view *iv = op->in[0], *ov = op->out[0];
    if (!cpn_view_is_contiguous(iv) || !cpn_view_is_contiguous(ov) || iv->ndim != ov->ndim) return false;
    const int nd = iv->ndim;
    int a = -1, b = -1;
    for (int d = 0; d < nd; d++)
        if ((op->axes >> d) & 1) {
            if (a < 0) a = d;
            else if (b != d - 1) return false;   /* not one run */
            b = d;
        }
    if (a < 0 || b - a + 1 > 3 || (op->code > CPN_FFT_C2C_BACKWARD && a != b)) return false;
    long long outer = 1, inner = 1, ib = 1, ob = 1;
    for (int d = 0; d < a; d++) outer *= iv->shape[d];
    for (int d = b + 1; d < nd; d++) inner *= iv->shape[d];
    struct cpn_devfft q = {.kind = op->code, .rank = b - a + 1};
    for (int d = a; d <= b; d++) {
        q.n[d - a] = op->code == CPN_FFT_C2R ? ov->shape[d] : iv->shape[d];
        q.inembed[d - a] = iv->shape[d];
        q.onembed[d - a] = ov->shape[d];
        ib *= iv->shape[d];
        ob *= ov->shape[d];
    }
    if (outer * inner * ib == 0 || ob == 0) return false;   /* nothing to do: the host's no-op */
    if (inner == 1) {
        q.batch = outer;
        q.istride = q.ostride = 1;
        q.idist = ib;
        q.odist = ob;
        q.loops = 1;
    } else {
        q.batch = inner;
        q.istride = q.ostride = inner;
        q.idist = q.odist = 1;
        q.loops = outer;
        q.iloop = inner * ib;
        q.oloop = inner * ob;
    }
    if (p) *p = q;
    return true;
}

#endif
