/* The PettingZoo environment's observations in C (arena/envs/observations.py): the same arrays,
 * value for value, as its pure-Python path.
 *
 * Observer(size, num_actions, new_blocks, twenty_down=None, how_low=None) hands out each
 * observation as rows of two blocks that ``new_blocks()`` makes (a float32 block of rows x size
 * and an int8 block of rows x num_actions, C-contiguous): each row is zeroed, written and handed
 * out once, as a fresh view, and never written again. ``twenty_down``/``how_low``: the layout of
 * that game's vector (arena/envs/observations.py makes them from the encodings).
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
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <structmember.h>

/* Bumped with every change of meaning, and in arena/envs/observations.py with it. */
#define TRANSCRIPTION 2

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
    int busy; /* an observation being written: a call made meanwhile (from a property the
                 writers read, or another thread) is refused, never given the same rows */
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
        if (Py_IS_TYPE(descr, &PyMemberDescr_Type) &&
            PyType_IsSubtype(type, PyDescr_TYPE(descr))) {
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

/* --- reading the engines' fields ------------------------------------------------------------ */

/* ``value`` as a long in [lo, hi]; -1 with an error set when it is not one. */
static int as_long(PyObject *value, long lo, long hi, long *into) {
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < lo || v > hi) {
        PyErr_SetString(PyExc_ValueError, "an engine's field out of range");
        return -1;
    }
    *into = v;
    return 0;
}

/* The state's int field ``f``, in [lo, hi]. */
static int int_field(Observer *self, PyObject *state, int f, long lo, long hi, long *into) {
    PyObject *value = field(self, state, f);
    if (value == NULL)
        return -1;
    int done = as_long(value, lo, hi, into);
    Py_DECREF(value);
    return done;
}

/* The state's field ``f`` as a fast sequence of ``n`` items (any length if n < 0). */
static PyObject *seq_field(Observer *self, PyObject *state, int f, Py_ssize_t n) {
    PyObject *value = field(self, state, f);
    if (value == NULL)
        return NULL;
    PyObject *seq = PySequence_Fast(value, "an engine's field: a sequence");
    Py_DECREF(value);
    if (seq != NULL && n >= 0 && PySequence_Fast_GET_SIZE(seq) != n) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "an engine's field: one item a seat");
        return NULL;
    }
    return seq;
}

/* ``pair`` as (seat in [0, seats), an int in [lo, hi]). */
static int as_pair(PyObject *pair, long seats, long lo, long hi, long *seat, long *value) {
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_ValueError, "an engine's field: (seat, value) pairs");
        return -1;
    }
    return as_long(PyTuple_GET_ITEM(pair, 0), 0, seats - 1, seat) < 0 ||
                   as_long(PyTuple_GET_ITEM(pair, 1), lo, hi, value) < 0
               ? -1
               : 0;
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

/* Twenty Down's layout: TD_FIELDS ints, then CARD_INDEX (52 items, None: not in the pack). */
static int read_twenty_down(Observer *self, PyObject *layout) {
    if (!PyTuple_Check(layout) || PyTuple_GET_SIZE(layout) != TD_FIELDS + 1)
        return 0;
    for (int i = 0; i < TD_FIELDS; i++)
        if (as_long(PyTuple_GET_ITEM(layout, i), 0, LONG_MAX, &self->td[i]) < 0)
            return -1;
    PyObject *cards = PyTuple_GET_ITEM(layout, TD_FIELDS);
    if (!PyTuple_Check(cards) || PyTuple_GET_SIZE(cards) != 52)
        return 0;
    for (int c = 0; c < 52; c++) {
        PyObject *i = PyTuple_GET_ITEM(cards, c);
        long k = -1;
        if (i != Py_None && as_long(i, 0, TD_PACK - 1, &k) < 0)
            return -1;
        self->card_index[c] = (int)k;
    }
    return self->td[TD_MAX_DEALS] > 0 && self->td[TD_START_POINTS] > 0;
}

/* How Low's layout: HL_FIELDS ints, the chip scale (a float), VALUE (52 ints). */
static int read_how_low(Observer *self, PyObject *layout) {
    if (!PyTuple_Check(layout) || PyTuple_GET_SIZE(layout) != HL_FIELDS + 2)
        return 0;
    for (int i = 0; i < HL_FIELDS; i++)
        if (as_long(PyTuple_GET_ITEM(layout, i), 0, LONG_MAX, &self->hl[i]) < 0)
            return -1;
    self->chip_scale = PyFloat_AsDouble(PyTuple_GET_ITEM(layout, HL_FIELDS));
    if (self->chip_scale == -1.0 && PyErr_Occurred())
        return -1;
    PyObject *values = PyTuple_GET_ITEM(layout, HL_FIELDS + 1);
    if (!PyTuple_Check(values) || PyTuple_GET_SIZE(values) != 52)
        return 0;
    for (int c = 0; c < 52; c++) {
        long v;
        if (as_long(PyTuple_GET_ITEM(values, c), -1000, 1000, &v) < 0)
            return -1;
        self->value[c] = (int)v;
    }
    const long *hl = self->hl;
    return hl[HL_PLAYERS] >= 2 && hl[HL_PLAYERS] <= HL_MAX_PLAYERS && hl[HL_PACKS] >= 1 &&
           hl[HL_MAX_DEALS] > 0 && hl[HL_PACK_SIZE] > 0 && self->chip_scale > 0;
}

static PyObject *Observer_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    Py_ssize_t size, num_actions;
    PyObject *new_blocks, *twenty_down = Py_None, *how_low = Py_None;
    static char *keywords[] = {"size", "num_actions", "new_blocks", "twenty_down", "how_low",
                               NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nnO|OO:Observer", keywords, &size,
                                     &num_actions, &new_blocks, &twenty_down, &how_low))
        return NULL;
    if (size <= 0 || num_actions <= 0 || !PyCallable_Check(new_blocks) ||
        (twenty_down != Py_None && how_low != Py_None)) {
        PyErr_SetString(PyExc_ValueError, "Observer: sizes > 0, a callable new_blocks and at "
                                          "most one game's layout");
        return NULL;
    }
    Observer *self = (Observer *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->size = size;
    self->num_actions = num_actions;
    self->new_blocks = Py_NewRef(new_blocks);
    /* (1: read, 0: malformed, -1: an error set) */
    int read = twenty_down != Py_None ? (self->twenty_down = read_twenty_down(self, twenty_down))
               : how_low != Py_None   ? (self->how_low = read_how_low(self, how_low))
                                      : 1;
    if (read == 1)
        return (PyObject *)self;
    if (read == 0)
        PyErr_SetString(PyExc_ValueError, "Observer: a malformed layout");
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
    PyObject *seq = PySequence_Fast(legal, "legal: a sequence of action numbers, or None");
    if (seq == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long n = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (n == -1 && PyErr_Occurred())
            goto fail;
        if (n < 0 || n >= self->num_actions) {
            PyErr_SetString(PyExc_ValueError, "legal: an action number out of range");
            goto fail;
        }
        mask[n] = 1;
    }
    Py_DECREF(seq);
    return 0;
fail:
    Py_DECREF(seq);
    return -1;
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

static PyObject *Observer_observe_unguarded(Observer *self, PyObject *const *args, Py_ssize_t nargs) {
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

/* out[at] = v, where ``at`` must be inside the vector (else an error and ``goto fail``). */
#define PUT(at, v)                                                                             \
    do {                                                                                       \
        long at_ = (at);                                                                       \
        if (at_ < 0 || at_ >= self->size) {                                                    \
            PyErr_SetString(PyExc_ValueError, "an engine's field out of range");               \
            goto fail;                                                                         \
        }                                                                                      \
        out[at_] = (v);                                                                        \
    } while (0)

/* --- Twenty Down: TwentyDownEncoding.write_state ---------------------------------------------- */

/* The vector's position of a card of the 32-card pack in the part at ``base``. */
static inline long card_at(Observer *self, long base, long card) {
    return self->card_index[card] < 0 ? -1 : base + self->card_index[card];
}

/* The seat's hand (drawn first if the deal's cards are still to be drawn: ``hands`` does). */
static int td_hand(Observer *self, PyObject *state, long seat, float *out) {
    PyObject *pending = field(self, state, F_PENDING), *seq = NULL, *hand = NULL;
    if (pending == NULL)
        return -1;
    int to_draw = PyObject_IsTrue(pending);
    Py_DECREF(pending);
    if (to_draw < 0)
        return -1;
    PyObject *hands = field(self, state, to_draw ? F_HANDS : F_HANDS_SLOT);
    if (hands == NULL)
        return -1;
    hand = PySequence_GetItem(hands, seat);
    Py_DECREF(hands);
    if (hand == NULL || (seq = PySequence_Fast(hand, "a hand")) == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long card;
        if (as_long(PySequence_Fast_GET_ITEM(seq, i), 0, 51, &card) < 0)
            goto fail;
        PUT(card_at(self, self->td[TD_HAND], card), 1.0f);
    }
    Py_DECREF(seq);
    Py_DECREF(hand);
    return 0;
fail:
    Py_XDECREF(seq);
    Py_XDECREF(hand);
    return -1;
}

/* The phase, trump, dealer, forehand and deal. */
static int td_table(Observer *self, PyObject *state, long seat, float *out) {
    const long *td = self->td;
    long v;
    if (int_field(self, state, F_PHASE, 0, 4, &v) < 0)
        return -1;
    PUT(td[TD_PHASE] + v, 1.0f);
    PyObject *trump = field(self, state, F_TRUMP); /* None before it is named */
    if (trump == NULL)
        return -1;
    if (trump != Py_None) {
        int bad = as_long(trump, 0, 3, &v) < 0;
        Py_DECREF(trump);
        if (bad)
            return -1;
        PUT(td[TD_TRUMP] + v, 1.0f);
    } else {
        Py_DECREF(trump);
    }
    if (int_field(self, state, F_DEALER, 0, 3, &v) < 0)
        return -1;
    PUT(td[TD_DEALER] + ((v - seat) & 3), 1.0f);
    if (int_field(self, state, F_FOREHAND, 0, 3, &v) < 0)
        return -1;
    PUT(td[TD_FOREHAND] + ((v - seat) & 3), 1.0f);
    if (int_field(self, state, F_DEAL, 0, LONG_MAX, &v) < 0)
        return -1;
    PUT(td[TD_DEAL], (float)((double)v / (double)td[TD_MAX_DEALS]));
    if (v > td[TD_FIXED_AFTER])
        PUT(td[TD_HEARTS_FIXED], 1.0f);
    return 0;
fail:
    return -1;
}

/* Per seat: the points, the cards exchanged, the tricks won, and (brostedt) who plays. */
static int td_seats(Observer *self, PyObject *state, long seat, float *out) {
    const long *td = self->td;
    PyObject *points = seq_field(self, state, F_POINTS, 4);
    PyObject *exchanged = points ? seq_field(self, state, F_EXCHANGED, 4) : NULL;
    PyObject *won = exchanged ? seq_field(self, state, F_TRICKS_WON, 4) : NULL;
    PyObject *playing = won && td[TD_BROSTEDT] ? seq_field(self, state, F_PLAYING, 4) : NULL;
    if (won == NULL || (td[TD_BROSTEDT] && playing == NULL))
        goto fail;
    for (long s = 0; s < 4; s++) {
        long rel = (s - seat) & 3, v;
        if (as_long(PySequence_Fast_GET_ITEM(points, s), LONG_MIN, LONG_MAX, &v) < 0)
            goto fail;
        if (v)
            PUT(td[TD_POINTS] + rel, (float)((double)v / (double)td[TD_START_POINTS]));
        PyObject *count = PySequence_Fast_GET_ITEM(exchanged, s); /* None: not yet */
        if (count == Py_None)
            v = -1;
        else if (as_long(count, 0, 3, &v) < 0)
            goto fail;
        PUT(td[TD_EXCHANGED] + 5 * rel + v + 1, 1.0f);
        if (as_long(PySequence_Fast_GET_ITEM(won, s), 0, 5, &v) < 0)
            goto fail;
        if (v)
            PUT(td[TD_TRICKS_WON] + rel, (float)((double)v / 5.0));
        if (playing != NULL) {
            PyObject *p = PySequence_Fast_GET_ITEM(playing, s); /* None, True (stays), False */
            PUT(td[TD_PLAYING] + 3 * rel + (p == Py_None ? 0 : p == Py_True ? 1 : 2), 1.0f);
        }
    }
    Py_DECREF(points);
    Py_DECREF(exchanged);
    Py_DECREF(won);
    Py_XDECREF(playing);
    return 0;
fail:
    Py_XDECREF(points);
    Py_XDECREF(exchanged);
    Py_XDECREF(won);
    Py_XDECREF(playing);
    return -1;
}

/* The (seat, card) pairs of ``cards`` into the part at ``played`` (and ``current`` if >= 0). */
static int td_cards(Observer *self, PyObject *cards, long seat, long played, long current,
                    float *out) {
    PyObject *seq = PySequence_Fast(cards, "a trick's (seat, card) pairs");
    if (seq == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long s, card;
        if (as_pair(PySequence_Fast_GET_ITEM(seq, i), 4, 0, 51, &s, &card) < 0)
            goto fail;
        long rel = (s - seat) & 3;
        PUT(card_at(self, played + TD_PACK * rel, card), 1.0f);
        if (current >= 0)
            PUT(card_at(self, current + TD_PACK * rel, card), 1.0f);
    }
    Py_DECREF(seq);
    return 0;
fail:
    Py_DECREF(seq);
    return -1;
}

/* The deal's finished tricks ((leader, cards, winner) each) and the trick in progress. */
static int td_tricks(Observer *self, PyObject *state, long seat, float *out) {
    const long *td = self->td;
    PyObject *tricks = seq_field(self, state, F_TRICKS, -1), *trick = NULL;
    if (tricks == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(tricks); i++) {
        PyObject *done = PySequence_Fast_GET_ITEM(tricks, i);
        if (!PyTuple_Check(done) || PyTuple_GET_SIZE(done) != 3) {
            PyErr_SetString(PyExc_ValueError, "a finished trick: (leader, cards, winner)");
            goto fail;
        }
        if (td_cards(self, PyTuple_GET_ITEM(done, 1), seat, td[TD_PLAYED], -1, out) < 0)
            goto fail;
    }
    if ((trick = seq_field(self, state, F_TRICK, -1)) == NULL)
        goto fail;
    if (PySequence_Fast_GET_SIZE(trick) > 0) {
        long s, led;
        if (td_cards(self, trick, seat, td[TD_PLAYED], td[TD_CURRENT], out) < 0 ||
            as_pair(PySequence_Fast_GET_ITEM(trick, 0), 4, 0, 51, &s, &led) < 0)
            goto fail;
        PUT(td[TD_LED] + led / 13, 1.0f);
    }
    Py_DECREF(tricks);
    Py_DECREF(trick);
    return 0;
fail:
    Py_DECREF(tricks);
    Py_XDECREF(trick);
    return -1;
}

typedef int (*part_writer)(Observer *self, PyObject *state, long seat, float *out);

/* observe_GAME(state, seat, legal): the next rows, each part of the vector written by its
 * writer (``parts``, NULL-ended), the mask, and the dict of the two rows' arrays. */
static PyObject *observe_parts(Observer *self, PyObject *const *args, Py_ssize_t nargs,
                               int game, long players, const part_writer *parts,
                               const char *usage) {
    if (nargs != 3 || !game) {
        PyErr_SetString(PyExc_TypeError, usage);
        return NULL;
    }
    long seat;
    if (as_long(args[1], 0, players - 1, &seat) < 0)
        return NULL;
    float *vector;
    char *mask;
    Py_ssize_t row;
    if (next_row(self, &vector, &mask, &row) < 0)
        return NULL;
    for (const part_writer *part = parts; *part != NULL; part++)
        if ((*part)(self, args[0], seat, vector) < 0)
            return NULL;
    if (write_mask(self, args[2], mask) < 0)
        return NULL;
    return observation_dict(self, row);
}

static const part_writer td_parts[] = {td_hand, td_table, td_seats, td_tricks, NULL};

static PyObject *Observer_observe_twenty_down_unguarded(Observer *self, PyObject *const *args,
                                                        Py_ssize_t nargs) {
    return observe_parts(self, args, nargs, self->twenty_down, 4, td_parts,
                         "observe_twenty_down(state, seat, legal) of a Twenty Down observer");
}

/* TwentyDownEncoding.legal_numbers for the play phase and a full exchange; else None. */
static PyObject *Observer_legal_twenty_down(Observer *self, PyObject *state) {
    if (!self->twenty_down) {
        PyErr_SetString(PyExc_TypeError, "legal_twenty_down of a Twenty Down observer");
        return NULL;
    }
    long phase;
    if (int_field(self, state, F_PHASE, 0, 4, &phase) < 0)
        return NULL;
    if (phase != TD_PLAY_PHASE && phase != TD_EXCHANGE_PHASE)
        Py_RETURN_NONE;
    PyObject *legal = field(self, state, F_LEGAL), *numbers = NULL;
    if (legal == NULL)
        return NULL;
    if (phase == TD_EXCHANGE_PHASE) {
        Py_ssize_t n = PyObject_Length(legal);
        if (n == 26) {
            numbers = PyList_New(26);
            for (long i = 0; numbers != NULL && i < 26; i++)
                PyList_SET_ITEM(numbers, i, PyLong_FromLong(TD_EXCHANGE_BASE + i));
        } else if (n >= 0) {
            numbers = Py_NewRef(Py_None);
        }
    } else if (PyList_Check(legal)) {
        Py_ssize_t n = PyList_GET_SIZE(legal);
        numbers = PyList_New(n);
        for (Py_ssize_t i = 0; numbers != NULL && i < n; i++) {
            long card;
            if (as_long(PyList_GET_ITEM(legal, i), 0, 51, &card) < 0 ||
                card_at(self, TD_CARD_BASE, card) < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "legal_twenty_down: a card not in the pack");
                Py_CLEAR(numbers);
                break;
            }
            PyList_SET_ITEM(numbers, i, PyLong_FromLong(card_at(self, TD_CARD_BASE, card)));
        }
    } else {
        PyErr_SetString(PyExc_TypeError, "legal_twenty_down: the play phase's legal list");
    }
    Py_DECREF(legal);
    return numbers;
}

/* --- How Low Can You Go?: HowLowEncoding.write_state ------------------------------------------ */

/* What changes only at a showdown: the dealer, the bank, the deal, who is in, the chips. */
static int hl_table(Observer *self, PyObject *state, long seat, float *out) {
    const long *hl = self->hl;
    const long n = hl[HL_PLAYERS];
    PyObject *active = NULL, *chips = NULL;
    long v;
    if (int_field(self, state, F_DEALER, 0, n - 1, &v) < 0)
        return -1;
    PUT(hl[HL_DEALER] + (v - seat + n) % n, 1.0f);
    if (int_field(self, state, F_BANK, 0, LONG_MAX, &v) < 0)
        return -1;
    PUT(hl[HL_BANK], (float)((double)v / self->chip_scale));
    if (int_field(self, state, F_DEAL, 0, LONG_MAX, &v) < 0)
        return -1;
    PUT(hl[HL_DEAL], (float)((double)v / (double)hl[HL_MAX_DEALS]));
    if ((active = seq_field(self, state, F_ACTIVE_T, n)) == NULL ||
        (chips = seq_field(self, state, F_CHIPS_T, n)) == NULL)
        goto fail;
    for (long s = 0; s < n; s++) {
        int in = PyObject_IsTrue(PySequence_Fast_GET_ITEM(active, s));
        if (in < 0 || (in && as_long(PySequence_Fast_GET_ITEM(chips, s), LONG_MIN, LONG_MAX,
                                     &v) < 0))
            goto fail;
        if (in) {
            long rel = (s - seat + n) % n;
            PUT(hl[HL_ACTIVE] + rel, 1.0f);
            PUT(hl[HL_CHIPS] + rel, (float)((double)v / self->chip_scale));
        }
    }
    Py_DECREF(active);
    Py_DECREF(chips);
    return 0;
fail:
    Py_XDECREF(active);
    Py_XDECREF(chips);
    return -1;
}

/* The last showdown's totals and chip changes (``_sd``: deal, dealer, hands, totals, changes, ...;
 * None before the first). */
static int hl_showdown(Observer *self, PyObject *state, long seat, float *out) {
    const long *hl = self->hl;
    const long n = hl[HL_PLAYERS];
    PyObject *sd = field(self, state, F_SD);
    if (sd == NULL)
        return -1;
    if (sd != Py_None) {
        PyObject *totals, *changes;
        if (!PyTuple_Check(sd) || PyTuple_GET_SIZE(sd) < 5 ||
            !PyTuple_Check(totals = PyTuple_GET_ITEM(sd, 3)) ||
            !PyTuple_Check(changes = PyTuple_GET_ITEM(sd, 4)) ||
            PyTuple_GET_SIZE(totals) != n || PyTuple_GET_SIZE(changes) != n) {
            PyErr_SetString(PyExc_ValueError, "a malformed showdown");
            goto fail;
        }
        for (long s = 0; s < n; s++) {
            PyObject *total = PyTuple_GET_ITEM(totals, s), *change = PyTuple_GET_ITEM(changes, s);
            long t, c = 0;
            if (total == Py_None) /* not in the deal */
                continue;
            if (as_long(total, LONG_MIN, LONG_MAX, &t) < 0 ||
                (change != Py_None && as_long(change, LONG_MIN, LONG_MAX, &c) < 0))
                goto fail;
            long rel = (s - seat + n) % n;
            PUT(hl[HL_LAST_TOTALS] + rel, (float)((double)t / HL_TOTAL_SCALE));
            PUT(hl[HL_LAST_CHANGES] + rel, (float)((double)c / 5.0));
        }
    }
    Py_DECREF(sd);
    return 0;
fail:
    Py_DECREF(sd);
    return -1;
}

/* The deal's discards, (seat, count) a turn: a seat's first three exchanges, and a count of 5
 * a whalen redraw. */
static int hl_discards(Observer *self, PyObject *state, long seat, float *out) {
    const long *hl = self->hl;
    const long n = hl[HL_PLAYERS];
    unsigned char turns[HL_MAX_PLAYERS] = {0};
    PyObject *discards = seq_field(self, state, F_DISCARDS, -1);
    if (discards == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(discards); i++) {
        long s, count;
        if (as_pair(PySequence_Fast_GET_ITEM(discards, i), n, 0, 5, &s, &count) < 0)
            goto fail;
        long rel = (s - seat + n) % n;
        if (count == 5) {
            PUT(hl[HL_REDRAWN] + rel, 1.0f);
        } else if (turns[s] < HL_ROUNDS) {
            PUT(hl[HL_DISCARDED] + HL_ROUNDS * rel + turns[s], (float)((double)count / 3.0));
            turns[s]++;
        }
    }
    Py_DECREF(discards);
    return 0;
fail:
    Py_DECREF(discards);
    return -1;
}

/* The seat's hand and its total, the round, the sizes of the stock and the pile. */
static int hl_hand(Observer *self, PyObject *state, long seat, float *out) {
    const long *hl = self->hl;
    PyObject *hands = field(self, state, F_HANDS), *hand = NULL, *seq = NULL;
    if (hands == NULL)
        return -1;
    hand = PySequence_GetItem(hands, seat);
    Py_DECREF(hands);
    if (hand == NULL || (seq = PySequence_Fast(hand, "a hand")) == NULL)
        goto fail;
    long total = 0, v;
    const double copy = 1.0 / (double)hl[HL_PACKS]; /* two packs: two equal cards make 1 */
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        if (as_long(PySequence_Fast_GET_ITEM(seq, i), 0, 51, &v) < 0)
            goto fail;
        PUT(hl[HL_HAND] + v, (float)((double)out[hl[HL_HAND] + v] + copy));
        total += self->value[v];
    }
    PUT(hl[HL_HAND_TOTAL], (float)((double)total / HL_TOTAL_SCALE));
    if (int_field(self, state, F_ROUND, 1, HL_ROUNDS, &v) < 0)
        goto fail;
    PUT(hl[HL_ROUND] + v - 1, 1.0f);
    for (int part = 0; part < 2; part++) {
        PyObject *cards = field(self, state, part ? F_PILE : F_STOCK);
        Py_ssize_t size = cards == NULL ? -1 : PyObject_Length(cards);
        Py_XDECREF(cards);
        if (size < 0)
            goto fail;
        PUT(hl[part ? HL_DISCARD_SIZE : HL_STOCK_SIZE],
            (float)((double)size / (double)hl[HL_PACK_SIZE]));
    }
    Py_DECREF(seq);
    Py_DECREF(hand);
    return 0;
fail:
    Py_XDECREF(seq);
    Py_XDECREF(hand);
    return -1;
}

#undef PUT

static const part_writer hl_parts[] = {hl_table, hl_showdown, hl_discards, hl_hand, NULL};

static PyObject *Observer_observe_how_low_unguarded(Observer *self, PyObject *const *args,
                                                    Py_ssize_t nargs) {
    return observe_parts(self, args, nargs, self->how_low, self->how_low ? self->hl[HL_PLAYERS] : 1,
                         hl_parts, "observe_how_low(state, seat, legal) of a How Low observer");
}

/* HowLowEncoding.legal_numbers when the legal actions are the standard discards (``_std``),
 * the 26 and any redraw after them; else None. */
static PyObject *Observer_legal_how_low(Observer *self, PyObject *state) {
    if (!self->how_low) {
        PyErr_SetString(PyExc_TypeError, "legal_how_low of a How Low observer");
        return NULL;
    }
    PyObject *legal = PyObject_CallMethodNoArgs(state, s_legal_actions);
    if (legal == NULL)
        return NULL;
    Py_ssize_t n = PyObject_Length(legal);
    Py_DECREF(legal);
    PyObject *value = n < 0 ? NULL : field(self, state, F_STD);
    if (value == NULL)
        return NULL;
    int standard = PyObject_IsTrue(value);
    Py_DECREF(value);
    if (standard <= 0)
        return standard < 0 ? NULL : Py_NewRef(Py_None);
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

/* Each observe method, refused while another is writing (see ``busy``). */
#define GUARDED(name)                                                                          \
    static PyObject *name(Observer *self, PyObject *const *args, Py_ssize_t nargs) {           \
        if (self->busy) {                                                                      \
            PyErr_SetString(PyExc_RuntimeError, "an environment's observation was asked for "  \
                                                "while another was being written");            \
            return NULL;                                                                       \
        }                                                                                      \
        self->busy = 1;                                                                        \
        PyObject *result = name##_unguarded(self, args, nargs);                                \
        self->busy = 0;                                                                        \
        return result;                                                                         \
    }
GUARDED(Observer_observe)
GUARDED(Observer_observe_twenty_down)
GUARDED(Observer_observe_how_low)

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
