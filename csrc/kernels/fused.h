/* fused.h: a fused element-wise program, bound to buffers, and the threaded block driver that
 * evaluates it (fused.c).
 *
 * A program is a list of instructions over one iteration space (ndim, shape).  Each instruction
 * is an element-wise/cast loop, a Philox draw, an arange fill, or (last only) a full reduction.
 * Its operands are external buffers (origin + byte strides over the iteration space), inline
 * scalars, or registers: per-thread scratch blocks holding a value that is never written to
 * memory.  The space is cut into blocks of at most CPN_FUSED_BLOCK elements along its innermost
 * (coalesced) dimension; threads take blocks, and within a block the instructions run in program
 * order, so every element sees the same sequence of operations as unfused execution. */
#ifndef CPN_FUSED_H
#define CPN_FUSED_H

#include <stdint.h>

#include "kernels.h"

#define CPN_FUSED_BLOCK 1024      /* elements per block: 8 KiB per float64 operand */
#define CPN_FUSED_MAXINSTR 128
#define CPN_FUSED_MAXSLOTS 32
#define CPN_FUSED_MAXEXT (CPN_FUSED_MAXINSTR * 4)

enum cpn_fused_argkind { CPN_FARG_EXT, CPN_FARG_SCALAR, CPN_FARG_REG, CPN_FARG_COUNT };

struct cpn_fused_arg {
    int kind;
    int idx;                      /* EXT: external operand index; REG: register slot */
    int itemsize;                 /* REG: element size of the value held */
    const char *scalar;           /* SCALAR: its bytes */
};

enum cpn_fused_instrkind {
    CPN_FI_LOOP,                  /* fn(inputs..., output) */
    CPN_FI_RANDOM,                /* Philox draw into arg[0] (float64, unit stride) */
    CPN_FI_ARANGE,                /* arange fill into arg[0] (unit stride) */
    CPN_FI_REDUCE,                /* fold arg[0] into the program's accumulator */
    CPN_FI_COUNT
};

struct cpn_fused_instr {
    int kind;
    cpn_loop_fn fn;
    int code;                     /* LOOP: the op code, or -1 for a cast (device code generation) */
    enum cpn_dtype in_dt, out_dt; /* LOOP: loop dtype of the inputs, dtype of the output */
    int narg;                     /* LOOP: inputs then the output; others: one */
    struct cpn_fused_arg arg[CPN_MAXARGS];
    int index_ext;                /* RANDOM/ARANGE: external whose byte offset / index_size is
                                   * the element's global index */
    int64_t index_size;
    int dist;                     /* RANDOM */
    uint64_t seed, stream;
    double p0, p1;                /* RANDOM lo/hi; ARANGE start/second */
    int64_t i0, i1;               /* ARANGE istart/isecond */
    enum cpn_dtype dt;            /* ARANGE: output dtype; REDUCE: input dtype */
    enum cpn_opcode rcode;        /* REDUCE */
    enum cpn_dtype acc_dt;        /* REDUCE */
    cpn_loop_fn combine;          /* REDUCE: acc = combine(acc, partial) */
};

struct cpn_fused_prog {
    int ninstr;
    struct cpn_fused_instr instr[CPN_FUSED_MAXINSTR];
    int nslots;
    /* bound per execution */
    struct cpn_fpreport *fpe;    /* per instruction: what its loops found (kernels.h), ORed;
                                  * a device backend may name a report word instead; NULL:
                                  * not watched */
    int next;
    intptr_t ext_base[CPN_FUSED_MAXEXT];   /* an address, or a byte offset for index externals */
    int64_t ext_st[CPN_FUSED_MAXEXT][CPN_MAXDIM];
    int ndim;
    int64_t shape[CPN_MAXDIM];
    char *reduce_out;                      /* REDUCE: where the accumulator goes (acc dtype) */
};

/* What one evaluation of `p` binds: externals (one per external argument, and per draw's or
 * fill's index source), inline scalars, draw and fill parameters.  A device kernel's argument
 * block bounds each (cuda/devargs.h). */
struct cpn_fused_counts {
    int ext, scal, param;
};
void cpn_fused_count(const struct cpn_fused_prog *p, struct cpn_fused_counts *c);

/* Evaluate `p` over its space, threaded when it is large.  Returns CPN_ERR_NOMEM when scratch
 * cannot be allocated, or a kernel's status; loops' value errors set ctx->err.  Local. */
enum cpn_status cpn_kernel_fused(struct cpn_fused_prog *p, struct cpn_kctx *ctx);

/* Bytes of register scratch one thread needs to evaluate `p` (cpn_kernel_fused_serial).  Local. */
size_t cpn_kernel_fused_scratch(const struct cpn_fused_prog *p);

/* Evaluate `p` on the calling thread only, with the caller's register scratch `regs`
 * (cpn_kernel_fused_scratch bytes).  For drivers that split the work over threads themselves
 * (fusion.c's banded write-back); rewrites p's strides in place (coalescing), so each thread
 * needs its own copy of the program.  Local. */
enum cpn_status cpn_kernel_fused_serial(struct cpn_fused_prog *p, char *regs, struct cpn_kctx *ctx);

#endif
