"""The integer and boolean forms, each kept whole in its module of ``lang/forms`` (issue 41,
requirement 4): ``form_arithmetic.py``, ``form_counting.py``, ``form_pid.py``,
``form_comparison.py``, ``form_logic.py`` and ``form_quantifiers.py`` register a form's node,
reading, meaning and native writer together; the positioned messages of their readings are
those the elaborator gave when the readings were its methods."""

from __future__ import annotations

import inspect

import pytest

import recycle
from recycle.lang.forms.flow import REGISTRY, FlowCompiler
from recycle.lang.forms.reads import NODE_METHODS
from recycle.lang.forms.registry import Kind
from recycle.lang.forms.writers import NATIVE_WRITERS
from recycle.lang.nodes.flow import Elaborator

from ..conftest import tiny

# (kind, head) of each form -> the module it is kept in; the native writer declines ^, tri, fib, random
MODULES = {
    **{(Kind.INT, h): "form_arithmetic" for h in ("+", "-", "*", "//", "%", "^", "tri", "fib", "random")},
    **{(Kind.INT, h): "form_counting" for h in ("size", "sum", "score", "scoremax", "scoremin")},
    (Kind.INT, "pid"): "form_pid",
    **{(Kind.BOOL, h): "form_comparison" for h in ("<", ">", "<=", ">=", "==", "!=")},
    **{(Kind.BOOL, h): "form_logic" for h in ("and", "or", "not")},
    **{(Kind.BOOL, h): "form_quantifiers" for h in ("any", "all")},
}
UNWRITTEN = {"^", "tri", "fib", "random"}


@pytest.mark.parametrize("key", sorted(MODULES), ids=lambda k: f"{k[0]}:{k[1]}")
def test_an_integer_or_boolean_form_is_registered_whole_from_its_module(key):
    kind, head = key
    where = f"recycle.lang.forms.{MODULES[key]}"
    f = REGISTRY.lookup(kind, head)
    compiled = inspect.unwrap(getattr(FlowCompiler, f.method))
    assert (f.node.__module__, f.reads.__module__, compiled.__module__) == (
        "recycle.lang.nodes.numbers",
        where,
        where,
    )
    # found through the registry alone: no reading left on the elaborator, no entry by hand
    assert not hasattr(Elaborator, "e_" + f.method)
    assert REGISTRY.readings[f.method] is f.reads and NODE_METHODS[f.node] == f.method
    writer = NATIVE_WRITERS.get((kind, f.node))
    assert (writer is None) == (head in UNWRITTEN)
    assert writer is None or writer.__module__ == where


def error(body: str) -> str:
    with pytest.raises(recycle.RecycleError) as exc:
        tiny(body)
    return str(exc.value)


@pytest.mark.parametrize(
    "expr, message",
    [
        ("(< 1)", "tiny.rcy:4:8: error: (< A B) compares two integers"),
        ("(== 1 2 3)", "tiny.rcy:4:8: error: (== A B) compares two values"),
        ("(and (< 1 2))", "tiny.rcy:4:8: error: (and ...) takes two or more conditions"),
        ("(not (< 1 2) (< 2 1))", "tiny.rcy:4:8: error: (not ...) takes 1 argument"),
        ("(> (random 1 2) 0)", "tiny.rcy:4:11: error: expected (random N) or (random A..B)"),
        ("(> (sum (game iloc STOCK)) 0)", "tiny.rcy:4:11: error: expected (sum LOCATION using POINTS)"),
        ("(> (* 1) 0)", "tiny.rcy:4:11: error: (* A B ...) takes two or more integers"),
        ("(> (% 1 2 3) 0)", "tiny.rcy:4:11: error: (% A B) takes exactly two integers (only + and * take more)"),
        ("(> (^ 1) 0)", "tiny.rcy:4:11: error: (^ A B) takes exactly two integers\n"),
        ("(> (tri 1 2) 0)", "tiny.rcy:4:11: error: (tri ...) takes 1 argument, got 2"),
        ("(> (scoremax (game iloc STOCK)) 0)", "tiny.rcy:4:11: error: expected (scoremax COLLECTION using POINTS)"),
        ("(> (pid) 0)", "tiny.rcy:4:11: error: (pid ...) takes 1 argument, got 0"),
        ("(> (size (top (game iloc STOCK))) 0)", "tiny.rcy:4:17: error: size counts a location or a group list"),
    ],
)
def test_the_readings_moved_to_their_modules_keep_their_positioned_messages(expr, message):
    assert error(f"(do (({expr} (turn pass))))").startswith(message)
