/* devargs.h: the one argument block of every generated device kernel, shared by the host code
 * that fills it (cuda/backend.c) and the kernels that read it (cuda/codegen.c's source, compiled
 * by NVRTC).  Passed by value (kernel parameters: under 4 KiB, cuda/backend.c asserts it).  A
 * fused program beyond these bounds is cut into programs within them (fusion.c's fit_device). */
#ifndef CPN_DEVARGS_H
#define CPN_DEVARGS_H

#define CPN_DEV_MAXDIM 8      /* dimensions of the (coalesced) iteration space */
#define CPN_DEV_MAXEXT 32     /* external operands: buffers and index sources */
#define CPN_DEV_MAXSCAL 32    /* inline scalars */
#define CPN_DEV_MAXPARAM 8    /* random draws and arange fills in one program */
#define CPN_DEV_BLOCK 256     /* threads per block */
#define CPN_DEV_MM_TILE 16    /* integer matmul: tile edge (CPN_DEV_MM_TILE^2 == CPN_DEV_BLOCK) */

struct cpn_dev_args {
    int64_t n;                                  /* elements in the iteration space */
    int64_t ndim;
    int64_t shape[CPN_DEV_MAXDIM];
    uint64_t base[CPN_DEV_MAXEXT];              /* device address (or byte offset: index sources) */
    int64_t st[CPN_DEV_MAXEXT][CPN_DEV_MAXDIM]; /* byte strides */
    uint64_t scal[CPN_DEV_MAXSCAL][2];          /* scalar bytes */
    uint64_t seed[CPN_DEV_MAXPARAM], stream[CPN_DEV_MAXPARAM];
    double p0[CPN_DEV_MAXPARAM], p1[CPN_DEV_MAXPARAM];
    int64_t i0[CPN_DEV_MAXPARAM], i1[CPN_DEV_MAXPARAM];
    uint64_t partials;                          /* reduce: one accumulator per block */
    uint64_t fpe;                               /* reporting kernels (cpn_cuda_codegen_reports):
                                                 * one uint32 word per instruction (devfpe.h),
                                                 * zeroed before the launch, that the kernel ORs
                                                 * its findings into */
};

#endif
