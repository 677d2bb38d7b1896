/* test_codegen.c: the CUDA backend's generated source, without a GPU.
 *
 * For every op of the table and every device dtype it supports: the source calls the scalar.h
 * function the CPU loop uses, keys are stable and distinct, and the source COMPILES with NVRTC
 * (all kernels batched into one program, renamed) and, when nvcc is on PATH, with nvcc -ptx.
 * Fused programs with registers, scalars, random draws, arange fills and a closing reduction are
 * compiled one by one through the backend's own path (cpn_nvrtc_compile, with its cache), and the
 * distributed executor's device region copies (nccl.c).  Every op x dtype and cast is generated a
 * second time watched (fpe bound): the kernel then ORs fpclass.h's findings into its report
 * word; signed integer power always checks its exponent.  The integer/bool matmul kernels are
 * compiled in the same batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen.h"
#include "devargs.h"
#include "rtc.h"
#include "op.h"
#include "cuda_transport.h"

#include "check.h"

static const enum cpn_dtype device_dtypes[] = {
    CPN_DTYPE_BOOL, CPN_DTYPE_INT8, CPN_DTYPE_UINT8, CPN_DTYPE_INT16, CPN_DTYPE_UINT16,
    CPN_DTYPE_INT32, CPN_DTYPE_UINT32, CPN_DTYPE_INT64, CPN_DTYPE_UINT64, CPN_DTYPE_FLOAT16,
    CPN_DTYPE_FLOAT32, CPN_DTYPE_FLOAT64, CPN_DTYPE_COMPLEX64, CPN_DTYPE_COMPLEX128};
#define NDT (int)(sizeof device_dtypes / sizeof device_dtypes[0])

static const char *suffix(enum cpn_dtype dt)
{
    static const char *s[] = {"b", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16",
                              "f32", "f64", "c64", "c128"};
    return s[dt];
}

/* A one-instruction program: op `code` on dtype dt; operand i is external i, or a scalar when
 * scalar_mask has bit i. */
static void one_op(struct cpn_fused_prog *p, int code, enum cpn_dtype dt, unsigned scalar_mask)
{
    memset(p, 0, sizeof *p);
    p->ninstr = 1;
    p->ndim = 2;
    struct cpn_fused_instr *in = &p->instr[0];
    in->kind = CPN_FI_LOOP;
    in->code = code;
    in->in_dt = dt;
    in->out_dt = code >= 0 ? cpn_op_out_dtype((enum cpn_opcode)code, 0, dt) : CPN_DTYPE_FLOAT64;
    int nin = code >= 0 ? cpn_op_info((enum cpn_opcode)code)->nin : 1;
    int nout = code >= 0 ? cpn_op_info((enum cpn_opcode)code)->nout : 1;   /* divmod, modf, frexp: 2 */
    in->narg = nin + nout;
    int e = 0;
    for (int i = 0; i < nin; i++) {
        in->arg[i].kind = (scalar_mask >> i) & 1 ? CPN_FARG_SCALAR : CPN_FARG_EXT;
        if (in->arg[i].kind == CPN_FARG_EXT) in->arg[i].idx = e++;
    }
    for (int k = 0; k < nout; k++) {
        in->arg[nin + k].kind = CPN_FARG_EXT;
        in->arg[nin + k].idx = e++;
    }
    p->next = e;
}

static char *batch;
static size_t batch_len, batch_cap;

/* Append src to the batch with its kernel renamed cpn_k_<n>. */
static void add_to_batch(const char *src, int n)
{
    const char *k = strstr(src, "void __launch_bounds__");
    const char *name = k ? strstr(k, "cpn_k(") : NULL;
    CHECK(name != NULL);
    if (!name) return;
    size_t need = batch_len + strlen(src) + 64;
    if (need > batch_cap) {
        batch_cap = need * 2;
        batch = realloc(batch, batch_cap);
    }
    batch_len += (size_t)sprintf(batch + batch_len, "%.*scpn_k_%d(%s", (int)(name - src), src, n, name + 6);
}

static int kernels_in_batch;

static void test_ops_sweep(void)
{
    char src[16384], key[17], key2[17];
    static char keys[4096][17];
    int nkeys = 0;
    struct cpn_fused_prog p;
    for (int code = 0; code < CPN_OP_COUNT; code++) {
        const struct cpn_op_info *info = cpn_op_info((enum cpn_opcode)code);
        for (int d = 0; d < NDT; d++) {
            enum cpn_dtype dt = device_dtypes[d];
            /* Every op of the table on every dtype it has: one or two outputs (output 1 through
             * the pointer argument), ldexp's int64 exponent, where's select. */
            bool has = (info->nin <= 2 || code == CPN_OP_WHERE) && ((info->dtypes >> dt) & 1u);
            one_op(&p, code, dt, 0);
            CHECK(cpn_cuda_codegen_supports(&p, NULL) == has);
            if (!has) {
                CHECK(cpn_cuda_codegen(&p, src, sizeof src) == -1);
                continue;
            }
            int n = cpn_cuda_codegen(&p, src, sizeof src);
            CHECK(n > 0 && (size_t)n < sizeof src);
            char call[96];
            if (code == CPN_OP_WHERE)
                snprintf(call, sizeof call, "= (*(const bool *)(a.base[0] + o0)) ? (*(const %s *)",
                         cpn_cuda_ctype(dt));
            else
                snprintf(call, sizeof call, "cpn_%s_%s(", info->name, suffix(dt));
            if (!strstr(src, call)) printf("missing %s in:\n%s\n", call, src);
            CHECK(strstr(src, call) != NULL);
            CHECK(strstr(src, "#include \"cpn_device.h\"") != NULL);
            if (info->nout == 2) {   /* output 1: a local through the pointer, stored to external nin + 1 */
                char store1[96];
                snprintf(store1, sizeof store1, "*(%s *)(a.base[%d] + o%d) = w0;",
                         cpn_cuda_ctype(cpn_op_out_dtype((enum cpn_opcode)code, 1, dt)), info->nin + 1, info->nin + 1);
                CHECK(strstr(src, ", &w0)") != NULL);
                CHECK(strstr(src, store1) != NULL);
                /* as output 1 of a fused run (a register), it stays on the host */
                p.instr[0].arg[info->nin + 1].kind = CPN_FARG_REG;
                CHECK(!cpn_cuda_codegen_supports(&p, NULL));
                one_op(&p, code, dt, 0);
            }
            if (info->in1 == CPN_RESULT_I64) CHECK(strstr(src, "(*(const int64_t *)(a.base[1] + o1))") != NULL);
            cpn_cuda_codegen_key(src, key);
            /* stable: the same program gives the same text and key */
            char again[16384];
            cpn_cuda_codegen(&p, again, sizeof again);
            cpn_cuda_codegen_key(again, key2);
            CHECK(!strcmp(key, key2));
            /* distinct from every other op x dtype */
            for (int k = 0; k < nkeys; k++) CHECK(strcmp(keys[k], key) != 0);
            memcpy(keys[nkeys++], key, 17);
            add_to_batch(src, kernels_in_batch++);
            /* signed integer power checks its exponent, watched or not */
            const bool negpow = code == CPN_OP_POWER && cpn_dtype_class(dt) == CPN_CLASS_INT;
            CHECK(cpn_cuda_codegen_reports(&p) == negpow);
            CHECK((strstr(src, "atomicOr") != NULL) == negpow);
            /* with a scalar operand: another kernel */
            if (info->nin >= 2) {
                one_op(&p, code, dt, 2u);
                cpn_cuda_codegen(&p, src, sizeof src);
                CHECK(strstr(src, "a.scal[0]") != NULL);
                if (info->in1 == CPN_RESULT_I64) CHECK(strstr(src, "(*(const int64_t *)&a.scal[0][0])") != NULL);
                cpn_cuda_codegen_key(src, key2);
                CHECK(strcmp(key, key2) != 0);
                add_to_batch(src, kernels_in_batch++);
            }
            /* watched: float loops classify, integer divisions check, others are unchanged */
            static struct cpn_fpreport words[CPN_FUSED_MAXINSTR];
            for (unsigned mask = 0; mask < (info->nin >= 2 ? 3u : 1u); mask++) {
                one_op(&p, code, dt, mask ? 1u : 0u);
                p.fpe = words;
                const bool fl = cpn_dtype_class(dt) == CPN_CLASS_FLOAT;
                const bool rep = negpow || (fl && !(info->flags & CPN_OPF_SILENT) && code != CPN_OP_WHERE &&
                                            cpn_op_out_dtype((enum cpn_opcode)code, 0, dt) == dt) ||
                                 ((cpn_dtype_class(dt) == CPN_CLASS_INT || cpn_dtype_class(dt) == CPN_CLASS_UINT) &&
                                  (info->flags & CPN_OPF_INTDIV));
                CHECK(cpn_cuda_codegen_reports(&p) == rep);
                CHECK(cpn_cuda_codegen(&p, src, sizeof src) > 0);
                CHECK((strstr(src, "atomicOr((unsigned *)a.fpe + 0, f0)") != NULL) == rep);
                if (fl && rep) CHECK(strstr(src, "cpn_fpe_classify(") != NULL);
                /* a float output 1 (divmod's remainder, modf's integral part) is classified too */
                if (fl && rep && info->nout == 2)
                    CHECK((strstr(src, ", (double)w0);") != NULL) ==
                          (cpn_dtype_class(cpn_op_out_dtype((enum cpn_opcode)code, 1, dt)) == CPN_CLASS_FLOAT));
                if (!fl && rep && !negpow) CHECK(strstr(src, "cpn_fpe_intdiv(") != NULL);
                if (negpow) CHECK(strstr(src, " < 0) f0 |= 0x100u;") != NULL);
                cpn_cuda_codegen_key(src, key2);
                CHECK(mask || (strcmp(key, key2) != 0) == (rep && !negpow));
                if (rep) add_to_batch(src, kernels_in_batch++);
            }
        }
    }
    /* casts: every device dtype to every device dtype */
    for (int a = 0; a < NDT; a++)
        for (int b = 0; b < NDT; b++) {
            one_op(&p, -1, device_dtypes[a], 0);
            p.instr[0].out_dt = device_dtypes[b];
            CHECK(cpn_cuda_codegen(&p, src, sizeof src) > 0);
            /* float -> integer converts as the CPU does (the device's own conversion saturates) */
            const bool f2i = cpn_dtype_class(device_dtypes[a]) == CPN_CLASS_FLOAT &&
                             (cpn_dtype_class(device_dtypes[b]) == CPN_CLASS_INT ||
                              cpn_dtype_class(device_dtypes[b]) == CPN_CLASS_UINT);
            CHECK((strstr(src, "cpn_fpc_cvt(") != NULL) == f2i);
            add_to_batch(src, kernels_in_batch++);
            /* watched: casts from a float to another dtype report (bool: nothing to report) */
            static struct cpn_fpreport words[1];
            p.fpe = words;
            const bool rep = cpn_dtype_class(device_dtypes[a]) == CPN_CLASS_FLOAT && a != b &&
                             device_dtypes[b] != CPN_DTYPE_BOOL &&
                             cpn_dtype_class(device_dtypes[b]) != CPN_CLASS_COMPLEX;
            CHECK(cpn_cuda_codegen_reports(&p) == rep);
            CHECK(cpn_cuda_codegen(&p, src, sizeof src) > 0);
            CHECK((strstr(src, "cpn_fpe_") != NULL) == rep);
            if (rep) add_to_batch(src, kernels_in_batch++);
        }
    /* integer and bool matmul: a tiled kernel each; floats go to cuBLAS */
    for (int d = 0; d < NDT; d++) {
        enum cpn_dtype dt = device_dtypes[d];
        int n = cpn_cuda_codegen_matmul(dt, src, sizeof src);
        if (cpn_dtype_class(dt) == CPN_CLASS_FLOAT || cpn_dtype_class(dt) == CPN_CLASS_COMPLEX) {
            CHECK(n == -1);
            continue;
        }
        CHECK(n > 0 && (size_t)n < sizeof src);
        char call[64];
        snprintf(call, sizeof call, "acc = cpn_add_%s(acc, cpn_multiply_%s(", suffix(dt), suffix(dt));
        CHECK(strstr(src, call) != NULL);
        add_to_batch(src, kernels_in_batch++);
    }
    CHECK(cpn_cuda_codegen_matmul(CPN_DTYPE_COMPLEX128, src, sizeof src) == -1);
    printf("generated %d kernels (%d op x dtype keys)\n", kernels_in_batch, nkeys);
}

/* pi: x = random, y = random, x*x + y*y < 1, count (sum of bool into int64). */
static void pi_program(struct cpn_fused_prog *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = 1;
    struct cpn_fused_instr *in = p->instr;
    int e = 0;
    for (int k = 0; k < 2; k++) {   /* x, y into registers 0, 1 */
        in[k].kind = CPN_FI_RANDOM;
        in[k].narg = 1;
        in[k].arg[0].kind = CPN_FARG_REG;
        in[k].arg[0].idx = k;
        in[k].index_ext = e++;
        in[k].index_size = 8;
    }
    struct { int code; int a, b; int out; } ops[] = {
        {CPN_OP_MULTIPLY, 0, 0, 2}, {CPN_OP_MULTIPLY, 1, 1, 3}, {CPN_OP_ADD, 2, 3, 2}};
    for (int k = 0; k < 3; k++) {
        struct cpn_fused_instr *i = &in[2 + k];
        i->kind = CPN_FI_LOOP;
        i->code = ops[k].code;
        i->in_dt = i->out_dt = CPN_DTYPE_FLOAT64;
        i->narg = 3;
        i->arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, ops[k].a, 8, NULL};
        i->arg[1] = (struct cpn_fused_arg){CPN_FARG_REG, ops[k].b, 8, NULL};
        i->arg[2] = (struct cpn_fused_arg){CPN_FARG_REG, ops[k].out, 8, NULL};
    }
    struct cpn_fused_instr *lt = &in[5];
    lt->kind = CPN_FI_LOOP;
    lt->code = CPN_OP_LESS;
    lt->in_dt = CPN_DTYPE_FLOAT64;
    lt->out_dt = CPN_DTYPE_BOOL;
    lt->narg = 3;
    lt->arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 2, 8, NULL};
    lt->arg[1] = (struct cpn_fused_arg){CPN_FARG_SCALAR, 0, 8, NULL};
    lt->arg[2] = (struct cpn_fused_arg){CPN_FARG_REG, 4, 1, NULL};
    struct cpn_fused_instr *r = &in[6];
    r->kind = CPN_FI_REDUCE;
    r->narg = 1;
    r->arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 4, 1, NULL};
    r->dt = CPN_DTYPE_BOOL;
    r->acc_dt = CPN_DTYPE_INT64;
    r->rcode = CPN_OP_ADD;
    p->ninstr = 7;
    p->next = e;
}

/* gamma + binomial draws (philox.h's cpn_philox_draw on the device), summed into float64. */
static void draws_program(struct cpn_fused_prog *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = 1;
    struct cpn_fused_instr *in = p->instr;
    const int dists[2] = {CPN_RANDOM_GAMMA, CPN_RANDOM_BINOMIAL};
    for (int k = 0; k < 2; k++) {
        in[k].kind = CPN_FI_RANDOM;
        in[k].dist = dists[k];
        in[k].narg = 1;
        in[k].arg[0].kind = CPN_FARG_REG;
        in[k].arg[0].idx = k;
        in[k].index_ext = k;
        in[k].index_size = 8;
    }
    struct cpn_fused_instr *i = &in[2];
    i->kind = CPN_FI_LOOP;
    i->code = CPN_OP_ADD;
    i->in_dt = i->out_dt = CPN_DTYPE_FLOAT64;
    i->narg = 3;
    i->arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 8, NULL};
    i->arg[1] = (struct cpn_fused_arg){CPN_FARG_REG, 1, 8, NULL};
    i->arg[2] = (struct cpn_fused_arg){CPN_FARG_REG, 2, 8, NULL};
    struct cpn_fused_instr *r = &in[3];
    r->kind = CPN_FI_REDUCE;
    r->narg = 1;
    r->arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 2, 8, NULL};
    r->dt = CPN_DTYPE_FLOAT64;
    r->acc_dt = CPN_DTYPE_FLOAT64;
    r->rcode = CPN_OP_ADD;
    p->ninstr = 4;
    p->next = 2;
}

/* stencil: out = 0.2 * (c + n + s + e + w), five externals, one output external. */
static void stencil_program(struct cpn_fused_prog *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = 2;
    struct cpn_fused_instr *in = p->instr;
    for (int k = 0; k < 4; k++) {
        in[k].kind = CPN_FI_LOOP;
        in[k].code = CPN_OP_ADD;
        in[k].in_dt = in[k].out_dt = CPN_DTYPE_FLOAT64;
        in[k].narg = 3;
        in[k].arg[0] = k == 0 ? (struct cpn_fused_arg){CPN_FARG_EXT, 0, 8, NULL}
                              : (struct cpn_fused_arg){CPN_FARG_REG, 0, 8, NULL};
        in[k].arg[1] = (struct cpn_fused_arg){CPN_FARG_EXT, k + 1, 8, NULL};
        in[k].arg[2] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 8, NULL};
    }
    in[4].kind = CPN_FI_LOOP;
    in[4].code = CPN_OP_MULTIPLY;
    in[4].in_dt = in[4].out_dt = CPN_DTYPE_FLOAT64;
    in[4].narg = 3;
    in[4].arg[0] = (struct cpn_fused_arg){CPN_FARG_SCALAR, 0, 8, NULL};
    in[4].arg[1] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 8, NULL};
    in[4].arg[2] = (struct cpn_fused_arg){CPN_FARG_EXT, 5, 8, NULL};
    p->ninstr = 5;
    p->next = 6;
}

/* arange (int32) cast to float32, times a scalar, stored. */
static void arange_program(struct cpn_fused_prog *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = 1;
    struct cpn_fused_instr *in = p->instr;
    in[0].kind = CPN_FI_ARANGE;
    in[0].narg = 1;
    in[0].dt = CPN_DTYPE_INT32;
    in[0].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 4, NULL};
    in[0].index_ext = 0;
    in[0].index_size = 4;
    in[1].kind = CPN_FI_LOOP;
    in[1].code = -1;
    in[1].in_dt = CPN_DTYPE_INT32;
    in[1].out_dt = CPN_DTYPE_FLOAT32;
    in[1].narg = 2;
    in[1].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 4, NULL};
    in[1].arg[1] = (struct cpn_fused_arg){CPN_FARG_REG, 1, 4, NULL};
    in[2].kind = CPN_FI_LOOP;
    in[2].code = CPN_OP_MULTIPLY;
    in[2].in_dt = in[2].out_dt = CPN_DTYPE_FLOAT32;
    in[2].narg = 3;
    in[2].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 1, 4, NULL};
    in[2].arg[1] = (struct cpn_fused_arg){CPN_FARG_SCALAR, 0, 4, NULL};
    in[2].arg[2] = (struct cpn_fused_arg){CPN_FARG_EXT, 1, 4, NULL};
    p->ninstr = 3;
    p->next = 2;
}

/* sum(complex128(a) * b): a complex64 external cast up, a complex128 scalar, a complex sum. */
static void complex_program(struct cpn_fused_prog *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = 2;
    struct cpn_fused_instr *in = p->instr;
    in[0].kind = CPN_FI_LOOP;
    in[0].code = -1;
    in[0].in_dt = CPN_DTYPE_COMPLEX64;
    in[0].out_dt = CPN_DTYPE_COMPLEX128;
    in[0].narg = 2;
    in[0].arg[0] = (struct cpn_fused_arg){CPN_FARG_EXT, 0, 8, NULL};
    in[0].arg[1] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 16, NULL};
    in[1].kind = CPN_FI_LOOP;
    in[1].code = CPN_OP_MULTIPLY;
    in[1].in_dt = in[1].out_dt = CPN_DTYPE_COMPLEX128;
    in[1].narg = 3;
    in[1].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 16, NULL};
    in[1].arg[1] = (struct cpn_fused_arg){CPN_FARG_SCALAR, 0, 16, NULL};
    in[1].arg[2] = (struct cpn_fused_arg){CPN_FARG_REG, 1, 16, NULL};
    in[2].kind = CPN_FI_REDUCE;
    in[2].narg = 1;
    in[2].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 1, 16, NULL};
    in[2].dt = in[2].acc_dt = CPN_DTYPE_COMPLEX128;
    in[2].rcode = CPN_OP_ADD;
    p->ninstr = 3;
    p->next = 1;
}

/* arange (float16), its exp, cast to bool (from complex64 via the cast of the half). */
static void half_program(struct cpn_fused_prog *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = 1;
    struct cpn_fused_instr *in = p->instr;
    in[0].kind = CPN_FI_ARANGE;
    in[0].narg = 1;
    in[0].dt = CPN_DTYPE_FLOAT16;
    in[0].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 2, NULL};
    in[0].index_ext = 0;
    in[0].index_size = 2;
    in[1].kind = CPN_FI_LOOP;
    in[1].code = CPN_OP_EXP;
    in[1].in_dt = in[1].out_dt = CPN_DTYPE_FLOAT16;
    in[1].narg = 2;
    in[1].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 2, NULL};
    in[1].arg[1] = (struct cpn_fused_arg){CPN_FARG_EXT, 1, 2, NULL};
    in[2].kind = CPN_FI_LOOP;
    in[2].code = -1;
    in[2].in_dt = CPN_DTYPE_FLOAT16;
    in[2].out_dt = CPN_DTYPE_COMPLEX64;
    in[2].narg = 2;
    in[2].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 2, NULL};
    in[2].arg[1] = (struct cpn_fused_arg){CPN_FARG_REG, 1, 8, NULL};
    in[3].kind = CPN_FI_LOOP;
    in[3].code = -1;
    in[3].in_dt = CPN_DTYPE_COMPLEX64;
    in[3].out_dt = CPN_DTYPE_BOOL;
    in[3].narg = 2;
    in[3].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 1, 8, NULL};
    in[3].arg[1] = (struct cpn_fused_arg){CPN_FARG_EXT, 2, 1, NULL};
    p->ninstr = 4;
    p->next = 3;
}

/* ldexp in a fused run: its int64 exponent from a register (an int32 external cast), the
 * result scaled by a float32 scalar. */
static void ldexp_program(struct cpn_fused_prog *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = 2;
    struct cpn_fused_instr *in = p->instr;
    in[0].kind = CPN_FI_LOOP;
    in[0].code = -1;
    in[0].in_dt = CPN_DTYPE_INT32;
    in[0].out_dt = CPN_DTYPE_INT64;
    in[0].narg = 2;
    in[0].arg[0] = (struct cpn_fused_arg){CPN_FARG_EXT, 0, 4, NULL};
    in[0].arg[1] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 8, NULL};
    in[1].kind = CPN_FI_LOOP;
    in[1].code = CPN_OP_LDEXP;
    in[1].in_dt = in[1].out_dt = CPN_DTYPE_FLOAT32;
    in[1].narg = 3;
    in[1].arg[0] = (struct cpn_fused_arg){CPN_FARG_EXT, 1, 4, NULL};
    in[1].arg[1] = (struct cpn_fused_arg){CPN_FARG_REG, 0, 8, NULL};
    in[1].arg[2] = (struct cpn_fused_arg){CPN_FARG_REG, 1, 4, NULL};
    in[2].kind = CPN_FI_LOOP;
    in[2].code = CPN_OP_MULTIPLY;
    in[2].in_dt = in[2].out_dt = CPN_DTYPE_FLOAT32;
    in[2].narg = 3;
    in[2].arg[0] = (struct cpn_fused_arg){CPN_FARG_REG, 1, 4, NULL};
    in[2].arg[1] = (struct cpn_fused_arg){CPN_FARG_SCALAR, 0, 4, NULL};
    in[2].arg[2] = (struct cpn_fused_arg){CPN_FARG_EXT, 2, 4, NULL};
    p->ninstr = 3;
    p->next = 3;
}

static void test_fused_programs(void)
{
    char src[32768], key[17];
    struct cpn_fused_prog p;
    void (*builders[])(struct cpn_fused_prog *) = {pi_program, stencil_program, arange_program,
                                                   complex_program, half_program, ldexp_program,
                                                   draws_program};
    const char *expect[][3] = {
        {"cpn_philox_uniform(", "cpn_less_f64(", "acc = has ? cpn_add_i64(acc, x) : x"},
        {"cpn_add_f64(", "cpn_multiply_f64((*(const double *)&a.scal[0][0]), v3)", "a.base[5] + o5"},
        {"cpn_arange<int32_t>(", "(float)v0", "cpn_multiply_f32("},
        {"cpn_to_c128((*(const cpn_c64 *)", "cpn_multiply_c128(v0, (*(const cpn_c128 *)&a.scal[0][0]))",
         "acc = has ? cpn_add_c128(acc, x) : x"},
        {"cpn_arange<cpn_half>(", "cpn_to_c64(v0)", "!cpn_logical_not_c64(v2)"},
        {"const int64_t v0 = (int64_t)(*(const int32_t *)(a.base[0] + o0))",
         "cpn_ldexp_f32((*(const float *)(a.base[1] + o1)), v0)", "cpn_multiply_f32(v1, "},
        {"cpn_philox_draw(5, ", "cpn_philox_draw(7, ", "acc = has ? cpn_add_f64(acc, x) : x"}};
    const int nb = (int)(sizeof builders / sizeof builders[0]);
    struct cpn_nvrtc_stats s0, s1;
    cpn_nvrtc_stats(&s0);
    for (int b = 0; b < nb; b++) {
        builders[b](&p);
        CHECK(cpn_cuda_codegen_supports(&p, NULL));
        int n = cpn_cuda_codegen(&p, src, sizeof src);
        CHECK(n > 0);
        for (int k = 0; k < 3; k++) {
            if (!strstr(src, expect[b][k])) printf("missing '%s' in:\n%s\n", expect[b][k], src);
            CHECK(strstr(src, expect[b][k]) != NULL);
        }
        cpn_cuda_codegen_key(src, key);
        const void *img;
        size_t size;
        enum cpn_status st = cpn_nvrtc_compile(src, 90, false, &img, &size);
        if (st != CPN_OK) printf("%s\n", cpn_error_message());
        CHECK(st == CPN_OK && size > 0);
        /* the same source again: from memory; PTX for JIT on other GPUs too */
        const void *img2;
        size_t size2;
        CHECK(cpn_nvrtc_compile(src, 90, false, &img2, &size2) == CPN_OK && img2 == img);
        CHECK(cpn_nvrtc_compile(src, 80, true, &img2, &size2) == CPN_OK && size2 > 0);
        if (size2 > 0) CHECK(strstr((const char *)img2, ".entry cpn_k") != NULL);
    }
    cpn_nvrtc_stats(&s1);
    CHECK(s1.memory_hits - s0.memory_hits == nb);
    /* the disk cache: forget the memory, compile again, nothing recompiled */
    cpn_nvrtc_forget();
    pi_program(&p);
    cpn_cuda_codegen(&p, src, sizeof src);
    const void *img;
    size_t size;
    struct cpn_nvrtc_stats s2, s3;
    cpn_nvrtc_stats(&s2);
    CHECK(cpn_nvrtc_compile(src, 90, false, &img, &size) == CPN_OK);
    cpn_nvrtc_stats(&s3);
    CHECK(s3.disk_hits == s2.disk_hits + 1 && s3.compiles == s2.compiles);
}

/* The distributed executor's device region copies (nccl.c): one program per element size, the
 * same source (key) whatever the addresses and strides, compiled to a cubin. */
static void test_copy_programs(void)
{
    static struct cpn_fused_prog p;
    char src[32768], key[17], key2[17];
    const size_t items[] = {1, 2, 4, 8, 16};
    const int64_t ext[CPN_DEV_MAXDIM] = {3, 4, 5, 2, 2, 2, 2, 2};
    const int64_t dst_st[CPN_DEV_MAXDIM] = {20, 5, 1, 1, 1, 1, 1, 1};
    const int64_t src_st[CPN_DEV_MAXDIM] = {70, 7, 1, 1, 1, 1, 1, 1};
    for (int i = 0; i < 5; i++) {
        CHECK(cpn_cuda_copy_prog(&p, 3, ext, items[i], (void *)0x10000, dst_st, (void *)0x20000, src_st));
        CHECK(p.ndim == 3 + (items[i] == 16) && p.next == 2);
        CHECK(p.ext_st[0][0] == 70 * (int64_t)items[i] && p.ext_st[1][1] == 5 * (int64_t)items[i]);
        CHECK(cpn_cuda_codegen_supports(&p, NULL));
        int n = cpn_cuda_codegen(&p, src, sizeof src);
        CHECK(n > 0 && (size_t)n < sizeof src);
        cpn_cuda_codegen_key(src, key);
        const void *img;
        size_t size;
        enum cpn_status st = cpn_nvrtc_compile(src, 90, false, &img, &size);
        if (st != CPN_OK) printf("%s\n%s\n", cpn_error_message(), src);
        CHECK(st == CPN_OK && size > 0);
        /* other addresses and strides: the same kernel */
        CHECK(cpn_cuda_copy_prog(&p, 3, ext, items[i], (void *)0x30000, src_st, (void *)0x40000, dst_st));
        cpn_cuda_codegen(&p, src, sizeof src);
        cpn_cuda_codegen_key(src, key2);
        CHECK(!strcmp(key, key2));
    }
    /* element sizes without a word type, and the dimension limit */
    CHECK(!cpn_cuda_copy_prog(&p, 2, ext, 3, (void *)0x10000, dst_st, (void *)0x20000, src_st));
    CHECK(cpn_cuda_copy_prog(&p, CPN_DEV_MAXDIM - 1, ext, 16, (void *)0x10000, dst_st, (void *)0x20000, src_st));
    CHECK(!cpn_cuda_copy_prog(&p, CPN_DEV_MAXDIM, ext, 16, (void *)0x10000, dst_st, (void *)0x20000, src_st));
    CHECK(cpn_cuda_copy_prog(&p, CPN_DEV_MAXDIM, ext, 8, (void *)0x10000, dst_st, (void *)0x20000, src_st));
}

/* The whole op x dtype batch through NVRTC at once, and through nvcc -ptx when available. */
static void test_batch_compiles(const char *dir)
{
    const void *img;
    size_t size;
    enum cpn_status st = cpn_nvrtc_compile(batch, 90, true, &img, &size);   /* PTX: the front end, no ptxas */
    if (st != CPN_OK) printf("%.4000s\n", cpn_error_message());
    CHECK(st == CPN_OK);
    char path[1024], cmd[4096];
    snprintf(path, sizeof path, "%s/batch.cu", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(batch, f);
    fclose(f);
    for (int h = 0; h < cpn_cuda_header_count; h++) {
        snprintf(path, sizeof path, "%s/%s", dir, cpn_cuda_header_names[h]);
        f = fopen(path, "w");
        CHECK(f != NULL);
        if (!f) return;
        fputs(cpn_cuda_header_sources[h], f);
        fclose(f);
    }
    const char *nvcc = access("/usr/local/cuda/bin/nvcc", X_OK) == 0 ? "/usr/local/cuda/bin/nvcc" : "nvcc";
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", nvcc);
    if (system(cmd) != 0) {
        printf("SKIP nvcc -ptx: nvcc not found\n");
        return;
    }
    snprintf(cmd, sizeof cmd, "cd %s && %s -ptx -arch=compute_90 -std=c++17 -fmad=false -I. batch.cu -o batch.ptx",
             dir, nvcc);
    int rc = system(cmd);
    CHECK(rc == 0);
    printf("nvcc -ptx of %d kernels: %s\n", kernels_in_batch, rc == 0 ? "ok" : "FAILED");
}

int main(void)
{
    const char *why;
    if (!cpn_nvrtc_available(&why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    char dir[] = "/tmp/cpn_codegen_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char cache[1100];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("CUPYNUM_CACHE_DIR", cache, 1);
    test_ops_sweep();
    test_fused_programs();
    test_copy_programs();
    test_batch_compiles(dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("could not remove %s\n", dir);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
