/* scan.c: inclusive scans (ufunc.accumulate, cumsum, cumprod) of any binary op along one axis.
 *
 * out[i] = op(out[i-1], in[i]) is a dependence along the axis only, so the scan runs either slab
 * by slab (every lane advanced one step per call of the op's threaded n-d loop: many short lanes,
 * e.g. cumsum(axis=0) of a matrix) or lane by lane (each lane one call of the op's inner loop
 * with the output read one element behind: few long lanes).  Summation order is NumPy's
 * (sequential along the axis), so results match to rounding.
 *
 * Floating-point status: the slab path goes through cpn_iterate, which collects the flags; the
 * lane path runs the loops itself on this thread and reads its flags after; both go to the
 * caller's report. */
#include <fenv.h>
#include <string.h>

#include "kernels.h"
#include "status.h"

enum cpn_status cpn_kernel_scan(enum cpn_opcode code, enum cpn_dtype dt, const char *in,
                                const int64_t *istrides, char *out, const int64_t *ostrides,
                                int ndim, const int64_t *shape, int axis, struct cpn_fpreport *fp)
{
    cpn_loop_fn loop = cpn_kernel_elementwise(code, dt), copy = cpn_kernel_cast(dt, dt);
    cpn_loop_fn seq = cpn_kernel_elementwise_scalar(code, dt);
    if (!loop || cpn_op_info(code)->nin != 2 || cpn_op_info(code)->nout != 1 || cpn_op_out_dtype(code, 0, dt) != dt)
        return cpn_error(CPN_ERR_TYPE, "no accumulate for %s on %s", cpn_op_info(code)->name,
                         cpn_dtype_name(dt));
    const int64_t n = shape[axis], ias = istrides[axis], oas = ostrides[axis];
    int64_t sshape[CPN_MAXDIM], st[CPN_MAXARGS][CPN_MAXDIM], nlanes = 1;
    int sd = 0;
    for (int d = 0; d < ndim; d++) {
        if (d == axis) continue;
        sshape[sd] = shape[d];
        st[0][sd] = ostrides[d];
        st[1][sd] = istrides[d];
        st[2][sd] = ostrides[d];
        nlanes *= shape[d];
        sd++;
    }
    if (n == 0 || nlanes == 0) return CPN_OK;
    struct cpn_kctx ctx = {0};
    if (nlanes >= 64 || n == 1) {
        int64_t cst[CPN_MAXARGS][CPN_MAXDIM];
        for (int d = 0; d < sd; d++) {
            cst[0][d] = st[1][d];
            cst[1][d] = st[0][d];
        }
        char *cp[2] = {(char *)in, out};
        cpn_iterate(copy, 2, cp, sd, sshape, cst, &ctx);
        for (int64_t i = 1; i < n; i++) {
            char *p[3] = {out + (i - 1) * oas, (char *)in + i * ias, out + i * oas};
            cpn_iterate(loop, 3, p, sd, sshape, st, &ctx);
        }
    } else {
        cpn_kernel_fpe_clear();
        for (int64_t l = 0; l < nlanes; l++) {
            const char *ip = in;
            char *op = out;
            for (int64_t q = l, d = sd - 1; d >= 0; d--) {
                ip += (q % sshape[d]) * st[1][d];
                op += (q % sshape[d]) * st[0][d];
                q /= sshape[d];
            }
            char *cp[2] = {(char *)ip, op};
            int64_t s1[2] = {0, 0};
            copy(cp, s1, 1, NULL);
            char *p[3] = {op, (char *)ip + ias, op + oas};
            int64_t s3[3] = {oas, ias, oas};
            /* Each element reads the one written just before it: the plain loop, which runs in
             * order (the vector overrides load a whole vector of inputs before storing). */
            seq(p, s3, n - 1, &ctx);
        }
        ctx.hw |= cpn_kernel_fpe_status();
    }
    cpn_fpreport_add(fp, ctx.hw, ctx.fpe);
    return ctx.err ? cpn_op_data_error(code)
                   : CPN_OK;
}
