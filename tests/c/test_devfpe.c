/* test_devfpe.c: device report words (devfpe.h) through fperr.c on the simulated device.
 *
 * Ops whose findings arrive as tokens (as the CUDA backend hands them over) are reported in op
 * order after the flush with the categories their error mode reports; more tokens than one
 * flush's words are collected early and still land on their own ops; under 'raise' the word is
 * read at once and fails the op with NumPy's message; integer ops count only the loops' own
 * findings. */
#include <string.h>

#include "backend.h"
#include "devfpe.h"
#include "fperr.h"
#include "kernels.h"

#include "check.h"

static uint16_t mode_all(enum cpn_fpmode m) { return (uint16_t)(m | m << 3 | m << 6 | m << 9); }

/* Run op as the queue does, its findings `word` in a device word. */
static enum cpn_status run_op(struct cpn_op *op, uint32_t word)
{
    int w;
    CHECK(cpn_devfpe_take(1, &w) == CPN_OK);
    *cpn_devfpe_word(w) |= word;   /* the simulated device's memory is the host's */
    struct cpn_fpreport fp = {0};
    cpn_devfpe_report(&fp, w);
    return cpn_fperr_end_op(op, &fp, false);
}

static void test_deferred_reports(void)
{
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_TRUE_DIVIDE, .dtype = CPN_DTYPE_FLOAT64,
                        .nin = 2, .nout = 1};
    op.fpmode = mode_all(CPN_FPMODE_WARN);
    CHECK(cpn_fperr_watches(&op));
    cpn_fperr_clear();
    const int n = 3 * CPN_DEVFPE_WORDS / 2;   /* an early collection on the way */
    int expected = 0;
    for (int i = 0; i < n; i++) {
        uint32_t word = i % 7 == 0 ? CPN_FPE_DIVIDE : i % 11 == 0 ? (CPN_FPE_OVERFLOW | CPN_FPE_UNDERFLOW) : 0;
        expected += word != 0;
        op.code = word & CPN_FPE_DIVIDE ? CPN_OP_TRUE_DIVIDE : CPN_OP_MULTIPLY;
        CHECK(run_op(&op, word) == CPN_OK);
    }
    CHECK(cpn_fperr_end_flush(false) == CPN_OK);
    CHECK(cpn_fperr_count() == expected);
    for (int i = 0, r = 0; i < n && r < cpn_fperr_count(); i++) {
        uint32_t word = i % 7 == 0 ? CPN_FPE_DIVIDE : i % 11 == 0 ? (CPN_FPE_OVERFLOW | CPN_FPE_UNDERFLOW) : 0;
        if (!word) continue;
        const struct cpn_fpe_report *rep = cpn_fperr_report(r++);
        CHECK(rep->flags == word && rep->dev_word == -1);
        CHECK(rep->code == (word & CPN_FPE_DIVIDE ? CPN_OP_TRUE_DIVIDE : CPN_OP_MULTIPLY));
    }
    cpn_fperr_clear();
    /* Only the categories the mode reports: underflow ignored here. */
    op.fpmode = (uint16_t)(mode_all(CPN_FPMODE_WARN) & ~(7u << (3 * CPN_FPCAT_UNDERFLOW)));
    CHECK(run_op(&op, CPN_FPE_UNDERFLOW) == CPN_OK);
    CHECK(run_op(&op, CPN_FPE_UNDERFLOW | CPN_FPE_INVALID) == CPN_OK);
    CHECK(cpn_fperr_end_flush(false) == CPN_OK);
    CHECK(cpn_fperr_count() == 1 && cpn_fperr_report(0)->flags == CPN_FPE_INVALID);
    cpn_fperr_clear();
}

static void test_raise_reads_at_once(void)
{
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_TRUE_DIVIDE, .dtype = CPN_DTYPE_FLOAT32,
                        .nin = 2, .nout = 1};
    op.fpmode = mode_all(CPN_FPMODE_RAISE);
    cpn_fperr_clear();
    CHECK(run_op(&op, 0) == CPN_OK);
    CHECK(run_op(&op, CPN_FPE_DIVIDE) == CPN_ERR_FLOAT);
    CHECK(!strcmp(cpn_error_message(), "divide by zero encountered in divide"));
    CHECK(cpn_fperr_end_flush(false) == CPN_OK);
    CHECK(cpn_fperr_count() == 0);
}

static void test_integer_ops_count_own_findings(void)
{
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_FLOOR_DIVIDE, .dtype = CPN_DTYPE_INT32,
                        .nin = 2, .nout = 1};
    op.fpmode = mode_all(CPN_FPMODE_WARN);
    cpn_fperr_clear();
    CHECK(run_op(&op, CPN_FPE_INVALID) == CPN_OK);   /* status-flag bits: not an integer loop's */
    CHECK(run_op(&op, (uint32_t)CPN_FPE_DIVIDE << CPN_DEVFPE_SW_SHIFT) == CPN_OK);
    CHECK(cpn_fperr_end_flush(false) == CPN_OK);
    CHECK(cpn_fperr_count() == 1 && cpn_fperr_report(0)->flags == CPN_FPE_DIVIDE);
    cpn_fperr_clear();
}

int main(void)
{
    const struct cpn_backend_i *was = cpn_backend_use(cpn_sim_backend());
    test_deferred_reports();
    test_raise_reads_at_once();
    test_integer_ops_count_own_findings();
    cpn_backend_use(was);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
