/* module.c: PyInit__core: imports NumPy's C API, initialises the runtime, builds the types. */
#define CPN_NO_IMPORT_ARRAY
#include "cpn_module.h"

#include "runtime.h"

int cpn_convert_init(void);
int cpn_array_type_init(PyObject *module);
int cpn_ufunc_type_init(PyObject *module);

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "cupynum._core",
    .m_doc = "cupynum's C core: the ndarray type, the runtime and its kernels.",
    .m_size = -1,
    .m_methods = cpn_module_methods,
};

__attribute__((visibility("default"))) PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    if (cpn_convert_init() < 0 || cpn_thread_init() < 0) return NULL;
    enum cpn_status st = cpn_runtime_init();
    if (st != CPN_OK) return cpn_raise(st);
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    /* Constants of the runtime's vocabulary that Python passes back (cupynum/_quantile.py). */
    if (PyModule_AddIntConstant(m, "QF_SKIP_NAN", CPN_QF_SKIP_NAN) < 0 ||
        PyModule_AddIntConstant(m, "QF_TAKE", CPN_QF_TAKE) < 0 ||
        PyModule_AddIntConstant(m, "QF_WEAK", CPN_QF_WEAK) < 0 ||
        PyModule_AddIntConstant(m, "QF_MA_MEAN", CPN_QF_MA_MEAN) < 0 ||
        PyModule_AddIntConstant(m, "QM_MEDIAN", CPN_QM_MEDIAN) < 0 ||
        /* cupynum/_sorting.py: enum cpn_unique_mode */
        PyModule_AddIntConstant(m, "UNIQUE_COUNT", CPN_UNIQUE_COUNT) < 0 ||
        PyModule_AddIntConstant(m, "UNIQUE_VALUES", CPN_UNIQUE_VALUES) < 0 ||
        PyModule_AddIntConstant(m, "UNIQUE_COUNTS", CPN_UNIQUE_COUNTS) < 0 ||
        PyModule_AddIntConstant(m, "UNIQUE_INDEX", CPN_UNIQUE_INDEX) < 0 ||
        PyModule_AddIntConstant(m, "UNIQUE_INVERSE", CPN_UNIQUE_INVERSE) < 0 ||
        cpn_array_type_init(m) < 0 || cpn_ufunc_init(m) < 0 || cpn_ufunc_type_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
