/* fperr.h: NumPy's floating-point error state (numpy.errstate / seterr) in the deferred runtime.
 *
 * The module captures NumPy's error mode when an element-wise op, cast, reduction or scan is
 * submitted (op->fpmode: three bits per category, NumPy's own layout and mode numbers).  Executing
 * an op fills a report of what its loops found (kernels.h's struct cpn_fpreport: status flags and
 * the loops' own findings); the queue hands it here and:
 *   - a category in mode 'raise' fails the op with CPN_ERR_FLOAT and NumPy's message
 *     ("divide by zero encountered in divide"), poisoning its result like any failed op;
 *   - categories in 'warn', 'call', 'print' or 'log' become a report (op, categories, mode)
 *     that the module turns into NumPy's RuntimeWarning, callback or log line after the flush.
 * Reports of ops after a failed op are dropped (NumPy would not have run them).
 * A device op's report may name a device report word instead (devfpe.h): read at once under
 * 'raise', else after the flush (the report waits in the list with dev_word set).
 *
 * Several ranks: each rank finds errors in its own tile; the ranks OR them so every rank raises
 * and reports the same thing: right after an op whose mode has a 'raise' category (one small
 * allreduce, only then), and once per flush for the reports. */
#ifndef CPN_FPERR_H
#define CPN_FPERR_H

#include <stdbool.h>
#include <stdint.h>

#include "opsem.h"
#include "status.h"

/* NumPy's modes (UFUNC_ERR_*) and categories (bit 1 << category == CPN_FPE_*, shift 3 * category
 * in a mode word). */
enum cpn_fpmode { CPN_FPMODE_IGNORE, CPN_FPMODE_WARN, CPN_FPMODE_RAISE, CPN_FPMODE_CALL,
                  CPN_FPMODE_PRINT, CPN_FPMODE_LOG, CPN_FPMODE_COUNT };
enum cpn_fpcat { CPN_FPCAT_DIVIDE, CPN_FPCAT_OVERFLOW, CPN_FPCAT_UNDERFLOW, CPN_FPCAT_INVALID,
                 CPN_FPCAT_COUNT };

static inline enum cpn_fpmode cpn_fpmode_of(uint16_t mode, enum cpn_fpcat cat)
{
    return (enum cpn_fpmode)((mode >> (3 * cat)) & 7);
}

/* NumPy's words for a category: "divide by zero", "overflow", "underflow", "invalid value".
 * Local. */
const char *cpn_fpcat_name(enum cpn_fpcat cat);

/* A report for the module: op `code` found `flags` (CPN_FPE_* bits, only categories whose mode is
 * neither ignore nor raise) under error mode `mode`. */
struct cpn_fpe_report {
    int code;
    const char *name;   /* NumPy's word for where: the ufunc's name, "cast", "reduce"... */
    unsigned flags;
    uint16_t mode;
    uint32_t site;      /* the op's submission site (struct cpn_op.site) */
    int dev_word;       /* a device report word (devfpe.h) still to be read into flags, or -1 */
    bool dev_float;     /* its loops are floating-point: the word's status-flag bits count */
};

/* NumPy's name of what op reports, as its messages say: the ufunc name of an element-wise op,
 * "cast" for casts, "reduce" (or "reduceat": iparam[1] set) for reductions, "accumulate" for
 * scans.  A static string.  Local. */
const char *cpn_fperr_op_name(const struct cpn_op *op);
/* Could executing op report a floating-point error under its error mode?  (Watched, and its
 * loops are floating-point or integer division.)  Local. */
bool cpn_fperr_may_report(const struct cpn_op *op);

/* The queue's calls, in flush order.  cpn_fperr_watches: does the op's result need checking?
 * end_op after it succeeded, with what its execution found (returns CPN_ERR_FLOAT under 'raise';
 * Collective when op's mode has a 'raise' category and `dist`), end_flush after the flush
 * (Collective when `dist`). */
struct cpn_fpreport;
bool cpn_fperr_watches(const struct cpn_op *op);
enum cpn_status cpn_fperr_end_op(const struct cpn_op *op, const struct cpn_fpreport *found, bool dist);
enum cpn_status cpn_fperr_end_flush(bool dist);
/* Read the device report words of this flush's reports (devfpe.h: one copy, a synchronisation)
 * and free the words.  end_flush calls it; devfpe.c too when a flush runs out of words. */
enum cpn_status cpn_fperr_collect_device(void);

/* The reports collected since the last cpn_fperr_clear, in op order.  Local. */
int cpn_fperr_count(void);
const struct cpn_fpe_report *cpn_fperr_report(int i);
void cpn_fperr_clear(void);

#endif
