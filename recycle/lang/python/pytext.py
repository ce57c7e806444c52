"""Outside text in generated Python source: the one way in (``embed``).

A generated module (the native engine's: recycle/native/writer.py) is compiled and run, so any text in it that comes from
outside — a file name, a game name, a name or string of the game, a form quoted in a comment
— could be code if it could end the literal, comment or docstring it stands in. Such text
enters the source only through ``embed``: as a ``repr`` (a string or integer literal) or as
"text", which keeps only characters that can end neither a comment nor a docstring (no line
break of any kind, no double quote, no backslash, no NUL or lone surrogate) and writes the
others as escapes, so that it reads the same in a comment, in a docstring and in the name the
module is compiled under. tests/lang/test_hostile_game_files.py parses modules generated for hostile names.
"""

from __future__ import annotations


# characters kept as they are in "text": printable (never a line break, NUL or surrogate),
# and neither a double quote (which could close the module's docstring) nor a backslash (an
# escape); a single quote is kept, as forms print their variables with it ('P)
_UNSAFE = frozenset('\\"')


def embed(value, kind: str = "literal") -> str:
    """Python source standing for ``value``, which comes from outside the generator.

    ``kind`` ``"literal"``: an expression whose value is ``value`` (a str, int, bool or
    None; ``repr``). ``"text"``: ``str(value)`` as words safe inside a comment, a docstring
    or a compile name (one line, printable, no double quote or backslash; any other character as a
    ``\\xNN``/``\\uNNNN``/``\\UNNNNNNNN`` escape, which a docstring reads back as it)."""
    if kind == "literal":
        if value is None or type(value) in (str, int, bool):
            return repr(value)
        raise TypeError(f"embed: no literal for a {type(value).__name__}")
    if kind != "text":
        raise ValueError(f"embed: kind must be 'literal' or 'text', not {kind!r}")
    return "".join(ch if ch.isprintable() and ch not in _UNSAFE else _escape(ch) for ch in str(value))


def _escape(ch: str) -> str:
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


__all__ = ["embed"]
