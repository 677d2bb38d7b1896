/* opsem.c: what a deferred op record means, for the executors and error messages. */
#include "opsem.h"

#include "kernels.h"
#include "store.h"

const char *cpn_op_describe(const struct cpn_op *op)
{
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE: return cpn_op_info(op->code)->name;
    case CPN_OPK_CAST: return "copy/cast";
    case CPN_OPK_ARANGE: return "arange";
    case CPN_OPK_RANDOM: return op->code == CPN_RANDOM_NORMAL ? "random.normal" : "random.uniform";
    case CPN_OPK_REDUCE: return cpn_op_info(op->code)->name;
    case CPN_OPK_MATMUL: return "matmul";
    case CPN_OPK_BINCOUNT: return "bincount";
    case CPN_OPK_ARGREDUCE: return op->code == CPN_OP_MAXIMUM ? "argmax" : "argmin";
    case CPN_OPK_SCAN: return cpn_op_info(op->code)->name;
    case CPN_OPK_QUANTILE: return op->iparam[0] == CPN_QM_MEDIAN ? "median" : "quantile";
    default: return "op";
    }
}

bool cpn_op_overwrites(const struct cpn_op *op) { return cpn_op_overwrites_out(op, 0); }

bool cpn_op_overwrites_out(const struct cpn_op *op, int k)
{
    const struct cpn_view *out = op->out[k];
    bool overwrite = cpn_view_covers_store(out);
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && cpn_store_root(op->in[i]->store) == cpn_store_root(out->store)) overwrite = false;
    for (int j = 0; j < k; j++)   /* written first by an earlier output */
        if (cpn_store_root(op->out[j]->store) == cpn_store_root(out->store)) overwrite = false;
    return overwrite;
}

char *cpn_op_output_buffer(const struct cpn_op *op)
{
    const struct cpn_view *out = op->out[0];
    return cpn_op_overwrites(op) ? cpn_store_data_for_overwrite(out->store) : cpn_store_data(out->store);
}

cpn_loop_fn cpn_op_loop(const struct cpn_op *op)
{
    if (op->kind == CPN_OPK_CAST) {
        enum cpn_dtype from = op->in[0] ? op->in[0]->dtype : op->dtype;
        return cpn_kernel_cast(from, op->out[0]->dtype);
    }
    cpn_loop_fn fn = cpn_kernel_elementwise(op->code, op->dtype);
    if (!fn)
        cpn_error(CPN_ERR_TYPE, "ufunc '%s' has no loop for dtype %s", cpn_op_info(op->code)->name,
                  cpn_dtype_name(op->dtype));
    return fn;
}

enum cpn_status cpn_op_loop_error(const struct cpn_op *op)
{
    if (op->kind == CPN_OPK_ELEMENTWISE && (cpn_op_info(op->code)->flags & CPN_OPF_NEGEXP))
        return cpn_op_data_error(op->code);
    return cpn_error(CPN_ERR_VALUE, "invalid value in %s", cpn_op_describe(op));
}
