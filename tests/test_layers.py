"""The shape of the package: sub-packages in the direction data flows, no import cycles,
modules that fit in a head, and tools that do not lean on the tests.

lang (text → closures) → engine (games, states, the runner) → native (games as machine code, for
rollouts) → players → study → env (learning environments) → cli.
A module may import recycle modules of its own layer or of layers before it; ``errors``
and ``version`` are beneath every layer, and the package's ``__init__`` above them all.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "recycle"
LAYERS = ["errors", "version", "streams", "lang", "engine", "native", "players", "study", "env", "cli", "studio"]
# the studio sits at the top beside the command line: `recycle studio` starts it, and it
# shows a seat's table with the command line's text of it (cli/table.py)
SAME_LEVEL = {"studio": "cli"}
MAX_LINES = 600


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


def test_no_import_cycles():
    known = modules()
    graph = {name: imports_of(name, path, known) for name, path in known.items() if name != "recycle"}
    for name in graph:
        graph[name].discard("recycle")
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(v, stack):
        state[v] = 1
        stack.append(v)
        for w in graph.get(v, ()):
            if state.get(w) == 1:
                cycle.extend(stack[stack.index(w):] + [w])
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


def test_modules_fit_in_a_head():
    big = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not big, f"modules over {MAX_LINES} lines: {big}"


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
    import pytest

    import sys

    import recycle.env as env

    monkeypatch.setitem(sys.modules, "pettingzoo", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "recycle.env.petting", raising=False)
    with pytest.raises(env.MissingExtra, match=r"needs 'pettingzoo', which is not installed: pip install -e '\.\[rl\]'"):
        env.pettingzoo_env(str(ROOT / "games" / "schwimmen.rcy"))
