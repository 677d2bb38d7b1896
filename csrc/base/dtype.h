/* dtype.h: the closed set of element types the runtime knows.
 *
 * The module maps each to a numpy.dtype; the runtime only needs sizes and classes.  float16 is
 * C's _Float16 (arithmetic in float, rounded, as NumPy does). */
#ifndef CPN_DTYPE_H
#define CPN_DTYPE_H

#include <stddef.h>
#include <stdint.h>

/* The most dimensions an array (store, view, kernel operand) has. */
#define CPN_MAXDIM 32

/* X(ENUM, ctype, suffix, class) in NumPy's type-number order. */
#define CPN_DTYPE_LIST(X)                                    \
    X(BOOL, _Bool, b, CPN_CLASS_BOOL)                        \
    X(INT8, int8_t, i8, CPN_CLASS_INT)                       \
    X(UINT8, uint8_t, u8, CPN_CLASS_UINT)                    \
    X(INT16, int16_t, i16, CPN_CLASS_INT)                    \
    X(UINT16, uint16_t, u16, CPN_CLASS_UINT)                 \
    X(INT32, int32_t, i32, CPN_CLASS_INT)                    \
    X(UINT32, uint32_t, u32, CPN_CLASS_UINT)                 \
    X(INT64, int64_t, i64, CPN_CLASS_INT)                    \
    X(UINT64, uint64_t, u64, CPN_CLASS_UINT)                 \
    X(FLOAT16, _Float16, f16, CPN_CLASS_FLOAT)               \
    X(FLOAT32, float, f32, CPN_CLASS_FLOAT)                  \
    X(FLOAT64, double, f64, CPN_CLASS_FLOAT)                 \
    X(COMPLEX64, float _Complex, c64, CPN_CLASS_COMPLEX)     \
    X(COMPLEX128, double _Complex, c128, CPN_CLASS_COMPLEX)

enum cpn_dtype_class {
    CPN_CLASS_BOOL,
    CPN_CLASS_INT,
    CPN_CLASS_UINT,
    CPN_CLASS_FLOAT,
    CPN_CLASS_COMPLEX,
    CPN_CLASS_COUNT
};

enum cpn_dtype {
#define X(E, T, S, C) CPN_DTYPE_##E,
    CPN_DTYPE_LIST(X)
#undef X
    CPN_DTYPE_COUNT
};

/* Bytes per element.  Local. */
size_t cpn_dtype_size(enum cpn_dtype dt);
/* The class of `dt`.  Local. */
enum cpn_dtype_class cpn_dtype_class(enum cpn_dtype dt);
/* Lower-case NumPy name ("float64").  Local. */
const char *cpn_dtype_name(enum cpn_dtype dt);

/* One scalar of any dtype, stored in its own representation (as if it were a 1-element buffer). */
union cpn_scalar {
    _Bool b;
    int8_t i8; uint8_t u8; int16_t i16; uint16_t u16;
    int32_t i32; uint32_t u32; int64_t i64; uint64_t u64;
    _Float16 f16; float f32; double f64;
    float _Complex c64; double _Complex c128;
    unsigned char bytes[16];
};

#endif
