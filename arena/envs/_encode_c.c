/* The PettingZoo environment's observations in C (arena/envs/observations.py): the same arrays,
 * value for value, as its pure-Python path.
 *
 * Observer(size, num_actions, new_blocks, twenty_down=None) hands out each observation as rows
 * of two blocks that ``new_blocks()`` makes (a float32 block of rows x size and an int8 block of
 * rows x num_actions, zeros, C-contiguous): each row is written once, handed out once, as a fresh
 * view, and never written again.
 * - observe(vector, legal): the dict of a vector the Python encoding wrote (a buffer of
 *   size float32) and of the mask of the legal numbers (a list of ints, or None: all zero).
 * - observe_twenty_down(state, seat, legal): the same, the vector written here from the Twenty
 *   Down engine's fields, as TwentyDownEncoding.write_state writes it
 *   (arena/games/twenty_down/encoding.py).
 * - legal_twenty_down(state): TwentyDownEncoding.legal_numbers of the acting seat in the play
 *   phase and for a full exchange; None otherwise (the Python code answers then).
 *
 * Optional: wherever this module is missing (no C compiler) or switched off
 * (ARENA_PURE_PYTHON_ENVS=1), the Python code runs. tests/test_envs_c.py compares the two at
 * every decision of random games.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <string.h>
#include <structmember.h>

/* Bumped with every change of meaning, and in arena/envs/observations.py with it. */
#define TRANSCRIPTION 1

/* Twenty Down's layout: the encoding's ``at`` offsets and its parameters, in this order. */
enum {
    TD_HAND, TD_PHASE, TD_TRUMP, TD_DEALER, TD_FOREHAND, TD_DEAL, TD_HEARTS_FIXED, TD_POINTS,
    TD_EXCHANGED, TD_TRICKS_WON, TD_PLAYED, TD_CURRENT, TD_LED, TD_PLAYING, TD_MAX_DEALS,
    TD_FIXED_AFTER, TD_START_POINTS, TD_BROSTEDT, TD_FIELDS
};
#define TD_PACK 32
#define TD_CARD_BASE 30
#define TD_EXCHANGE_BASE 4
#define TD_PLAY_PHASE 3
#define TD_EXCHANGE_PHASE 1

typedef struct {
    PyObject_HEAD
    Py_ssize_t size, num_actions;
    PyObject *new_blocks;
    PyObject *vectors, *masks; /* the blocks in use (NULL before the first) */
    Py_buffer vbuf, mbuf;
    Py_ssize_t row, rows;
    int twenty_down;
    long td[TD_FIELDS];
    int card_index[52]; /* -1: not in the 32-card pack */
} Observer;

static PyObject *s_observation, *s_action_mask, *s_phase, *s_pending, *s_hands, *s__hands,
    *s_trump, *s_dealer, *s_forehand, *s_deal, *s_points, *s_exchanged, *s_tricks_won,
    *s_playing, *s_tricks, *s_trick, *s__legal;

static void release_blocks(Observer *self) {
    if (self->vectors != NULL) {
        PyBuffer_Release(&self->vbuf);
        PyBuffer_Release(&self->mbuf);
        Py_CLEAR(self->vectors);
        Py_CLEAR(self->masks);
    }
    self->row = self->rows = 0;
}

static void Observer_dealloc(Observer *self) {
    PyObject_GC_UnTrack(self);
    release_blocks(self);
    Py_CLEAR(self->new_blocks);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Observer_traverse(Observer *self, visitproc visit, void *arg) {
    Py_VISIT(self->new_blocks);
    Py_VISIT(self->vectors);
    Py_VISIT(self->masks);
    return 0;
}

static PyObject *Observer_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    Py_ssize_t size, num_actions;
    PyObject *new_blocks, *twenty_down = Py_None;
    static char *keywords[] = {"size", "num_actions", "new_blocks", "twenty_down", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nnO|O:Observer", keywords, &size, &num_actions,
                                     &new_blocks, &twenty_down))
        return NULL;
    if (size <= 0 || num_actions <= 0 || !PyCallable_Check(new_blocks)) {
        PyErr_SetString(PyExc_ValueError, "Observer: sizes > 0 and a callable new_blocks");
        return NULL;
    }
    Observer *self = (Observer *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->size = size;
    self->num_actions = num_actions;
    Py_INCREF(new_blocks);
    self->new_blocks = new_blocks;
    if (twenty_down != Py_None) {
        /* (fields..., card_index): TD_FIELDS ints, then a tuple of 52 (None: not in the pack) */
        if (!PyTuple_Check(twenty_down) || PyTuple_GET_SIZE(twenty_down) != TD_FIELDS + 1)
            goto bad;
        for (int i = 0; i < TD_FIELDS; i++) {
            self->td[i] = PyLong_AsLong(PyTuple_GET_ITEM(twenty_down, i));
            if (self->td[i] == -1 && PyErr_Occurred())
                goto fail;
        }
        PyObject *cards = PyTuple_GET_ITEM(twenty_down, TD_FIELDS);
        if (!PyTuple_Check(cards) || PyTuple_GET_SIZE(cards) != 52)
            goto bad;
        for (int c = 0; c < 52; c++) {
            PyObject *i = PyTuple_GET_ITEM(cards, c);
            long k = i == Py_None ? -1 : PyLong_AsLong(i);
            if (k == -1 && PyErr_Occurred())
                goto fail;
            if (k < -1 || k >= TD_PACK)
                goto bad;
            self->card_index[c] = (int)k;
        }
        if (self->td[TD_MAX_DEALS] == 0 || self->td[TD_START_POINTS] == 0)
            goto bad;
        self->twenty_down = 1;
    }
    return (PyObject *)self;
bad:
    PyErr_SetString(PyExc_ValueError, "Observer: a malformed twenty_down layout");
fail:
    Py_DECREF(self);
    return NULL;
}

/* The next free rows: (float *vector, char *mask, the row's index), new blocks when needed. */
static int next_row(Observer *self, float **vector, char **mask, Py_ssize_t *row) {
    if (self->row >= self->rows) {
        release_blocks(self);
        PyObject *blocks = PyObject_CallNoArgs(self->new_blocks);
        if (blocks == NULL)
            return -1;
        if (!PyTuple_Check(blocks) || PyTuple_GET_SIZE(blocks) != 2) {
            Py_DECREF(blocks);
            PyErr_SetString(PyExc_TypeError, "new_blocks() must return (vectors, masks)");
            return -1;
        }
        PyObject *v = PyTuple_GET_ITEM(blocks, 0), *m = PyTuple_GET_ITEM(blocks, 1);
        if (PyObject_GetBuffer(v, &self->vbuf, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
            Py_DECREF(blocks);
            return -1;
        }
        if (PyObject_GetBuffer(m, &self->mbuf, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&self->vbuf);
            Py_DECREF(blocks);
            return -1;
        }
        Py_INCREF(v);
        Py_INCREF(m);
        self->vectors = v;
        self->masks = m;
        Py_DECREF(blocks);
        Py_ssize_t rows = self->vbuf.len / (4 * self->size);
        if (rows < 1 || rows * 4 * self->size != self->vbuf.len ||
            self->mbuf.len != rows * self->num_actions || PyObject_Length(v) != rows ||
            PyObject_Length(m) != rows) {
            release_blocks(self);
            PyErr_SetString(PyExc_ValueError, "new_blocks(): blocks of the same rows, sized");
            return -1;
        }
        self->rows = rows;
    }
    *row = self->row++;
    *vector = (float *)self->vbuf.buf + *row * self->size;
    *mask = (char *)self->mbuf.buf + *row * self->num_actions;
    memset(*vector, 0, sizeof(float) * self->size);
    memset(*mask, 0, self->num_actions);
    return 0;
}

/* Set the mask's entries of ``legal`` (a list of ints, or None). */
static int write_mask(Observer *self, PyObject *legal, char *mask) {
    if (legal == Py_None)
        return 0;
    if (!PyList_Check(legal)) {
        PyErr_SetString(PyExc_TypeError, "legal: a list of action numbers, or None");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(legal); i++) {
        long n = PyLong_AsLong(PyList_GET_ITEM(legal, i));
        if (n == -1 && PyErr_Occurred())
            return -1;
        if (n < 0 || n >= self->num_actions) {
            PyErr_SetString(PyExc_ValueError, "legal: an action number out of range");
            return -1;
        }
        mask[n] = 1;
    }
    return 0;
}

/* {"observation": the row's view, "action_mask": the row's view}. */
static PyObject *observation_dict(Observer *self, Py_ssize_t row) {
    PyObject *vector = PySequence_GetItem(self->vectors, row);
    if (vector == NULL)
        return NULL;
    PyObject *mask = PySequence_GetItem(self->masks, row);
    if (mask == NULL) {
        Py_DECREF(vector);
        return NULL;
    }
    PyObject *dict = PyDict_New();
    if (dict == NULL || PyDict_SetItem(dict, s_observation, vector) < 0 ||
        PyDict_SetItem(dict, s_action_mask, mask) < 0) {
        Py_XDECREF(dict);
        dict = NULL;
    }
    Py_DECREF(vector);
    Py_DECREF(mask);
    return dict;
}

static PyObject *Observer_observe(Observer *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "observe(vector, legal)");
        return NULL;
    }
    Py_buffer given;
    if (PyObject_GetBuffer(args[0], &given, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (given.len != 4 * self->size) {
        PyBuffer_Release(&given);
        PyErr_SetString(PyExc_ValueError, "observe: a vector of the observation's size");
        return NULL;
    }
    float *vector;
    char *mask;
    Py_ssize_t row;
    if (next_row(self, &vector, &mask, &row) < 0) {
        PyBuffer_Release(&given);
        return NULL;
    }
    memcpy(vector, given.buf, given.len);
    PyBuffer_Release(&given);
    if (write_mask(self, args[1], mask) < 0)
        return NULL;
    return observation_dict(self, row);
}

/* --- Twenty Down ----------------------------------------------------------------------------- */

/* A small int field of the state (or of a list), -1 with an error set when it is not one. */
static long int_of(PyObject *value) {
    long v = PyLong_AsLong(value);
    if (v == -1 && !PyErr_Occurred())
        return -2; /* (no field here is negative but points, which are read apart) */
    return v;
}

#define SET(i, v)                                                                              \
    do {                                                                                       \
        long at_ = (i);                                                                        \
        if (at_ < 0 || at_ >= size)                                                            \
            goto out_of_range;                                                                 \
        out[at_] = (v);                                                                        \
    } while (0)

/* The vector's position of a card at ``base`` (a 32-wide part), or -1. */
static inline long card_at(Observer *self, long base, long card) {
    if (card < 0 || card >= 52 || self->card_index[card] < 0)
        return -1;
    return base + self->card_index[card];
}

/* A list (or tuple) of four of the state's, as a borrowed fast sequence. */
static PyObject *four_of(PyObject *state, PyObject *name) {
    PyObject *value = PyObject_GetAttr(state, name);
    if (value == NULL)
        return NULL;
    PyObject *seq = PySequence_Fast(value, "a field of four seats");
    Py_DECREF(value);
    if (seq != NULL && PySequence_Fast_GET_SIZE(seq) != 4) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "a field of four seats");
        return NULL;
    }
    return seq;
}

/* The (seat, card) pairs of ``cards`` into ``played`` (and ``current`` unless < 0). */
static int write_cards(Observer *self, float *out, PyObject *cards, long seat, long played,
                       long current) {
    const long size = self->size;
    PyObject *seq = PySequence_Fast(cards, "a trick's (seat, card) pairs");
    if (seq == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2)
            goto malformed;
        long s = int_of(PyTuple_GET_ITEM(pair, 0));
        long card = int_of(PyTuple_GET_ITEM(pair, 1));
        if (s == -1 || card == -1)
            goto fail;
        if (s < 0 || s > 3)
            goto malformed;
        long rel = (s - seat) & 3;
        SET(card_at(self, played + TD_PACK * rel, card), 1.0f);
        if (current >= 0)
            SET(card_at(self, current + TD_PACK * rel, card), 1.0f);
    }
    Py_DECREF(seq);
    return 0;
out_of_range:
malformed:
    PyErr_SetString(PyExc_ValueError, "observe_twenty_down: a malformed trick");
fail:
    Py_DECREF(seq);
    return -1;
}

/* TwentyDownEncoding.write_state(state, seat, out), ``out`` zeros. */
static int write_twenty_down(Observer *self, PyObject *state, long seat, float *out) {
    const long size = self->size;
    const long *td = self->td;
    PyObject *points = NULL, *exchanged = NULL, *won = NULL, *playing = NULL, *value = NULL;
    long phase = -1, v;

    value = PyObject_GetAttr(state, s_pending);
    if (value == NULL)
        return -1;
    int pending = PyObject_IsTrue(value);
    Py_CLEAR(value);
    if (pending < 0)
        return -1;
    /* the hands are drawn when first read: the property draws them, the slot holds them */
    value = PyObject_GetAttr(state, pending ? s_hands : s__hands);
    if (value == NULL)
        return -1;
    PyObject *hand = PySequence_GetItem(value, seat);
    Py_CLEAR(value);
    if (hand == NULL)
        return -1;
    value = PySequence_Fast(hand, "a hand");
    Py_DECREF(hand);
    if (value == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(value); i++) {
        if ((v = int_of(PySequence_Fast_GET_ITEM(value, i))) == -1)
            goto fail;
        SET(card_at(self, td[TD_HAND], v), 1.0f);
    }
    Py_CLEAR(value);

#define READ_INT(name, into)                                                                   \
    do {                                                                                       \
        value = PyObject_GetAttr(state, name);                                                 \
        if (value == NULL || (into = int_of(value)) == -1)                                     \
            goto fail;                                                                         \
        Py_CLEAR(value);                                                                       \
    } while (0)

    READ_INT(s_phase, phase);
    SET(td[TD_PHASE] + phase, 1.0f);
    value = PyObject_GetAttr(state, s_trump);
    if (value == NULL)
        goto fail;
    if (value != Py_None) {
        if ((v = int_of(value)) == -1)
            goto fail;
        if (v < 0 || v > 3)
            goto out_of_range;
        SET(td[TD_TRUMP] + v, 1.0f);
    }
    Py_CLEAR(value);
    READ_INT(s_dealer, v);
    SET(td[TD_DEALER] + ((v - seat) & 3), 1.0f);
    READ_INT(s_forehand, v);
    SET(td[TD_FOREHAND] + ((v - seat) & 3), 1.0f);
    READ_INT(s_deal, v);
    SET(td[TD_DEAL], (float)((double)v / (double)td[TD_MAX_DEALS]));
    if (v > td[TD_FIXED_AFTER])
        SET(td[TD_HEARTS_FIXED], 1.0f);

    if ((points = four_of(state, s_points)) == NULL ||
        (exchanged = four_of(state, s_exchanged)) == NULL ||
        (won = four_of(state, s_tricks_won)) == NULL)
        goto fail;
    if (td[TD_BROSTEDT] && (playing = four_of(state, s_playing)) == NULL)
        goto fail;
    for (long s = 0; s < 4; s++) {
        long rel = (s - seat) & 3;
        long p = PyLong_AsLong(PySequence_Fast_GET_ITEM(points, s));
        if (p == -1 && PyErr_Occurred())
            goto fail;
        if (p)
            SET(td[TD_POINTS] + rel, (float)((double)p / (double)td[TD_START_POINTS]));
        PyObject *count = PySequence_Fast_GET_ITEM(exchanged, s);
        long e = 0;
        if (count != Py_None) {
            if ((e = int_of(count)) == -1)
                goto fail;
            if (e < 0 || e > 3)
                goto out_of_range;
            e += 1;
        }
        SET(td[TD_EXCHANGED] + 5 * rel + e, 1.0f);
        if ((v = int_of(PySequence_Fast_GET_ITEM(won, s))) == -1)
            goto fail;
        if (v)
            SET(td[TD_TRICKS_WON] + rel, (float)((double)v / 5.0));
        if (playing != NULL) {
            PyObject *decided = PySequence_Fast_GET_ITEM(playing, s);
            long k = decided == Py_None ? 0 : decided == Py_True ? 1 : decided == Py_False ? 2 : -1;
            if (k < 0)
                goto out_of_range;
            SET(td[TD_PLAYING] + 3 * rel + k, 1.0f);
        }
    }

    value = PyObject_GetAttr(state, s_tricks);
    if (value == NULL || !PyList_Check(value))
        goto malformed_or_fail;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
        PyObject *trick = PyList_GET_ITEM(value, i); /* (leader, cards, winner) */
        if (!PyTuple_Check(trick) || PyTuple_GET_SIZE(trick) != 3)
            goto malformed_or_fail;
        if (write_cards(self, out, PyTuple_GET_ITEM(trick, 1), seat, td[TD_PLAYED], -1) < 0)
            goto fail;
    }
    Py_CLEAR(value);
    value = PyObject_GetAttr(state, s_trick);
    if (value == NULL || !PyList_Check(value))
        goto malformed_or_fail;
    if (PyList_GET_SIZE(value) > 0) {
        if (write_cards(self, out, value, seat, td[TD_PLAYED], td[TD_CURRENT]) < 0)
            goto fail;
        /* (checked a pair of ints by write_cards) */
        long led = PyLong_AsLong(PyTuple_GET_ITEM(PyList_GET_ITEM(value, 0), 1));
        if (led < 0 || led >= 52)
            goto out_of_range;
        SET(td[TD_LED] + led / 13, 1.0f);
    }
    Py_CLEAR(value);
    Py_DECREF(points);
    Py_DECREF(exchanged);
    Py_DECREF(won);
    Py_XDECREF(playing);
    return 0;
#undef READ_INT
malformed_or_fail:
    if (value == NULL)
        goto fail;
out_of_range:
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "observe_twenty_down: a field out of range");
fail:
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "observe_twenty_down: a field out of range");
    Py_XDECREF(value);
    Py_XDECREF(points);
    Py_XDECREF(exchanged);
    Py_XDECREF(won);
    Py_XDECREF(playing);
    return -1;
}

static PyObject *Observer_observe_twenty_down(Observer *self, PyObject *const *args,
                                              Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "observe_twenty_down(state, seat, legal)");
        return NULL;
    }
    if (!self->twenty_down) {
        PyErr_SetString(PyExc_TypeError, "observe_twenty_down: not a Twenty Down observer");
        return NULL;
    }
    long seat = PyLong_AsLong(args[1]);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    if (seat < 0 || seat > 3) {
        PyErr_SetString(PyExc_ValueError, "observe_twenty_down: seats are 0-3");
        return NULL;
    }
    float *vector;
    char *mask;
    Py_ssize_t row;
    if (next_row(self, &vector, &mask, &row) < 0)
        return NULL;
    if (write_twenty_down(self, args[0], seat, vector) < 0 || write_mask(self, args[2], mask) < 0)
        return NULL;
    return observation_dict(self, row);
}

/* TwentyDownEncoding.legal_numbers for the play phase and a full exchange; else None. */
static PyObject *Observer_legal_twenty_down(Observer *self, PyObject *state) {
    if (!self->twenty_down) {
        PyErr_SetString(PyExc_TypeError, "legal_twenty_down: not a Twenty Down observer");
        return NULL;
    }
    PyObject *value = PyObject_GetAttr(state, s_phase);
    if (value == NULL)
        return NULL;
    long phase = int_of(value);
    Py_DECREF(value);
    if (phase == -1)
        return NULL;
    if (phase != TD_PLAY_PHASE && phase != TD_EXCHANGE_PHASE)
        Py_RETURN_NONE;
    PyObject *legal = PyObject_GetAttr(state, s__legal);
    if (legal == NULL)
        return NULL;
    PyObject *numbers = NULL;
    if (phase == TD_EXCHANGE_PHASE) {
        Py_ssize_t n = PyObject_Length(legal);
        if (n == 26) {
            numbers = PyList_New(26);
            for (long i = 0; numbers != NULL && i < 26; i++)
                PyList_SET_ITEM(numbers, i, PyLong_FromLong(TD_EXCHANGE_BASE + i));
        } else if (n >= 0) {
            numbers = Py_None;
            Py_INCREF(numbers);
        }
    } else if (PyList_Check(legal)) {
        Py_ssize_t n = PyList_GET_SIZE(legal);
        numbers = PyList_New(n);
        for (Py_ssize_t i = 0; numbers != NULL && i < n; i++) {
            long card = int_of(PyList_GET_ITEM(legal, i));
            long at = card == -1 ? -1 : card_at(self, TD_CARD_BASE, card);
            if (at < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "legal_twenty_down: not a card of the pack");
                Py_CLEAR(numbers);
                break;
            }
            PyList_SET_ITEM(numbers, i, PyLong_FromLong(at));
        }
    } else {
        PyErr_SetString(PyExc_TypeError, "legal_twenty_down: the play phase's legal list");
    }
    Py_DECREF(legal);
    return numbers;
}

static PyMethodDef Observer_methods[] = {
    {"observe", (PyCFunction)(void (*)(void))Observer_observe, METH_FASTCALL,
     "observe(vector, legal) -> {'observation': ..., 'action_mask': ...}"},
    {"observe_twenty_down", (PyCFunction)(void (*)(void))Observer_observe_twenty_down,
     METH_FASTCALL, "observe_twenty_down(state, seat, legal) -> the observation's dict"},
    {"legal_twenty_down", (PyCFunction)Observer_legal_twenty_down, METH_O,
     "legal_twenty_down(state) -> the acting seat's legal numbers, or None"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Observer_members[] = {
    {"twenty_down", T_INT, offsetof(Observer, twenty_down), READONLY,
     "whether it writes Twenty Down's vectors itself (observe_twenty_down)"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject ObserverType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.envs._encode_c.Observer",
    .tp_basicsize = sizeof(Observer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The environment's observations written into rows of blocks (see the module).",
    .tp_new = Observer_new,
    .tp_dealloc = (destructor)Observer_dealloc,
    .tp_traverse = (traverseproc)Observer_traverse,
    .tp_methods = Observer_methods,
    .tp_members = Observer_members,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "arena.envs._encode_c",
    "The PettingZoo environment's observations in C (arena/envs/observations.py).", -1, NULL,
};

static int intern(PyObject **into, const char *name) {
    *into = PyUnicode_InternFromString(name);
    return *into == NULL ? -1 : 0;
}

PyMODINIT_FUNC PyInit__encode_c(void) {
    if (PyType_Ready(&ObserverType) < 0)
        return NULL;
    if (intern(&s_observation, "observation") < 0 || intern(&s_action_mask, "action_mask") < 0 ||
        intern(&s_phase, "phase") < 0 || intern(&s_pending, "_pending") < 0 ||
        intern(&s_hands, "hands") < 0 || intern(&s__hands, "_hands") < 0 ||
        intern(&s_trump, "trump") < 0 || intern(&s_dealer, "dealer") < 0 ||
        intern(&s_forehand, "forehand") < 0 || intern(&s_deal, "deal") < 0 ||
        intern(&s_points, "points") < 0 || intern(&s_exchanged, "exchanged") < 0 ||
        intern(&s_tricks_won, "tricks_won") < 0 || intern(&s_playing, "playing") < 0 ||
        intern(&s_tricks, "tricks") < 0 || intern(&s_trick, "trick") < 0 ||
        intern(&s__legal, "_legal") < 0)
        return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    Py_INCREF(&ObserverType);
    if (PyModule_AddObject(module, "Observer", (PyObject *)&ObserverType) < 0 ||
        PyModule_AddIntConstant(module, "TRANSCRIPTION", TRANSCRIPTION) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
