/* vmath.h: vectorized transcendental kernels (SLEEF's AVX2+FMA functions, and glibc's libmvec
 * AVX-512 functions for the functions and dtypes where they are faster and at least as close to
 * NumPy's results) for contiguous float32/float64 buffers, and the per-(op, dtype) loop overrides
 * built on them.
 *
 * The raw kernels compute o[i] = fn(a[i]) (or fn(a[i], b[i])) for i < n on contiguous buffers;
 * o may equal a or b.  They exist only in a build with SLEEF (CPN_HAVE_SLEEF) and may be called
 * only when cpn_vmath_backend() reports a vector backend (the CPU has AVX2 and FMA); which of
 * SLEEF's or libmvec's functions a kernel runs is fixed per function and dtype by the build
 * (CPN_HAVE_MVEC) and the CPU (AVX-512).  They may leave spurious floating-point status flags:
 * SLEEF and libmvec raise spurious flags and miss real ones, so the loop overrides save and
 * restore MXCSR and find NumPy's divide/overflow/underflow/invalid cases by scanning their
 * results. */
#ifndef CPN_VMATH_H
#define CPN_VMATH_H

#include <stdint.h>

#include "kernels.h"

/* The vector loop of element-wise op `code` on dtype `dt` (contiguous operands use the vector
 * kernel, other layouts the scalar loop), or NULL when there is none in this build or on this
 * CPU.  Local. */
cpn_loop_fn cpn_vmath_loop(enum cpn_opcode code, enum cpn_dtype dt);

/* "sleef-avx2+libmvec-avx512" when the vector kernels are in use and some of them are libmvec's
 * (a build with libmvec, a CPU with AVX-512), "sleef-avx2" when they are all SLEEF's, otherwise a
 * sentence saying why the scalar loops are used ("scalar: built without SLEEF", "scalar: CPU
 * lacks AVX2/FMA").  Local. */
const char *cpn_vmath_backend(void);

/* The raw kernels of NumPy function `name` (CPN_VMATH_FUNCS): *nin and the float64 / float32
 * kernels as untyped pointers (cast to the prototypes below), or -1 when the name has none or
 * the vector backend is not usable.  For tests that check kernels whose ops are not in the op
 * table yet.  Local. */
int cpn_vmath_kernel(const char *name, int *nin, void (**f64)(void), void (**f32)(void));

/* The list of functions with vector kernels: X(name, nin), name being NumPy's ufunc name. */
#define CPN_VMATH_FUNCS(X)                                                                    \
    X(exp, 1) X(exp2, 1) X(expm1, 1) X(log, 1) X(log2, 1) X(log10, 1) X(log1p, 1)            \
    X(sin, 1) X(cos, 1) X(tan, 1) X(arcsin, 1) X(arccos, 1) X(arctan, 1) X(sinh, 1)          \
    X(cosh, 1) X(tanh, 1) X(arcsinh, 1) X(arccosh, 1) X(arctanh, 1) X(cbrt, 1) X(sqrt, 1)    \
    X(arctan2, 2) X(hypot, 2) X(logaddexp, 2) X(logaddexp2, 2) X(power, 2)

#define CPN_VMATH_PROTO_1(FN)                                                                 \
    void cpn_vmath_##FN##_f64(const double *a, double *o, int64_t n);                         \
    void cpn_vmath_##FN##_f32(const float *a, float *o, int64_t n);
#define CPN_VMATH_PROTO_2(FN)                                                                 \
    void cpn_vmath_##FN##_f64(const double *a, const double *b, double *o, int64_t n);       \
    void cpn_vmath_##FN##_f32(const float *a, const float *b, float *o, int64_t n);
#define CPN_VMATH_PROTO(FN, NIN) CPN_VMATH_PROTO_##NIN(FN)
CPN_VMATH_FUNCS(CPN_VMATH_PROTO)
#undef CPN_VMATH_PROTO

#endif
