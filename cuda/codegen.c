/* codegen.c: fused programs and single ops as CUDA C source text (see codegen.h).
 *
 * The generator walks the program once.  Register slots are reused by the CPU driver across
 * instructions; here every instruction's result is a fresh local variable v<k>, and a slot names
 * the variable that last wrote it, so the compiler sees plain dataflow.  External operand e is
 * addressed as a.base[e] + o<e>, with o<e> its byte offset for the element: b<e> (the row's
 * offset, unravelled once per row) plus the innermost index times its stride.
 *
 * Every dtype has a device type: float16 and complex are scalar_dev.h's cpn_half and {re, im}
 * structs, of the host types' layout, so memory, inline scalars (16 bytes each) and reduction
 * partials are read and written as on the host.  Casts follow NumPy's unsafe casts (cast_open). */
#include "codegen.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "devargs.h"
#include "devfpe.h"
#include "fpclass.h"
#include "fused.h"
#include "op.h"

static const char *const ctypes[CPN_DTYPE_COUNT] = {
    [CPN_DTYPE_BOOL] = "bool",       [CPN_DTYPE_INT8] = "int8_t",   [CPN_DTYPE_UINT8] = "uint8_t",
    [CPN_DTYPE_INT16] = "int16_t",   [CPN_DTYPE_UINT16] = "uint16_t",
    [CPN_DTYPE_INT32] = "int32_t",   [CPN_DTYPE_UINT32] = "uint32_t",
    [CPN_DTYPE_INT64] = "int64_t",   [CPN_DTYPE_UINT64] = "uint64_t",
    [CPN_DTYPE_FLOAT32] = "float",   [CPN_DTYPE_FLOAT64] = "double",
    /* scalar_dev.h's device types, of the host types' layout */
    [CPN_DTYPE_FLOAT16] = "cpn_half", [CPN_DTYPE_COMPLEX64] = "cpn_c64",
    [CPN_DTYPE_COMPLEX128] = "cpn_c128",
};

static const char *const suffixes[CPN_DTYPE_COUNT] = {
#define X(E, T, S, C) [CPN_DTYPE_##E] = #S,
    CPN_DTYPE_LIST(X)
#undef X
};

const char *cpn_cuda_ctype(enum cpn_dtype dt)
{
    return (unsigned)dt < CPN_DTYPE_COUNT ? ctypes[dt] : NULL;
}

static bool op_has_dtype(int code, enum cpn_dtype dt)
{
    if (code < 0 || code >= CPN_OP_COUNT) return false;
    const struct cpn_op_info *info = cpn_op_info((enum cpn_opcode)code);
    /* One output, inputs of the loop dtype: the form the generated call takes; where's select
     * (its bool condition first) is written inline. */
    if (info->nout != 1 || (info->nin > 2 && code != CPN_OP_WHERE) || info->in1 != CPN_RESULT_SAME)
        return false;
    return (info->dtypes >> dt) & 1u;
}

/* A LOOP instruction's op in the other forms scalar.h writes: two outputs (divmod, modf, frexp:
 * the function returns output 0 and writes output 1 through its last, pointer, argument) or a
 * second input of another dtype (ldexp's int64 exponent).  Not for reductions. */
static bool op_has_dtype_loop(int code, enum cpn_dtype dt)
{
    if (op_has_dtype(code, dt)) return true;
    if (code < 0 || code >= CPN_OP_COUNT) return false;
    const struct cpn_op_info *info = cpn_op_info((enum cpn_opcode)code);
    return info->nin <= 2 && info->nout <= 2 && (info->dtypes >> dt) & 1u;
}

/* Outputs of a LOOP instruction (its last arguments). */
static int loop_nout(const struct cpn_fused_instr *in)
{
    return in->code >= 0 && in->code < CPN_OP_COUNT ? cpn_op_info((enum cpn_opcode)in->code)->nout : 1;
}

/* The dtype input i of a LOOP instruction is read as: the loop dtype, but ldexp's int64. */
static enum cpn_dtype input_dt(const struct cpn_fused_instr *in, enum cpn_dtype ldt, int i)
{
    return in->code >= 0 && in->code != CPN_OP_WHERE ? cpn_op_in_dtype((enum cpn_opcode)in->code, i, ldt) : ldt;
}

/* The loop dtype of a LOOP instruction: its inputs'; where's first input is its bool condition
 * (fusion.c's in_dt names it), its loop dtype the output's. */
static enum cpn_dtype loop_dt(const struct cpn_fused_instr *in)
{
    return in->code == CPN_OP_WHERE ? in->out_dt : in->in_dt;
}

static bool is_complex(enum cpn_dtype dt) { return cpn_dtype_class(dt) == CPN_CLASS_COMPLEX; }

static bool fail(const char **why, const char *msg)
{
    if (why) *why = msg;
    return false;
}

bool cpn_cuda_codegen_supports(const struct cpn_fused_prog *p, const char **why)
{
    if (p->ninstr <= 0) return fail(why, "empty program");
    for (int k = 0; k < p->ninstr; k++) {
        const struct cpn_fused_instr *in = &p->instr[k];
        switch (in->kind) {
        case CPN_FI_LOOP:
            if (!cpn_cuda_ctype(in->in_dt) || !cpn_cuda_ctype(in->out_dt)) return fail(why, "unknown dtype");
            if (in->code >= 0 && !op_has_dtype_loop(in->code, loop_dt(in)))
                return fail(why, "the op has no loop for this dtype");
            if (loop_nout(in) == 2 && (in->narg < 2 || in->arg[in->narg - 2].kind != CPN_FARG_EXT ||
                                       in->arg[in->narg - 1].kind != CPN_FARG_EXT))
                return fail(why, "two-output ops write memory only");
            break;
        case CPN_FI_RANDOM:
            break;
        case CPN_FI_ARANGE:
            if (!cpn_cuda_ctype(in->dt)) return fail(why, "unknown dtype");
            if (is_complex(in->dt)) return fail(why, "complex arange fills run on the host");
            break;
        case CPN_FI_REDUCE:
            if (k != p->ninstr - 1) return fail(why, "a reduction must close the program");
            if (!cpn_cuda_ctype(in->dt) || !cpn_cuda_ctype(in->acc_dt)) return fail(why, "unknown dtype");
            if (!op_has_dtype(in->rcode, in->acc_dt)) return fail(why, "the reduction has no loop for this dtype");
            break;
        default:
            return fail(why, "unknown instruction");
        }
    }
    struct cpn_fused_counts c;
    cpn_fused_count(p, &c);
    if (c.ext > CPN_DEV_MAXEXT) return fail(why, "too many operands for one kernel");
    if (c.scal > CPN_DEV_MAXSCAL) return fail(why, "too many scalars for one kernel");
    if (c.param > CPN_DEV_MAXPARAM) return fail(why, "too many random draws or fills for one kernel");
    return true;
}

/* ---- text ------------------------------------------------------------------------------------ */

struct text {
    char *buf;
    size_t cap, len;
};

static void emit(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->len < t->cap ? t->cap - t->len : 0;
    int n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += (size_t)n;
}

/* The expression reading operand `a` of type `ty`; `var` maps register slots to variables. */
static void operand(struct text *t, const struct cpn_fused_arg *a, const char *ty, const int *var,
                    int *scal)
{
    switch (a->kind) {
    case CPN_FARG_EXT:
        emit(t, "(*(const %s *)(a.base[%d] + o%d))", ty, a->idx, a->idx);
        break;
    case CPN_FARG_SCALAR:
        emit(t, "(*(const %s *)&a.scal[%d][0])", ty, (*scal)++);
        break;
    default:
        emit(t, "v%d", var[a->idx]);
        break;
    }
}

/* A conversion of an expression from dtype `from` to `to`, as NumPy's unsafe cast (and the host's
 * cast.c): emitted as cast_open, the expression, cast_close.  To complex: the value as the real
 * part; from complex: the real part, or for bool whether either part is non-zero. */
static void cast_open(struct text *t, enum cpn_dtype from, enum cpn_dtype to)
{
    if (is_complex(to)) emit(t, "cpn_to_%s(", suffixes[to]);
    else if (is_complex(from) && to == CPN_DTYPE_BOOL) emit(t, "!cpn_logical_not_%s(", suffixes[from]);
    else if (is_complex(from)) emit(t, "(%s)(", ctypes[to]);
    else emit(t, "(%s)", ctypes[to]);
}

static void cast_close(struct text *t, enum cpn_dtype from, enum cpn_dtype to)
{
    if (is_complex(to) || (is_complex(from) && to == CPN_DTYPE_BOOL)) emit(t, ")");
    else if (is_complex(from)) emit(t, ").re");
}

/* Store the value of v<k> (type ty) to output operand `o`: memory or a register slot. */
static void store(struct text *t, const struct cpn_fused_arg *o, const char *ty, int k, int *var)
{
    if (o->kind == CPN_FARG_EXT) emit(t, "        *(%s *)(a.base[%d] + o%d) = v%d;\n", ty, o->idx, o->idx, k);
    else if (o->kind == CPN_FARG_REG) var[o->idx] = k;
}

/* ---- reports: what an instruction finds per element (fpclass.h), into its device word ------- */

/* The fpclass.h kind of a LOOP instruction's float arithmetic (CPN_FPC_NONE: none). */
static int fpe_kind(const struct cpn_fused_instr *in)
{
    if (in->kind != CPN_FI_LOOP) return CPN_FPC_NONE;
    /* Casts from a real float (float16 through its float value); not to complex, whose value
     * the rules do not take (float -> complex64 narrowing is unreported on the device). */
    if (in->code < 0)
        return cpn_dtype_class(in->in_dt) == CPN_CLASS_FLOAT && !is_complex(in->out_dt)
                   ? cpn_fpc_kind_of(-1, in->in_dt, in->out_dt) : CPN_FPC_NONE;
    const enum cpn_dtype ldt = loop_dt(in);
    return cpn_dtype_class(ldt) == CPN_CLASS_FLOAT ? cpn_fpc_kind_of(in->code, ldt, ldt) : CPN_FPC_NONE;
}

/* An integer division of ops.def's INTDIV (reports division by zero itself). */
static bool fpe_intdiv(const struct cpn_fused_instr *in)
{
    const enum cpn_dtype_class c = in->kind == CPN_FI_LOOP ? cpn_dtype_class(loop_dt(in)) : CPN_CLASS_FLOAT;
    return in->kind == CPN_FI_LOOP && in->code >= 0 && (c == CPN_CLASS_INT || c == CPN_CLASS_UINT) &&
           (cpn_op_info((enum cpn_opcode)in->code)->flags & CPN_OPF_INTDIV);
}

/* Signed integer power: a negative exponent is NumPy's ValueError, whatever the error mode. */
static bool value_check(const struct cpn_fused_instr *in)
{
    return in->kind == CPN_FI_LOOP && cpn_op_fails_on_data(in->code, loop_dt(in));
}

/* Does instruction k write its report word?  Floating-point findings only when the program is
 * watched (p->fpe bound); value errors always. */
static bool reports(const struct cpn_fused_prog *p, const struct cpn_fused_instr *in)
{
    return value_check(in) || (p->fpe && (fpe_kind(in) != CPN_FPC_NONE || fpe_intdiv(in)));
}

bool cpn_cuda_codegen_reports(const struct cpn_fused_prog *p)
{
    for (int k = 0; k < p->ninstr; k++)
        if (reports(p, &p->instr[k])) return true;
    return false;
}

static const char *int_min(enum cpn_dtype dt)
{
    switch (dt) {
    case CPN_DTYPE_INT8: return "(-127 - 1)";
    case CPN_DTYPE_INT16: return "(-32767 - 1)";
    case CPN_DTYPE_INT32: return "(-2147483647 - 1)";
    case CPN_DTYPE_INT64: return "(-9223372036854775807LL - 1)";
    default: return "0";
    }
}

/* f<k> |= fpclass.h's rule `kind` on the instruction's operands (read again, scalars from index
 * scal0; a missing second operand is 0.0) and its output <res><k> (v: output 0, w: output 1). */
static void emit_classify(struct text *t, const struct cpn_fused_instr *in, int k, int kind, const char *ti,
                          const char *ti1, const int *var, int scal0, char res)
{
    int sc = scal0;
    emit(t, "        f%d |= cpn_fpe_classify(%d, (double)", k, kind);
    operand(t, &in->arg[0], ti, var, &sc);
    emit(t, ", ");
    if (in->narg - loop_nout(in) == 2) {
        emit(t, "(double)");
        operand(t, &in->arg[1], ti1, var, &sc);
    } else {
        emit(t, "0.0");
    }
    emit(t, ", (double)%c%d);\n", res, k);
}

/* Fold instruction k's findings for this element into f<k>: after v<k> is computed and before
 * it is stored (the output may be an input).  The operands are read again (same values; the
 * compiler keeps the first loads), scalars from index scal0. */
static void emit_reports(struct text *t, const struct cpn_fused_prog *p, const struct cpn_fused_instr *in,
                         int k, int scal0, const int *var)
{
    if (!reports(p, in)) return;
    const int kind = fpe_kind(in);
    const char *ti = ctypes[in->code < 0 ? in->in_dt : loop_dt(in)];
    const char *ti1 = in->code < 0 ? ti : ctypes[input_dt(in, loop_dt(in), 1)];   /* ldexp's int64 */
    int sc = scal0;
    if (p->fpe && kind >= CPN_FPC_CAST_I32) {
        emit(t, "        f%d |= cpn_fpe_cast(%d, (double)", k, kind);
        operand(t, &in->arg[0], ti, var, &sc);
        emit(t, ");\n");
    } else if (p->fpe && kind != CPN_FPC_NONE) {
        emit_classify(t, in, k, kind, ti, ti1, var, scal0, 'v');
        /* A float output 1 (divmod's remainder, modf's integral part): the ARITH rule on it */
        if (loop_nout(in) == 2 && cpn_dtype_class(cpn_op_out_dtype((enum cpn_opcode)in->code, 1, loop_dt(in))) ==
                                      CPN_CLASS_FLOAT)
            emit_classify(t, in, k, CPN_FPC_ARITH, ti, ti1, var, scal0, 'w');
    } else if (p->fpe && fpe_intdiv(in)) {
        const bool quot = (cpn_dtype_class(loop_dt(in)) == CPN_CLASS_INT) &&
                          (cpn_op_info((enum cpn_opcode)in->code)->flags & CPN_OPF_QUOTIENT);
        emit(t, "        f%d |= cpn_fpe_intdiv((int64_t)", k);
        operand(t, &in->arg[0], ti, var, &sc);
        emit(t, ", (int64_t)");
        operand(t, &in->arg[1], ti, var, &sc);
        emit(t, ", %d, (int64_t)%s) << %d;\n", quot, int_min(loop_dt(in)), CPN_DEVFPE_SW_SHIFT);
    }
    if (value_check(in)) {
        sc = scal0;
        if (in->arg[0].kind == CPN_FARG_SCALAR) sc++;
        emit(t, "        if (");
        operand(t, &in->arg[1], ti, var, &sc);
        emit(t, " < 0) f%d |= %#xu;\n", k, CPN_DEVFPE_VALUE);
    }
}

int cpn_cuda_codegen(const struct cpn_fused_prog *p, char *buf, size_t cap)
{
    if (!cpn_cuda_codegen_supports(p, NULL)) return -1;
    struct text t = {buf, cap, 0};
    if (cap) buf[0] = 0;
    /* Which externals the program addresses (bound indices are assigned in program order). */
    bool used[CPN_DEV_MAXEXT] = {0};
    int maxext = -1;
    for (int k = 0; k < p->ninstr; k++) {
        const struct cpn_fused_instr *in = &p->instr[k];
        for (int i = 0; i < in->narg; i++)
            if (in->arg[i].kind == CPN_FARG_EXT && in->arg[i].idx < CPN_DEV_MAXEXT) used[in->arg[i].idx] = true;
        if ((in->kind == CPN_FI_RANDOM || in->kind == CPN_FI_ARANGE) && in->index_ext < CPN_DEV_MAXEXT)
            used[in->index_ext] = true;
    }
    for (int e = 0; e < CPN_DEV_MAXEXT; e++)
        if (used[e]) maxext = e;
    const struct cpn_fused_instr *last = &p->instr[p->ninstr - 1];
    const bool reduce = last->kind == CPN_FI_REDUCE;
    const char *acc_t = reduce ? ctypes[last->acc_dt] : NULL;

    emit(&t, "/* generated by cupynum (cuda/codegen.c): %d instruction(s) */\n", p->ninstr);
    emit(&t, "#include \"cpn_device.h\"\n\n");
    emit(&t, "extern \"C\" __global__ void __launch_bounds__(%d) cpn_k(const struct cpn_dev_args a)\n{\n",
         CPN_DEV_BLOCK);
    if (reduce) emit(&t, "    %s acc{};\n    bool has = false;\n", acc_t);
    for (int k = 0; k < p->ninstr; k++)
        if (reports(p, &p->instr[k])) emit(&t, "    unsigned f%d = 0;\n", k);
    /* Rows (every dimension but the innermost) over blockIdx.y, the innermost dimension over
     * blockIdx.x and the threads: no division per element, one unravel per row. */
    emit(&t, "    const int64_t inner = a.shape[a.ndim - 1], outer = a.n / inner;\n");
    emit(&t, "    const int64_t jstep = (int64_t)gridDim.x * blockDim.x;\n");
    emit(&t, "    for (int64_t row = blockIdx.y; row < outer; row += gridDim.y) {\n");
    for (int e = 0; e <= maxext; e++)
        if (used[e]) emit(&t, "        int64_t b%d = 0;\n", e);
    emit(&t, "        {\n            int64_t r = row;\n");
    emit(&t, "            for (int d = (int)a.ndim - 2; d >= 0; d--) {\n");
    emit(&t, "                const int64_t c = r %% a.shape[d];\n                r /= a.shape[d];\n");
    for (int e = 0; e <= maxext; e++)
        if (used[e]) emit(&t, "                b%d += c * a.st[%d][d];\n", e, e);
    emit(&t, "            }\n        }\n");
    emit(&t, "    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < inner; j += jstep) {\n");
    for (int e = 0; e <= maxext; e++)
        if (used[e]) emit(&t, "        const int64_t o%d = b%d + j * a.st[%d][a.ndim - 1];\n", e, e, e);

    int var[CPN_FUSED_MAXSLOTS];
    for (int s = 0; s < CPN_FUSED_MAXSLOTS; s++) var[s] = -1;
    int scal = 0, param = 0;
    for (int k = 0; k < p->ninstr; k++) {
        const struct cpn_fused_instr *in = &p->instr[k];
        switch (in->kind) {
        case CPN_FI_LOOP: {
            const char *ti = ctypes[loop_dt(in)], *to = ctypes[in->out_dt];
            const int nout = loop_nout(in), nin = in->narg - nout, scal0 = scal;
            const int cast_kind = in->code < 0 && cpn_dtype_class(in->in_dt) == CPN_CLASS_FLOAT
                                      ? cpn_fpc_kind_of(-1, in->in_dt, in->out_dt) : CPN_FPC_NONE;
            if (cast_kind >= CPN_FPC_CAST_I32) {   /* float -> integer: NumPy's (x86) values */
                emit(&t, "        const %s v%d = (%s)cpn_fpc_cvt(%d, (double)", to, k, to, cast_kind);
                operand(&t, &in->arg[0], ti, var, &scal);
                emit(&t, ")");
            } else if (in->code < 0) {
                emit(&t, "        const %s v%d = ", to, k);
                cast_open(&t, in->in_dt, in->out_dt);
                operand(&t, &in->arg[0], ti, var, &scal);
                cast_close(&t, in->in_dt, in->out_dt);
            } else if (in->code == CPN_OP_WHERE) {   /* out = cond ? x : y */
                emit(&t, "        const %s v%d = ", to, k);
                operand(&t, &in->arg[0], "bool", var, &scal);
                emit(&t, " ? ");
                operand(&t, &in->arg[1], ti, var, &scal);
                emit(&t, " : ");
                operand(&t, &in->arg[2], ti, var, &scal);
            } else {
                /* two outputs: output 1 (w<k>, of its own dtype) through the last argument */
                const enum cpn_opcode code = (enum cpn_opcode)in->code;
                if (nout == 2) emit(&t, "        %s w%d;\n", ctypes[cpn_op_out_dtype(code, 1, loop_dt(in))], k);
                emit(&t, "        const %s v%d = (%s)cpn_%s_%s(", to, k, to, cpn_op_info(code)->name,
                     suffixes[in->in_dt]);
                for (int i = 0; i < nin; i++) {
                    if (i) emit(&t, ", ");
                    operand(&t, &in->arg[i], ctypes[input_dt(in, loop_dt(in), i)], var, &scal);
                }
                if (nout == 2) emit(&t, ", &w%d", k);
                emit(&t, ")");
            }
            emit(&t, ";\n");
            emit_reports(&t, p, in, k, scal0, var);
            store(&t, &in->arg[nin], to, k, var);
            if (nout == 2) {   /* supports(): an external */
                const struct cpn_fused_arg *o1 = &in->arg[nin + 1];
                emit(&t, "        *(%s *)(a.base[%d] + o%d) = w%d;\n",
                     ctypes[cpn_op_out_dtype((enum cpn_opcode)in->code, 1, loop_dt(in))], o1->idx, o1->idx, k);
            }
            break;
        }
        case CPN_FI_RANDOM:
            if (in->dist == CPN_RANDOM_NORMAL || in->dist == CPN_RANDOM_UNIFORM)
                emit(&t, "        const double v%d = cpn_philox_%s(a.seed[%d], a.stream[%d], "
                         "(uint64_t)((a.base[%d] + o%d) / %lld), a.p0[%d], a.p1[%d]);\n",
                     k, in->dist == CPN_RANDOM_NORMAL ? "normal" : "uniform", param, param,
                     in->index_ext, in->index_ext, (long long)in->index_size, param, param);
            else   /* every other distribution: philox.h's one switch */
                emit(&t, "        const double v%d = cpn_philox_draw(%d, a.seed[%d], a.stream[%d], "
                         "(uint64_t)((a.base[%d] + o%d) / %lld), a.p0[%d], a.p1[%d]);\n",
                     k, in->dist, param, param, in->index_ext, in->index_ext,
                     (long long)in->index_size, param, param);
            param++;
            store(&t, &in->arg[0], "double", k, var);
            break;
        case CPN_FI_ARANGE: {
            const char *to = ctypes[in->dt];
            const bool fl = cpn_dtype_class(in->dt) == CPN_CLASS_FLOAT;
            emit(&t, "        const %s v%d = cpn_arange<%s>((int64_t)((a.base[%d] + o%d) / %lld), "
                     "a.%s[%d], a.%s[%d]);\n",
                 to, k, to, in->index_ext, in->index_ext, (long long)in->index_size,
                 fl ? "p0" : "i0", param, fl ? "p1" : "i1", param);
            param++;
            store(&t, &in->arg[0], to, k, var);
            break;
        }
        default: {   /* REDUCE: fold into this thread's accumulator, in the accumulator dtype */
            emit(&t, "        {\n            const %s x = ", acc_t);
            cast_open(&t, in->dt, in->acc_dt);
            operand(&t, &in->arg[0], ctypes[in->dt], var, &scal);
            cast_close(&t, in->dt, in->acc_dt);
            emit(&t, ";\n            acc = has ? cpn_%s_%s(acc, x) : x;\n            has = true;\n        }\n",
                 cpn_op_info(in->rcode)->name, suffixes[in->acc_dt]);
            break;
        }
        }
    }
    emit(&t, "    }\n    }\n");
    /* Reports: OR over the warp (every thread of the block gets here: blocks are whole warps and
     * nothing returns early), one atomicOr per warp that found something. */
    for (int k = 0; k < p->ninstr; k++) {
        if (!reports(p, &p->instr[k])) continue;
        emit(&t, "    for (int s = 16; s > 0; s >>= 1) f%d |= __shfl_xor_sync(0xffffffffu, f%d, s);\n", k, k);
        emit(&t, "    if ((threadIdx.x & 31u) == 0 && f%d) atomicOr((unsigned *)a.fpe + %d, f%d);\n", k, k, k);
    }
    if (reduce) {
        /* Every block holds at least one element (grid.y <= rows, grid.x <= ceil(inner /
         * block)); thread 0 folds the block's partials in thread order. */
        emit(&t, "    __shared__ %s sv[%d];\n    __shared__ bool sh[%d];\n", acc_t, CPN_DEV_BLOCK, CPN_DEV_BLOCK);
        emit(&t, "    sv[threadIdx.x] = acc;\n    sh[threadIdx.x] = has;\n    __syncthreads();\n");
        emit(&t, "    if (threadIdx.x == 0) {\n        %s r{};\n        bool h = false;\n", acc_t);
        emit(&t, "        for (unsigned t = 0; t < blockDim.x; t++)\n");
        emit(&t, "            if (sh[t]) {\n                r = h ? cpn_%s_%s(r, sv[t]) : sv[t];\n"
                 "                h = true;\n            }\n",
             cpn_op_info(last->rcode)->name, suffixes[last->acc_dt]);
        emit(&t, "        ((%s *)a.partials)[(int64_t)blockIdx.y * gridDim.x + blockIdx.x] = r;\n    }\n", acc_t);
    }
    emit(&t, "}\n");
    return (int)t.len;
}

/* ---- integer matmul ---------------------------------------------------------------------------- */

int cpn_cuda_codegen_matmul(enum cpn_dtype dt, char *buf, size_t cap)
{
    const enum cpn_dtype_class c = cpn_dtype_class(dt);
    if (!cpn_cuda_ctype(dt) || (c != CPN_CLASS_BOOL && c != CPN_CLASS_INT && c != CPN_CLASS_UINT)) return -1;
    struct text t = {buf, cap, 0};
    if (cap) buf[0] = 0;
    const char *ty = ctypes[dt], *s = suffixes[dt];
    emit(&t, "/* generated by cupynum (cuda/codegen.c): %s matmul */\n", cpn_dtype_name(dt));
    emit(&t, "#include \"cpn_device.h\"\n\n");
    emit(&t, "extern \"C\" __global__ void __launch_bounds__(%d) cpn_k(const struct cpn_dev_args a)\n{\n",
         CPN_DEV_BLOCK);
    emit(&t, "    __shared__ %s sa[%d][%d], sb[%d][%d];\n", ty, CPN_DEV_MM_TILE, CPN_DEV_MM_TILE,
         CPN_DEV_MM_TILE, CPN_DEV_MM_TILE);
    emit(&t, "    const int64_t m = a.shape[0], kk = a.shape[1], n = a.shape[2];\n");
    emit(&t, "    const int tx = (int)(threadIdx.x %% %d), ty = (int)(threadIdx.x / %d);\n", CPN_DEV_MM_TILE,
         CPN_DEV_MM_TILE);
    emit(&t, "    const int64_t row = (int64_t)blockIdx.y * %d + ty, col = (int64_t)blockIdx.x * %d + tx;\n",
         CPN_DEV_MM_TILE, CPN_DEV_MM_TILE);
    emit(&t, "    %s acc = 0;\n", ty);
    emit(&t, "    for (int64_t p0 = 0; p0 < kk; p0 += %d) {\n", CPN_DEV_MM_TILE);
    emit(&t, "        const int64_t pa = p0 + tx, pb = p0 + ty;\n");
    emit(&t, "        sa[ty][tx] = row < m && pa < kk ? *(const %s *)(a.base[0] + row * a.st[0][0] + pa * a.st[0][1]) : (%s)0;\n",
         ty, ty);
    emit(&t, "        sb[ty][tx] = pb < kk && col < n ? *(const %s *)(a.base[1] + pb * a.st[1][0] + col * a.st[1][1]) : (%s)0;\n",
         ty, ty);
    emit(&t, "        __syncthreads();\n");
    emit(&t, "        for (int q = 0; q < %d; q++) acc = cpn_add_%s(acc, cpn_multiply_%s(sa[ty][q], sb[q][tx]));\n",
         CPN_DEV_MM_TILE, s, s);
    emit(&t, "        __syncthreads();\n    }\n");
    emit(&t, "    if (row < m && col < n) *(%s *)(a.base[2] + row * a.st[2][0] + col * a.st[2][1]) = acc;\n}\n", ty);
    return (int)t.len;
}

void cpn_cuda_codegen_key(const char *src, char out[17])
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *c = (const unsigned char *)src; *c; c++) {
        h ^= *c;
        h *= 1099511628211ull;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}
