/* arena._trueskill_c: fast_trueskill._rate_python in C, equal to it bit for bit.
 *
 * Every floating-point operation of arena/ratings/fast_trueskill.py's _rate_python is done here in the
 * same order, with the libm functions CPython calls (math.exp -> exp, math.sqrt -> sqrt,
 * float ** float -> pow after float_pow's special cases), so the results are the same doubles.
 * Build with -O2 -ffp-contract=off and never -ffast-math: a fused multiply-add or a reassociated
 * sum would round differently from the Python code.
 *
 * rate() handles only the plain case. Wherever the Python code raises, catches a
 * ZeroDivisionError, or could meet a value outside what is checked here (non-finite numbers,
 * ranks that are not exact floats or ints, more than MAX_PLAYERS players), rate() returns None
 * and the caller runs the Python code, which then gives the package's exact result or exception.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <fenv.h>
#include <float.h>
#include <math.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "double arithmetic with excess precision would not round like CPython's floats"
#endif
#if defined(__FAST_MATH__) || (defined(__GCC_IEC_559) && __GCC_IEC_559 == 0)
#error "-ffast-math changes the results: build without it"
#endif
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* fast_trueskill._TRANSCRIPTION: which version of _rate_python this code transcribes. */
#define TRANSCRIPTION 1
#define MAX_PLAYERS 64
#define MAX_ITERATIONS 10 /* TrueSkill.run_schedule's default */

/* Bail out of rate(): the Python code takes over. */
#define UNHANDLED (-1)

/* Called through a volatile pointer so that the compiler cannot fold pow(x, 2.0) into x * x:
 * CPython calls libm's pow, which need not round exactly as x * x does. */
static double (*volatile libm_pow)(double, double) = pow;

static double sqrt2;     /* fast_trueskill._SQRT2 */
static double pdf_scale; /* fast_trueskill._PDF_SCALE */

/* CPython's float_pow(x, y) for finite x and y = 2.0 or -2.0 (even integers): 0 ** 2 is 0.0,
 * 0 ** -2 raises ZeroDivisionError, a negative base is made positive, 1 ** y is 1.0, and a
 * result that overflows raises OverflowError. Returns UNHANDLED where Python would raise. */
static int
py_pow_even(double x, double y, double *out)
{
    if (!isfinite(x)) {
        return UNHANDLED; /* float_pow's own special cases: not needed here */
    }
    if (x == 0.0) {
        if (y < 0.0) {
            return UNHANDLED;
        }
        *out = 0.0;
        return 0;
    }
    if (x < 0.0) {
        x = -x;
    }
    if (x == 1.0) {
        *out = 1.0;
        return 0;
    }
    double r = libm_pow(x, y);
    /* Overflow is an OverflowError; so is a subnormal result if libm set errno for it (not
     * glibc; 0.0 is always accepted). */
    if (isinf(r) || (r != 0.0 && r < DBL_MIN)) {
        return UNHANDLED;
    }
    *out = r;
    return 0;
}

/* math.exp: OverflowError when a finite argument gives an infinite result. */
static int
py_exp(double x, double *out)
{
    double r = exp(x);
    if (isinf(r) && isfinite(x)) {
        return UNHANDLED;
    }
    *out = r;
    return 0;
}

/* math.sqrt: ValueError for a negative argument (-0.0 is not negative). */
static int
py_sqrt(double x, double *out)
{
    if (x < 0.0) {
        return UNHANDLED;
    }
    *out = sqrt(x);
    return 0;
}

/* Python's `a and b / a` on floats: a (even -0.0) when a is zero. */
static inline double
and_div(double num, double a)
{
    return a != 0.0 ? num / a : a;
}

/* fast_trueskill._cdf */
static int
cdf(double x, double *out)
{
    double y = -x / sqrt2;
    double z = fabs(y);
    double t = 1.0 / (1.0 + z / 2.0);
    double e;
    if (py_exp(-z * z - 1.26551223 +
                   t * (1.00002368 +
                        t * (0.37409196 +
                             t * (0.09678418 +
                                  t * (-0.18628806 +
                                       t * (0.27886807 +
                                            t * (-1.13520398 +
                                                 t * (1.48851587 +
                                                      t * (-0.82215223 + t * 0.17087277)))))))),
               &e)) {
        return UNHANDLED;
    }
    double r = t * e;
    *out = 0.5 * (y < 0 ? 2.0 - r : r);
    return 0;
}

/* fast_trueskill._pdf */
static int
pdf(double x, double *out)
{
    double sq, e;
    if (py_pow_even(x, 2.0, &sq) || py_exp(-(sq / 2.0), &e)) {
        return UNHANDLED;
    }
    *out = pdf_scale * e;
    return 0;
}

/* A rank as an exact double, if comparing the doubles is comparing the Python objects. */
static int
exact_rank(PyObject *item, double *out)
{
    if (PyFloat_CheckExact(item)) {
        *out = PyFloat_AS_DOUBLE(item);
        return isfinite(*out) ? 0 : UNHANDLED;
    }
    if (PyLong_CheckExact(item)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return UNHANDLED;
        }
        if (v > (1LL << 53) || v < -(1LL << 53)) {
            return UNHANDLED;
        }
        *out = (double)v;
        return 0;
    }
    return UNHANDLED;
}

/* A setting (beta ** 2, tau ** 2, the draw margin) as Python's mixed arithmetic converts it. */
static int
setting(PyObject *item, double *out)
{
    if (PyFloat_CheckExact(item)) {
        *out = PyFloat_AS_DOUBLE(item);
    }
    else if (PyLong_CheckExact(item)) {
        *out = PyLong_AsDouble(item);
        if (*out == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return UNHANDLED;
        }
    }
    else {
        return UNHANDLED;
    }
    return isfinite(*out) ? 0 : UNHANDLED;
}

#define CHECK(call)             \
    do {                        \
        if (call) {             \
            return UNHANDLED;   \
        }                       \
    } while (0)
#define NONZERO(divisor)              \
    do {                              \
        if ((divisor) == 0.0) {       \
            return UNHANDLED;         \
        }                             \
    } while (0)

struct game {
    int n;
    double variance, dynamic2, draw_margin, min_delta;
    double pis[MAX_PLAYERS], taus[MAX_PLAYERS], ranks[MAX_PLAYERS];
    int order[MAX_PLAYERS];
    double mus[MAX_PLAYERS], sigmas[MAX_PLAYERS]; /* the result, in input order */
};

/* The message-passing loop; line for line fast_trueskill._rate_python. */
static int
rate_game(struct game *g)
{
    const int n = g->n;
    const double variance = g->variance, dynamic2 = g->dynamic2, draw_margin = g->draw_margin;
    double prior_p[MAX_PLAYERS], prior_t[MAX_PLAYERS];
    double perf_msg_p[MAX_PLAYERS], perf_msg_t[MAX_PLAYERS];
    double team_msg_p[MAX_PLAYERS], team_msg_t[MAX_PLAYERS];
    double Tp[MAX_PLAYERS], Tt[MAX_PLAYERS];
    double left_p[MAX_PLAYERS] = {0}, left_t[MAX_PLAYERS] = {0};
    double right_p[MAX_PLAYERS] = {0}, right_t[MAX_PLAYERS] = {0};
    double Dp[MAX_PLAYERS] = {0}, Dt[MAX_PLAYERS] = {0};
    double sum_p[MAX_PLAYERS] = {0}, sum_t[MAX_PLAYERS] = {0};
    double trunc_p[MAX_PLAYERS] = {0}, trunc_t[MAX_PLAYERS] = {0};
    int tie[MAX_PLAYERS];
    double p, t, m, pi_inv;

    /* sorted(range(n), key=ranks.__getitem__): a stable insertion sort on `<`. */
    for (int k = 0; k < n; k++) {
        int j = k;
        while (j > 0 && g->ranks[k] < g->ranks[g->order[j - 1]]) {
            g->order[j] = g->order[j - 1];
            j--;
        }
        g->order[j] = k;
    }

    for (int k = 0; k < n; k++) {
        int i = g->order[k];
        double pi = g->pis[i], tau = g->taus[i];
        double sigma, sigma2, s, p0, t0;
        NONZERO(pi); /* the Python code's `if pi else _INF` */
        CHECK(py_sqrt(1 / pi, &sigma));
        CHECK(py_pow_even(sigma, 2.0, &sigma2));
        CHECK(py_sqrt(sigma2 + dynamic2, &s));
        NONZERO(s);
        CHECK(py_pow_even(s, -2.0, &p0));
        t0 = p0 * and_div(tau, pi);
        prior_p[k] = p0;
        prior_t[k] = t0;
        double a_den = 1.0 + variance * p0;
        NONZERO(a_den);
        double a = 1.0 / a_den;
        double mp = a * p0, mt = a * t0;
        perf_msg_p[k] = mp;
        perf_msg_t[k] = mt;
        double pp = 0.0 + mp, pt = 0.0 + mt;
        m = 0.0 + and_div(pt, pp);
        NONZERO(pp);
        pi_inv = 0.0 + 1.0 / pp;
        NONZERO(pi_inv);
        p = 1.0 / pi_inv;
        t = p * m;
        team_msg_p[k] = p;
        team_msg_t[k] = t;
        Tp[k] = 0.0 + p;
        Tt[k] = 0.0 + t;
    }

    const int L = n - 1;
    for (int x = 0; x < L; x++) {
        tie[x] = g->ranks[g->order[x]] == g->ranks[g->order[x + 1]];
    }
    const int single = L == 1;
    /* _steps(L): (x, up=1) for x in 0..L-2, then (x, up=0) for x in L-1..1; (0, -1) if L == 1. */
    const int step_count = single ? 1 : 2 * (L - 1);

    for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
        double delta = 0.0;
        for (int step = 0; step < step_count; step++) {
            int x, up;
            if (single) {
                x = 0;
                up = -1;
            }
            else if (step < L - 1) {
                x = step;
                up = 1;
            }
            else {
                x = L - 1 - (step - (L - 1));
                up = 0;
            }
            const int x1 = x + 1;

            double d0p = Tp[x] - right_p[x];
            double d0t = Tt[x] - right_t[x];
            double mu0 = and_div(d0t, d0p);
            NONZERO(d0p);
            double inv0 = 0.0 + 1.0 / d0p;
            double d1p = Tp[x1] - left_p[x1];
            double d1t = Tt[x1] - left_t[x1];
            double mu1 = and_div(d1t, d1p);
            m = (0.0 + mu0) - mu1;
            pi_inv = inv0;
            if (pi_inv != INFINITY) {
                NONZERO(d1p);
                pi_inv += 1.0 / d1p;
            }
            NONZERO(pi_inv);
            p = 1.0 / pi_inv;
            t = p * m;
            double vp = (Dp[x] - sum_p[x]) + p;
            double vt = (Dt[x] - sum_t[x]) + t;
            sum_p[x] = p;
            sum_t[x] = t;

            /* TruncateFactor(D_x).up */
            double divp = vp - trunc_p[x];
            double divt = vt - trunc_t[x];
            double sqrt_pi;
            CHECK(py_sqrt(divp, &sqrt_pi));
            NONZERO(sqrt_pi);
            double diff = divt / sqrt_pi;
            double margin = draw_margin * sqrt_pi;
            double v, w;
            if (tie[x]) {
                double abs_diff = fabs(diff);
                double a = margin - abs_diff;
                double b = -margin - abs_diff;
                double cdf_a, cdf_b, pdf_a, pdf_b, v2;
                CHECK(cdf(a, &cdf_a));
                CHECK(cdf(b, &cdf_b));
                double denom = cdf_a - cdf_b;
                CHECK(pdf(b, &pdf_b));
                CHECK(pdf(a, &pdf_a));
                double numer = pdf_b - pdf_a;
                NONZERO(denom); /* FloatingPointError */
                v = numer / denom;
                CHECK(py_pow_even(v, 2.0, &v2));
                w = v2 + (a * pdf_a - b * pdf_b) / denom;
                v = v * (diff < 0 ? -1.0 : 1.0);
            }
            else {
                double xx = diff - margin;
                double denom, pdf_xx;
                CHECK(cdf(xx, &denom));
                NONZERO(denom); /* then w == 0: FloatingPointError */
                CHECK(pdf(xx, &pdf_xx));
                v = pdf_xx / denom;
                w = v * (v + xx);
                if (!(0 < w && w < 1)) {
                    return UNHANDLED; /* FloatingPointError */
                }
            }
            double denom = 1.0 - w;
            NONZERO(denom);
            p = divp / denom;
            t = (divt + sqrt_pi * v) / denom;
            trunc_p[x] = (p + trunc_p[x]) - vp;
            trunc_t[x] = (t + trunc_t[x]) - vt;
            double pi_delta = fabs(vp - p);
            double d;
            if (pi_delta == INFINITY) {
                d = 0.0;
            }
            else {
                double s;
                d = fabs(vt - t);
                CHECK(py_sqrt(pi_delta, &s));
                if (s > d) {
                    d = s;
                }
            }
            Dp[x] = p;
            Dt[x] = t;
            if (single) {
                delta = d;
            }
            else if (d > delta) {
                delta = d;
            }

            if (up == 1) {
                double dDp = p - sum_p[x];
                double dDt = t - sum_t[x];
                m = (0.0 + mu0) - and_div(dDt, dDp);
                pi_inv = inv0;
                if (pi_inv != INFINITY) {
                    NONZERO(dDp);
                    pi_inv += 1.0 / dDp;
                }
                NONZERO(pi_inv);
                p = 1.0 / pi_inv;
                t = p * m;
                Tp[x1] = (Tp[x1] - left_p[x1]) + p;
                Tt[x1] = (Tt[x1] - left_t[x1]) + t;
                left_p[x1] = p;
                left_t[x1] = t;
            }
            else if (up == 0) {
                double dDp = p - sum_p[x];
                double dDt = t - sum_t[x];
                m = (0.0 + and_div(dDt, dDp)) + mu1;
                NONZERO(dDp);
                pi_inv = 0.0 + 1.0 / dDp;
                if (pi_inv != INFINITY) {
                    NONZERO(d1p);
                    pi_inv += 1.0 / d1p;
                }
                NONZERO(pi_inv);
                p = 1.0 / pi_inv;
                t = p * m;
                Tp[x] = (Tp[x] - right_p[x]) + p;
                Tt[x] = (Tt[x] - right_t[x]) + t;
                right_p[x] = p;
                right_t[x] = t;
            }
        }
        if (delta <= g->min_delta) {
            break;
        }
    }

    /* Up both ends: team_diff_layer[0].up(0), then team_diff_layer[L - 1].up(1). */
    {
        double d0p = Dp[0] - sum_p[0];
        double d0t = Dt[0] - sum_t[0];
        double d1p = Tp[1] - left_p[1];
        double d1t = Tt[1] - left_t[1];
        m = 0.0 + and_div(d0t, d0p);
        m = m + and_div(d1t, d1p);
        NONZERO(d0p);
        pi_inv = 0.0 + 1.0 / d0p;
        if (pi_inv != INFINITY) {
            NONZERO(d1p);
            pi_inv += 1.0 / d1p;
        }
        NONZERO(pi_inv);
        p = 1.0 / pi_inv;
        t = p * m;
        Tp[0] = (Tp[0] - right_p[0]) + p;
        Tt[0] = (Tt[0] - right_t[0]) + t;
        right_p[0] = p;
        right_t[0] = t;
    }
    {
        const int x = L - 1;
        double d0p = Tp[x] - right_p[x];
        double d0t = Tt[x] - right_t[x];
        double d1p = Dp[x] - sum_p[x];
        double d1t = Dt[x] - sum_t[x];
        m = 0.0 + and_div(d0t, d0p);
        m = m - and_div(d1t, d1p);
        NONZERO(d0p);
        pi_inv = 0.0 + 1.0 / d0p;
        if (pi_inv != INFINITY) {
            NONZERO(d1p);
            pi_inv += 1.0 / d1p;
        }
        NONZERO(pi_inv);
        p = 1.0 / pi_inv;
        t = p * m;
        Tp[L] = (Tp[L] - left_p[L]) + p;
        Tt[L] = (Tt[L] - left_t[L]) + t;
    }

    for (int k = 0; k < n; k++) {
        double dp = Tp[k] - team_msg_p[k];
        double dt = Tt[k] - team_msg_t[k];
        m = 0.0 + and_div(dt, dp);
        NONZERO(dp);
        pi_inv = 0.0 + 1.0 / dp;
        NONZERO(pi_inv);
        p = 1.0 / pi_inv;
        t = p * m;
        double pp = (0.0 + perf_msg_p[k]) + p;
        double pt = (0.0 + perf_msg_t[k]) + t;
        double mp = pp - perf_msg_p[k];
        double mt = pt - perf_msg_t[k];
        double a_den = 1.0 + variance * mp;
        NONZERO(a_den);
        double a = 1.0 / a_den;
        double final_p = prior_p[k] + a * mp;
        double final_t = prior_t[k] + a * mt;
        /* Only a finite, positive precision is handled: sqrt(1 / p) if p else inf. */
        if (!(final_p > 0.0) || !isfinite(final_p) || !isfinite(final_t)) {
            return UNHANDLED;
        }
        int i = g->order[k];
        g->mus[i] = final_t / final_p;
        CHECK(py_sqrt(1 / final_p, &g->sigmas[i]));
    }
    return 0;
}

/* Fill g->pis or g->taus from a list of exact floats. */
static int
read_floats(PyObject *list, int n, double *out)
{
    if (!PyList_CheckExact(list) || PyList_GET_SIZE(list) != n) {
        return UNHANDLED;
    }
    for (int i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        if (!PyFloat_CheckExact(item)) {
            return UNHANDLED;
        }
        out[i] = PyFloat_AS_DOUBLE(item);
        if (!isfinite(out[i])) {
            return UNHANDLED;
        }
    }
    return 0;
}

static PyObject *
rate(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    struct game g;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "rate(pis, taus, ranks, variance, dynamic2, draw_margin, min_delta)");
        return NULL;
    }
    PyObject *pis = args[0], *taus = args[1], *ranks = args[2];
    if (!PyList_CheckExact(pis)) {
        Py_RETURN_NONE;
    }
    Py_ssize_t size = PyList_GET_SIZE(pis);
    if (size < 2 || size > MAX_PLAYERS) {
        Py_RETURN_NONE;
    }
    g.n = (int)size;
    if (read_floats(pis, g.n, g.pis) || read_floats(taus, g.n, g.taus) ||
        setting(args[3], &g.variance) || setting(args[4], &g.dynamic2) ||
        setting(args[5], &g.draw_margin) || setting(args[6], &g.min_delta)) {
        Py_RETURN_NONE;
    }
    if (!(PyList_CheckExact(ranks) || PyTuple_CheckExact(ranks)) ||
        PySequence_Fast_GET_SIZE(ranks) != size) {
        Py_RETURN_NONE;
    }
    PyObject **rank_items = PySequence_Fast_ITEMS(ranks);
    for (int i = 0; i < g.n; i++) {
        if (exact_rank(rank_items[i], &g.ranks[i])) {
            Py_RETURN_NONE;
        }
    }

    /* A catch-all behind the explicit checks: any invalid operation, division by zero or
     * overflow, even one the checks above do not foresee, hands the game to Python. */
    feclearexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW);
    if (rate_game(&g) || fetestexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW)) {
        Py_RETURN_NONE;
    }

    PyObject *result = PyList_New(size);
    if (result == NULL) {
        return NULL;
    }
    for (int i = 0; i < g.n; i++) {
        PyObject *pair = Py_BuildValue("(dd)", g.mus[i], g.sigmas[i]);
        if (pair == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyList_SET_ITEM(result, i, pair);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"rate", (PyCFunction)(void (*)(void))rate, METH_FASTCALL,
     "rate(pis, taus, ranks, variance, dynamic2, draw_margin, min_delta)\n\n"
     "fast_trueskill._rate_python's [(mu, sigma), ...] in input order, or None where the\n"
     "Python code must run instead (it would raise, or meets a case not handled here)."},
    {NULL, NULL, 0, NULL},
};

static int
add_float(PyObject *module, const char *name, double value)
{
    PyObject *number = PyFloat_FromDouble(value);
    if (number == NULL) {
        return -1;
    }
    int status = PyModule_AddObjectRef(module, name, number);
    Py_DECREF(number);
    return status;
}

static int
exec_module(PyObject *module)
{
    sqrt2 = 1 * sqrt(2.0);
    pdf_scale = 1 / sqrt(2 * 3.141592653589793) * 1;
    if (add_float(module, "SQRT2", sqrt2) < 0 || add_float(module, "PDF_SCALE", pdf_scale) < 0 ||
        PyModule_AddIntConstant(module, "MAX_PLAYERS", MAX_PLAYERS) < 0 ||
        PyModule_AddIntConstant(module, "TRANSCRIPTION", TRANSCRIPTION) < 0) {
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "arena.ratings._trueskill_c",
    .m_doc = "TrueSkill's message passing for one-player teams, equal to arena.fast_trueskill's.",
    .m_size = 0,
    .m_methods = methods,
    .m_slots = slots,
};

PyMODINIT_FUNC
PyInit__trueskill_c(void)
{
    return PyModuleDef_Init(&module_def);
}
