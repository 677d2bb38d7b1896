/* codegen.h: CUDA C source for fused programs and single ops (codegen.c), compiled at run time
 * by NVRTC (nvrtc.c) and cached by the source's key.
 *
 * A program (kernels/fused.h, as fusion.c builds and binds it) becomes one kernel: each thread
 * walks elements of the iteration space, evaluates the instructions in program order on values
 * held in registers, and stores the external outputs; a closing reduction folds per thread, then
 * per block (partials combined on the host, in block order).  Each instruction is a call of the
 * scalar function of scalar.h the CPU loop uses (cpn_<op>_<dtype>; a two-output op's output 1
 * through its pointer argument, ldexp's exponent as int64), a C cast, philox.h's draw or
 * cpn_arange: one source of arithmetic.  Addresses, strides, shapes, scalars and seeds are kernel
 * arguments (struct cpn_dev_args), so the source, and its key, depend only on the expression and
 * the dtypes.  Pure C; no CUDA needed to generate.  All functions are Local. */
#ifndef CPN_CUDA_CODEGEN_H
#define CPN_CUDA_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fused.h"

/* Can the device run `p` (a program template; externals need not be bound)?  False for complex
 * arange fills (run on the host), a two-output op (divmod, modf, frexp) whose outputs are not
 * both externals, more than CPN_DEV_MAXEXT externals, CPN_DEV_MAXSCAL scalars, CPN_DEV_MAXPARAM
 * draws/fills, or an op without a definition for its dtype.  With `why`, a reason is written
 * there on false. */
bool cpn_cuda_codegen_supports(const struct cpn_fused_prog *p, const char **why);

/* Write the kernel source for the bound (or template) program `p` into buf[0..cap) with a
 * terminating NUL; returns the length it needs (like snprintf), or -1 when unsupported.  The
 * kernel is `extern "C" __global__ void cpn_k(const struct cpn_dev_args a)`, including
 * "cpn_device.h". */
int cpn_cuda_codegen(const struct cpn_fused_prog *p, char *buf, size_t cap);

/* Does the kernel of `p` write report words (devargs.h's a.fpe, one per instruction, devfpe.h's
 * layout)?  A bound program with fpe set (watched by the error mode) reports
 * fpclass.h's classification of its float loops and casts and its integer divisions; signed
 * integer power always reports a negative exponent (CPN_DEVFPE_VALUE). */
bool cpn_cuda_codegen_reports(const struct cpn_fused_prog *p);

/* The kernel of an integer or bool matmul C = A @ B (NumPy's: wrapping sums of products; bool:
 * OR of ANDs), tiles of CPN_DEV_MM_TILE squared in shared memory, one thread per element of C:
 * a.shape = {m, k, n}, a.base[0..2] = A, B, C, a.st[0..2][0..1] their byte strides (any).
 * The grid is (ceil(n / tile), ceil(m / tile)) blocks of CPN_DEV_BLOCK threads.  Returns the
 * length needed, or -1 for another dtype. */
int cpn_cuda_codegen_matmul(enum cpn_dtype dt, char *buf, size_t cap);

/* A key for generated source: 16 hex digits of a 64-bit FNV-1a hash of the text, which
 * determines the compiled code.  `out` holds at least 17 bytes. */
void cpn_cuda_codegen_key(const char *src, char out[17]);

/* The C type of `dt` in generated code ("double"; float16 and complex: scalar_dev.h's cpn_half,
 * cpn_c64, cpn_c128), or NULL for an unknown dtype. */
const char *cpn_cuda_ctype(enum cpn_dtype dt);

/* The prelude headers (cpn_device.h and what it includes), embedded at build time: names and
 * contents, for NVRTC's in-memory includes. */
extern const int cpn_cuda_header_count;
extern const char *const cpn_cuda_header_names[];
extern const char *const cpn_cuda_header_sources[];

#endif
