/* errors.c: the one mapping from runtime status to Python exception. */
#include "cpn_module.h"

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

int cpn_flush(void)
{
    if (cpn_queue_length() == 0) return 0;
    enum cpn_status st = cpn_queue_flush();
    if (st != CPN_OK) {
        cpn_raise(st);
        return -1;
    }
    return 0;
}

int cpn_submit(const struct cpn_op *op)
{
    enum cpn_status st = cpn_queue_submit(op);
    if (st != CPN_OK) {
        cpn_raise(st);
        return -1;
    }
    return 0;
}
