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
    case CPN_OPK_RANDOM: {
        static const char *const names[CPN_RANDOM_COUNT] = {
            "random.uniform", "random.normal", "random.random", "random.integers",
            "random.exponential", "random.gamma", "random.poisson", "random.binomial",
            "random.standard_cauchy", "random.logistic", "random.gumbel", "random.laplace",
            "random.pareto", "random.power", "random.rayleigh", "random.weibull",
            "random.lognormal", "random.geometric", "random.logseries", "random.zipf",
            "random.vonmises", "random.standard_t", "random.wald", "random.beta",
            "random.negative_binomial", "random.noncentral_chisquare", "random.hypergeometric",
            "random.triangular"};
        return op->code >= 0 && op->code < CPN_RANDOM_COUNT ? names[op->code] : "random";
    }
    case CPN_OPK_REDUCE: return cpn_op_info(op->code)->name;
    case CPN_OPK_MATMUL: return "matmul";
    case CPN_OPK_BINCOUNT: return "bincount";
    case CPN_OPK_LAPACK: return "linalg";
    case CPN_OPK_FFT: return "fft";
    case CPN_OPK_ARGREDUCE: return op->code == CPN_OP_MAXIMUM ? "argmax" : "argmin";
    case CPN_OPK_SCAN: return cpn_op_info(op->code)->name;
    case CPN_OPK_SORT: return op->nin > 1 ? "lexsort" : op->iparam[1] & CPN_SORT_ARG ? "argsort" : "sort";
    case CPN_OPK_SEARCHSORTED: return op->iparam[1] ? "isin" : "searchsorted";
    case CPN_OPK_UNIQUE: return "unique";
    case CPN_OPK_HISTOGRAM: return "histogram";
    case CPN_OPK_PERMUTE: return "random.permutation";
    case CPN_OPK_QUANTILE: return op->iparam[0] == CPN_QM_MEDIAN ? "median" : "quantile";
    case CPN_OPK_COMPACT: return "boolean index";
    case CPN_OPK_NONZERO: return "nonzero";
    case CPN_OPK_GATHER: return "integer index";
    case CPN_OPK_SCATTER: return "integer index assignment";
    default: return "op";
    }
}

bool cpn_op_overwrites(const struct cpn_op *op) { return cpn_op_overwrites_out(op, 0); }

bool cpn_op_overwrites_out(const struct cpn_op *op, int k)
{
    const struct cpn_view *out = op->out[k];
    if (op->kind == CPN_OPK_SCATTER) return false;   /* writes the indexed rows only */
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
