/* The PettingZoo environment's observations in C (arena/envs/observations.py): the same arrays,
 * value for value, as its pure-Python path.
 *
 * Observer(size, num_actions, new_blocks, twenty_down=None, how_low=None) hands out each observation as rows
 * of two blocks that ``new_blocks()`` makes (a float32 block of rows x size and an int8 block of
 * rows x num_actions, C-contiguous): each row is written once, handed out once, as a fresh
 * view, and never written again.
 * - observe(vector, legal): the dict of a vector the Python encoding wrote (a buffer of
 *   size float32) and of the mask of the legal numbers (a list of ints, or None: all zero).
 * - observe_twenty_down(state, seat, legal): the same, the vector written here from the Twenty
 *   Down engine's fields, as TwentyDownEncoding.write_state writes it
 *   (arena/games/twenty_down/encoding.py).
 * - legal_twenty_down(state): TwentyDownEncoding.legal_numbers of the acting seat in the play
 *   phase and for a full exchange; None otherwise (the Python code answers then).
 * - observe_how_low(state, seat, legal), legal_how_low(state): the same for How Low Can You Go?
 *   (HowLowEncoding.write_state and legal_numbers, arena/games/how_low/encoding.py), the legal
 *   numbers when they are the standard discards (``_std``).
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

/* How Low's layout: the encoding's ``at`` offsets and its parameters, in this order. */
enum {
    HL_HAND, HL_HAND_TOTAL, HL_DEALER, HL_ACTIVE, HL_CHIPS, HL_BANK, HL_DEAL, HL_ROUND,
    HL_STOCK_SIZE, HL_DISCARD_SIZE, HL_DISCARDED, HL_REDRAWN, HL_LAST_TOTALS, HL_LAST_CHANGES,
    HL_PLAYERS, HL_PACKS, HL_MAX_DEALS, HL_PACK_SIZE, HL_FIELDS
};
#define HL_ROUNDS 3
#define HL_MAX_PLAYERS 64
#define HL_REDRAW_ACTION 26
#define HL_TOTAL_SCALE 65.0

/* The engines' fields read here: slots of the state's class, read at their offsets (found once
 * per class; PyObject_GetAttr for anything else, such as a property). */
enum {
    F_PHASE, F_PENDING, F_HANDS, F_HANDS_SLOT, F_TRUMP, F_DEALER, F_FOREHAND, F_DEAL, F_POINTS,
    F_EXCHANGED, F_TRICKS_WON, F_PLAYING, F_TRICKS, F_TRICK, F_LEGAL, F_CHIPS_T, F_ACTIVE_T,
    F_BANK, F_ROUND, F_STOCK, F_PILE, F_DISCARDS, F_SD, F_STD, F_COUNT
};
static const char *field_names[F_COUNT] = {
    "phase", "_pending", "hands", "_hands", "trump", "dealer", "forehand", "deal", "points",
    "exchanged", "tricks_won", "playing", "tricks", "trick", "_legal", "_chips_t", "_active_t",
    "bank", "round", "stock", "pile", "discards", "_sd", "_std",
};
static PyObject *names[F_COUNT];

typedef struct {
    PyObject_HEAD
    Py_ssize_t size, num_actions;
    PyObject *new_blocks;
    PyObject *vectors, *masks; /* the blocks in use (NULL before the first) */
    Py_buffer vbuf, mbuf;
    Py_ssize_t row, rows;
    int twenty_down, how_low;
    long td[TD_FIELDS];
    int card_index[52]; /* -1: not in the 32-card pack */
    long hl[HL_FIELDS];
    double chip_scale;
    int value[52]; /* a card's points (HL-2) */
    PyTypeObject *state_type; /* the class whose slots' offsets are known (a strong reference) */
    Py_ssize_t offset[F_COUNT]; /* -1: not a plain slot of it */
} Observer;

static PyObject *s_observation, *s_action_mask, *s_legal_actions;


/* The offsets of the fields that are plain slots of ``type``. */
static void find_slots(Observer *self, PyTypeObject *type) {
    Py_INCREF(type);
    Py_XSETREF(self->state_type, type);
    for (int f = 0; f < F_COUNT; f++) {
        self->offset[f] = -1;
        if (type->tp_getattro != PyObject_GenericGetAttr)
            continue;
        PyObject *descr = PyObject_GetAttr((PyObject *)type, names[f]);
        if (descr == NULL) {
            PyErr_Clear();
            continue;
        }
        if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
            PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
            if (member->type == T_OBJECT_EX && member->offset > 0)
                self->offset[f] = member->offset;
        }
        Py_DECREF(descr);
    }
}

/* ``getattr(state, field)``, a new reference. */
static PyObject *field(Observer *self, PyObject *state, int f) {
    if (Py_TYPE(state) != self->state_type)
        find_slots(self, Py_TYPE(state));
    Py_ssize_t offset = self->offset[f];
    if (offset > 0) {
        PyObject *value = *(PyObject **)((char *)state + offset);
        if (value != NULL) {
            Py_INCREF(value);
            return value;
        }
    }
    return PyObject_GetAttr(state, names[f]); /* (its error when the slot is empty) */
}

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
    Py_CLEAR(self->state_type);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Observer_traverse(Observer *self, visitproc visit, void *arg) {
    Py_VISIT(self->new_blocks);
    Py_VISIT(self->vectors);
    Py_VISIT(self->masks);
    Py_VISIT(self->state_type);
    return 0;
}

static PyObject *Observer_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    Py_ssize_t size, num_actions;
    PyObject *new_blocks, *twenty_down = Py_None, *how_low = Py_None;
    static char *keywords[] = {"size", "num_actions", "new_blocks", "twenty_down", "how_low",
                               NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nnO|OO:Observer", keywords, &size,
                                     &num_actions, &new_blocks, &twenty_down, &how_low))
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
    if (how_low != Py_None) {
        /* (fields..., chip_scale, values): HL_FIELDS ints, a float, a tuple of 52 ints */
        if (!PyTuple_Check(how_low) || PyTuple_GET_SIZE(how_low) != HL_FIELDS + 2)
            goto bad;
        for (int i = 0; i < HL_FIELDS; i++) {
            self->hl[i] = PyLong_AsLong(PyTuple_GET_ITEM(how_low, i));
            if (self->hl[i] == -1 && PyErr_Occurred())
                goto fail;
        }
        self->chip_scale = PyFloat_AsDouble(PyTuple_GET_ITEM(how_low, HL_FIELDS));
        if (self->chip_scale == -1.0 && PyErr_Occurred())
            goto fail;
        PyObject *values = PyTuple_GET_ITEM(how_low, HL_FIELDS + 1);
        if (!PyTuple_Check(values) || PyTuple_GET_SIZE(values) != 52)
            goto bad;
        for (int c = 0; c < 52; c++) {
            long v = PyLong_AsLong(PyTuple_GET_ITEM(values, c));
            if (v == -1 && PyErr_Occurred())
                goto fail;
            self->value[c] = (int)v;
        }
        if (self->hl[HL_PLAYERS] < 2 || self->hl[HL_PLAYERS] > HL_MAX_PLAYERS ||
            self->hl[HL_PACKS] < 1 || self->hl[HL_MAX_DEALS] == 0 || self->hl[HL_PACK_SIZE] == 0)
            goto bad;
        self->how_low = 1;
    }
    if (self->twenty_down && self->how_low)
        goto bad;
    return (PyObject *)self;
bad:
    PyErr_SetString(PyExc_ValueError, "Observer: a malformed layout");
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
static PyObject *four_of(Observer *self, PyObject *state, int name) {
    PyObject *value = field(self, state, name);
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

    value = field(self, state, F_PENDING);
    if (value == NULL)
        return -1;
    int pending = PyObject_IsTrue(value);
    Py_CLEAR(value);
    if (pending < 0)
        return -1;
    /* the hands are drawn when first read: the property draws them, the slot holds them */
    value = field(self, state, pending ? F_HANDS : F_HANDS_SLOT);
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
        value = field(self, state, name);                                                      \
        if (value == NULL || (into = int_of(value)) == -1)                                     \
            goto fail;                                                                         \
        Py_CLEAR(value);                                                                       \
    } while (0)

    READ_INT(F_PHASE, phase);
    if (phase < 0 || phase > 4)
        goto out_of_range;
    SET(td[TD_PHASE] + phase, 1.0f);
    value = field(self, state, F_TRUMP);
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
    READ_INT(F_DEALER, v);
    if (v < 0 || v > 3)
        goto out_of_range;
    SET(td[TD_DEALER] + ((v - seat) & 3), 1.0f);
    READ_INT(F_FOREHAND, v);
    if (v < 0 || v > 3)
        goto out_of_range;
    SET(td[TD_FOREHAND] + ((v - seat) & 3), 1.0f);
    READ_INT(F_DEAL, v);
    SET(td[TD_DEAL], (float)((double)v / (double)td[TD_MAX_DEALS]));
    if (v > td[TD_FIXED_AFTER])
        SET(td[TD_HEARTS_FIXED], 1.0f);

    if ((points = four_of(self, state, F_POINTS)) == NULL ||
        (exchanged = four_of(self, state, F_EXCHANGED)) == NULL ||
        (won = four_of(self, state, F_TRICKS_WON)) == NULL)
        goto fail;
    if (td[TD_BROSTEDT] && (playing = four_of(self, state, F_PLAYING)) == NULL)
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

    value = field(self, state, F_TRICKS);
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
    value = field(self, state, F_TRICK);
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
    PyObject *value = field(self, state, F_PHASE);
    if (value == NULL)
        return NULL;
    long phase = int_of(value);
    Py_DECREF(value);
    if (phase == -1)
        return NULL;
    if (phase != TD_PLAY_PHASE && phase != TD_EXCHANGE_PHASE)
        Py_RETURN_NONE;
    PyObject *legal = field(self, state, F_LEGAL);
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


/* --- How Low Can You Go? --------------------------------------------------------------------- */

/* An int attribute of the state, -1 with an error set when it is not one (all are >= 0). */
static long int_attr(Observer *self, PyObject *state, int name) {
    PyObject *value = field(self, state, name);
    if (value == NULL)
        return -1;
    long v = int_of(value);
    Py_DECREF(value);
    if (v < -1) {
        PyErr_SetString(PyExc_ValueError, "observe_how_low: a negative field");
        return -1;
    }
    return v;
}

/* The length of a list attribute of the state, -1 with an error set. */
static Py_ssize_t len_attr(Observer *self, PyObject *state, int name) {
    PyObject *value = field(self, state, name);
    if (value == NULL)
        return -1;
    Py_ssize_t n = PyObject_Length(value);
    Py_DECREF(value);
    return n;
}

/* HowLowEncoding.write_state(state, seat, out, state._active_t, state._chips_t), ``out`` zeros. */
static int write_how_low(Observer *self, PyObject *state, long seat, float *out) {
    const long size = self->size;
    const long *hl = self->hl;
    const long n = hl[HL_PLAYERS];
    PyObject *value = NULL, *active = NULL, *chips = NULL, *seq = NULL;
    long v;
    Py_ssize_t len;

    /* what changes only at a showdown: the dealer, the bank, the deal, who is in, the chips,
       the last showdown's totals and chip changes */
    if ((v = int_attr(self, state, F_DEALER)) == -1)
        goto fail;
    if (v >= n)
        goto out_of_range;
    SET(hl[HL_DEALER] + (v - seat + n) % n, 1.0f);
    if ((v = int_attr(self, state, F_BANK)) == -1)
        goto fail;
    SET(hl[HL_BANK], (float)((double)v / self->chip_scale));
    if ((v = int_attr(self, state, F_DEAL)) == -1)
        goto fail;
    SET(hl[HL_DEAL], (float)((double)v / (double)hl[HL_MAX_DEALS]));
    value = field(self, state, F_ACTIVE_T);
    if (value == NULL || (active = PySequence_Fast(value, "who is in")) == NULL)
        goto fail;
    Py_CLEAR(value);
    value = field(self, state, F_CHIPS_T);
    if (value == NULL || (chips = PySequence_Fast(value, "the chips")) == NULL)
        goto fail;
    Py_CLEAR(value);
    if (PySequence_Fast_GET_SIZE(active) != n || PySequence_Fast_GET_SIZE(chips) != n)
        goto out_of_range;
    for (long s = 0; s < n; s++) {
        int in = PyObject_IsTrue(PySequence_Fast_GET_ITEM(active, s));
        if (in < 0)
            goto fail;
        if (in) {
            long rel = (s - seat + n) % n;
            long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(chips, s));
            if (c == -1 && PyErr_Occurred())
                goto fail;
            SET(hl[HL_ACTIVE] + rel, 1.0f);
            SET(hl[HL_CHIPS] + rel, (float)((double)c / self->chip_scale));
        }
    }
    Py_CLEAR(active);
    Py_CLEAR(chips);
    value = field(self, state, F_SD); /* (deal, dealer, hands, totals, changes, ...) */
    if (value == NULL)
        goto fail;
    if (value != Py_None) {
        if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) < 5)
            goto out_of_range;
        PyObject *totals = PyTuple_GET_ITEM(value, 3), *changes = PyTuple_GET_ITEM(value, 4);
        if (!PyTuple_Check(totals) || !PyTuple_Check(changes) || PyTuple_GET_SIZE(totals) != n ||
            PyTuple_GET_SIZE(changes) != n)
            goto out_of_range;
        for (long s = 0; s < n; s++) {
            PyObject *total = PyTuple_GET_ITEM(totals, s);
            if (total == Py_None)
                continue;
            long rel = (s - seat + n) % n;
            long t = PyLong_AsLong(total);
            if (t == -1 && PyErr_Occurred())
                goto fail;
            PyObject *change = PyTuple_GET_ITEM(changes, s);
            long c = 0;
            if (change != Py_None && (c = PyLong_AsLong(change)) == -1 && PyErr_Occurred())
                goto fail;
            SET(hl[HL_LAST_TOTALS] + rel, (float)((double)t / HL_TOTAL_SCALE));
            SET(hl[HL_LAST_CHANGES] + rel, (float)((double)c / 5.0));
        }
    }
    Py_CLEAR(value);

    /* the deal's discards: (seat, count) a turn; a count of 5 is a whalen redraw */
    value = field(self, state, F_DISCARDS);
    if (value == NULL || (seq = PySequence_Fast(value, "the discards")) == NULL)
        goto fail;
    Py_CLEAR(value);
    {
        unsigned char turns[HL_MAX_PLAYERS] = {0};
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
            PyObject *pair = PySequence_Fast_GET_ITEM(seq, i);
            if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2)
                goto out_of_range;
            long s = int_of(PyTuple_GET_ITEM(pair, 0));
            long count = int_of(PyTuple_GET_ITEM(pair, 1));
            if (s == -1 || count == -1)
                goto fail;
            if (s < 0 || s >= n)
                goto out_of_range;
            long rel = (s - seat + n) % n;
            if (count == 5) {
                SET(hl[HL_REDRAWN] + rel, 1.0f);
            } else if (turns[s] < HL_ROUNDS) {
                SET(hl[HL_DISCARDED] + HL_ROUNDS * rel + turns[s], (float)((double)count / 3.0));
                turns[s]++;
            }
        }
    }
    Py_CLEAR(seq);

    /* the seat's hand, the round, the sizes of the stock and the pile */
    value = field(self, state, F_HANDS);
    if (value == NULL)
        goto fail;
    PyObject *hand = PySequence_GetItem(value, seat);
    Py_CLEAR(value);
    if (hand == NULL)
        goto fail;
    seq = PySequence_Fast(hand, "a hand");
    Py_DECREF(hand);
    if (seq == NULL)
        goto fail;
    long total = 0;
    const double copy = 1.0 / (double)hl[HL_PACKS];
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long c = int_of(PySequence_Fast_GET_ITEM(seq, i));
        if (c == -1)
            goto fail;
        if (c < 0 || c >= 52 || hl[HL_HAND] + c >= size)
            goto out_of_range;
        float *at = out + hl[HL_HAND] + c;
        *at = (float)((double)*at + copy);
        total += self->value[c];
    }
    Py_CLEAR(seq);
    SET(hl[HL_HAND_TOTAL], (float)((double)total / HL_TOTAL_SCALE));
    if ((v = int_attr(self, state, F_ROUND)) == -1)
        goto fail;
    if (v < 1 || v > HL_ROUNDS)
        goto out_of_range;
    SET(hl[HL_ROUND] + v - 1, 1.0f);
    if ((len = len_attr(self, state, F_STOCK)) < 0)
        goto fail;
    SET(hl[HL_STOCK_SIZE], (float)((double)len / (double)hl[HL_PACK_SIZE]));
    if ((len = len_attr(self, state, F_PILE)) < 0)
        goto fail;
    SET(hl[HL_DISCARD_SIZE], (float)((double)len / (double)hl[HL_PACK_SIZE]));
    return 0;
out_of_range:
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "observe_how_low: a field out of range");
fail:
    Py_XDECREF(value);
    Py_XDECREF(active);
    Py_XDECREF(chips);
    Py_XDECREF(seq);
    return -1;
}

static PyObject *Observer_observe_how_low(Observer *self, PyObject *const *args,
                                          Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "observe_how_low(state, seat, legal)");
        return NULL;
    }
    if (!self->how_low) {
        PyErr_SetString(PyExc_TypeError, "observe_how_low: not a How Low observer");
        return NULL;
    }
    long seat = PyLong_AsLong(args[1]);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    if (seat < 0 || seat >= self->hl[HL_PLAYERS]) {
        PyErr_SetString(PyExc_ValueError, "observe_how_low: no such seat");
        return NULL;
    }
    float *vector;
    char *mask;
    Py_ssize_t row;
    if (next_row(self, &vector, &mask, &row) < 0)
        return NULL;
    if (write_how_low(self, args[0], seat, vector) < 0 || write_mask(self, args[2], mask) < 0)
        return NULL;
    return observation_dict(self, row);
}

/* HowLowEncoding.legal_numbers when the legal actions are the standard discards (``_std``);
 * else None. */
static PyObject *Observer_legal_how_low(Observer *self, PyObject *state) {
    if (!self->how_low) {
        PyErr_SetString(PyExc_TypeError, "legal_how_low: not a How Low observer");
        return NULL;
    }
    PyObject *legal = PyObject_CallMethodNoArgs(state, s_legal_actions);
    if (legal == NULL)
        return NULL;
    Py_ssize_t n = PyObject_Length(legal);
    Py_DECREF(legal);
    if (n < 0)
        return NULL;
    PyObject *value = field(self, state, F_STD);
    if (value == NULL)
        return NULL;
    int standard = PyObject_IsTrue(value);
    Py_DECREF(value);
    if (standard < 0)
        return NULL;
    if (!standard)
        Py_RETURN_NONE;
    if (n < 26) {
        PyErr_SetString(PyExc_ValueError, "legal_how_low: fewer than the 26 standard discards");
        return NULL;
    }
    PyObject *numbers = PyList_New(n);
    for (Py_ssize_t i = 0; numbers != NULL && i < n; i++) {
        PyObject *number = PyLong_FromLong(i < 26 ? (long)i : HL_REDRAW_ACTION);
        if (number == NULL)
            Py_CLEAR(numbers);
        else
            PyList_SET_ITEM(numbers, i, number);
    }
    return numbers;
}

static PyMethodDef Observer_methods[] = {
    {"observe", (PyCFunction)(void (*)(void))Observer_observe, METH_FASTCALL,
     "observe(vector, legal) -> {'observation': ..., 'action_mask': ...}"},
    {"observe_twenty_down", (PyCFunction)(void (*)(void))Observer_observe_twenty_down,
     METH_FASTCALL, "observe_twenty_down(state, seat, legal) -> the observation's dict"},
    {"legal_twenty_down", (PyCFunction)Observer_legal_twenty_down, METH_O,
     "legal_twenty_down(state) -> the acting seat's legal numbers, or None"},
    {"observe_how_low", (PyCFunction)(void (*)(void))Observer_observe_how_low, METH_FASTCALL,
     "observe_how_low(state, seat, legal) -> the observation's dict"},
    {"legal_how_low", (PyCFunction)Observer_legal_how_low, METH_O,
     "legal_how_low(state) -> the acting seat's legal numbers, or None"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Observer_members[] = {
    {"twenty_down", T_INT, offsetof(Observer, twenty_down), READONLY,
     "whether it writes Twenty Down's vectors itself (observe_twenty_down)"},
    {"how_low", T_INT, offsetof(Observer, how_low), READONLY,
     "whether it writes How Low's vectors itself (observe_how_low)"},
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
        intern(&s_legal_actions, "legal_actions") < 0)
        return NULL;
    for (int f = 0; f < F_COUNT; f++)
        if (intern(&names[f], field_names[f]) < 0)
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
