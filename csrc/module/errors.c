/* errors.c: the one mapping from runtime status to Python exception. */
#include "cpn_module.h"

#include "fperr.h"
#include "partition.h"

#include <stdio.h>

PyObject *cpn_raise(enum cpn_status st)
{
    const char *msg = cpn_error_message();
    PyObject *type;
    switch (st) {
    case CPN_ERR_NOMEM:
        if (!*msg) return PyErr_NoMemory();
        type = PyExc_MemoryError;
        break;
    case CPN_ERR_VALUE: type = PyExc_ValueError; break;
    case CPN_ERR_TYPE: type = PyExc_TypeError; break;
    case CPN_ERR_INDEX: type = PyExc_IndexError; break;
    case CPN_ERR_FLOAT: type = PyExc_FloatingPointError; break;
    case CPN_ERR_AXIS: {
        PyObject *exc = cpn_py_helper("AxisError");
        if (!exc) return NULL;
        PyErr_SetString(exc, msg);
        return NULL;
    }
    default: type = PyExc_RuntimeError; break;
    }
    PyErr_SetString(type, *msg ? msg : "cupynum: runtime error");
    cpn_error_clear();
    return NULL;
}

/* After a flush: NumPy's floating-point reports first (they came from ops that ran before any
 * failing one), then the failure. */
static int after_flush(enum cpn_status st)
{
    if (cpn_fperr_count() && cpn_errstate_report() < 0) {
        cpn_error_clear();
        return -1;
    }
    if (cpn_queue_length() == 0) cpn_errstate_release_sites();
    if (st != CPN_OK) {
        cpn_raise(st);
        return -1;
    }
    return 0;
}

/* The interpreter's main thread, recorded at import (cpn_thread_init). */
static unsigned long main_thread;

int cpn_thread_init(void)
{
    PyObject *threading = PyImport_ImportModule("threading");
    PyObject *t = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
    PyObject *ident = t ? PyObject_GetAttrString(t, "ident") : NULL;
    Py_XDECREF(threading);
    Py_XDECREF(t);
    if (!ident) return -1;
    main_thread = PyLong_AsUnsignedLong(ident);
    Py_DECREF(ident);
    return PyErr_Occurred() ? -1 : 0;
}

int cpn_thread_guard(void)
{
    if (cpn_partition_ranks() <= 1 || PyThread_get_thread_ident() == main_thread) return 0;
    PyErr_Format(PyExc_RuntimeError,
                 "cupynum: under mpirun with %d ranks, arrays are used from the main thread only "
                 "(another thread's operations would reach each rank in a different order, and "
                 "the ranks' messages would no longer match)", cpn_partition_ranks());
    return -1;
}

int cpn_flush(void)
{
    if (cpn_thread_guard() < 0) return -1;
    if (cpn_queue_length() == 0) return 0;
    return after_flush(cpn_queue_flush());
}

int cpn_submit(const struct cpn_op *op)
{
    if (cpn_thread_guard() < 0) return -1;
    struct cpn_op rec = *op;
    /* Ops whose arithmetic NumPy checks (element-wise, casts, reductions, scans, ufunc.at) carry NumPy's
     * error mode of the moment they are submitted. */
    bool checked = rec.kind == CPN_OPK_ELEMENTWISE || rec.kind == CPN_OPK_CAST ||
                   rec.kind == CPN_OPK_REDUCE || rec.kind == CPN_OPK_SCAN ||
                   (rec.kind == CPN_OPK_SCATTER && rec.iparam[0]);   /* ufunc.at */
    if (checked) {
        if (cpn_errstate_mode(&rec.fpmode) < 0) return -1;
        if (rec.fpmode) rec.site = cpn_errstate_site();
    }
    if (after_flush(cpn_queue_submit(&rec)) < 0) return -1;
    /* Under a 'raise' mode the op runs now, so FloatingPointError comes from the very call, as in
     * NumPy (try/except around it works).  The mode is the same on every rank: a deterministic
     * flush point. */
    for (int c = 0; c < CPN_FPCAT_COUNT; c++)
        if (cpn_fpmode_of(rec.fpmode, (enum cpn_fpcat)c) == CPN_FPMODE_RAISE) return cpn_flush();
    return 0;
}

/* ---- NumPy's texts of the ufunc call (ufunc.c), one copy each ----------------------------- */

/* A shape as NumPy's messages print it: "(2,3)", "(3,)", "()". */
static PyObject *shape_str(int ndim, const int64_t *shape)
{
    char buf[CPN_MAXDIM * 21 + 4], *p = buf;
    *p++ = '(';
    for (int d = 0; d < ndim; d++)
        p += snprintf(p, sizeof buf - (size_t)(p - buf), d + 1 < ndim ? "%lld," : "%lld",
                      (long long)shape[d]);
    if (ndim == 1) *p++ = ',';
    *p++ = ')';
    *p = 0;
    return PyUnicode_FromString(buf);
}

PyObject *cpn_raise_broadcast(int n, const int *ndims, const int64_t *const *shapes)
{
    /* NumPy's iterator lists every operand (inputs, given outputs, then where=), a scalar as (),
     * each followed by a space. */
    PyObject *text = PyUnicode_FromString("");
    for (int i = 0; text && i < n; i++) {
        PyObject *s = shape_str(ndims[i], shapes[i]);
        PyObject *t = s ? PyUnicode_FromFormat("%U%U ", text, s) : NULL;
        Py_XDECREF(s);
        Py_SETREF(text, t);
    }
    if (text) PyErr_Format(PyExc_ValueError, "operands could not be broadcast together with shapes %U", text);
    Py_XDECREF(text);
    return NULL;
}

PyObject *cpn_raise_out_shape(int ondim, const int64_t *oshape, int ndim, const int64_t *shape)
{
    PyObject *o = shape_str(ondim, oshape), *s = o ? shape_str(ndim, shape) : NULL;
    if (s)
        PyErr_Format(PyExc_ValueError,
                     "non-broadcastable output operand with shape %U doesn't match the broadcast shape %U", o, s);
    Py_XDECREF(o);
    Py_XDECREF(s);
    return NULL;
}

PyObject *cpn_raise_readonly_out(void)
{
    PyErr_SetString(PyExc_ValueError, "output array is read-only");
    return NULL;
}

int cpn_warn_where_without_out(int stacklevel)
{
    return PyErr_WarnEx(PyExc_UserWarning,
                        "'where' used without 'out', expect unitialized memory in output. "
                        "If this is intentional, use out=None.", stacklevel);
}
