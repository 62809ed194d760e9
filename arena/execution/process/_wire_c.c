/* The hot loops of arena/execution/process/wire.py in C: the same results, object for object.
 *
 * - Differ(n, sources, immutable_types, immutable): the ``changes_for`` of n values, called as
 *   differ(values, last) -> list, exactly as the Python function wire.changes_for generates.
 * - apply_changes(values, found): wire.apply_changes.
 * - reduce_named_tuple(value): wire._reduce_named_tuple.
 * - batch_message(pickles): wire.batch_message.
 * - CommandWriter: the pickler of wire.BatchWriter, for the commands it can write.
 *
 * Optional: wherever this module is missing (no C compiler), arena/execution/process/wire.py runs its own Python.
 * tests/test_wire.py compares the two on the games' observations and on random values.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Bumped with every change of meaning, and in arena/execution/process/wire.py with it (_C_TRANSCRIPTION). */
#define TRANSCRIPTION 3

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

/* CommandWriter(pieces, memo, named_tuples, tuple_new_index, fallback): called with a command,
 * appends its protocol 3 pickle to the list ``pieces``: the very bytes of wire.BatchWriter's
 * pickler in fast mode (objects of ``memo`` — id -> memo index — written as references to it,
 * a named tuple of ``named_tuples`` as wire._reduce_named_tuple reduces it, a slotted dataclass of
 * ``dataclasses`` as wire._reduce_dataclass), for a command made only of None, bools, ints of 32
 * bits, floats, strs, tuples, lists and those named tuples and dataclasses, nested
 * at most WRITER_DEPTH deep. Any other command is given to ``fallback`` (the pickler's dump,
 * which appends its pickle to the same list, or raises: ``fallback_whole``). Written out here
 * because the pickler's generic path cost the worker about as much as stepping the game. */
#define WRITER_DEPTH 40

typedef struct {
    PyObject_HEAD
    PyObject *pieces;       /* list */
    PyObject *memo;         /* dict: id (int) -> memo index (int), as a table: keys, indices */
    PyObject *named_tuples; /* set of types */
    PyObject *dataclasses;  /* dict: type -> function giving its field values as a tuple */
    PyObject *fallback;     /* callable */
    Py_ssize_t tuple_new_index, rebuild_dataclass_index;
    char *data;
    Py_ssize_t size, capacity;
    /* The memo as a table of addresses (open addressing; a dict of ids cost more than the rest):
     * the objects stay alive, held by ``memo``'s owner, the encoder's memo. */
    PyObject **keys;
    Py_ssize_t *indices;
    size_t mask;
} CommandWriter;

static size_t address_hash(PyObject *key, size_t mask) {
    return (size_t)(((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ULL >> 17) & mask;
}

/* The memo index of ``key``, or -1. */
static Py_ssize_t memo_index(CommandWriter *self, PyObject *key) {
    size_t i = address_hash(key, self->mask);
    while (self->keys[i] != NULL) {
        if (self->keys[i] == key)
            return self->indices[i];
        i = (i + 1) & self->mask;
    }
    return -1;
}

static int build_memo_table(CommandWriter *self, PyObject *memo) {
    Py_ssize_t n = PyDict_GET_SIZE(memo);
    size_t size = 16;
    while (size < (size_t)n * 2 + 1)
        size *= 2;
    self->keys = PyMem_Calloc(size, sizeof(PyObject *));
    self->indices = PyMem_Calloc(size, sizeof(Py_ssize_t));
    if (self->keys == NULL || self->indices == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->mask = size - 1;
    PyObject *key, *value;
    Py_ssize_t position = 0;
    while (PyDict_Next(memo, &position, &key, &value)) {
        PyObject *object = PyLong_AsVoidPtr(key);
        Py_ssize_t index = PyLong_AsSsize_t(value);
        if ((object == NULL || index < 0) && PyErr_Occurred())
            return -1;
        if (object == NULL || index < 0) {
            PyErr_SetString(PyExc_ValueError, "CommandWriter: a memo entry out of range");
            return -1;
        }
        size_t i = address_hash(object, self->mask);
        while (self->keys[i] != NULL && self->keys[i] != object)
            i = (i + 1) & self->mask;
        self->keys[i] = object;
        self->indices[i] = index;
    }
    return 0;
}

static void CommandWriter_dealloc(CommandWriter *self) {
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->pieces);
    Py_CLEAR(self->memo);
    Py_CLEAR(self->named_tuples);
    Py_CLEAR(self->dataclasses);
    Py_CLEAR(self->fallback);
    PyMem_Free(self->data);
    PyMem_Free(self->keys);
    PyMem_Free(self->indices);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int CommandWriter_traverse(CommandWriter *self, visitproc visit, void *arg) {
    Py_VISIT(self->pieces);
    Py_VISIT(self->memo);
    Py_VISIT(self->named_tuples);
    Py_VISIT(self->dataclasses);
    Py_VISIT(self->fallback);
    return 0;
}

static PyObject *CommandWriter_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *pieces, *memo, *named_tuples, *dataclasses, *fallback;
    Py_ssize_t tuple_new_index, rebuild_dataclass_index;
    static char *keywords[] = {"pieces", "memo", "named_tuples", "tuple_new_index", "dataclasses",
                               "rebuild_dataclass_index", "fallback", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!O!nO!nO:CommandWriter", keywords,
                                     &PyList_Type, &pieces, &PyDict_Type, &memo, &PySet_Type,
                                     &named_tuples, &tuple_new_index, &PyDict_Type, &dataclasses,
                                     &rebuild_dataclass_index, &fallback))
        return NULL;
    CommandWriter *self = (CommandWriter *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->capacity = 4096;
    self->data = PyMem_Malloc(self->capacity);
    if (self->data == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    Py_INCREF(pieces);
    self->pieces = pieces;
    Py_INCREF(memo);
    self->memo = memo;
    Py_INCREF(named_tuples);
    self->named_tuples = named_tuples;
    Py_INCREF(dataclasses);
    self->dataclasses = dataclasses;
    Py_INCREF(fallback);
    self->fallback = fallback;
    self->tuple_new_index = tuple_new_index;
    self->rebuild_dataclass_index = rebuild_dataclass_index;
    if (build_memo_table(self, memo) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* Room for n more bytes: 0, or -1 with MemoryError set. */
static int reserve(CommandWriter *self, Py_ssize_t n) {
    if (self->size + n <= self->capacity)
        return 0;
    Py_ssize_t capacity = self->capacity;
    while (capacity < self->size + n) {
        if (capacity > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        capacity *= 2;
    }
    char *data = PyMem_Realloc(self->data, capacity);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->data = data;
    self->capacity = capacity;
    return 0;
}

static int put(CommandWriter *self, const char *bytes, Py_ssize_t n) {
    if (reserve(self, n) < 0)
        return -1;
    memcpy(self->data + self->size, bytes, n);
    self->size += n;
    return 0;
}

static int put_memo_get(CommandWriter *self, Py_ssize_t index) {
    char op[5];
    if (index < 256) {
        op[0] = 'h'; /* BINGET */
        op[1] = (char)index;
        return put(self, op, 2);
    }
    op[0] = 'j'; /* LONG_BINGET */
    for (int k = 0; k < 4; k++)
        op[1 + k] = (char)((index >> (8 * k)) & 0xff);
    return put(self, op, 5);
}

/* 1 written, 0 not a kind written here (nothing written that counts), -1 error. */
static int write_value(CommandWriter *self, PyObject *value, int depth);

static int write_items(CommandWriter *self, PyObject *const *items, Py_ssize_t n, int depth) {
    for (Py_ssize_t k = 0; k < n; k++) {
        int done = write_value(self, items[k], depth);
        if (done <= 0)
            return done;
    }
    return 1;
}

static int write_tuple_body(CommandWriter *self, PyObject *tuple, int depth) {
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    static const char sized[4] = {0, '\x85', '\x86', '\x87'}; /* TUPLE1, TUPLE2, TUPLE3 */
    if (n == 0)
        return put(self, ")", 1) < 0 ? -1 : 1; /* EMPTY_TUPLE */
    if (n > 3 && put(self, "(", 1) < 0) /* MARK */
        return -1;
    int done = write_items(self, &PyTuple_GET_ITEM(tuple, 0), n, depth);
    if (done <= 0)
        return done;
    return put(self, n > 3 ? "t" : &sized[n], 1) < 0 ? -1 : 1;
}

static int write_value(CommandWriter *self, PyObject *value, int depth) {
    PyTypeObject *type = Py_TYPE(value);
    if (value == Py_None)
        return put(self, "N", 1) < 0 ? -1 : 1;
    if (value == Py_True || value == Py_False)
        return put(self, value == Py_True ? "\x88" : "\x89", 1) < 0 ? -1 : 1;
    if (type == &PyLong_Type) {
        int overflow;
        long v = PyLong_AsLongAndOverflow(value, &overflow);
        if (overflow || v > 0x7fffffffL || v < -0x7fffffffL - 1)
            return 0; /* LONG1: the pickler's */
        if (v == -1 && PyErr_Occurred())
            return -1;
        char op[5];
        for (int k = 0; k < 4; k++)
            op[1 + k] = (char)((v >> (8 * k)) & 0xff);
        if (op[4] != 0 || op[3] != 0) {
            op[0] = 'J'; /* BININT */
            return put(self, op, 5) < 0 ? -1 : 1;
        }
        if (op[2] != 0) {
            op[0] = 'M'; /* BININT2 */
            return put(self, op, 3) < 0 ? -1 : 1;
        }
        op[0] = 'K'; /* BININT1 */
        return put(self, op, 2) < 0 ? -1 : 1;
    }
    if (type == &PyFloat_Type) {
        char op[9];
        op[0] = 'G'; /* BINFLOAT */
        if (PyFloat_Pack8(PyFloat_AS_DOUBLE(value), op + 1, 0) < 0)
            return -1;
        return put(self, op, 9) < 0 ? -1 : 1;
    }
    /* Everything else may be in the memo, as the pickler looks first. */
    Py_ssize_t index = memo_index(self, value);
    if (index >= 0)
        return put_memo_get(self, index) < 0 ? -1 : 1;
    if (depth >= WRITER_DEPTH)
        return 0;
    if (type == &PyUnicode_Type) {
        Py_ssize_t n;
        const char *utf8 = PyUnicode_AsUTF8AndSize(value, &n);
        if (utf8 == NULL) { /* surrogates: the pickler's "surrogatepass" */
            PyErr_Clear();
            return 0;
        }
        if (n > 0xffffffffL)
            return 0;
        char op[5];
        op[0] = 'X'; /* BINUNICODE */
        for (int k = 0; k < 4; k++)
            op[1 + k] = (char)((n >> (8 * k)) & 0xff);
        return put(self, op, 5) < 0 || put(self, utf8, n) < 0 ? -1 : 1;
    }
    if (type == &PyTuple_Type)
        return write_tuple_body(self, value, depth + 1);
    if (type == &PyList_Type) {
        Py_ssize_t n = PyList_GET_SIZE(value);
        if (n > 1000) /* the pickler's batches of APPENDS */
            return 0;
        if (put(self, "]", 1) < 0) /* EMPTY_LIST */
            return -1;
        if (n == 0)
            return 1;
        if (n > 1 && put(self, "(", 1) < 0) /* MARK */
            return -1;
        /* (A list's items can change while they are written: only by code run here, and nothing
         * here runs Python code; copied to be safe all the same.) */
        PyObject *items = PyList_GetSlice(value, 0, n);
        if (items == NULL)
            return -1;
        int done = write_items(self, &PyList_GET_ITEM(items, 0), PyList_GET_SIZE(items), depth + 1);
        Py_DECREF(items);
        if (done <= 0)
            return done;
        return put(self, n > 1 ? "e" : "a", 1) < 0 ? -1 : 1; /* APPENDS, APPEND */
    }
    int named = PySet_Contains(self->named_tuples, (PyObject *)type);
    if (named < 0)
        return -1;
    if (named && PyTuple_Check(value)) {
        /* tuple.__new__, (its class, its items as a tuple), REDUCE: wire._reduce_named_tuple */
        if (put_memo_get(self, self->tuple_new_index) < 0)
            return -1;
        int done = write_value(self, (PyObject *)type, depth + 1);
        if (done <= 0)
            return done;
        done = write_tuple_body(self, value, depth + 1);
        if (done <= 0)
            return done;
        return put(self, "\x86R", 2) < 0 ? -1 : 1; /* TUPLE2, REDUCE */
    }
    PyObject *getter = PyDict_GetItemWithError(self->dataclasses, (PyObject *)type);
    if (getter == NULL)
        return PyErr_Occurred() ? -1 : 0;
    /* rebuild_dataclass, (its class, its field values), REDUCE: wire._reduce_dataclass */
    PyObject *values = PyObject_CallOneArg(getter, value);
    if (values == NULL)
        return -1;
    int done = 0;
    if (PyTuple_CheckExact(values) && put_memo_get(self, self->rebuild_dataclass_index) == 0) {
        done = write_value(self, (PyObject *)type, depth + 1);
        if (done > 0)
            done = write_tuple_body(self, values, depth + 1);
        if (done > 0 && put(self, "\x86R", 2) < 0) /* TUPLE2, REDUCE */
            done = -1;
    } else if (PyErr_Occurred()) {
        done = -1;
    }
    Py_DECREF(values);
    return done;
}

/* The fallback's dump of ``command``, leaving its pickle one bytes object of ``pieces``: the
 * pickler writes a str, bytes or bytearray of 64 KiB or more to the list apart from what comes
 * before and after it (as bytes or a memoryview), and those writes are joined; a dump that fails
 * leaves nothing. wire._whole_dumps in C, so that the fallback costs no Python call more. */
static PyObject *fallback_whole(CommandWriter *self, PyObject *command) {
    PyObject *pieces = self->pieces;
    Py_ssize_t start = PyList_GET_SIZE(pieces);
    PyObject *result = PyObject_CallOneArg(self->fallback, command);
    Py_ssize_t end = PyList_GET_SIZE(pieces);
    if (result == NULL) {
        if (end > start) {
            PyObject *type, *value, *traceback;
            PyErr_Fetch(&type, &value, &traceback);
            PyList_SetSlice(pieces, start, end, NULL);
            PyErr_Restore(type, value, traceback);
        }
        return NULL;
    }
    if (end - start <= 1)
        return result;
    Py_DECREF(result);
    PyObject *parts = PyList_GetSlice(pieces, start, end);
    if (parts == NULL)
        return NULL;
    PyObject *empty = PyBytes_FromStringAndSize(NULL, 0);
    PyObject *joined = empty == NULL ? NULL : PyObject_CallMethod(empty, "join", "O", parts);
    Py_XDECREF(empty);
    Py_DECREF(parts);
    if (joined == NULL)
        return NULL;
    PyObject *one = PyList_New(1);
    if (one == NULL) {
        Py_DECREF(joined);
        return NULL;
    }
    PyList_SET_ITEM(one, 0, joined);
    int failed = PyList_SetSlice(pieces, start, end, one);
    Py_DECREF(one);
    if (failed)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *CommandWriter_call(CommandWriter *self, PyObject *args, PyObject *kwds) {
    PyObject *command;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "writer() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "writer", 1, 1, &command))
        return NULL;
    self->size = 0;
    if (put(self, "\x80\x03", 2) < 0) /* PROTO 3 */
        return NULL;
    int done = write_value(self, command, 0);
    if (done < 0)
        return NULL;
    if (done == 0)
        return fallback_whole(self, command);
    if (put(self, ".", 1) < 0) /* STOP */
        return NULL;
    PyObject *piece = PyBytes_FromStringAndSize(self->data, self->size);
    if (piece == NULL)
        return NULL;
    int failed = PyList_Append(self->pieces, piece);
    Py_DECREF(piece);
    if (failed)
        return NULL;
    Py_RETURN_NONE;
}

static PyTypeObject CommandWriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena._wire_c.CommandWriter",
    .tp_basicsize = sizeof(CommandWriter),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "CommandWriter(pieces, memo, named_tuples, tuple_new_index, fallback): pickles "
              "a command into pieces, as wire.BatchWriter's pickler.",
    .tp_new = CommandWriter_new,
    .tp_dealloc = (destructor)CommandWriter_dealloc,
    .tp_traverse = (traverseproc)CommandWriter_traverse,
    .tp_call = (ternaryfunc)CommandWriter_call,
};

/* batch_message(pickles) -> bytes: a 4-byte little-endian length, then the protocol 3 pickle of
 * the list of the commands pickled one by one (each "\x80\x03 ... ."): PROTO 3, EMPTY_LIST, MARK,
 * each pickle without its PROTO and STOP opcodes, APPENDS, STOP. */
static PyObject *batch_message(PyObject *module, PyObject *pickles) {
    if (!PyList_Check(pickles)) {
        PyErr_SetString(PyExc_TypeError, "batch_message: not a list");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(pickles);
    Py_ssize_t size = 6; /* PROTO 3, EMPTY_LIST, MARK ... APPENDS, STOP */
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(pickles, i);
        if (!PyBytes_Check(item) || PyBytes_GET_SIZE(item) < 3) {
            PyErr_SetString(PyExc_TypeError, "batch_message: not a pickle");
            return NULL;
        }
        size += PyBytes_GET_SIZE(item) - 3;
    }
    if (size > 0xFFFFFFFF) {
        PyErr_SetString(PyExc_OverflowError, "batch_message: too long");
        return NULL;
    }
    PyObject *message = PyBytes_FromStringAndSize(NULL, size + 4);
    if (message == NULL)
        return NULL;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(message);
    for (int shift = 0; shift < 32; shift += 8)
        *out++ = (unsigned char)((size >> shift) & 0xFF);
    *out++ = 0x80;
    *out++ = 3;
    *out++ = ']';
    *out++ = '(';
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(pickles, i);
        Py_ssize_t length = PyBytes_GET_SIZE(item) - 3;
        memcpy(out, PyBytes_AS_STRING(item) + 2, length);
        out += length;
    }
    *out++ = 'e';
    *out = '.';
    return message;
}

static PyMethodDef methods[] = {
    {"apply_changes", (PyCFunction)(void (*)(void))apply_changes, METH_FASTCALL,
     "apply_changes(values, found): wire.apply_changes in C."},
    {"reduce_named_tuple", (PyCFunction)reduce_named_tuple, METH_O,
     "reduce_named_tuple(value): (tuple.__new__, (type(value), tuple(value)))."},
    {"batch_message", (PyCFunction)batch_message, METH_O,
     "batch_message(pickles): wire.batch_message in C."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "arena.execution.process._wire_c", "The hot loops of arena/execution/process/wire.py in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__wire_c(void) {
    if (PyType_Ready(&DifferType) < 0 || PyType_Ready(&CommandWriterType) < 0)
        return NULL;
    tuple_new = PyObject_GetAttrString((PyObject *)&PyTuple_Type, "__new__");
    if (tuple_new == NULL)
        return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    Py_INCREF(&DifferType);
    Py_INCREF(&CommandWriterType);
    if (PyModule_AddObject(module, "Differ", (PyObject *)&DifferType) < 0 ||
        PyModule_AddObject(module, "CommandWriter", (PyObject *)&CommandWriterType) < 0 ||
        PyModule_AddIntConstant(module, "TRANSCRIPTION", TRANSCRIPTION) < 0 ||
        PyModule_AddObjectRef(module, "tuple_new", tuple_new) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
