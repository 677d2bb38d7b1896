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

/* ---- submission sites: the user's line of each queued op, for its warnings ------------------
 *
 * A warning found at a flush is issued at the line that submitted the op (warnings.warn_explicit
 * with that module's registry, so "once per location" filters work), as NumPy issues it at the
 * ufunc call.  Submission records the innermost frame outside cupynum's own files: its code
 * object and instruction offset (the line is computed only when a warning is issued) and its
 * globals (module name and registry), in a table that lives until no queued op or pending report
 * refers to it.  Whether a code object is cupynum's is cached against the object itself. */

struct site {
    PyObject *code, *globals;
    int lasti;
};
static struct site *sites;
static uint32_t n_sites, cap_sites;
static PyObject *package_dir;           /* cupynum's directory, with a trailing separator */

#define SITE_CACHE 64
static struct { PyObject *code; bool internal; } code_cache[SITE_CACHE];

PyObject *cpn_mod_set_package_dir(PyObject *m, PyObject *dir)
{
    if (!PyUnicode_Check(dir)) return PyErr_Format(PyExc_TypeError, "a directory name");
    Py_XSETREF(package_dir, Py_NewRef(dir));
    Py_RETURN_NONE;
}

static bool internal_code(PyCodeObject *code)
{
    size_t h = ((uintptr_t)code >> 4) % SITE_CACHE;
    if (code_cache[h].code == (PyObject *)code) return code_cache[h].internal;
    bool internal = false;
    PyObject *file = PyObject_GetAttrString((PyObject *)code, "co_filename");
    if (file && PyUnicode_Check(file) && package_dir)
        internal = PyUnicode_Tailmatch(file, package_dir, 0, PY_SSIZE_T_MAX, -1) == 1;
    Py_XDECREF(file);
    PyErr_Clear();
    Py_XSETREF(code_cache[h].code, Py_NewRef((PyObject *)code));  /* held: no address reuse */
    code_cache[h].internal = internal;
    return internal;
}

uint32_t cpn_errstate_site(void)
{
#if PY_VERSION_HEX >= 0x030B0000
    PyFrameObject *f = PyEval_GetFrame();   /* borrowed */
    Py_XINCREF(f);
    while (f) {
        PyCodeObject *code = PyFrame_GetCode(f);
        if (!internal_code(code)) {
            if (n_sites == cap_sites) {
                uint32_t ncap = cap_sites ? 2 * cap_sites : 256;
                struct site *n = PyMem_Realloc(sites, ncap * sizeof *n);
                if (!n) {
                    Py_DECREF(code);
                    Py_DECREF(f);
                    return 0;
                }
                sites = n;
                cap_sites = ncap;
            }
            sites[n_sites] = (struct site){.code = (PyObject *)code, .globals = PyFrame_GetGlobals(f),
                                           .lasti = PyFrame_GetLasti(f)};
            Py_DECREF(f);
            return ++n_sites;
        }
        Py_DECREF(code);
        PyFrameObject *back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
#endif
    return 0;
}

void cpn_errstate_release_sites(void)
{
    for (uint32_t i = 0; i < n_sites; i++) {
        Py_DECREF(sites[i].code);
        Py_XDECREF(sites[i].globals);
    }
    n_sites = 0;
}

/* RuntimeWarning `msg` at site `site` (0: the current line, as PyErr_WarnFormat does). */
static int warn_at(uint32_t site, const char *what, const char *name)
{
    if (site == 0 || site > n_sites)
        return PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "%s encountered in %s", what, name);
    const struct site *st = &sites[site - 1];
    int rc = -1;
    PyObject *msg = PyUnicode_FromFormat("%s encountered in %s", what, name);
    PyObject *file = PyObject_GetAttrString(st->code, "co_filename");
    PyObject *module = st->globals ? PyDict_GetItemString(st->globals, "__name__") : NULL;
    PyObject *registry = NULL;
    if (st->globals) {
        registry = PyDict_GetItemString(st->globals, "__warningregistry__");
        if (!registry) {
            registry = PyDict_New();
            if (registry && PyDict_SetItemString(st->globals, "__warningregistry__", registry) < 0)
                Py_CLEAR(registry);
        } else {
            Py_INCREF(registry);
        }
    }
    int line = PyCode_Addr2Line((PyCodeObject *)st->code, st->lasti);
    if (msg && file)
        rc = PyErr_WarnExplicitObject(PyExc_RuntimeWarning, msg, file, line, module, registry);
    Py_XDECREF(registry);
    Py_XDECREF(file);
    Py_XDECREF(msg);
    return rc;
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
            if (warn_at(r->site, what, name) < 0) return -1;
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
