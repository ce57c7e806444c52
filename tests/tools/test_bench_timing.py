"""tools/bench.py's way of measuring (issue 40): the sides of a comparison alternate within one
run, each figure is the best round with its spread, and a busy machine is refused or its
figures marked loudly as not current. No timing is asserted: the rates here are made up."""

import importlib.util
import sys

from ..conftest import ROOT

TOOLS = ROOT / "tools"


def load_tool(name):
    sys.path.insert(0, str(TOOLS))
    try:
        spec = importlib.util.spec_from_file_location(f"tool_{name}", TOOLS / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # a dataclass looks its module up there
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(TOOLS))


def test_the_sides_alternate_the_order_reversed_every_other_round():
    timing = load_tool("timing")
    calls = []
    rates = {"a": iter([10.0, 12.0, 11.0, 9.0]), "b": iter([5.0, 4.0, 6.0, 5.0])}

    def side(name):
        return timing.Side(name, lambda: calls.append(name) or next(rates[name]))

    a, b = timing.alternate([side("a"), side("b")], 4)
    assert calls == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert a.best() == 12.0 and a.spread() == "9–12" and b.spread(".1f") == "4.0–6.0"
    # the best rates' ratio (12 / 6), then the rounds' own ratios (10/5, 12/4, 11/6, 9/5)
    assert timing.ratio_text(a, b) == "2.00  (rounds 1.80–3.00)"
    assert a.spread_of_time(1000) == "83.3–111.1"  # ms: the best round, the worst


def run_main(monkeypatch, capsys, loads, argv):
    bench = load_tool("bench")
    seq = iter(loads)
    monkeypatch.setattr(bench, "load_average", lambda: next(seq))
    monkeypatch.setattr(bench, "load_text", lambda: "load average: (made up)")
    ran = []
    monkeypatch.setattr(bench, "run_benchmarks", lambda args: ran.append(args.what) or 0)
    code = bench.main(argv)
    return code, ran, capsys.readouterr().out


def test_a_busy_machine_is_refused(monkeypatch, capsys):
    code, ran, out = run_main(monkeypatch, capsys, [(0.9, 0.2, 0.1)], ["native"])
    assert code == 2 and ran == []
    assert out.splitlines()[0] == "$ python tools/bench.py native"
    assert "refused: the 1-minute load is 0.90, above 0.5" in out and "--busy" in out


def test_busy_runs_and_says_loudly_the_figures_are_not_current(monkeypatch, capsys):
    code, ran, out = run_main(monkeypatch, capsys, [(3.0, 1, 1), (3.5, 1, 1)], ["clone", "--busy"])
    assert code == 0 and ran == ["clone"]
    assert out.count("!!! WARNING: the 1-minute load is 3.00 at the start (above 0.5)") == 2  # start and end
    assert "NOT current ones" in out


def test_a_quiet_machine_runs_and_a_load_that_rose_is_said(monkeypatch, capsys):
    code, ran, out = run_main(monkeypatch, capsys, [(0.2, 0.1, 0.1), (1.3, 0.5, 0.2)], ["clone"])
    assert code == 0 and ran == ["clone"] and "WARNING" not in out  # the benchmark itself adds about 1
    assert "at the end: load average: (made up)" in out
    code, ran, out = run_main(monkeypatch, capsys, [(0.2, 0.1, 0.1), (2.4, 0.5, 0.2)], ["clone"])
    assert code == 0 and "!!! WARNING: the 1-minute load is 2.40 at the end" in out
