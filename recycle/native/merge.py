"""Generated functions that are the same function, written once.

A game often says the same thing in several places: Coup4 writes each player's challenge
twice, so the writer made 83 functions of which only 32 differ in more than the numbers of
their locals. Each copy would be translated and built again (and make the library
larger). Here every
function is compared with those written before it, its own locals renamed in order of first
use and its callees replaced by the functions they were merged into; a function found again
is dropped and its callers call the first one.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
_DEF = re.compile(r"^def (\w+)\(", re.M)


def _name_of(source: str) -> str:
    return _DEF.search(source).group(1)


def _shape(source: str, name: str, merged: dict, fresh: set) -> str:
    """``source`` with its comments and docstring left out, its name and fresh locals
    numbered in order of first use, and its callees under the names they were merged into."""
    seen: dict[str, str] = {}

    def rename(m) -> str:
        t = m.group(0)
        if t == name:
            return "SELF"
        if t in merged:
            return merged[t]
        if t in fresh:
            return seen.setdefault(t, f"L{len(seen)}")
        return t

    kept = []
    for ln in source.splitlines():
        text = ln.strip()
        if text.startswith("#") or (text.startswith('"""') and text.endswith('"""') and len(text) >= 6):
            continue
        kept.append(_TOKEN.sub(rename, ln))
    return "\n".join(kept)


def merge_alike(sources: list[str], fresh: set, keep: frozenset = frozenset({"play", "score_all"})):
    """The sources to write, with each function that is the same as one before it dropped and
    its callers calling that one, and {dropped name: name kept}. ``sources`` come callees
    first (the writer finishes a function's inner functions before it); ``fresh`` holds
    every name the writer made (locals and functions), the only names renamed."""
    fresh = fresh - {_name_of(src) for src in sources}  # a callee is known by its name, kept as is
    merged: dict[str, str] = {}
    first_of: dict[str, str] = {}
    kept: list[tuple[str, str]] = []
    for src in sources:
        name = _name_of(src)
        shape = _shape(src, name, merged, fresh)
        same = first_of.get(shape)
        if same is not None and name not in keep:
            merged[name] = same
            continue
        first_of.setdefault(shape, name)
        kept.append((name, src))

    def call_kept(m) -> str:
        return merged.get(m.group(0), m.group(0))

    return [_TOKEN.sub(call_kept, src) if merged else src for _, src in kept], merged
