/* fperr.c: floating-point error reports of executed ops (see fperr.h).
 *
 * Invariant: under several ranks the list of report slots is the same on every rank (a slot per
 * watched op with a reporting mode, whatever its local flags; the flush's failure is agreed), so
 * one allreduce agrees on all of them; slots that stay empty are then dropped. */
#include "fperr.h"

#include <string.h>

#include "alloc.h"
#include "comm.h"
#include "devfpe.h"
#include "kernels.h"

static struct cpn_fpe_report *reports;
static int n_reports, cap_reports;
static bool stopped;   /* an op of this flush failed: later ops report nothing */
static unsigned segment_hw, segment_sw;   /* findings of a reduceat's segments so far */

const char *cpn_fpcat_name(enum cpn_fpcat cat)
{
    static const char *const names[CPN_FPCAT_COUNT] = {"divide by zero", "overflow", "underflow",
                                                      "invalid value"};
    return (unsigned)cat < CPN_FPCAT_COUNT ? names[cat] : "?";
}

/* Ops whose loops set status flags NumPy does not report (ops.def's SILENT): ordered comparisons
 * of NaN raise 'invalid' in C, and NumPy's comparison, maximum/minimum, rounding and sign loops
 * clear it. */
static bool silent_op(int code) { return cpn_op_info(code)->flags & CPN_OPF_SILENT; }

/* The dtype whose arithmetic the op's status flags come from: a cast's source. */
static enum cpn_dtype flag_dtype(const struct cpn_op *op)
{
    if (op->kind == CPN_OPK_CAST && op->in[0]) return op->in[0]->dtype;
    return op->dtype;
}

static bool float_like(enum cpn_dtype dt)
{
    enum cpn_dtype_class c = cpn_dtype_class(dt);
    return c == CPN_CLASS_FLOAT || c == CPN_CLASS_COMPLEX;
}

/* The op's status flags are its own: float arithmetic, or a cast into float16, which an integer
 * above 65504 overflows (NumPy warns "overflow encountered in cast").  Integer loops report only
 * what they find themselves. */
static bool own_flags(const struct cpn_op *op)
{
    return float_like(flag_dtype(op)) || (op->kind == CPN_OPK_CAST && op->out[0]->dtype == CPN_DTYPE_FLOAT16);
}

bool cpn_fperr_watches(const struct cpn_op *op)
{
    if (op->fpmode == 0) return false;
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:
    case CPN_OPK_REDUCE:
    case CPN_OPK_SCAN:
        return !silent_op(op->code);
    case CPN_OPK_SCATTER:   /* ufunc.at: the op's loop applied in index order */
        return op->iparam[0] && !silent_op(op->code);
    case CPN_OPK_CAST:   /* float -> narrower float overflows, float -> int is invalid at NaN,
                          * an integer above 65504 overflows float16 */
        return op->in[0] && op->in[0]->dtype != op->out[0]->dtype && own_flags(op);
    default:
        return false;
    }
}

bool cpn_fperr_may_report(const struct cpn_op *op)
{
    if (!cpn_fperr_watches(op)) return false;
    if (own_flags(op)) return true;
    return op->kind == CPN_OPK_ELEMENTWISE && (cpn_op_info(op->code)->flags & CPN_OPF_INTDIV);
}

const char *cpn_fperr_op_name(const struct cpn_op *op)
{
    switch (op->kind) {
    case CPN_OPK_CAST: return "cast";
    case CPN_OPK_REDUCE: return op->iparam[1] & CPN_REDUCEAT_SEGMENT ? "reduceat" : "reduce";
    case CPN_OPK_SCAN: return "accumulate";
    default: return cpn_op_info(op->code)->name;
    }
}

static enum cpn_status add_report(const struct cpn_op *op, unsigned flags, int dev_word)
{
    if (n_reports == cap_reports) {
        int ncap = cap_reports ? 2 * cap_reports : 64;
        struct cpn_fpe_report *n = cpn_alloc((size_t)ncap * sizeof *n);
        if (!n) return CPN_ERR_NOMEM;
        if (n_reports) memcpy(n, reports, (size_t)n_reports * sizeof *n);
        cpn_free(reports);
        reports = n;
        cap_reports = ncap;
    }
    reports[n_reports++] = (struct cpn_fpe_report){.code = op->code, .name = cpn_fperr_op_name(op),
                                                   .flags = flags, .mode = op->fpmode, .site = op->site,
                                                   .dev_word = dev_word,
                                                   .dev_float = own_flags(op)};
    return CPN_OK;
}

/* The categories of `mode` that are reported (not ignored, not raised). */
static unsigned report_mask_of(uint16_t mode)
{
    unsigned m = 0;
    for (int c = 0; c < CPN_FPCAT_COUNT; c++) {
        enum cpn_fpmode f = cpn_fpmode_of(mode, (enum cpn_fpcat)c);
        if (f != CPN_FPMODE_IGNORE && f != CPN_FPMODE_RAISE) m |= 1u << c;
    }
    return m;
}

/* A device report word as status-flag and own-finding bits. */
static void split_word(uint32_t w, unsigned *hw, unsigned *sw)
{
    *hw |= w & CPN_DEVFPE_HW_MASK;
    *sw |= (w >> CPN_DEVFPE_SW_SHIFT) & CPN_DEVFPE_HW_MASK;
}

enum cpn_status cpn_fperr_collect_device(void)
{
    const int n = cpn_devfpe_used();
    bool pending = false;
    for (int i = 0; i < n_reports && !pending; i++) pending = reports[i].dev_word >= 0;
    enum cpn_status st = CPN_OK;
    if (pending) {
        uint32_t *w = cpn_alloc((size_t)n * sizeof *w);
        if (!w) return CPN_ERR_NOMEM;
        st = cpn_devfpe_read(0, n, w);
        for (int i = 0; i < n_reports; i++) {
            struct cpn_fpe_report *r = &reports[i];
            if (r->dev_word < 0) continue;
            unsigned hw = 0, sw = 0;
            if (st == CPN_OK && r->dev_word < n) split_word(w[r->dev_word], &hw, &sw);
            r->flags |= (sw | (r->dev_float ? hw : 0)) & report_mask_of(r->mode);
            r->dev_word = -1;
        }
        cpn_free(w);
    }
    cpn_devfpe_reset();
    return st;
}

enum cpn_status cpn_fperr_end_op(const struct cpn_op *op, const struct cpn_fpreport *found, bool dist)
{
    unsigned hw = found->hw, sw = found->sw, raise_mask = 0, report_mask = 0;
    if (stopped) return CPN_OK;
    int dev_word = found->dev ? found->dev_word : -1;   /* the findings are on the device */
    if (op->kind == CPN_OPK_REDUCE && (op->iparam[1] & CPN_REDUCEAT_SEGMENT)) {
        /* One reduceat, one report: gather the segments' findings until the last one.  A
         * segment run on the device (its own report word) is read now: words do not merge on
         * the host (a synchronisation per segment; the last one's word is read as any op's). */
        if (dev_word >= 0 && !(op->iparam[1] & CPN_REDUCEAT_LAST)) {
            uint32_t w = 0;
            CPN_TRY(cpn_devfpe_read(dev_word, 1, &w));
            split_word(w, &hw, &sw);
            dev_word = -1;
        }
        if (op->iparam[1] & CPN_REDUCEAT_FIRST) segment_hw = segment_sw = 0;
        hw |= segment_hw;
        sw |= segment_sw;
        if (!(op->iparam[1] & CPN_REDUCEAT_LAST)) {
            segment_hw = hw;
            segment_sw = sw;
            return CPN_OK;
        }
        segment_hw = segment_sw = 0;
    }
    /* Integer loops report only what they found themselves (division by zero). */
    uint32_t flags = sw | (own_flags(op) ? hw : 0);
    for (int c = 0; c < CPN_FPCAT_COUNT; c++) {
        enum cpn_fpmode m = cpn_fpmode_of(op->fpmode, (enum cpn_fpcat)c);
        if (m == CPN_FPMODE_RAISE) raise_mask |= 1u << c;
        else if (m != CPN_FPMODE_IGNORE) report_mask |= 1u << c;
    }
    if (dev_word >= 0 && raise_mask) {   /* needed now: wait for the device */
        uint32_t w = 0;
        CPN_TRY(cpn_devfpe_read(dev_word, 1, &w));
        split_word(w, &hw, &sw);
        flags = sw | (own_flags(op) ? hw : 0);
        dev_word = -1;
    }
    if (dist && raise_mask) CPN_TRY(cpn_comm_allreduce_or(&flags, 1));
    /* NumPy handles the categories in order: reports up to the first raising one, then raise. */
    for (int c = 0; c < CPN_FPCAT_COUNT; c++) {
        if (!(flags & raise_mask & (1u << c))) continue;
        unsigned before = flags & report_mask & ((1u << c) - 1);
        /* Agreed already; the flush's OR leaves a value every rank holds unchanged. */
        if (before) CPN_TRY(add_report(op, before, -1));
        stopped = true;
        return cpn_error(CPN_ERR_FLOAT, "%s encountered in %s", cpn_fpcat_name((enum cpn_fpcat)c),
                         cpn_fperr_op_name(op));
    }
    if ((flags & report_mask) || ((dist || dev_word >= 0) && report_mask))
        CPN_TRY(add_report(op, flags & report_mask, dev_word));
    return CPN_OK;
}

enum cpn_status cpn_fperr_end_flush(bool dist)
{
    /* The device's findings first (a failed read leaves those reports empty; the ranks still
     * take part in the allreduce below, so none waits for another). */
    const enum cpn_status dst = cpn_fperr_collect_device();
    enum cpn_status st = CPN_OK;
    stopped = false;
    if (dist && n_reports) {
        uint32_t *f = cpn_alloc((size_t)n_reports * sizeof *f);
        if (!f) return CPN_ERR_NOMEM;
        for (int i = 0; i < n_reports; i++) f[i] = reports[i].flags;
        st = cpn_comm_allreduce_or(f, n_reports);
        for (int i = 0; i < n_reports; i++) reports[i].flags = f[i];
        cpn_free(f);
    }
    int k = 0;
    for (int i = 0; i < n_reports; i++)
        if (reports[i].flags) reports[k++] = reports[i];
    n_reports = k;
    return dst != CPN_OK ? dst : st;
}

int cpn_fperr_count(void) { return n_reports; }
const struct cpn_fpe_report *cpn_fperr_report(int i) { return &reports[i]; }
void cpn_fperr_clear(void) { n_reports = 0; }
