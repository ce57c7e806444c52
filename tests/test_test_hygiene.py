"""The tests themselves: no assertion that cannot fail (issue 28).

Two shapes of test that pass whatever the code does:

* an ``assert`` whose condition is fixed by its syntax: a constant (``assert True``, ``assert
  "text"``), a non-empty tuple (``assert (x, "message")``, the classic slip), list, set or dict
  display, or an ``or`` with an always-true operand (``assert x or True``), and the same with
  ``not`` or ``and`` when the result is fixed;
* a test whose only assertions sit in ``for`` loops over a collection the test computes, never
  checked to be non-empty: an empty collection passes the test without checking anything.
  Literal collections (``for k in (1, 2, 3)``) and ``range`` of constants are non-empty by
  construction; a computed one must be checked (``assert pairs``, ``assert len(xs) == 4``) or
  compared as a whole outside the loop.

Each offender is listed as ``file:line``.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def fixed_truth(node: ast.expr) -> bool | None:
    """True or False when ``node``'s truth is fixed by its syntax, else None."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    if isinstance(node, ast.JoinedStr):
        return True if any(isinstance(v, ast.Constant) and v.value for v in node.values) else None
    if isinstance(node, ast.Lambda):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = fixed_truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        values = [fixed_truth(v) for v in node.values]
        if isinstance(node.op, ast.Or):
            if True in values:
                return True
            return False if all(v is False for v in values) else None
        if False in values:
            return False
        return True if all(v is True for v in values) else None
    return None


def _is_assertion(node: ast.AST) -> bool:
    """An ``assert``, or a ``pytest.raises``/``pytest.warns``/``pytest.fail`` call."""
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return (
            node.func.attr in ("raises", "warns", "fail")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "pytest"
        )
    return False


def _non_empty_by_construction(it: ast.expr) -> bool:
    """A literal, non-empty collection, or ``range`` of constants with something in it."""
    if isinstance(it, (ast.Tuple, ast.List, ast.Set)):
        return bool(it.elts)
    if isinstance(it, ast.Constant):
        return bool(it.value)
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "range"
        and all(
            isinstance(a, ast.Constant) or (isinstance(a, ast.UnaryOp) and isinstance(a.operand, ast.Constant))
            for a in it.args
        )
    ):
        try:
            return len(range(*[ast.literal_eval(a) for a in it.args])) > 0
        except (TypeError, ValueError):
            return False
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id in ("enumerate", "zip", "sorted", "reversed")
        and it.args
    ):
        return all(_non_empty_by_construction(a) for a in it.args)
    return False


def _local_values(fn: ast.FunctionDef) -> dict[str, list[ast.expr | None]]:
    """What each name of ``fn`` is assigned (None: a part of an unpacking or a loop target)."""
    values: dict[str, list[ast.expr | None]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    values.setdefault(t.id, []).append(node.value)
                else:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            values.setdefault(n.id, []).append(None)
    return values


def unchecked_loops(fn: ast.FunctionDef) -> list[ast.For]:
    """The ``for`` loops over a collection the test computes into a variable, that hold
    assertions while no other assertion runs for sure beside them (in the test's body, or in the
    body of the loop around them): an empty collection passes those checks unchecked.

    Only loops over a variable the test assigns are judged (``pairs = ...; for a, b in
    pairs``): a variable assigned a non-empty literal is fine. Loops straight over a call or a
    module constant (``for path in sorted(GAMES.glob(...))``) are not judged here."""
    values = _local_values(fn)
    # a variable an assertion of the test names (``assert hidden and ...``, ``assert
    # len(names) >= 3``) is taken as checked: the loop over it is the test's second look
    asserted = {
        n.id for a in ast.walk(fn) if isinstance(a, ast.Assert) for n in ast.walk(a.test) if isinstance(n, ast.Name)
    }
    out: list[ast.For] = []

    def judged(loop: ast.For) -> bool:
        it = loop.iter
        return (
            isinstance(it, ast.Name)
            and it.id in values
            and it.id not in asserted
            and not all(v is not None and _non_empty_by_construction(v) for v in values[it.id])
        )

    def level(stmts: list[ast.stmt]) -> None:
        """One body: its sure assertions, and the loops in it that may run zero times."""
        sure: list[ast.AST] = []
        loops: list[ast.For] = []

        def visit(node: ast.AST) -> None:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                return
            if isinstance(node, (ast.For, ast.AsyncFor)) and not _non_empty_by_construction(node.iter):
                loops.append(node)
                level(node.body)
                return
            if _is_assertion(node):
                sure.append(node)
            for child in ast.iter_child_nodes(node):
                visit(child)

        for stmt in stmts:
            visit(stmt)
        if not sure:
            out.extend(lp for lp in loops if judged(lp) and any(_is_assertion(m) for m in ast.walk(lp)))

    level(fn.body)
    return sorted(out, key=lambda lp: lp.lineno)


def offenders(path: Path) -> list[str]:
    """``file:line: why`` for every assertion of ``path`` that cannot fail."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and fixed_truth(node.test) is not None:
            what = "always true" if fixed_truth(node.test) else "always false"
            out.append(f"{path.name}:{node.lineno}: assert {ast.unparse(node.test)[:60]} is {what}")
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            for loop in unchecked_loops(node):
                out.append(
                    f"{path.name}:{loop.lineno}: {node.name} asserts only in a loop over "
                    f"{ast.unparse(loop.iter)[:50]}, never checked non-empty"
                )
    return out


def test_no_test_asserts_a_constant_or_loops_over_an_unchecked_collection():
    found = [o for path in sorted(TESTS.rglob("*.py")) for o in offenders(path)]
    assert found == [], "assertions that cannot fail:\n" + "\n".join(found)


def _check(src: str) -> list[str]:
    tree = ast.parse(src)
    out = [f"{n.lineno}" for n in ast.walk(tree) if isinstance(n, ast.Assert) and fixed_truth(n.test) is not None]
    out += [
        f"loop {loop.lineno}"
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef)
        for loop in unchecked_loops(fn)
    ]
    return out


def test_the_check_finds_each_shape():
    src = """
def test_a(x, a, b):
    assert True
    assert x or True
    assert (a, b)
    assert "text"
    assert [a]
    assert not ()
    assert f"{a} text"
    assert x and False
    assert x
    assert x or y
    assert (a == b), "message"
    assert []  or x

def test_loop(g):
    pairs = g.pairs()
    for a, b in pairs:
        assert a != b

def test_loop_checked(g):
    pairs = g.pairs()
    assert len(pairs) >= 2
    for a, b in pairs:
        assert a != b

def test_loop_literal(g):
    for k in (1, 2):
        assert g(k)
    for k in range(3):
        assert g(k)

def test_loop_over_a_literal_variable(g):
    names = ["a", "b"]
    for k in names:
        assert g(k)

def test_inner_loop(g):
    for seed in range(3):
        _, options = g(seed)
        for o in options:
            assert o
"""
    assert _check(src) == ["3", "4", "5", "6", "7", "8", "9", "10", "loop 18", "loop 41"]


# -- what CI runs ------------------------------------------------------------------------------

ROOT = TESTS.parent


def test_the_readmes_test_command_is_the_one_ci_runs():
    """The README's test command is a line of .ci/run, word for word: a user runs what CI runs
    (the fast suite, its 15 slowest tests printed), and CI runs it before its other steps."""
    readme = (ROOT / "README.md").read_text()
    command = next(
        line.split("#", 1)[0].strip() for line in readme.splitlines() if line.startswith(".venv/bin/python -m pytest")
    )
    assert command == ".venv/bin/python -m pytest -q -n auto --dist worksteal --durations=15"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command in ci
    steps = [line for line in ci if "pytest" in line and not line.lstrip().startswith("#")]
    assert steps.index(command) < next(i for i, s in enumerate(steps) if "RECYCLE_SHARED=none" in s)
    assert any("-m slow" in s for s in steps), "CI runs the long sweeps in a step of their own"


def test_the_default_run_leaves_out_the_slow_sweeps():
    """pyproject's addopts deselect the ``slow`` marker (the README's command is the fast suite),
    and the marker is declared, so a mistyped marker is an error (--strict-markers)."""
    import tomllib

    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    addopts = options["addopts"]
    assert addopts[addopts.index("-m") + 1] == "not slow" and "--strict-markers" in addopts
    assert any(m.startswith("slow:") for m in options["markers"])
