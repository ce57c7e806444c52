"""The one call that plays many games (recycle/native/batch.py): ``auto`` is native from the
first game, a game native code stops inside a chunk is handed back to the reference interpreter
for its exact message, and every way of running says which engine played."""

import json

import pytest
from typer.testing import CliRunner

import recycle
from recycle.cli.main import app
from recycle.engine.runner import RandomPlayer
from recycle.native import available, native_playouts
from recycle.native.batch import play_games
from recycle.study.stats import simulate

from ..conftest import GAMES, tiny
from .test_native import DRY_RUN

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

SCHWIMMEN = GAMES / "schwimmen.rcy"


def _breaking_game():
    """The dry-run game of test_native: some deals break a rule (a draw from an empty stock)."""
    return tiny(
        DRY_RUN,
        deck="(deck (RANK (A, B, C, D, E)) (SUIT (X, Y)))",
        scoring="(scoring max ((current player) sto EMPTY))",
    )


def test_auto_plays_natively_from_the_first_game():
    g = recycle.load(SCHWIMMEN)
    one = simulate(g, 1, seed=3)
    assert (one.engine, one.engine_note) == ("native", None)
    assert "played by: native code" in one.table()
    assert one.to_dict()["engine"] == "native"
    ref = simulate(g, 1, seed=3, engine="reference")
    assert ref.engine == "reference" and "played by: the reference interpreter" in ref.table()
    assert ref.to_dict()["score_mean"] == one.to_dict()["score_mean"]


def test_the_engine_layer_chooses_and_plays_in_chunks():
    g = recycle.load(SCHWIMMEN)
    players = [RandomPlayer() for _ in range(g.nplayers)]
    games = play_games(g, 7, 5, players, 100_000)
    assert (games.engine, games.note) == ("native", None)
    chunks = list(games.chunks())
    assert sum(len(c) for c in chunks) == 7
    ref = play_games(g, 7, 5, players, 100_000, engine="reference")
    assert ref.engine == "reference"
    records = [r for c in ref.chunks() for r in c.records]
    native_scores = [list(map(int, row)) for c in chunks for row in c.arrays[0]]
    assert native_scores == [r[0] for r in records]


class _StopAfter:
    """A stop (study.stopping.Stop's interface) that says stop once ``chunks`` chunks were yielded."""

    deadline = None

    def __init__(self, chunks: int):
        self.left, self.hold = chunks, True

    def __call__(self) -> bool:
        return self.left <= 0


def _shares(n: int, threads: int) -> list[int]:
    """The chunks of ``n`` games on ``threads`` threads once gcc's library is in place: each a
    ``1 / (2 * threads)`` share of the games left, at least TAIL_CHUNK, at most CHUNK."""
    from recycle.native.batch import CHUNK, TAIL_CHUNK

    sizes, left = [], n
    while left:
        sizes.append(min(left, CHUNK, max(TAIL_CHUNK, -(-left // (2 * threads)))))
        left -= sizes[-1]
    return sizes


@pytest.mark.parametrize("threads", [1, 2])
def test_native_chunks_are_whole_from_the_start_once_gcc_s_library_is_in_place(threads):
    from recycle.native import native_game
    from recycle.native.batch import CHUNK

    g = recycle.load(SCHWIMMEN)
    native_game(g).module.games.ready.wait()
    players = [RandomPlayer() for _ in range(g.nplayers)]
    n = 2 * CHUNK + 7
    chunks = list(play_games(g, n, 5, players, 100_000, threads=threads).chunks())
    # one thread: whole chunks; two: shares of what is left, so that both threads end together
    sizes = [CHUNK, CHUNK, 7] if threads == 1 else _shares(n, 2)
    assert [len(c) for c in chunks] == sizes
    assert threads == 1 or (sizes[:3] == [2502, 1877, 1407] and sizes[-1] < 100)
    # in order, whatever the threads: the games of one thread
    one = [row for c in play_games(g, n, 5, players, 100_000).chunks() for row in c.arrays[0].tolist()]
    assert [row for c in chunks for row in c.arrays[0].tolist()] == one
    # a stop asked for between chunks: the chunks so far, a prefix of the run
    stop = _StopAfter(1)
    got = []
    for c in play_games(g, n, 5, players, 100_000, threads=threads).chunks(stop):
        got.append(c)
        stop.left -= 1
    assert [len(c) for c in got] == sizes[:1] and got[0].arrays[0].tolist() == one[: sizes[0]]


@pytest.mark.parametrize("threads", [1, 2])
def test_a_game_that_breaks_a_rule_inside_a_native_chunk_gives_the_reference_message(threads):
    game = _breaking_game()
    with pytest.raises(recycle.RecycleRuntimeError) as ref:
        simulate(game, 40, seed=7, engine="reference")
    with pytest.raises(recycle.RecycleRuntimeError) as nat:
        simulate(game, 40, seed=7, threads=threads)
    assert "tiny.rcy:10:15:" in str(nat.value) and "move from the empty location STOCK" in str(nat.value)
    assert str(nat.value) == str(ref.value)
    assert play_games(game, 40, 7, [RandomPlayer()] * 2, 100_000).engine == "native"


def test_simulate_json_says_which_engine_played():
    runner = CliRunner()
    for engine in ("auto", "reference"):
        r = runner.invoke(app, ["simulate", str(SCHWIMMEN), "-n", "20", "--json", "--engine", engine])
        assert r.exit_code == 0, r.output
        d = json.loads(r.stdout)
        assert d["engine"] == ("native" if engine == "auto" else "reference")
    r = runner.invoke(app, ["simulate", str(SCHWIMMEN), "-n", "20"])
    assert r.exit_code == 0 and "played by: native code" in r.stdout


def test_the_studio_s_run_says_which_engine_played():
    from recycle.studio.runs import run_simulate

    class Job:
        def tick(self, done):
            pass

    out = run_simulate(recycle.load(SCHWIMMEN), Job(), 50, 1, None, 60.0)
    assert out["stats"]["engine"] == "native"
    assert "played by: native code" in out["lines"]


def test_look_ahead_playouts_are_native_on_a_game_never_built_before(tmp_path, monkeypatch):
    """``auto`` builds the game at the first decision (an empty cache folder: nothing made)."""
    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(tmp_path))
    game = _breaking_game()
    assert native_playouts(game, "auto") is not None
    assert native_playouts(game, "reference") is None


def test_analyze_values_play_their_rollouts_natively_with_the_same_estimates(monkeypatch):
    """``analyze --values winprob:N``'s estimates: native playouts, draw for draw the reference's."""
    from recycle.study import analysis

    g = recycle.load(SCHWIMMEN)
    made = []

    def keep(game, values, playouts="auto"):
        made.append(native_playouts(game, playouts) if playouts != "reference" else None)
        return made[-1]

    monkeypatch.setattr(analysis, "value_playouts", keep)
    for seed in (1, 2):
        native = analysis.trace_game(g, ["random"] * g.nplayers, seed, values=6)
        reference = analysis.trace_game(g, ["random"] * g.nplayers, seed, values=6, playouts="reference")
        # the same estimates, draw for draw; only who played the playouts (and stepped the game:
        # with reference playouts the game is traced by the reference interpreter) differs
        assert (native.pop("playouts"), reference.pop("playouts")) == ("native", "reference")
        assert (native.pop("engine"), reference.pop("engine")) == ("native", "reference")
        assert native == reference and len(native["trace"]) > 3
    # (traced natively, the rollouts start from copies of the stopped native state:
    # recycle/study/trace_native.py, not through the playouts object asked for here)
    assert made[0] is not None and made[1] is None


@pytest.mark.parametrize("max_steps", [100_000, 25])
def test_a_campaign_chunk_of_random_players_is_played_natively_with_the_same_rows(monkeypatch, max_steps):
    from recycle.study.campaign import job

    task = job.ChunkTask(
        "schwimmen", "base", "random", 0, 5, 0, 40, "schwimmen.rcy", SCHWIMMEN.read_text(), (), "random",
        max_steps, None, False,
    )  # fmt: skip
    native = job.native_rows(job.compiled(task), task)
    with_native = job.run_chunk(task)
    monkeypatch.setattr(job, "native_rows", lambda g, t: {})
    reference = job.run_chunk(task)
    assert with_native.error is None and with_native.columns == reference.columns
    limited = sum(s is not None for s in reference.columns["stopped_by"])
    assert len(native) == 40 - limited and (limited > 0) == (max_steps == 25)


def test_native_records_are_made_into_lists_only_when_read():
    g = recycle.load(SCHWIMMEN)
    stats = simulate(g, 300, seed=4, engine="native")
    assert stats.records is not None and stats.records._lists is None  # arrays so far
    ref = simulate(g, 300, seed=4, engine="reference")
    assert (stats.scores, stats.winners, stats.decision_counts) == (ref.scores, ref.winners, ref.decision_counts)
    assert simulate(g, 30, seed=4, engine="native", keep_records=False).scores == []
    assert "records" not in stats.to_dict() and stats.to_dict() == {
        **ref.to_dict(),
        **_timing(stats),
        "engine": "native",
    }


def _timing(stats) -> dict:
    return {"seconds": stats.seconds, "rollouts_per_second": stats.rollouts_per_second}


def test_simulate_shares_the_games_among_the_cores_by_default_and_says_so():
    from recycle.native.batch import cores

    runner = CliRunner()
    runs = {}
    for extra in ([], ["--threads", "1"], ["--threads", "3"]):
        r = runner.invoke(app, ["simulate", str(SCHWIMMEN), "-n", "700", "--json", *extra])
        assert r.exit_code == 0, r.output
        runs[tuple(extra)] = json.loads(r.stdout)
    assert [d["threads"] for d in runs.values()] == [cores(), 1, 3]
    timing = ("seconds", "rollouts_per_second", "threads")
    figures = [{k: v for k, v in d.items() if k not in timing} for d in runs.values()]
    assert figures[0] == figures[1] == figures[2]  # exactly: integer totals, added in order
    r = runner.invoke(app, ["simulate", str(SCHWIMMEN), "-n", "50", "--threads", "2"])
    assert "played by: native code, 2 threads" in r.stdout.splitlines()
    r = runner.invoke(app, ["simulate", str(SCHWIMMEN), "-n", "50", "--threads", "2", "--engine", "reference"])
    assert "played by: the reference interpreter" in r.stdout.splitlines()


def test_while_gcc_builds_tcc_s_library_plays_on_fewer_threads():
    """``_played_in_threads`` keeps no more chunks running than ``spans.playing`` says (one
    fewer than the cores while gcc -O2 builds: the build keeps a core), then all the threads."""
    import threading
    import time

    from recycle.native.batch import _Never, _played_in_threads

    class Spans:
        def __init__(self, playing):
            self.playing, self.spans = playing, iter([(i, i + 1) for i in range(8)])

        def __next__(self):
            return next(self.spans)

    lock, running, most = threading.Lock(), [0], [0]

    def play(a, b):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.02)  # (long enough for a second chunk to start, if one were let)
        with lock:
            running[0] -= 1
        return a

    got = [x for _, _, x in _played_in_threads(play, Spans(1), 2, _Never())]
    assert got == list(range(8)) and most[0] == 1
    most[0] = 0
    assert [x for _, _, x in _played_in_threads(play, Spans(2), 2, _Never())] == list(range(8))


def test_tcc_s_library_plays_on_every_thread_when_the_games_would_end_before_gcc_s(monkeypatch):
    """While gcc builds, tcc's library plays on one thread fewer than the cores, unless the games
    left, at the rate tcc's chunks have played so far on every thread, would end within the time
    gcc has built already (its library would come too late to matter)."""
    import time

    from recycle.native import batch

    monkeypatch.setattr(batch, "cores", lambda: 2)
    monkeypatch.setattr(batch, "_best_in_place", lambda game: False)
    monkeypatch.setattr(batch, "_build_started", lambda game: time.monotonic() - 1.0)  # a second ago
    spans = batch._Spans(None, 1000, batch.CHUNK, 2)
    assert spans.playing == 1  # nothing measured yet
    spans.played_fast(250, 5.0)  # 50 games a second: the 1,000 left take 10 s on two threads
    assert spans.playing == 1
    spans.played_fast(250, -4.9)  # now 500 games in 0.1 s: the 1,000 left take 0.1 s
    assert spans.playing == 2
    monkeypatch.setattr(batch, "_build_started", lambda game: None)  # no build under way
    assert spans.playing == 1
    assert batch._Spans(None, 1000, batch.CHUNK, 1).playing == 1  # one thread: always one
