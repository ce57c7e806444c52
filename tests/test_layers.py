"""The shape of the package: sub-packages in the direction data flows, no import cycles,
modules that fit in a head, and tools that do not lean on the tests.

lang (text → closures) → engine (games, states, the runner) → native (games as machine code, for
rollouts) → players → study → env (learning environments) → cli.
A module may import recycle modules of its own layer or of layers before it; ``errors``
and ``version`` are beneath every layer, and the package's ``__init__`` above them all.

Inside lang, the rooms show the phases: syntax (text → forms) → forms (their meaning, compiled
to closures) → python (the closures written out as Python) and, beside it, reading (what is
worked out from the text without playing it). A module imports only its own room and the rooms
before it.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "recycle"
LAYERS = ["errors", "version", "streams", "lang", "engine", "native", "players", "study", "env", "cli", "studio"]
# the studio sits at the top beside the command line: `recycle studio` starts it, and it
# shows a seat's table with the command line's text of it (cli/table.py)
SAME_LEVEL = {"studio": "cli"}
# a module fits in a head: at most this many logical lines (statements, as Python's tokenizer
# counts them), a measure the formatter does not change (ruff format puts one argument a line
# where hand-wrapped code put several); 480 logical lines are what about 600 lines held before
MAX_LOGICAL_LINES = 480
# lang's rooms, in phase order, each with the rooms its modules may import besides its own
LANG_ROOMS = {
    "syntax": (),
    "nodes": ("syntax",),
    "forms": ("syntax", "nodes"),
    "python": ("syntax", "nodes", "forms"),
    "reading": ("syntax", "nodes", "forms"),
}


def modules() -> dict[str, Path]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = f.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


def imports_of(name: str, path: Path, known: dict) -> set[str]:
    """The recycle modules ``name`` imports, anywhere in it (also inside functions)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            # `from . import main` names a submodule; `from .x import f` names module x
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
            targets = subs if len(subs) == len(node.names) else [base] + subs
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def layer(name: str) -> int:
    parts = name.split(".")
    if len(parts) == 1:  # recycle/__init__.py: the public API over everything
        return len(LAYERS)
    return LAYERS.index(SAME_LEVEL.get(parts[1], parts[1]))


def test_every_module_belongs_to_a_layer():
    for name in modules():
        assert name == "recycle" or name.split(".")[1] in LAYERS + ["__main__"], name


def test_imports_follow_the_layers():
    known = modules()
    wrong = []
    for name, path in known.items():
        if name.endswith("__main__"):
            continue
        for target in imports_of(name, path, known):
            if layer(target) > layer(name):
                wrong.append(f"{name} imports {target}")
    assert not wrong, "imports against the direction of the layers:\n" + "\n".join(sorted(wrong))


def lang_room(name: str) -> str | None:
    """The room of a module of recycle.lang (``recycle.lang.forms.flow`` → ``forms``), None
    for the package itself and for a module of another layer."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "lang" else None


def rooms_against_the_phases(graph: dict[str, set[str]]) -> list[str]:
    """The imports between lang's rooms that go against ``LANG_ROOMS``."""
    wrong = []
    for name, targets in graph.items():
        room = lang_room(name)
        if room is None:
            continue
        for target in targets:
            other = lang_room(target)
            if other is not None and other != room and other not in LANG_ROOMS[room]:
                wrong.append(f"{name} ({room}) imports {target} ({other})")
    return sorted(wrong)


def test_every_module_of_lang_is_in_a_room():
    for name in modules():
        if name.startswith("recycle.lang."):
            assert lang_room(name) in LANG_ROOMS and len(name.split(".")) in (3, 4), name
    order = list(LANG_ROOMS)  # a room may import only rooms before it: no cycle between rooms
    assert all(order.index(r) < order.index(room) for room, before in LANG_ROOMS.items() for r in before)


def test_the_rooms_of_lang_import_only_their_own_and_earlier_rooms():
    known = modules()
    graph = {name: imports_of(name, path, known) for name, path in known.items() if lang_room(name)}
    assert graph["recycle.lang.forms.form_stage"] >= {"recycle.lang.nodes.flow", "recycle.lang.forms.registry"}
    wrong = rooms_against_the_phases(graph)
    assert not wrong, "imports against lang's phases:\n" + "\n".join(wrong)
    # ... and the check sees one: the forms reaching for the Python writer, or reading for it
    assert rooms_against_the_phases(
        {
            "recycle.lang.forms.flow": {"recycle.lang.python.pygen"},
            "recycle.lang.reading.lint": {"recycle.lang.python.pycards"},
            "recycle.lang.python.pygen": {"recycle.lang.forms.items"},
        }
    ) == [
        "recycle.lang.forms.flow (forms) imports recycle.lang.python.pygen (python)",
        "recycle.lang.reading.lint (reading) imports recycle.lang.python.pycards (python)",
    ]


def test_no_import_cycles():
    known = modules()
    graph = {name: imports_of(name, path, known) for name, path in known.items() if name != "recycle"}
    for targets in graph.values():
        targets.discard("recycle")
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(v, stack):
        state[v] = 1
        stack.append(v)
        for w in graph.get(v, ()):
            if state.get(w) == 1:
                cycle.extend(stack[stack.index(w) :] + [w])
                return True
            if w not in state and visit(w, stack):
                return True
        stack.pop()
        state[v] = 2
        return False

    for v in graph:
        if v not in state and visit(v, []):
            break
    assert not cycle, "import cycle: " + " → ".join(cycle)


def logical_lines(path: Path) -> int:
    """The number of logical lines (statements) of a Python file."""
    import io
    import tokenize

    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return sum(1 for tok in tokens if tok.type == tokenize.NEWLINE)


def test_logical_lines_count_statements_not_their_wrapping(tmp_path):
    wrapped = tmp_path / "w.py"
    wrapped.write_text("x = f(\n    1,\n    2,\n)\n# a comment\n\ny = 3\n")
    assert logical_lines(wrapped) == 2


def test_modules_fit_in_a_head():
    big = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py") if (n := logical_lines(p)) > MAX_LOGICAL_LINES}
    assert not big, f"modules over {MAX_LOGICAL_LINES} logical lines: {big}"


def test_the_files_the_package_reads_ship_with_it():
    """pyproject.toml's package data names the folder each non-Python file is read from (the
    grammar moved with the syntax room): a wheel or a plain ``pip install .`` carries them."""
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = {
        f
        for pkg, patterns in data.items()
        for pattern in patterns
        for f in (ROOT / pkg.replace(".", "/")).glob(pattern)
    }
    assert PACKAGE / "lang" / "syntax" / "grammar.lark" in shipped
    assert not [f for f in PACKAGE.rglob("*.lark") if f not in shipped]


def test_tools_do_not_import_the_tests():
    test_modules = {"tests"} | {f.stem for f in (ROOT / "tests").rglob("*.py")}
    for f in (ROOT / "tools").glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            assert not any(n.split(".")[0] in test_modules for n in names), f"{f.name} imports from tests/"
        assert '"tests"' not in f.read_text(), f"{f.name} puts tests/ on the path"


def test_a_campaign_worker_needs_neither_the_database_nor_the_plots():
    """recycle.study.campaign (in the study layer): the module that plays a chunk on a worker
    (job) imports none of the coordinator's modules (store: DuckDB; report, render: matplotlib),
    so a Dask worker needs only recycle itself."""
    known = modules()
    assert "recycle.study.campaign.job" in known
    seen, todo = set(), ["recycle.study.campaign.job"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(imports_of(name, known[name], known) - {"recycle"})
    coordinator = {f"recycle.study.campaign.{m}" for m in ("store", "report", "render", "run")}
    assert not seen & coordinator, sorted(seen & coordinator)


def test_a_missing_optional_library_says_which_extra_installs_it(monkeypatch):
    """With the rl extra absent (here: its libraries made unimportable, so that the test runs
    with or without the extra), the adapter names the first library it misses and the extra."""
    import sys

    import pytest

    from recycle import env

    for missing in ("pettingzoo", "gymnasium"):  # as if they were not installed
        monkeypatch.setitem(sys.modules, missing, None)
    monkeypatch.delitem(sys.modules, "recycle.env.petting", raising=False)
    with pytest.raises(
        env.MissingExtra,
        match=r"^the PettingZoo environment needs '(pettingzoo|gymnasium)', which is not installed: "
        r"pip install -e '\.\[rl\]'",
    ):
        env.pettingzoo_env(str(ROOT / "games" / "schwimmen.rcy"))


# -- reading the language once (issue 41) -------------------------------------------------------
# the modules outside the syntax room and the elaborator (recycle/lang/nodes) that still name
# SList, each reading forms itself: none is left (lang/forms/wording.py, the last, writes words
# from nodes), and no module may start reading s-expressions; tools/count_readers.py counts them
STILL_READING_FORMS: set = set()


def is_whole_form_module(path: Path) -> bool:
    """A form kept whole in one module (``lang/forms/form_*.py``): its reading of the
    s-expression is part of the elaborator, registered with the form (``form(reads=)``)."""
    return path.parent == PACKAGE / "lang" / "forms" and path.name.startswith("form_")


def test_only_the_syntax_room_and_the_elaborator_read_new_s_expressions():
    reading = {
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*.py")
        if "SList" in p.read_text(encoding="utf-8")
        and p.parent.name not in ("syntax", "nodes")
        and not is_whole_form_module(p)
    }
    assert not reading - STILL_READING_FORMS, (
        f"modules that started reading s-expressions: {reading - STILL_READING_FORMS}"
    )
    assert not STILL_READING_FORMS - reading, (
        f"modules that no longer read s-expressions: take them off STILL_READING_FORMS: {STILL_READING_FORMS - reading}"
    )


# the modules that may compare a form's head string besides the syntax room and the elaborator:
# the forms kept whole in their own modules, whose readings are the elaborator's (issue 41);
# every other module, the rest of lang/forms included, reads nodes
STILL_COMPARING_HEADS = ("recycle/lang/forms/form_",)


def _count_readers():
    """tools/count_readers.py, loaded as a module (its way of finding head comparisons)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("tool_count_readers", ROOT / "tools" / "count_readers.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_no_module_compares_a_form_s_head_outside_the_elaborator():
    """Over every module of the package (tools/count_readers.py's reading: ``==``/``in`` of a
    head or an atom's value, and ``kw``/``is_atom`` naming a form), only the syntax room, the
    elaborator, the registry and the modules still being converted compare a form's head; and
    those still reading SList are among the latter too."""
    counted = _count_readers().count(ROOT)
    comparing = {m: hits for m, hits in counted["heads"].items() if not m.startswith(STILL_COMPARING_HEADS)}
    assert not comparing, f"modules comparing a form's head string (read the nodes instead): {comparing}"
    reading = [m for m in counted["slist"] if not m.startswith(STILL_COMPARING_HEADS)]
    assert not reading, f"modules reading s-expressions (read the nodes instead): {reading}"


def test_the_head_check_sees_each_way_of_comparing_a_head():
    tool = _count_readers()
    code = 'kw(x.items[0], "top")\nif head_of(x) in ("any", "deck"): pass\nx.head == "stage"\nh != "move"\n'
    assert tool.head_comparisons(ast.parse(code)) == [(1, "top"), (2, "any"), (2, "deck"), (3, "stage"), (4, "move")]
