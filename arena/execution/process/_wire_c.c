/* The hot loops of arena/execution/process/wire.py in C: the same results, object for object.
 *
 * - Differ(n, sources, immutable_types, immutable): the ``changes_for`` of n values, called as
 *   differ(values, last) -> list, exactly as the Python function wire.changes_for generates.
 * - apply_changes(values, found): wire.apply_changes.
 * - reduce_named_tuple(value): wire._reduce_named_tuple.
 *
 * Optional: wherever this module is missing (no C compiler), arena/execution/process/wire.py runs its own Python.
 * tests/test_wire.py compares the two on the games' observations and on random values.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Bumped with every change of meaning, and in arena/execution/process/wire.py with it (_C_TRANSCRIPTION). */
#define TRANSCRIPTION 1

typedef struct {
    PyObject_HEAD
    Py_ssize_t n;
    Py_ssize_t *source; /* per field: the field it grows from, or -1 */
    PyObject *immutable_types; /* a set of types known to be immutable */
    PyObject *immutable;       /* type -> bool, for a type not in the set (it may add it) */
} Differ;

static void Differ_dealloc(Differ *self) {
    PyObject_GC_UnTrack(self);
    PyMem_Free(self->source);
    Py_CLEAR(self->immutable_types);
    Py_CLEAR(self->immutable);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Differ_traverse(Differ *self, visitproc visit, void *arg) {
    Py_VISIT(self->immutable_types);
    Py_VISIT(self->immutable);
    return 0;
}

static PyObject *Differ_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    Py_ssize_t n;
    PyObject *sources, *immutable_types, *immutable;
    static char *keywords[] = {"n", "sources", "immutable_types", "immutable", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nO!O!O:Differ", keywords, &n, &PyTuple_Type,
                                     &sources, &PySet_Type, &immutable_types, &immutable))
        return NULL;
    if (n < 0 || n > 4096) {
        PyErr_SetString(PyExc_ValueError, "Differ: n out of range");
        return NULL;
    }
    if (PyTuple_GET_SIZE(sources) != n) {
        PyErr_SetString(PyExc_ValueError, "Differ: one source per value (-1 for none)");
        return NULL;
    }
    Differ *self = (Differ *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->n = n;
    self->source = PyMem_Malloc(sizeof(Py_ssize_t) * (n ? n : 1));
    if (self->source == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t j = PyLong_AsSsize_t(PyTuple_GET_ITEM(sources, i));
        if (j == -1 && PyErr_Occurred()) {
            Py_DECREF(self);
            return NULL;
        }
        if (j < -1 || j >= n || j == i) {
            Py_DECREF(self);
            PyErr_SetString(PyExc_ValueError, "Differ: a source out of range");
            return NULL;
        }
        self->source[i] = j;
    }
    Py_INCREF(immutable_types);
    self->immutable_types = immutable_types;
    Py_INCREF(immutable);
    self->immutable = immutable;
    return (PyObject *)self;
}

/* Whether the first len(head) items of tuple ``v`` are the very objects of tuple ``head``. */
static int same_prefix(PyObject *v, PyObject *head) {
    Py_ssize_t m = PyTuple_GET_SIZE(head);
    PyObject **a = &PyTuple_GET_ITEM(v, 0), **b = &PyTuple_GET_ITEM(head, 0);
    for (Py_ssize_t k = 0; k < m; k++)
        if (a[k] != b[k])
            return 0;
    return 1;
}

static int add_pair(PyObject *found, Py_ssize_t where, Py_ssize_t code, PyObject *value) {
    PyObject *key = PyLong_FromSsize_t(code);
    if (key == NULL)
        return -1;
    int failed;
    if (where < 0)
        failed = PyList_Append(found, key) || PyList_Append(found, value);
    else /* found[:0] = (code, value) */
        failed = PyList_Insert(found, 0, value) || PyList_Insert(found, 0, key);
    Py_DECREF(key);
    return failed ? -1 : 0;
}

static int add_tail(PyObject *found, Py_ssize_t where, Py_ssize_t code, PyObject *v,
                    Py_ssize_t from) {
    PyObject *tail = PyTuple_GetSlice(v, from, PyTuple_GET_SIZE(v));
    if (tail == NULL)
        return -1;
    int failed = add_pair(found, where, code, tail);
    Py_DECREF(tail);
    return failed;
}

static PyObject *Differ_call(Differ *self, PyObject *args, PyObject *kwds) {
    PyObject *values, *last;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "differ() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "differ", 2, 2, &values, &last))
        return NULL;
    Py_ssize_t n = self->n;
    /* The Python differ unpacks both: anything but n values each is a ValueError there. */
    if (!PyTuple_CheckExact(values) || !PyTuple_CheckExact(last) ||
        PyTuple_GET_SIZE(values) != n || PyTuple_GET_SIZE(last) != n) {
        PyErr_Format(PyExc_ValueError, "differ: expected two tuples of %zd values", n);
        return NULL;
    }
    PyObject *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(values, i), *l = PyTuple_GET_ITEM(last, i);
        if (v != l) {
            if (PyTuple_CheckExact(v) && PyTuple_CheckExact(l) &&
                PyTuple_GET_SIZE(l) <= PyTuple_GET_SIZE(v) && same_prefix(v, l)) {
                Py_ssize_t had = PyTuple_GET_SIZE(l);
                if (had < PyTuple_GET_SIZE(v)) {
                    if (had ? add_tail(found, -1, -1 - i, v, had) : add_pair(found, -1, i, v))
                        goto error;
                }
                continue;
            }
            Py_ssize_t j = self->source[i];
            if (j >= 0) {
                PyObject *lj = PyTuple_GET_ITEM(last, j);
                if (PyTuple_CheckExact(v) && PyTuple_CheckExact(lj) && PyTuple_GET_SIZE(lj) > 0 &&
                    PyTuple_GET_SIZE(lj) <= PyTuple_GET_SIZE(v) && same_prefix(v, lj)) {
                    if (add_tail(found, 0, n + i * n + j, v, PyTuple_GET_SIZE(lj)))
                        goto error;
                    continue;
                }
            }
            if (add_pair(found, -1, i, v))
                goto error;
            continue;
        }
        PyObject *type = (PyObject *)Py_TYPE(v);
        int known = PySet_Contains(self->immutable_types, type);
        if (known < 0)
            goto error;
        if (known)
            continue;
        PyObject *answer = PyObject_CallOneArg(self->immutable, type);
        if (answer == NULL)
            goto error;
        int immutable = PyObject_IsTrue(answer);
        Py_DECREF(answer);
        if (immutable < 0)
            goto error;
        if (!immutable && add_pair(found, -1, i, v))
            goto error;
    }
    return found;
error:
    Py_DECREF(found);
    return NULL;
}

static PyTypeObject DifferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena._wire_c.Differ",
    .tp_basicsize = sizeof(Differ),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Differ(n, sources, immutable_types, immutable): wire.changes_for in C.",
    .tp_new = Differ_new,
    .tp_dealloc = (destructor)Differ_dealloc,
    .tp_traverse = (traverseproc)Differ_traverse,
    .tp_call = (ternaryfunc)Differ_call,
};

static Py_ssize_t item_index(PyObject *code, int *ok) {
    Py_ssize_t i = PyLong_AsSsize_t(code);
    *ok = !(i == -1 && PyErr_Occurred());
    return i;
}

static int set_item(PyObject *values, Py_ssize_t i, PyObject *value) {
    Py_ssize_t n = PyList_GET_SIZE(values);
    if (i < 0 || i >= n) {
        PyErr_SetString(PyExc_IndexError, "list assignment index out of range");
        return -1;
    }
    Py_INCREF(value);
    PyList_SetItem(values, i, value); /* steals the new reference, drops the old value */
    return 0;
}

/* apply_changes(values: list, found: list) -> None, as wire.apply_changes. */
static PyObject *apply_changes(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "apply_changes(values: list, found: list)");
        return NULL;
    }
    PyObject *values = args[0], *found = args[1];
    Py_ssize_t n = PyList_GET_SIZE(values);
    for (Py_ssize_t k = 0; k + 1 < PyList_GET_SIZE(found); k += 2) {
        int ok;
        Py_ssize_t i = item_index(PyList_GET_ITEM(found, k), &ok);
        if (!ok)
            return NULL;
        PyObject *value = PyList_GET_ITEM(found, k + 1);
        Py_INCREF(value);
        PyObject *result = NULL, *head = NULL;
        Py_ssize_t target, size = PyList_GET_SIZE(values);
        if (i < 0) { /* values[-1 - i] += value */
            target = -1 - i;
            head = target < size ? PyList_GET_ITEM(values, target) : NULL;
        } else if (i >= n) { /* values[i'] = values[j] + value, for divmod(i - n, n) = (i', j) */
            if (n == 0) {
                PyErr_SetString(PyExc_ZeroDivisionError, "integer division or modulo by zero");
                Py_DECREF(value);
                return NULL;
            }
            target = (i - n) / n;
            Py_ssize_t j = (i - n) % n;
            head = target < n && j < size ? PyList_GET_ITEM(values, j) : NULL;
        } else {
            target = i;
        }
        if (i < 0 || i >= n) {
            if (head == NULL) {
                PyErr_SetString(PyExc_IndexError, "list index out of range");
                Py_DECREF(value);
                return NULL;
            }
            Py_INCREF(head);
            result = i < 0 ? PyNumber_InPlaceAdd(head, value) : PyNumber_Add(head, value);
            Py_DECREF(head);
        } else {
            result = value;
            Py_INCREF(result);
        }
        Py_DECREF(value);
        if (result == NULL)
            return NULL;
        int failed = set_item(values, target, result);
        Py_DECREF(result);
        if (failed)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *tuple_new; /* tuple.__new__, as wire._tuple_new */

/* reduce_named_tuple(value) -> (tuple.__new__, (type(value), tuple(value))) */
static PyObject *reduce_named_tuple(PyObject *module, PyObject *value) {
    if (!PyTuple_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "reduce_named_tuple: not a tuple");
        return NULL;
    }
    PyObject *plain = PyTuple_GetSlice(value, 0, PyTuple_GET_SIZE(value));
    if (plain == NULL)
        return NULL;
    PyObject *arguments = PyTuple_Pack(2, (PyObject *)Py_TYPE(value), plain);
    Py_DECREF(plain);
    if (arguments == NULL)
        return NULL;
    PyObject *reduced = PyTuple_Pack(2, tuple_new, arguments);
    Py_DECREF(arguments);
    return reduced;
}

static PyMethodDef methods[] = {
    {"apply_changes", (PyCFunction)(void (*)(void))apply_changes, METH_FASTCALL,
     "apply_changes(values, found): wire.apply_changes in C."},
    {"reduce_named_tuple", (PyCFunction)reduce_named_tuple, METH_O,
     "reduce_named_tuple(value): (tuple.__new__, (type(value), tuple(value)))."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "arena.execution.process._wire_c", "The hot loops of arena/execution/process/wire.py in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__wire_c(void) {
    if (PyType_Ready(&DifferType) < 0)
        return NULL;
    tuple_new = PyObject_GetAttrString((PyObject *)&PyTuple_Type, "__new__");
    if (tuple_new == NULL)
        return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    Py_INCREF(&DifferType);
    if (PyModule_AddObject(module, "Differ", (PyObject *)&DifferType) < 0 ||
        PyModule_AddIntConstant(module, "TRANSCRIPTION", TRANSCRIPTION) < 0 ||
        PyModule_AddObjectRef(module, "tuple_new", tuple_new) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
