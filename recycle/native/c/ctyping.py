"""The types the translator gives the native subset of Python (translate.py), and their C.

A scalar is ``I64`` (Python's int, NumPy's int64 and int32: narrower integers are read as
int64, as Numba widens them in arithmetic), ``U64``, ``F64`` or ``BOOL``; an array is
``Arr(dtype, ndim)`` (NumPy's C-contiguous arrays, passed by value as a pointer and its
shape); a tuple is a Python tuple of types (returned as a struct, flattened as parameters).
The rules for mixed arithmetic are Numba's: int64 with uint64 is float64.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

I64, U64, F64, BOOL, VOID = "i64", "u64", "f64", "bool", "void"
SCALARS = (I64, U64, F64, BOOL)
C_SCALAR = {I64: "long long", U64: "unsigned long long", F64: "double", BOOL: "long long"}
# NumPy dtypes the native state uses, and their C element type
DTYPES = {
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "unsigned char",
    "int16": "short",
    "int32": "int",
    "int64": "long long",
    "uint64": "unsigned long long",
    "float64": "double",
}
READ_AS = {"uint64": U64, "float64": F64}  # every other dtype is read as an int64


@dataclass(frozen=True)
class Arr:
    """A NumPy array of ``dtype`` (a key of DTYPES) and ``ndim`` dimensions."""

    dtype: str
    ndim: int

    @property
    def c(self) -> str:
        return f"A{self.ndim}_{self.dtype}"

    @property
    def elem_c(self) -> str:
        """The C type of one element."""
        return DTYPES[self.dtype]

    @property
    def element(self) -> str:
        return READ_AS.get(self.dtype, I64)


def c_type(t) -> str:
    """The C type of a translator type (tuples: their struct's name, see ``tuple_name``)."""
    if isinstance(t, Arr):
        return t.c
    if isinstance(t, tuple):
        return tuple_name(t)
    if t == VOID:
        return "void"
    return C_SCALAR[t]


def tuple_name(t: tuple) -> str:
    return "rc_T_" + "_".join(re.sub(r"[^A-Za-z0-9]", "", x.c if isinstance(x, Arr) else x) for x in t)


def array_struct(a: Arr) -> str:
    """The C struct of an array type: its data and its shape."""
    dims = " ".join(f"long long s{i};" for i in range(a.ndim))
    return f"typedef struct {{ {DTYPES[a.dtype]} *d; {dims} }} {a.c};"


def tuple_struct(t: tuple) -> str:
    fields = " ".join(f"{c_type(x)} f{i};" for i, x in enumerate(t))
    return f"typedef struct {{ {fields} }} {tuple_name(t)};"


def unify(a, b):
    """The type a variable assigned values of types ``a`` and ``b`` has (Numba's unification)."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if isinstance(a, (Arr, tuple)) or isinstance(b, (Arr, tuple)):
        raise TypeError(f"a variable holds both {a} and {b}")
    if F64 in (a, b) or {a, b} == {I64, U64} or {a, b} == {BOOL, U64}:
        return F64
    if U64 in (a, b):
        return U64
    return I64


def arith(a, b, op: str):
    """The type of ``a OP b`` for scalars (Numba's rules: bools count as int64; uint64 with an
    int64 gives float64, which the native code never means: an error)."""
    if op == "/":
        return F64
    if a == BOOL and b == BOOL and op in ("&", "|", "^"):
        return BOOL
    if F64 in (a, b):
        if op in ("&", "|", "^", "<<", ">>"):
            raise TypeError(f"bitwise {op} of a float")
        return F64
    a = I64 if a == BOOL else a
    b = I64 if b == BOOL else b
    if a != b:
        raise TypeError(f"{op} of uint64 and int64 (float64 in Numba): write np.uint64(...) explicitly")
    return a


def literal(value, t=None) -> str:
    """A C literal of an int, bool or float (exact: hex floats)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        if math.isnan(value):
            return "rc_nan()"
        if value in (float("inf"), float("-inf")):
            return "rc_inf()" if value > 0 else "(-rc_inf())"
        return f"({value.hex()})" if value < 0 else value.hex()
    value = int(value)
    if t == U64 or value >= 1 << 63:
        return f"0x{value & ((1 << 64) - 1):x}ULL"
    if value == -(1 << 63):
        return "(-9223372036854775807LL - 1)"
    return f"({value}LL)" if value < 0 else f"{value}LL"
