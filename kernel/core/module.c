/* The compiled core as one extension, kernel._core: the mate search's type (mate.c), the
   helpmate's (helpmate.c) and the player's (player.c), all on the board of board.c, and the
   endgame tables' retrograde solver (retrograde.c, a function). kernel/compiled.py imports
   it where the install built it; without it the same searches run in Python. */

#include "core.h"

static PyMethodDef functions[] = {
    {"retrograde", retrograde, METH_VARARGS,
     "retrograde(size, letters, captures, variant='cube', compact=0) -> bytearray: "
     "tablebase/retrograde.py's solve."},
    {"retrograde_lean", retrograde_lean, METH_VARARGS,
     "retrograde_lean(size, letters, captures, variant='cube', compact=0) -> bytearray: "
     "tablebase/lean.py's solve_lean, the same values in 1.125 bytes an entry."},
    {"verify", retrograde_verify, METH_VARARGS,
     "verify(size, letters, captures, values, most, variant='cube', compact=0) -> faults: "
     "tablebase/verify.py's verify."},
    {"widen", retrograde_widen, METH_VARARGS,
     "widen(size, letters, values, variant='cube') -> bytearray: kernel/tables/tablebase.py's widen, "
     "a version-3 table's values laid out by version 1's index."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "_core",
    "The compiled core: kernel/mates/proofnumber.py's df-pn (MateCore), kernel/mates/helpmate.py's\n"
    "search (HelpmateCore) and kernel/play/alphabeta.py's (PlayerCore), on one board;\n"
    "tablebase/retrograde.py's solve (retrograde).",
    -1,
    functions,
    NULL,
    NULL,
    NULL,
    NULL,
};

static int add_type(PyObject *module, PyTypeObject *type, const char *name) {
    if (PyType_Ready(type) < 0) return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__core(void) {
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (add_type(m, &MateCoreType, "MateCore") < 0 ||
        add_type(m, &HelpmateCoreType, "HelpmateCore") < 0 ||
        add_type(m, &PlayerCoreType, "PlayerCore") < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
