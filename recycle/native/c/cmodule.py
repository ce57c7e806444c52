"""A generated native module and the runtime it calls, as one C file (translate.py).

``c_source(source, glb)``: the C of the module whose source is ``source`` (already run in the
namespace ``glb`` for its constants), from its entry ``games`` down to every runtime function
it reaches, and ``rc_games``, the exported function the loader calls with the entry's arrays
and numbers (``ENTRY``: their order, dtypes and dimensions)."""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

from .ctyping import BOOL, I64, Arr, array_struct, tuple_struct
from .harness import HEADER, harness
from .prelude import PRELUDE
from .translate import Program, Source, TranslateError, comment

RUNTIME = (
    "recycle.native.runtime",
    "recycle.native.runtime_cards",
    "recycle.native.runtime_chance",
    "recycle.native.runtime_dry",
    "recycle.native.runtime_groups",
    "recycle.native.runtime_resume",
    "recycle.native.runtime_search",
)
ENTRY_NAME = "games"
# the entry's parameters: the state after setup, the state played on, the rest (engine.py)
INITIAL = (Arr("int32", 2), Arr("int32", 1), Arr("int32", 1), Arr("int64", 1), Arr("int32", 1), Arr("int64", 2))
INITIAL += (Arr("int64", 1),)
STATE = INITIAL[:6] + (Arr("int64", 2), Arr("int64", 2), Arr("int64", 1), Arr("uint64", 1), Arr("int64", 1))
STATE += (Arr("int32", 1), Arr("int64", 1), Arr("int64", 3), Arr("int64", 2), Arr("int64", 1), Arr("int64", 1))
STATE += (Arr("float64", 1),)
ENTRY = (INITIAL, STATE, I64, Arr("uint64", 2), I64, I64, Arr("int64", 2), Arr("int64", 2), Arr("int32", 2), BOOL)
ENTRY += (Arr("int64", 1),)
VERSION = "2"  # of the C the translator writes: a change makes new cache entries


def flat_entry() -> list:
    """The entry's parameters flattened: arrays and numbers in the order ``rc_games`` takes them."""
    out = []
    for t in ENTRY:
        out += list(t) if isinstance(t, tuple) else [t]
    return out


@functools.cache
def runtime_sources() -> dict[str, Source]:
    out = {}
    for name in RUNTIME:
        mod = importlib.import_module(name)
        out[name] = Source(Path(mod.__file__).read_text("utf-8"), mod.__dict__)
    return out


def c_source(source: str, glb: dict, title: str = "") -> str:
    """The C file of a generated module (``glb``: its namespace, its constants' values)."""
    sources = dict(runtime_sources())
    sources[glb["__name__"]] = Source(source, glb)
    prog = Program(sources)
    entry = prog.instance(glb["__name__"], ENTRY_NAME, ENTRY)
    if entry.ret != "void":
        raise TranslateError("the entry returns a value")
    # emitting a body queues its callees: go on until none is new
    texts = {}
    pending = [entry]
    seen = {id(entry)}
    while pending:
        inst = pending.pop(0)
        prog.called = []
        texts[id(inst)] = inst.emit()
        for callee in prog.called:
            if id(callee) not in seen:
                seen.add(id(callee))
                pending.append(callee)
    used = [i for i in prog.order if id(i) in texts]
    out = [comment(title or "a native module of recycle"), HEADER, PRELUDE]
    for a in sorted(prog.arrays, key=lambda a: (a.ndim, a.dtype)):
        out.append(array_struct(a))
    for t in prog.tuples:
        out.append(tuple_struct(t))
    out += prog.const_lines
    out += [i.prototype() + ";" for i in used]
    out += [texts[id(i)] for i in used]
    out.append(_exported(entry))
    out.append(harness(sum(isinstance(t, Arr) for t in flat_entry())))
    return "\n".join(out) + "\n"


def _exported(entry) -> str:
    """``rc_games(arrays, shapes, numbers)``: the entry called with the caller's arrays (each a
    pointer and three dimensions in ``shapes``) and numbers."""
    args, a, n = [], 0, 0
    for t in flat_entry():
        if isinstance(t, Arr):
            dims = ", ".join(f"shapes[{3 * a + k}]" for k in range(t.ndim))
            args.append(f"(({t.c}){{({t.elem_c} *)arrays[{a}], {dims}}})")
            a += 1
        else:
            args.append(f"numbers[{n}]")
            n += 1
    call = ",\n        ".join(args)
    return f"void rc_games(void **arrays, long long *shapes, long long *numbers) {{\n    {entry.cname}(\n        {call});\n}}"


def module_c(source: str, title: str) -> str:
    """The C of a generated module's source (its constants worked out by running it: it only
    defines constants and functions)."""
    import types

    mod = types.ModuleType("recycle_native_written")
    exec(compile(source, "<recycle native>", "exec"), mod.__dict__)
    return c_source(source, mod.__dict__, f"native module of {title}")
