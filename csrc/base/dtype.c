/* dtype.c: sizes, classes and names of the runtime's dtypes. */
#include "dtype.h"

#include "status.h"

static const size_t sizes[] = {
#define X(E, T, S, C) sizeof(T),
    CPN_DTYPE_LIST(X)
#undef X
};
static const enum cpn_dtype_class classes[] = {
#define X(E, T, S, C) C,
    CPN_DTYPE_LIST(X)
#undef X
};
static const char *const names[] = {
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
};
_Static_assert(sizeof sizes / sizeof sizes[0] == CPN_DTYPE_COUNT, "dtype size table");
_Static_assert(sizeof names / sizeof names[0] == CPN_DTYPE_COUNT, "dtype name table");

size_t cpn_dtype_size(enum cpn_dtype dt) { return sizes[dt]; }
enum cpn_dtype_class cpn_dtype_class(enum cpn_dtype dt) { return classes[dt]; }
const char *cpn_dtype_name(enum cpn_dtype dt) { return names[dt]; }
