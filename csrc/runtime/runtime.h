/* runtime.h: process-wide state: ranks, threads, and which optional parts were built in.
 *
 * MPI is initialised only when the process was started by an MPI launcher (or somebody else,
 * such as mpi4py, already initialised it); MPI is finalised only if this runtime initialised it.
 * A plain `python script.py` is one rank with no MPI calls at all. */
#ifndef CPN_RUNTIME_H
#define CPN_RUNTIME_H

#include <stdbool.h>

#include "status.h"

/* Initialise (idempotent).  Collective when MPI is in use. */
enum cpn_status cpn_runtime_init(void);
/* Flush and, if this runtime initialised MPI, finalise it.  Collective. */
void cpn_runtime_finalize(void);

int cpn_runtime_rank(void);
int cpn_runtime_ranks(void);
int cpn_runtime_threads(void);
bool cpn_runtime_have_mpi(void);   /* built with MPI */
bool cpn_runtime_mpi_active(void); /* MPI initialised and in use in this process */
bool cpn_runtime_have_cuda(void);  /* built with the CUDA backend */

/* The CPU kernels' settings and test hooks, for the module (which includes no kernel header):
 * the vector backend's name (vmath.h), a raw vector kernel by NumPy name (cpn_vmath_kernel), the
 * SIMD path of uniform draws on or off (returns the previous setting).  Local. */
const char *cpn_runtime_vmath(void);
/* The BLAS products run on ("scipy-openblas ...", "openblas ...", or "none: ..."). */
const char *cpn_runtime_blas(void);
/* What sorts ("vqsort (highway ...)", or the plain C radix sort when libhwy-contrib is absent). */
const char *cpn_runtime_sort(void);
/* The FFT library numpy.fft runs on ("fftw 3.3.10", or "none"). */
const char *cpn_runtime_fft(void);
/* The element-instructions above which kernels wake the thread team (measured).  Local. */
long long cpn_runtime_parallel_min(void);
int cpn_runtime_vmath_kernel(const char *name, int *nin, void (**f64)(void), void (**f32)(void));
int cpn_runtime_random_simd(int level);
int cpn_runtime_argreduce_simd(int level);   /* cpn_kernel_argreduce_set_simd */


#endif
