"""What the translator's C text is made of: its errors, comments nothing can end, identifiers."""

from __future__ import annotations

import re

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
C_RESERVED = frozenset(
    [
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "_Bool",
        "_Complex",
        "_Imaginary",
        "asm",
        "typeof",
        "main",
        "sqrt",
        "log",
        "exp",
        "floor",
        "ceil",
        "fabs",
        "pow",
        "fmod",
        "NULL",
    ]
)


class TranslateError(Exception):
    """The source uses something outside the native subset (a bug of the writer or runtime)."""


class Unknown(TranslateError):
    """A local whose type is not known yet (the fixed point of ``Instance.infer`` goes on)."""


def comment(text: str) -> str:
    """``text`` as a C comment that nothing in it can end or disturb: ``*/`` and ``/*``
    broken, trigraph marks and anything but printable ASCII escaped."""
    out = []
    for ch in text:
        if " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
    s = "".join(out).replace("*/", "* /").replace("/*", "/ *").replace("??", "?\\?")
    return f"/* {s} */"


def safe(name: str) -> str:
    """A Python name as a C identifier (an error for anything but an ASCII identifier)."""
    if not IDENT.fullmatch(name):
        raise TranslateError(f"not a plain identifier: {name!r}")
    # the C file's own names: rc_ (helpers, tuples' structs), A1_.. A3_ (arrays' structs)
    if name in C_RESERVED or name.startswith(("rc_", "A1_", "A2_", "A3_", "py_")):
        return "py_" + name
    return name
