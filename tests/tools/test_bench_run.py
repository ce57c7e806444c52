"""tools/bench_run.py (issue 42's `recycle run Hearts4 --players ismcts:1000,random` target):
the checkouts alternate, each keeps its best time of each command, and the search is the
timed command less the random players' game. The times here are made up: none is asserted."""

from .test_bench_timing import load_tool


def test_the_search_is_the_best_timed_run_less_the_best_random_one(monkeypatch, capsys, tmp_path):
    tool = load_tool("bench_run")
    old, new = tmp_path / "old", tmp_path / "new"
    game = tmp_path / "Hearts4.rcy"
    game.write_text("(game)")
    times = {  # (checkout, players): (wall, CPU) per round
        ("old", "ismcts:1000,random"): [(9.0, 3.3), (8.0, 3.2)],
        ("old", "random"): [(1.0, 0.4), (1.2, 0.3)],
        ("new", "ismcts:1000,random"): [(4.0, 1.2), (4.5, 1.1)],
        ("new", "random"): [(2.0, 0.7), (2.5, 0.6)],
    }
    order = []

    def run_once(root, path, players, seed, timeout):
        order.append((root.name, players))
        wall, cpu = times[root.name, players].pop(0)
        return wall, cpu, f"{seed} {path.name}"

    monkeypatch.setattr(tool, "run_once", run_once)
    assert tool.main([str(old), str(new), "--game", str(game), "--repeat", "2", "--seed", "9"]) == 0
    assert order == [(r, k) for _ in range(2) for r in ("old", "new") for k in ("ismcts:1000,random", "random")]
    out = capsys.readouterr().out
    assert "search alone (best of each) 7.00 s wall, 2.90 s CPU; first run 9.00 s wall, 3.30 s CPU" in out
    assert "search alone (best of each) 2.00 s wall, 0.50 s CPU; first run 4.00 s wall, 1.20 s CPU" in out
    assert out.rstrip().endswith("new against old: 3.5x (wall), 5.8x (CPU) on the search")
    assert "9 Hearts4.rcy" in out  # the seed given reaches every run


def test_a_missing_game_is_a_message(capsys, tmp_path):
    tool = load_tool("bench_run")
    assert tool.main([str(tmp_path), "--game", str(tmp_path / "none.rcy")]) == 1
    assert "none.rcy: not found" in capsys.readouterr().out
