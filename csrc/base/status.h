/* status.h: the runtime's error convention.
 *
 * Every fallible runtime function returns enum cpn_status (CPN_OK == 0, errors negative) and, on
 * error, leaves a human-readable message in a thread-local buffer.  The runtime never prints and
 * never exits; csrc/module/errors.c maps a status to the NumPy exception type a user expects. */
#ifndef CPN_STATUS_H
#define CPN_STATUS_H

#include <stdio.h>
#include <stdlib.h>

enum cpn_status {
    CPN_OK = 0,
    CPN_ERR_NOMEM = -1,     /* allocation failed                      -> MemoryError   */
    CPN_ERR_VALUE = -2,     /* bad value (shapes, sizes)             -> ValueError    */
    CPN_ERR_TYPE = -3,      /* unsupported dtype or operation        -> TypeError     */
    CPN_ERR_INDEX = -4,     /* index out of range                    -> IndexError    */
    CPN_ERR_AXIS = -5,      /* axis out of range                     -> AxisError     */
    CPN_ERR_NOVIEW = -6,    /* the request needs a copy, not a view (internal signal) */
    CPN_ERR_COMM = -7,      /* MPI failure                           -> RuntimeError  */
    CPN_ERR_INTERNAL = -8,  /* broken invariant reported, not asserted                */
    CPN_ERR_FLOAT = -9,     /* floating-point error under errstate 'raise' -> FloatingPointError */
    CPN_ERR_DEVICE = -10,   /* CUDA driver/runtime failure, no usable device -> RuntimeError */
    CPN_ERR_UNSUPPORTED = -11, /* a backend cannot run this op (internal signal: run it on the host) */
    CPN_STATUS_COUNT = 12
};

/* Record `st` and a printf-style message for this thread.  Returns `st`, so callers can write
 * `return cpn_error(CPN_ERR_VALUE, "...")`.  Local. */
enum cpn_status cpn_error(enum cpn_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The message of the last error recorded on this thread ("" when none).  Local. */
const char *cpn_error_message(void);

/* The status of the last error recorded on this thread (CPN_OK when none).  Local. */
enum cpn_status cpn_error_status(void);

/* Forget the recorded error.  Local. */
void cpn_error_clear(void);

/* For broken internal invariants only; stays on in release builds. */
#define CPN_ASSERT(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "cupynum: internal assertion failed: %s (%s:%d)\n", #cond,      \
                    __FILE__, __LINE__);                                                   \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

#define CPN_TRY(expr)                                                                      \
    do {                                                                                   \
        enum cpn_status cpn_try_st_ = (expr);                                              \
        if (cpn_try_st_ != CPN_OK) return cpn_try_st_;                                     \
    } while (0)

#endif
