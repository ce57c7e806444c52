"""The native subset of Python, translated to C.

The writer (recycle/native/writer.py) writes a game as a small typed Python module, and the
runtime (recycle/native/runtime*.py) is written in the same subset: integer, uint64, float
and bool scalars, NumPy arrays of one to three dimensions, module constants and tables,
functions calling one another, ``for ... in range``, ``while``, ``if``, tuples returned or
unpacked. ``translate`` turns the entry function and everything it calls into one C file:

* types are worked out as Numba works them out: the entry's parameters are given
  (``ENTRY``), every other function is typed at each call from its arguments' types (one C
  function per signature), its locals from what is assigned to them (to a fixed point), its
  result from its returns; mixing uint64 and int64, which Numba makes float64, is an error;
* the names stay (``LOC_iloc_HAND``, ``ints[STO_PASS]``) but for C's keywords and the names
  the C file defines itself (prefixed ``py_``); a name that is not a plain ASCII identifier is
  an error; comments (the game's ``# line 33: ...``) and docstrings are carried over, escaped so
  that no text can end a comment;
* Python's semantics where C's differ: ``//`` and ``%`` floor, arithmetic on int32 elements is
  done in int64, integer overflow wraps (the file is built with ``-fwrapv``), a float literal is
  written in hexadecimal (exact), ``range`` is evaluated once.
"""

from __future__ import annotations

import ast

import numpy as np

from .cexpr import Instance
from .ctext import TranslateError, comment, safe
from .ctyping import BOOL, F64, I64, U64, Arr, literal


class Source:
    """A module's source: its functions' syntax by name, its comments by line."""

    def __init__(self, text: str, glb: dict):
        self.tree = ast.parse(text)
        self.glb = glb
        self.functions = {n.name: n for n in self.tree.body if isinstance(n, ast.FunctionDef)}
        self._walked: dict[str, tuple] = {}
        self.lines = text.splitlines()

    def comment_line(self, k: int) -> str | None:
        """The comment that line ``k`` holds alone, or None (docstrings are never scanned:
        the statements' ranges skip them)."""
        if 0 < k <= len(self.lines):
            text = self.lines[k - 1].lstrip()
            if text.startswith("#"):
                return text[1:].strip()
        return None

    def trailing(self, st) -> str | None:
        """The comment after a statement's code on its last line, or None (the subset has no
        strings in code, so a ``#`` there starts a comment)."""
        # a compound statement's comment follows its header: after its test (or loop) and ':'
        end = getattr(st, "test", None) or getattr(st, "iter", None) or st
        if end.end_lineno is None or not 0 < end.end_lineno <= len(self.lines):
            return None
        rest = self.lines[end.end_lineno - 1].encode("utf-8")[end.end_col_offset :].decode("utf-8", "replace").strip()
        if end is not st:
            rest = rest[1:].strip() if rest.startswith(":") else rest
        return rest[1:].strip() if rest.startswith("#") else None

    def walked(self, node: ast.FunctionDef) -> tuple[list, list, set]:
        """A function's assignments and loops, its returns and the names it stores (walked once
        for all its instances)."""
        got = self._walked.get(node.name)
        if got is None:
            stores, returns, names = [], [], set()
            for n in ast.walk(node):
                if isinstance(n, (ast.Assign, ast.AugAssign, ast.For)):
                    stores.append(n)
                elif isinstance(n, ast.Return):
                    returns.append(n)
                elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    names.add(n.id)
            got = self._walked[node.name] = (stores, returns, names)
        return got


class Program:
    """The C file being made: the functions' instances, constants, structs."""

    def __init__(self, sources: dict[str, Source]):
        self.sources = sources  # module name -> Source
        self.instances: dict = {}  # (module, function, signature) -> Instance
        self.order: list[Instance] = []
        self.cnames: set[str] = set()
        self.consts: dict = {}  # (module, name) -> (C name, type, is a plain int enum)
        self.const_lines: list[str] = []
        self.enums: set[str] = set()
        self.arrays: set[Arr] = set()
        self.tuples: list[tuple] = []
        self.called: list | None = None  # while a body is emitted: the instances it calls

    def new_cname(self, name: str) -> str:
        c, k = safe(name), 2
        while c in self.cnames:
            c, k = f"{safe(name)}_{k}", k + 1
        self.cnames.add(c)
        return c

    def need(self, t) -> None:
        if isinstance(t, Arr):
            self.arrays.add(t)
        elif isinstance(t, tuple):
            for x in t:
                self.need(x)
            if t not in self.tuples:
                self.tuples.append(t)

    def instance(self, module: str, name: str, sig: tuple) -> Instance:
        key = (module, name, sig)
        got = self.instances.get(key)
        if got is None:
            src = self.sources.get(module)
            if src is None or name not in src.functions:
                raise TranslateError(f"no source of the function {module}.{name}")
            got = self.instances[key] = Instance(self, src, src.functions[name], sig)
            got.infer()
            self.order.append(got)
        elif got.ret is None:
            raise TranslateError(f"{name} calls itself: its result type is unknown")
        return got

    def constant(self, module: str, name: str, value):
        """The C name and type of a module constant (defined once)."""
        key = (module, name)
        got = self.consts.get(key)
        if got is not None:
            return got
        cname = self.new_cname(name)
        if isinstance(value, (bool, np.bool_)):
            t, line = BOOL, f"enum {{ {cname} = {int(value)} }};"
        elif isinstance(value, (int, np.integer)) and not isinstance(value, np.uint64):
            v = int(value)
            if -(1 << 31) <= v < 1 << 31:
                t, line = I64, f"enum {{ {cname} = {v} }};"
            else:
                t, line = I64, f"static const long long {cname} = {literal(v)};"
        elif isinstance(value, np.uint64):
            t, line = U64, f"static const unsigned long long {cname} = {literal(int(value), U64)};"
        elif isinstance(value, (float, np.floating)):
            t, line = F64, f"static const double {cname} = {literal(float(value))};"
        elif isinstance(value, np.ndarray) and value.dtype.name in ("int32", "int64", "uint64", "float64", "int8"):
            t = Arr(value.dtype.name, value.ndim)
            self.need(t)
            flat = value.ravel()
            kind = U64 if value.dtype.name == "uint64" else None
            cells = ", ".join(literal(float(x)) if t.dtype == "float64" else literal(int(x), kind) for x in flat) or "0"
            shape = ", ".join(str(s) for s in value.shape)
            line = f"static {t.elem_c} {cname}_d[] = {{{cells}}};\n"
            line += f"static const {t.c} {cname} = {{{cname}_d, {shape}}};"
        else:
            raise TranslateError(f"the constant {name} is a {type(value).__name__}")
        self.const_lines.append(line)
        got = self.consts[key] = (cname, t, line.startswith("enum"))
        if line.startswith("enum"):
            self.enums.add(cname)
        return got


__all__ = ["TranslateError", "Program", "Source", "Instance", "comment", "safe"]
