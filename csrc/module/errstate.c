/* errstate.c: NumPy's floating-point error state for deferred ops.
 *
 * Submission: cpn_errstate_mode reads NumPy's error mode (numpy.errstate / seterr) for the op
 * record.  NumPy keeps it in a context variable holding an immutable capsule that errstate and
 * seterr replace; the decoded mode is cached against the capsule held (a strong reference), so a
 * ufunc call costs one PyContextVar_Get and a pointer comparison when the state did not change.
 *
 * After a flush: cpn_errstate_report turns the runtime's reports (fperr.h) into what NumPy does
 * for each mode: RuntimeWarning "<category> encountered in <ufunc>", a call of the seterrcall
 * function with (category, flags), "Warning: ..." on stderr ('print') or to the seterrcall
 * object's write method ('log'); the callable/object is the one set when the report is made. */
#include "cpn_module.h"

#include "fperr.h"

static PyObject *extobj_var, *get_extobj_dict, *cached_capsule;
static uint16_t cached_mode;

static int lookup(void)
{
    PyObject *m = PyImport_ImportModule("numpy._core._multiarray_umath");
    if (!m) return -1;
    extobj_var = PyObject_GetAttrString(m, "_extobj_contextvar");
    get_extobj_dict = PyObject_GetAttrString(m, "_get_extobj_dict");
    Py_DECREF(m);
    return extobj_var && get_extobj_dict ? 0 : -1;
}

static int decode(PyObject *dict, uint16_t *mode)
{
    static const char *const cats[CPN_FPCAT_COUNT] = {"divide", "over", "under", "invalid"};
    static const char *const modes[CPN_FPMODE_COUNT] = {"ignore", "warn", "raise", "call", "print",
                                                        "log"};
    *mode = 0;
    for (int c = 0; c < CPN_FPCAT_COUNT; c++) {
        PyObject *v = PyDict_GetItemString(dict, cats[c]);
        const char *s = v ? PyUnicode_AsUTF8(v) : NULL;
        if (!s) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "cupynum: unreadable errstate");
            return -1;
        }
        for (int k = 0; k < CPN_FPMODE_COUNT; k++)
            if (!strcmp(s, modes[k])) *mode |= (uint16_t)(k << (3 * c));
    }
    return 0;
}

int cpn_errstate_mode(uint16_t *mode)
{
    if (!extobj_var && lookup() < 0) return -1;
    PyObject *cap = NULL;
    if (PyContextVar_Get(extobj_var, NULL, &cap) < 0) return -1;
    if (cap && cap == cached_capsule) {
        Py_DECREF(cap);
        *mode = cached_mode;
        return 0;
    }
    PyObject *dict = PyObject_CallNoArgs(get_extobj_dict);
    if (!dict || decode(dict, mode) < 0) {
        Py_XDECREF(dict);
        Py_XDECREF(cap);
        return -1;
    }
    Py_DECREF(dict);
    Py_XSETREF(cached_capsule, cap);   /* keeps it alive: its address cannot be reused */
    cached_mode = *mode;
    return 0;
}

/* NumPy's seterrcall object (None when unset); new reference. */
static PyObject *errcall(void)
{
    if (!get_extobj_dict && lookup() < 0) return NULL;
    PyObject *dict = PyObject_CallNoArgs(get_extobj_dict);
    if (!dict) return NULL;
    PyObject *f = PyDict_GetItemString(dict, "call");
    if (!f) f = Py_None;
    Py_INCREF(f);
    Py_DECREF(dict);
    return f;
}

/* One report: NumPy's _error_handler for each flagged category in order. */
static int report_one(const struct cpn_fpe_report *r)
{
    const char *name = r->name;
    int first = 1;
    for (int c = 0; c < CPN_FPCAT_COUNT; c++) {
        if (!(r->flags & (1u << c))) continue;
        const char *what = cpn_fpcat_name((enum cpn_fpcat)c);
        switch (cpn_fpmode_of(r->mode, (enum cpn_fpcat)c)) {
        case CPN_FPMODE_WARN:
            if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "%s encountered in %s", what, name) < 0)
                return -1;
            break;
        case CPN_FPMODE_CALL: {
            PyObject *f = errcall();
            if (!f) return -1;
            if (f == Py_None) {
                Py_DECREF(f);
                PyErr_Format(PyExc_NameError,
                             "python callback specified for %s (in  %s) but no function found.",
                             what, name);
                return -1;
            }
            PyObject *ret = PyObject_CallFunction(f, "si", what, (int)r->flags);
            Py_DECREF(f);
            if (!ret) return -1;
            Py_DECREF(ret);
            break;
        }
        case CPN_FPMODE_PRINT:
            if (first) {
                fprintf(stderr, "Warning: %s encountered in %s\n", what, name);
                first = 0;
            }
            break;
        case CPN_FPMODE_LOG: {
            /* NumPy logs every category (its once-only test is on the pointer, always true). */
            PyObject *f = errcall();
            if (!f) return -1;
            if (f == Py_None) {
                Py_DECREF(f);
                PyErr_Format(PyExc_NameError,
                             "log specified for %s (in %s) but no object with write method found.",
                             what, name);
                return -1;
            }
            PyObject *ret = NULL, *msg = PyUnicode_FromFormat("Warning: %s encountered in %s\n",
                                                              what, name);
            if (msg) ret = PyObject_CallMethod(f, "write", "O", msg);
            Py_XDECREF(msg);
            Py_DECREF(f);
            if (!ret) return -1;
            Py_DECREF(ret);
            break;
        }
        default:
            break;
        }
    }
    return 0;
}

int cpn_errstate_report(void)
{
    int n = cpn_fperr_count(), rc = 0;
    for (int i = 0; i < n && rc == 0; i++) rc = report_one(cpn_fperr_report(i));
    cpn_fperr_clear();
    return rc;
}
