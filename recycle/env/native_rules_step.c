/* The hot calls of a natively stepped OpenSpiel state (recycle/env/native_rules.py), in C.
 *
 * A random episode stepped from Python makes five calls an action (is_terminal,
 * is_chance_node, chance_outcomes or legal_actions, apply_action) on a state whose game runs in
 * the game's own library. Written in Python, they cost more than the step itself: the
 * arguments through ctypes, the counters read through memoryviews, the next chance node's
 * outcomes listed, the runner's lock taken, each a few hundred nanoseconds. Here the same
 * calls read the library's arrays directly and call its step through a function pointer, as
 * OpenSpiel's own states answer from C++ behind pybind11.
 *
 * Nothing here decides anything the Python code does not: every case off the hot path (a
 * state handed over to the reference interpreter, a refused action, the end of the game, too
 * many options, a player given to legal_actions) calls back the Python method that handles it
 * (the names beside each call). recycle/env/native_rules_c.py builds this file once per
 * Python and compiler into the native cache and loads it; without it the Python methods play.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef long long (*step_apply)(long long);

/* What a state reads of its runner after a step: made once per runner (_Views.fast). */
typedef struct {
    PyObject_HEAD
    step_apply apply;      /* the library's rc_step_apply: play an option, stop at the next node */
    long long *ctr;        /* the runner's counters (the node kind at [at], its outcomes after) */
    long long *pst;        /* the player stack (rows of pst_row: the player to move first) */
    Py_ssize_t pst_row, at, psp, ncards, most, outs_at;
    PyObject *runner;      /* its `resident` is the state whose game is in the arrays */
    PyObject *acquire, *release; /* the runner's lock (every stepping of its library holds it) */
    PyObject *pairs;       /* pairs[n][o]: the chance outcome (o, 1/n), made once */
    Py_buffer ctr_buf, pst_buf;
} Views;

/* The fields of NativeRulesCore (a Python class deriving from this one adds the methods). */
typedef struct {
    PyObject_HEAD
    PyObject *spec, *ns, *v, *fv, *actions, *outs, *cache, *twin, *who, *replay;
    long long kind, player, nopts, limit;
    Py_ssize_t told, synced;
} Core;

#define TERMINAL (-4)
#define CHANCE (-1)
#define NODE_CARD 1 /* as recycle/native/runtime_chance.py NODE_CARD (a card node: its outcomes are cards) */

static PyTypeObject *core_type;   /* NativeRulesCore, the Python class (install) */
static PyObject *fallback_apply;  /* NativeRulesState._py_apply_action */
static PyObject *fallback_player; /* NativeRulesState._py_current_player */
static PyObject *fallback_legal;  /* NativeRulesState._py_legal_actions */
static PyObject *fallback_outcomes; /* NativeRulesState._py_chance_outcomes */
static PyObject *fallback_terminal; /* NativeRulesState._py_is_terminal */
static PyObject *fallback_chance;   /* NativeRulesState._py_is_chance_node */
static PyObject *s_core, *s_resident, *s_take, *s_nopts, *s_finish, *s_status, *s_refusal, *s_too_many, *s_stopped;

/* ---- Views ------------------------------------------------------------------------------ */

static void views_dealloc(Views *v) {
    if (v->ctr_buf.obj) PyBuffer_Release(&v->ctr_buf);
    if (v->pst_buf.obj) PyBuffer_Release(&v->pst_buf);
    Py_XDECREF(v->runner);
    Py_XDECREF(v->acquire);
    Py_XDECREF(v->release);
    Py_XDECREF(v->pairs);
    Py_TYPE(v)->tp_free((PyObject *)v);
}

static int int64_buffer(PyObject *obj, Py_buffer *buf, int ndim) {
    if (PyObject_GetBuffer(obj, buf, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (buf->itemsize != 8 || buf->ndim != ndim) {
        PyBuffer_Release(buf);
        buf->obj = NULL;
        PyErr_SetString(PyExc_TypeError, "a runner's array is not of 64-bit integers of the expected shape");
        return -1;
    }
    return 0;
}

/* Views(address, ctr, pst, at, psp, ncards, most, outs_at, runner, lock, pairs) */
static int views_init(Views *v, PyObject *args, PyObject *kw) {
    unsigned long long address;
    PyObject *ctr, *pst, *runner, *lock, *pairs;
    Py_ssize_t at, psp, ncards, most, outs_at;
    if (!PyArg_ParseTuple(args, "KOOnnnnnOOO!", &address, &ctr, &pst, &at, &psp, &ncards, &most, &outs_at, &runner,
                          &lock, &PyList_Type, &pairs))
        return -1;
    if (int64_buffer(ctr, &v->ctr_buf, 1) < 0) return -1;
    if (int64_buffer(pst, &v->pst_buf, 2) < 0) return -1;
    if (at < 0 || psp < 0 || outs_at < 0 || outs_at + ncards > v->ctr_buf.shape[0] || at >= v->ctr_buf.shape[0] ||
        psp >= v->ctr_buf.shape[0]) {
        PyErr_SetString(PyExc_ValueError, "a counter's index lies outside the runner's counters");
        return -1;
    }
    v->apply = (step_apply)(uintptr_t)address;
    v->ctr = (long long *)v->ctr_buf.buf;
    v->pst = (long long *)v->pst_buf.buf;
    v->pst_row = v->pst_buf.shape[1];
    v->at = at, v->psp = psp, v->ncards = ncards, v->most = most, v->outs_at = outs_at;
    v->acquire = PyObject_GetAttrString(lock, "acquire");
    v->release = PyObject_GetAttrString(lock, "release");
    if (!v->acquire || !v->release) return -1;
    Py_INCREF(runner);
    v->runner = runner;
    Py_INCREF(pairs);
    v->pairs = pairs;
    return 0;
}

static PyTypeObject ViewsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "native_rules_step.Views",
    .tp_basicsize = sizeof(Views),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)views_init,
    .tp_dealloc = (destructor)views_dealloc,
    .tp_doc = "What a natively stepped state reads of its runner after a step.",
};

/* ---- Core ------------------------------------------------------------------------------- */

/* (a Python subclass's own traverse and dealloc visit and release its type: not done here) */
static int core_traverse(Core *c, visitproc visit, void *arg) {
    Py_VISIT(c->spec);
    Py_VISIT(c->ns);
    Py_VISIT(c->v);
    Py_VISIT(c->fv);
    Py_VISIT(c->actions);
    Py_VISIT(c->outs);
    Py_VISIT(c->cache);
    Py_VISIT(c->twin);
    Py_VISIT(c->who);
    Py_VISIT(c->replay);
    return 0;
}

static int core_clear(Core *c) {
    Py_CLEAR(c->spec);
    Py_CLEAR(c->ns);
    Py_CLEAR(c->v);
    Py_CLEAR(c->fv);
    Py_CLEAR(c->actions);
    Py_CLEAR(c->outs);
    Py_CLEAR(c->cache);
    Py_CLEAR(c->twin);
    Py_CLEAR(c->who);
    Py_CLEAR(c->replay);
    return 0;
}

static void core_dealloc(Core *c) {
    PyObject_GC_UnTrack(c);
    core_clear(c);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int release_keeping_error(Views *v) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *r = PyObject_CallNoArgs(v->release);
    if (r == NULL) {
        Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
        return -1;
    }
    Py_DECREF(r);
    PyErr_Restore(type, value, tb);
    return 0;
}

/* The options after a step that returned n >= 0, read from the arrays. */
static int core_read(Core *c, Views *v, long long n) {
    long long kind = v->ctr[v->at];
    if (kind == 0) {
        Py_INCREF(Py_None);
        Py_SETREF(c->outs, Py_None);
        c->player = v->pst[v->ctr[v->psp] * v->pst_row];
        c->nopts = c->limit = n;
        if (n > v->most) { /* raises ActionSpaceExceeded */
            PyObject *no = PyLong_FromLongLong(n);
            PyObject *r = no ? PyObject_CallMethodObjArgs((PyObject *)c, s_too_many, no, NULL) : NULL;
            Py_XDECREF(no);
            if (r == NULL) return -1;
            Py_DECREF(r);
        }
        return 0;
    }
    c->kind = kind, c->player = CHANCE, c->nopts = n;
    if (n > v->ncards && kind == NODE_CARD) {
        PyErr_SetString(PyExc_RuntimeError, "a card node with more outcomes than cards");
        return -1;
    }
    PyObject *outs = PyList_New(n);
    if (outs == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyLong_FromLongLong(kind == NODE_CARD ? v->ctr[v->outs_at + i] : i);
        if (o == NULL) {
            Py_DECREF(outs);
            return -1;
        }
        PyList_SET_ITEM(outs, i, o);
    }
    Py_SETREF(c->outs, outs);
    c->limit = kind == NODE_CARD ? v->ncards : n;
    return 0;
}

/* Play action natively: 1, or 0 when native code stopped (the caller hands the game over),
 * -1 with an exception set. As NativeRulesCore.step in Python. */
static int core_step(Core *c, long long a) {
    if (c->fv == NULL || Py_TYPE(c->fv) != &ViewsType || c->actions == NULL || !PyList_Check(c->actions) ||
        c->who == NULL || !PyList_Check(c->who) || c->ns == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a natively stepped state that was never set up");
        return -1;
    }
    Views *v = (Views *)c->fv;
    if (a < 0 || a >= c->limit) {
        PyObject *ao = PyLong_FromLongLong(a);
        PyObject *exc = ao ? PyObject_CallMethodObjArgs((PyObject *)c, s_refusal, ao, NULL) : NULL;
        Py_XDECREF(ao);
        if (exc != NULL) {
            PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
            Py_DECREF(exc);
        }
        return -1;
    }
    if (c->cache == NULL || !PyDict_Check(c->cache) || PyDict_GET_SIZE(c->cache)) {
        PyObject *d = PyDict_New();
        if (d == NULL) return -1;
        Py_XSETREF(c->cache, d);
    }
    PyObject *ao = PyLong_FromLongLong(a), *po = PyLong_FromLongLong(c->player);
    int bad = ao == NULL || po == NULL || PyList_Append(c->actions, ao) < 0 || PyList_Append(c->who, po) < 0;
    Py_XDECREF(ao);
    Py_XDECREF(po);
    if (bad) return -1;
    PyObject *r = PyObject_CallNoArgs(v->acquire);
    if (r == NULL) return -1;
    Py_DECREF(r);
    int result = -1;
    PyObject *resident = PyObject_GetAttr(v->runner, s_resident);
    if (resident == NULL) goto done;
    Py_DECREF(resident); /* (compared by identity only) */
    if (resident != c->ns) {
        r = PyObject_CallMethodObjArgs(v->runner, s_take, c->ns, NULL);
        if (r == NULL) goto done;
        Py_DECREF(r);
    }
    long long n = v->apply(a);
    PyObject *no = PyLong_FromLongLong(n);
    if (no == NULL || PyObject_SetAttr(c->ns, s_nopts, no) < 0) {
        Py_XDECREF(no);
        goto done;
    }
    Py_DECREF(no);
    if (n < 0) {
        r = PyObject_CallMethodNoArgs(c->ns, s_finish);
        if (r == NULL) goto done;
        Py_DECREF(r);
        PyObject *status = PyObject_GetAttr(c->ns, s_status);
        if (status == NULL) goto done;
        int stopped = PyObject_IsTrue(status);
        Py_DECREF(status);
        if (stopped < 0) goto done;
        if (stopped) {
            result = 0;
            goto done;
        }
        Py_INCREF(Py_None);
        Py_SETREF(c->outs, Py_None);
        c->player = TERMINAL, c->nopts = 0, c->limit = 0;
        result = 1;
        goto done;
    }
    result = core_read(c, v, n) < 0 ? -1 : 1;
done:
    if (result < 0) {
        release_keeping_error(v);
        return -1;
    }
    r = PyObject_CallNoArgs(v->release);
    if (r == NULL) return -1;
    Py_DECREF(r);
    return result;
}

static PyObject *core_step_method(Core *c, PyObject *arg) {
    long long a = PyLong_AsLongLong(arg);
    if (a == -1 && PyErr_Occurred()) return NULL;
    int r = core_step(c, a);
    if (r < 0) return NULL;
    return PyBool_FromLong(r);
}

static PyMethodDef core_methods[] = {
    {"step", (PyCFunction)core_step_method, METH_O,
     "Play the action natively; False when native code stopped (the state is handed over)."},
    {NULL},
};

static PyMemberDef core_members[] = {
    {"spec", T_OBJECT_EX, offsetof(Core, spec), 0, NULL},
    {"ns", T_OBJECT_EX, offsetof(Core, ns), 0, NULL},
    {"v", T_OBJECT_EX, offsetof(Core, v), 0, NULL},
    {"fv", T_OBJECT_EX, offsetof(Core, fv), 0, NULL},
    {"actions", T_OBJECT_EX, offsetof(Core, actions), 0, NULL},
    {"outs", T_OBJECT_EX, offsetof(Core, outs), 0, NULL},
    {"cache", T_OBJECT_EX, offsetof(Core, cache), 0, NULL},
    {"_twin", T_OBJECT_EX, offsetof(Core, twin), 0, NULL},
    {"who", T_OBJECT_EX, offsetof(Core, who), 0, NULL},
    {"replay", T_OBJECT_EX, offsetof(Core, replay), 0, NULL},
    {"kind", T_LONGLONG, offsetof(Core, kind), 0, NULL},
    {"player", T_LONGLONG, offsetof(Core, player), 0, NULL},
    {"nopts", T_LONGLONG, offsetof(Core, nopts), 0, NULL},
    {"limit", T_LONGLONG, offsetof(Core, limit), 0, NULL},
    {"told", T_PYSSIZET, offsetof(Core, told), 0, NULL},
    {"synced", T_PYSSIZET, offsetof(Core, synced), 0, NULL},
    {NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "native_rules_step.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_methods = core_methods,
    .tp_members = core_members,
    .tp_doc = "The fields of a natively stepped OpenSpiel state's core, and its step.",
};

/* ---- the state's hot methods (installed on NativeRulesState) ------------------------------
 *
 * Each is a FastMethod, not a built-in method: pybind11 takes a built-in function found on a
 * Python subclass for one of its own and calls the C++ method instead (pure virtual here),
 * where a FastMethod is the Python override OpenSpiel's C++ calls back (current_player,
 * is_terminal, chance_outcomes). Called from Python it binds without allocating (a method
 * descriptor's call), from pybind11 as a bound method (tp_descr_get).
 */

/* self._core when it is a NativeRulesCore (a new reference), else NULL without an error. */
static Core *native_core(PyObject *self, int *error) {
    PyObject *c = PyObject_GetAttr(self, s_core);
    if (c == NULL) {
        *error = 1;
        return NULL;
    }
    if (Py_TYPE(c) != core_type) {
        Py_DECREF(c);
        return NULL;
    }
    return (Core *)c;
}

static PyObject *state_apply_action(PyObject *self, PyObject *arg) {
    int error = 0;
    Core *c = native_core(self, &error);
    if (c == NULL) return error ? NULL : PyObject_CallFunctionObjArgs(fallback_apply, self, arg, NULL);
    PyObject *index = PyNumber_Index(arg);
    long long a = index == NULL ? -1 : PyLong_AsLongLong(index);
    Py_XDECREF(index);
    if (a == -1 && PyErr_Occurred()) {
        Py_DECREF(c);
        return NULL;
    }
    int r = core_step(c, a);
    Py_DECREF(c);
    if (r < 0) return NULL;
    if (r == 0) return PyObject_CallMethodObjArgs(self, s_stopped, arg, NULL); /* _native_stopped */
    Py_RETURN_NONE;
}

static PyObject *state_is_terminal(PyObject *self) {
    int error = 0;
    Core *c = native_core(self, &error);
    if (c == NULL) return error ? NULL : PyObject_CallOneArg(fallback_terminal, self);
    PyObject *r = PyBool_FromLong(c->player == TERMINAL);
    Py_DECREF(c);
    return r;
}

static PyObject *state_is_chance_node(PyObject *self) {
    int error = 0;
    Core *c = native_core(self, &error);
    if (c == NULL) return error ? NULL : PyObject_CallOneArg(fallback_chance, self);
    PyObject *r = PyBool_FromLong(c->outs != NULL && c->outs != Py_None);
    Py_DECREF(c);
    return r;
}

static PyObject *state_current_player(PyObject *self) {
    int error = 0;
    Core *c = native_core(self, &error);
    if (c == NULL || c->replay != Py_None) {
        Py_XDECREF(c);
        return error ? NULL : PyObject_CallOneArg(fallback_player, self);
    }
    PyObject *r = PyLong_FromLongLong(c->player);
    Py_DECREF(c);
    return r;
}

static PyObject *state_legal_actions(PyObject *self) {
    int error = 0;
    Core *c = native_core(self, &error);
    if (c == NULL) return error ? NULL : PyObject_CallOneArg(fallback_legal, self);
    PyObject *r;
    if (c->outs == NULL || c->outs == Py_None) {
        r = PyList_New(c->nopts > 0 ? c->nopts : 0);
        for (Py_ssize_t i = 0; r != NULL && i < c->nopts; i++) {
            PyObject *o = PyLong_FromSsize_t(i);
            if (o == NULL) {
                Py_CLEAR(r);
                break;
            }
            PyList_SET_ITEM(r, i, o);
        }
    } else {
        r = PySequence_List(c->outs);
    }
    Py_DECREF(c);
    return r;
}

static PyObject *state_chance_outcomes(PyObject *self) {
    int error = 0;
    Core *c = native_core(self, &error);
    if (c == NULL) return error ? NULL : PyObject_CallOneArg(fallback_outcomes, self);
    PyObject *outs = c->outs;
    if (outs == NULL || !PyList_Check(outs)) {
        Py_DECREF(c);
        return PyList_New(0);
    }
    Py_ssize_t n = PyList_GET_SIZE(outs);
    PyObject *pairs = ((Views *)c->fv)->pairs, *row = NULL;
    if (n < PyList_GET_SIZE(pairs)) {
        row = PyList_GET_ITEM(pairs, n);
        if (!PyTuple_Check(row)) row = NULL;
    }
    PyObject *r = PyList_New(n), *p = NULL;
    for (Py_ssize_t i = 0; r != NULL && i < n; i++) {
        PyObject *o = PyList_GET_ITEM(outs, i), *pair;
        Py_ssize_t k = PyLong_AsSsize_t(o);
        if (k == -1 && PyErr_Occurred()) {
            Py_CLEAR(r);
            break;
        }
        if (row != NULL && 0 <= k && k < PyTuple_GET_SIZE(row)) {
            pair = PyTuple_GET_ITEM(row, k);
            Py_INCREF(pair);
        } else {
            if (p == NULL && (p = PyFloat_FromDouble(1.0 / (double)n)) == NULL) {
                Py_CLEAR(r);
                break;
            }
            pair = PyTuple_Pack(2, o, p);
            if (pair == NULL) {
                Py_CLEAR(r);
                break;
            }
        }
        PyList_SET_ITEM(r, i, pair);
    }
    Py_XDECREF(p);
    Py_DECREF(c);
    return r;
}

/* A hot method: its C function (of self, or of self and one argument), and the Python method
 * called instead with any other arguments (legal_actions(player), keywords). */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *(*of_self)(PyObject *);
    PyObject *(*of_one)(PyObject *, PyObject *);
    PyObject **fallback;
    PyTypeObject *owner;
} FastMethod;

static PyObject *fast_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    FastMethod *f = (FastMethod *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int plain = (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0) && nargs >= 1 &&
                PyObject_TypeCheck(args[0], f->owner);
    if (plain && f->of_self != NULL && nargs == 1) return f->of_self(args[0]);
    if (plain && f->of_one != NULL && nargs == 2) return f->of_one(args[0], args[1]);
    return PyObject_Vectorcall(*f->fallback, args, nargs, kwnames);
}

static PyObject *fast_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

static void fast_dealloc(FastMethod *f) {
    Py_XDECREF(f->owner);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

static PyTypeObject FastMethodType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "native_rules_step.FastMethod",
    .tp_basicsize = sizeof(FastMethod),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_METHOD_DESCRIPTOR | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(FastMethod, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = fast_get,
    .tp_dealloc = (destructor)fast_dealloc,
    .tp_doc = "A natively stepped state's hot method (see native_rules_step.c).",
};

static int put_method(PyObject *cls, const char *name, PyObject *(*of_self)(PyObject *),
                      PyObject *(*of_one)(PyObject *, PyObject *), PyObject **fallback) {
    PyObject *py_name = PyUnicode_FromFormat("_py_%s", name);
    PyObject *f = py_name ? PyObject_GetAttr(cls, py_name) : NULL;
    Py_XDECREF(py_name);
    if (f == NULL) return -1;
    Py_XSETREF(*fallback, f);
    FastMethod *m = PyObject_New(FastMethod, &FastMethodType);
    if (m == NULL) return -1;
    m->vectorcall = fast_call, m->of_self = of_self, m->of_one = of_one, m->fallback = fallback;
    Py_INCREF(cls);
    m->owner = (PyTypeObject *)cls;
    int r = PyObject_SetAttrString(cls, name, (PyObject *)m);
    Py_DECREF(m);
    return r;
}

/* install(state_class, core_class): the hot methods on the state class, each calling the
 * class's _py_<name> where the core is not native. */
static PyObject *install(PyObject *module, PyObject *args) {
    PyObject *cls, *core_cls;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &cls, &PyType_Type, &core_cls)) return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)core_cls, &CoreType)) {
        PyErr_SetString(PyExc_TypeError, "the core class must derive from Core");
        return NULL;
    }
    if (put_method(cls, "apply_action", NULL, state_apply_action, &fallback_apply) < 0 ||
        put_method(cls, "is_terminal", state_is_terminal, NULL, &fallback_terminal) < 0 ||
        put_method(cls, "is_chance_node", state_is_chance_node, NULL, &fallback_chance) < 0 ||
        put_method(cls, "current_player", state_current_player, NULL, &fallback_player) < 0 ||
        put_method(cls, "legal_actions", state_legal_actions, NULL, &fallback_legal) < 0 ||
        put_method(cls, "chance_outcomes", state_chance_outcomes, NULL, &fallback_outcomes) < 0)
        return NULL;
    Py_INCREF(core_cls);
    Py_XSETREF(core_type, (PyTypeObject *)core_cls);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"install", install, METH_VARARGS, "Put the hot methods on the state class (see the file's comment)."},
    {NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "native_rules_step",
                                        "The hot calls of a natively stepped OpenSpiel state.", -1, module_methods};

PyMODINIT_FUNC PyInit_native_rules_step(void) {
    if (PyType_Ready(&ViewsType) < 0 || PyType_Ready(&CoreType) < 0 || PyType_Ready(&FastMethodType) < 0) return NULL;
    const char *names[] = {"_core", "resident", "take", "_nopts", "_finish", "_status", "_refusal", "_too_many", "_native_stopped"};
    PyObject **slots[] = {&s_core, &s_resident, &s_take, &s_nopts, &s_finish, &s_status, &s_refusal, &s_too_many, &s_stopped};
    for (int i = 0; i < 9; i++)
        if ((*slots[i] = PyUnicode_InternFromString(names[i])) == NULL) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    Py_INCREF(&ViewsType);
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Views", (PyObject *)&ViewsType) < 0 ||
        PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
