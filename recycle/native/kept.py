"""What makes a cached load cheap: a game's written module kept by the game's own text, and
the few constants of a module read without running it.

A cached load must not write the module again (the writer takes a tenth of a second and
more) nor run its source (compiling 600 lines): ``kept_source`` finds the module written
before for the same game text, file name and recycle code (an entry ``m<digest>`` of the
native cache, authenticated as every entry), and ``constants`` reads the numbers the loader
needs from the module's top lines. The library itself is found by the module's source
(recycle/native/c/library.py)."""

from __future__ import annotations

import ast
import functools
import os
import re
from pathlib import Path

from . import cache

# the module constants the loader reads (engine.py); each is written on a line of its own
_CONSTANT = re.compile(r"^(NPLAYERS|SEARCH|NCARDS|MEMO_SITES|DRY_LEVELS|STRINGS|CHOICE_SITES) = (.*)$", re.M)


@functools.cache
def code_stamp() -> str:
    """A digest of recycle's sources as they are on disk (names, sizes, change times): a
    changed writer or language makes new entries."""
    root = Path(__file__).resolve().parent.parent
    parts = []
    for folder, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if name.endswith((".py", ".lark")):
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                parts.append(f"{os.path.relpath(path, root)}:{st.st_size}:{st.st_mtime_ns}")
    return cache.digest(*parts)


def _entry(game, search: bool) -> str | None:
    source = getattr(game, "source", None)
    text, filename = getattr(source, "text", None), getattr(source, "filename", None)
    if not isinstance(text, str) or not isinstance(filename, str):
        return None
    return "m" + cache.digest("module", text, filename, str(search), str(game.nplayers), code_stamp())


def kept_source(game, search: bool) -> str | None:
    """The module written before for this game (None when none is kept)."""
    name = _entry(game, search)
    if name is None:
        return None
    items = cache.read(name)
    data = None if items is None else items.get("module.py")
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def keep_source(game, search: bool, source: str) -> None:
    name = _entry(game, search)
    if name is not None:
        cache.write(name, {"module.py": source.encode("utf-8", "surrogatepass")})


def constants(source: str) -> dict:
    """The loader's constants of a module (MEMO_SITES, DRY_LEVELS, STRINGS ...), read from
    their lines (literals: ``ast.literal_eval``, nothing is run)."""
    out = {}
    for m in _CONSTANT.finditer(source):
        text = m.group(2)
        # the whole rest of the line, else what comes before its comment (a string may hold "#")
        for literal in (text, text.rsplit("  #", 1)[0]):
            try:
                out[m.group(1)] = ast.literal_eval(literal)
                break
            except (ValueError, SyntaxError):
                continue
    return out
