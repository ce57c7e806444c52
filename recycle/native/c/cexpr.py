"""A function of the native subset typed for one signature: its types and expressions as C
(its statements: cstmt.py)."""

from __future__ import annotations

import ast
import builtins
import math
import types

import numpy as np

from .ctext import TranslateError, Unknown, safe
from .ctyping import BOOL, F64, I64, SCALARS, U64, VOID, Arr, arith, c_type, literal, unify
from .cstmt import _BINOPS, Statements

_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_CASTS = {np.uint64: U64, np.int64: I64, np.int32: I64, np.float64: F64}
_MATH = {math.sqrt: "sqrt", math.log: "log", math.exp: "exp", math.fabs: "fabs"}


class Instance(Statements):
    """One function typed for one signature, and its C."""

    def __init__(self, prog, src, node: ast.FunctionDef, sig: tuple):
        self.prog, self.src, self.node, self.sig = prog, src, node, sig
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or len(args.args) != len(sig):
            raise TranslateError(f"{node.name}: called with {len(sig)} arguments, or a signature outside the subset")
        self.params = [a.arg for a in args.args]
        self.types: dict[str, object] = dict(zip(self.params, sig))
        self.ret = None
        self.cname = prog.new_cname(node.name)
        self.local_names: dict[str, str] = {}
        self.tmp = 0

    # --- typing --------------------------------------------------------------------------

    def infer(self) -> None:
        stores, returns, _ = self.src.walked(self.node)
        for _ in range(50):
            before = dict(self.types)
            for st in stores:
                try:
                    self._store_types(st)
                except Unknown:
                    continue
            if before == self.types:
                break
        ret = None
        bare = False
        for r in returns:
            if r.value is None:
                bare = True
                continue
            try:
                ret = unify(ret, self.expr(r.value)[1])
            except Unknown as exc:
                raise TranslateError(f"{self.node.name}: a return's type is unknown ({exc})") from None
            except TypeError as exc:
                raise TranslateError(f"{self.node.name}: {exc}") from None
        # a bare return beside returns of values (Numba's Optional) is a stopped game's: the
        # caller reads ctr[STATUS], not the value (written as 0)
        self.bare_returns_zero = ret is not None and bare
        self.ret = VOID if ret is None else ret
        self.prog.need(self.ret)
        for t in self.types.values():
            self.prog.need(t)

    def _assign(self, name: str, t) -> None:
        if name in self.params and self.types[name] != t and not (t in SCALARS and self.types[name] in SCALARS):
            raise TranslateError(f"{self.node.name}: the parameter {name} is given a {t}")
        try:
            self.types[name] = unify(self.types.get(name), t) if name not in self.params else self.types[name]
        except TypeError as exc:
            raise TranslateError(f"{self.node.name}: {name}: {exc}") from None

    def _store_types(self, st) -> None:
        if isinstance(st, ast.For):
            if isinstance(st.target, ast.Name):
                self._assign(st.target.id, I64)
            return
        if isinstance(st, ast.AugAssign):
            if isinstance(st.target, ast.Name):
                cur = self.types.get(st.target.id)
                if cur is None:
                    raise Unknown(st.target.id)
                self._assign(st.target.id, arith(cur, self.expr(st.value)[1], _BINOPS[type(st.op)]))
            return
        _, t = self.expr(st.value)
        for target in st.targets:
            self._store_target_types(target, t)

    def _store_target_types(self, target, t) -> None:
        if isinstance(target, ast.Name):
            self._assign(target.id, t)
        elif isinstance(target, ast.Tuple):
            if not isinstance(t, tuple) or len(t) != len(target.elts):
                raise TranslateError(f"{self.node.name}: unpacking {len(target.elts)} names from {t}")
            for x, tt in zip(target.elts, t):
                self._store_target_types(x, tt)

    # --- expressions: (C code, type); a tuple's code is a list of its parts' ------------

    def name(self, n: str) -> str:
        got = self.local_names.get(n)
        if got is None:
            got = self.local_names[n] = safe(n)
        return got

    def resolve(self, n: str):
        if n in self.src.glb:
            return self.src.glb[n]
        if hasattr(builtins, n):
            return getattr(builtins, n)
        raise TranslateError(f"{self.node.name}: unknown name {n}")

    def expr(self, e):
        m = getattr(self, "x_" + type(e).__name__, None)
        if m is None:
            raise TranslateError(f"{self.node.name}: {type(e).__name__} outside the native subset (line {e.lineno})")
        return m(e)

    def x_Constant(self, e):
        v = e.value
        if isinstance(v, bool):
            return literal(v), BOOL
        if isinstance(v, int):
            return literal(v), (U64 if v >= 1 << 63 else I64)
        if isinstance(v, float):
            return literal(v), F64
        raise TranslateError(f"{self.node.name}: the constant {v!r} (line {e.lineno})")

    def x_Name(self, e):
        n = e.id
        if n in self.types:
            t = self.types[n]
            if isinstance(t, tuple):
                return [f"{self.name(n)}__{i}" for i in range(len(t))], t
            return self.name(n), t
        if n in self.local_stores:
            raise Unknown(n)
        value = self.resolve(n)
        cname, t, _ = self.prog.constant(self.module_of(), n, value)
        return cname, t

    @property
    def local_stores(self) -> set:
        return self.src.walked(self.node)[2]

    def module_of(self) -> str:
        return self.src.glb.get("__name__", "?")

    def x_Tuple(self, e):
        parts = [self.expr(x) for x in e.elts]
        if any(isinstance(t, tuple) for _, t in parts):
            raise TranslateError(f"{self.node.name}: a tuple of tuples (line {e.lineno})")
        return [c for c, _ in parts], tuple(t for _, t in parts)

    def x_BinOp(self, e):
        a, ta = self.expr(e.left)
        b, tb = self.expr(e.right)
        op = _BINOPS.get(type(e.op))
        if op is None or ta not in SCALARS or tb not in SCALARS:
            raise TranslateError(f"{self.node.name}: operator outside the subset (line {e.lineno})")
        try:
            t = arith(ta, tb, op)
        except TypeError as exc:
            raise TranslateError(f"{self.node.name}: {exc} (line {e.lineno})") from None
        a, b = self.widen(a), self.widen(b)
        if op == "/":
            return f"((double)({a}) / (double)({b}))", F64
        if op in ("//", "%", "**"):
            fn = {"//": "rc_floordiv", "%": "rc_mod", "**": "rc_pow"}[op]
            return f"{fn}_{'i64' if t == BOOL else t}({a}, {b})", t
        return f"({a} {op} {b})", t

    def widen(self, code: str) -> str:
        """A constant of an enum (a C int) made a long long before arithmetic."""
        if code in self.prog.enums:
            return f"(long long){code}"
        return code

    def x_UnaryOp(self, e):
        a, t = self.expr(e.operand)
        if isinstance(e.op, ast.Not):
            return f"(!({a}))", BOOL
        if isinstance(e.op, ast.USub):
            return f"(-{self.widen(a)})", (I64 if t == BOOL else t)
        if isinstance(e.op, ast.UAdd):
            return a, t
        if isinstance(e.op, ast.Invert) and t in (I64, U64, BOOL):
            return f"(~{self.widen(a)})", (I64 if t == BOOL else t)
        raise TranslateError(f"{self.node.name}: unary operator outside the subset (line {e.lineno})")

    def x_BoolOp(self, e):
        op = " && " if isinstance(e.op, ast.And) else " || "
        return "(" + op.join(self.expr(v)[0] for v in e.values) + ")", BOOL

    def x_Compare(self, e):
        parts, left = [], e.left
        for op, right in zip(e.ops, e.comparators):
            a, ta = self.expr(left)
            b, tb = self.expr(right)
            cop = _COMPARE.get(type(op))
            if cop is None or ta not in SCALARS or tb not in SCALARS:
                raise TranslateError(f"{self.node.name}: comparison outside the subset (line {e.lineno})")
            if {ta, tb} == {I64, U64}:
                raise TranslateError(f"{self.node.name}: comparing uint64 and int64 (line {e.lineno})")
            parts.append(f"({a} {cop} {b})")
            left = right
        return ("(" + " && ".join(parts) + ")" if len(parts) > 1 else parts[0]), BOOL

    def x_IfExp(self, e):
        c, _ = self.expr(e.test)
        a, ta = self.expr(e.body)
        b, tb = self.expr(e.orelse)
        try:
            t = unify(ta, tb)
        except TypeError as exc:
            raise TranslateError(f"{self.node.name}: {exc} (line {e.lineno})") from None
        if ta != t:
            a = f"(({c_type(t)})({a}))"
        if tb != t:
            b = f"(({c_type(t)})({b}))"
        return f"({c} ? {a} : {b})", t

    def x_Attribute(self, e):
        if isinstance(e.value, ast.Name) and e.value.id not in self.types:
            owner = self.resolve(e.value.id)
            if owner is math and e.attr == "inf":
                return "rc_inf()", F64
            if owner is math and e.attr == "pi":
                return literal(math.pi), F64
        raise TranslateError(f"{self.node.name}: attribute {e.attr} outside the subset (line {e.lineno})")

    def x_Subscript(self, e):
        if isinstance(e.value, ast.Attribute) and e.value.attr == "shape":
            a, t = self.expr(e.value.value)
            k = self.const_int(e.slice)
            if not isinstance(t, Arr) or not 0 <= k < t.ndim:
                raise TranslateError(f"{self.node.name}: .shape[{k}] of a {t} (line {e.lineno})")
            return f"{a}.s{k}", I64
        a, t = self.expr(e.value)
        if isinstance(t, tuple):
            k = self.const_int(e.slice)
            return a[k], t[k]
        if not isinstance(t, Arr):
            raise TranslateError(f"{self.node.name}: indexing a {t} (line {e.lineno})")
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        if len(idx) > t.ndim or any(isinstance(i, ast.Slice) for i in idx):
            raise TranslateError(f"{self.node.name}: a slice or too many indexes (line {e.lineno})")
        offset = ""
        for dim, i in enumerate(idx):
            code = self.index(i, a, dim)
            offset = code if dim == 0 else f"({offset}) * {a}.s{dim} + {code}"
        if len(idx) == t.ndim:
            cell = f"{a}.d[{offset}]"
            if t.dtype not in ("int64", "uint64", "float64"):
                return f"((long long){cell})", t.element
            return cell, t.element
        view = Arr(t.dtype, t.ndim - len(idx))
        self.prog.need(view)
        for dim in range(len(idx), t.ndim):
            offset = f"({offset}) * {a}.s{dim}"
        rest = ", ".join(f"{a}.s{dim}" for dim in range(len(idx), t.ndim))
        return f"(({view.c}){{{a}.d + {offset}, {rest}}})", view

    def index(self, i, a: str, dim: int) -> str:
        if isinstance(i, ast.UnaryOp) and isinstance(i.op, ast.USub) and isinstance(i.operand, ast.Constant):
            return f"({a}.s{dim} - {int(i.operand.value)})"  # a constant from the end, as Python
        code, t = self.expr(i)
        if t not in (I64, BOOL, U64):
            raise TranslateError(f"{self.node.name}: an index of type {t}")
        return code

    def const_int(self, e) -> int:
        try:
            v = ast.literal_eval(e)
        except ValueError:
            v = None
        if not isinstance(v, int):
            raise TranslateError(f"{self.node.name}: a constant index is needed (line {e.lineno})")
        return v

    def x_Call(self, e):
        if e.keywords:
            raise TranslateError(f"{self.node.name}: keyword arguments (line {e.lineno})")
        f = e.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id not in self.types:
            target = getattr(self.resolve(f.value.id), f.attr, None)
        elif isinstance(f, ast.Name) and f.id not in self.types:
            target = self.resolve(f.id)
        else:
            raise TranslateError(f"{self.node.name}: a call outside the subset (line {e.lineno})")
        args = [self.expr(a) for a in e.args]
        if isinstance(target, types.FunctionType):
            return self.call(target, args, e)
        return self.builtin(target, args, e)

    def call(self, fn, args, e):
        sig = tuple(t for _, t in args)
        inst = self.prog.instance(fn.__module__, fn.__name__, sig)
        if self.prog.called is not None:
            self.prog.called.append(inst)
        flat = []
        for c, t in args:
            if isinstance(t, tuple):
                if not isinstance(c, list):
                    raise TranslateError(f"{self.node.name}: a tuple result passed on (line {e.lineno})")
                flat += c
            else:
                flat.append(c)
        return f"{inst.cname}({', '.join(flat)})", inst.ret

    def copy_cells(self, args, e):
        """``copy_cells(dst, src, n)``: the first ``n`` cells of ``src`` (C order) into ``dst``,
        two arrays of one dtype, as one ``memcpy`` (loops copy a cell in about three instructions)."""
        if len(args) != 3 or not all(isinstance(t, Arr) for _, t in args[:2]) or args[2][1] not in (I64, BOOL):
            raise TranslateError(f"{self.node.name}: copy_cells of two arrays and a count (line {e.lineno})")
        (dst, dt), (src, st), (n, _) = args
        if dt.dtype != st.dtype:
            raise TranslateError(f"{self.node.name}: copy_cells of a {st.dtype} array into a {dt.dtype} one")
        return f"memcpy(({dst}).d, ({src}).d, (size_t)({n}) * sizeof(*({src}).d))", VOID

    def same_cells(self, args, e, copy: bool = False):
        """``same_cells(a, i, b, j, n)``: are the ``n`` cells of ``a`` from ``i`` those of ``b``
        from ``j`` (arrays of one dimension and one dtype)? One ``memcmp``. ``copy``:
        ``copy_cells_at(a, i, b, j, n)``, those cells of ``b`` copied into ``a``, one ``memcpy``."""
        ints = (I64, BOOL)
        if len(args) != 5 or not all(isinstance(args[k][1], Arr) and args[k][1].ndim == 1 for k in (0, 2)):
            raise TranslateError(f"{self.node.name}: same_cells of two arrays, offsets and a count (line {e.lineno})")
        (a, at), (i, it), (b, bt), (j, jt), (n, nt) = args
        if at.dtype != bt.dtype or it not in ints or jt not in ints or nt not in ints:
            raise TranslateError(f"{self.node.name}: same_cells of a {at.dtype} and a {bt.dtype} array")
        if copy:
            return f"memcpy(({a}).d + ({i}), ({b}).d + ({j}), (size_t)({n}) * sizeof(*({a}).d))", VOID
        return f"(memcmp(({a}).d + ({i}), ({b}).d + ({j}), (size_t)({n}) * sizeof(*({a}).d)) == 0)", BOOL

    def builtin(self, target, args, e):
        def one():
            if len(args) != 1 or args[0][1] not in SCALARS:
                raise TranslateError(f"{self.node.name}: {getattr(target, '__name__', target)} of one scalar")
            return args[0]

        if getattr(target, "c_copy", False):  # runtime.copy_cells: a memcpy
            return self.copy_cells(args, e)
        if getattr(target, "c_same", False):  # runtime.same_cells: a memcmp
            return self.same_cells(args, e)
        if getattr(target, "c_copy_at", False):  # runtime.copy_cells_at: a memcpy
            return self.same_cells(args, e, copy=True)
        cname = getattr(target, "c_function", None)
        if cname is not None:  # a function of the C harness (recycle/native/runtime_step.py)
            if any(t not in SCALARS for _, t in args):
                raise TranslateError(f"{self.node.name}: {cname} of scalars (line {e.lineno})")
            return f"{cname}({', '.join(self.widen(a) for a, _ in args)})", I64
        if target is int:
            a, t = one()
            return (a, I64) if t in (I64, BOOL) else (f"((long long)({a}))", I64)
        if target is float:
            a, _ = one()
            return f"((double)({a}))", F64
        if target is bool:
            a, _ = one()
            return f"(({a}) != 0)", BOOL
        if target in _CASTS:
            a, _ = one()
            t = _CASTS[target]
            narrow = "(int)" if target is np.int32 else ""
            return f"(({c_type(t)}){narrow}({a}))", t
        if target is abs:
            a, t = one()
            return (f"fabs({a})", F64) if t == F64 else (f"rc_abs_i64({a})", I64)
        if target in (min, max):
            if len(args) < 2 or any(t not in SCALARS for _, t in args):
                raise TranslateError(f"{self.node.name}: min/max of two scalars or more (line {e.lineno})")
            t = None
            for _, tt in args:
                t = unify(t, I64 if tt == BOOL else tt)
            code = self.widen(args[0][0])
            for a, _ in args[1:]:
                code = f"rc_{target.__name__}_{t}({code}, {a})"
            return code, t
        if target is len:
            a, t = args[0]
            if isinstance(t, Arr):
                return f"{a}.s0", I64
        if target in _MATH:
            a, _ = one()
            return f"{_MATH[target]}((double)({a}))", F64
        if target is math.floor:
            a, _ = one()
            return f"((long long)floor((double)({a})))", I64
        raise TranslateError(f"{self.node.name}: the call {getattr(target, '__name__', target)} (line {e.lineno})")
