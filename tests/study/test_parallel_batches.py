"""Batches of games sent to worker processes (recycle/study/parallel.py): sized by how long the
games take, so that a run of slow games (look-ahead players: seconds or minutes a game) hands
back each game as it ends instead of holding a deal's results until a whole batch of games is
played (``recycle duplicate --workers 2`` once showed no deal finished after 10 minutes)."""

from __future__ import annotations

import recycle
from recycle.study.parallel import map_games

from ..conftest import GAMES


def _echo(game, seed: int) -> tuple:
    return (game.name, seed)


def test_the_first_batch_is_one_game_and_the_results_are_in_order():
    game = recycle.load(GAMES / "schwimmen.rcy")
    told: list[int] = []
    items = [(k,) for k in range(48)]
    out = map_games(game, _echo, items, workers=2, progress=told.append)
    assert out == [("schwimmen", k) for k in range(48)]
    # (the batches were of 3 games each: 48 items // (2 workers * 8))
    assert told[0] == 1 and told[-1] == 48


def test_batch_size_follows_the_pace_of_the_games():
    from recycle.study.parallel import BATCH_SECONDS, batch_size

    assert batch_size(0, 0.0, 2, 64) == 1  # nothing back yet: one game
    # 100 games in 1 s over 2 workers: 0.02 s a game, BATCH_SECONDS' worth each
    assert batch_size(100, 1.0, 2, 64) == int(BATCH_SECONDS / 0.02)
    assert batch_size(100, 1.0, 2, 8) == 8  # never past the cap
    assert batch_size(4, 40.0, 2, 64) == 1  # 20 s a game: one at a time


def _slow_echo(game, seed: int, folder: str) -> int:
    import time
    from pathlib import Path

    Path(folder, f"{seed}.started").touch()
    # the first game ends only once the other worker has started a game (however slowly the
    # workers came up), so that a game is in play when the time limit comes
    deadline = time.monotonic() + 60
    while seed == 0 and len(list(Path(folder).glob("*.started"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)  # a game that takes a while (not measured: the order of results is what matters)
    return seed


def test_games_started_before_the_time_limit_are_played_out_with_workers(tmp_path):
    """The time limit comes with the first result: the game the other worker is playing is
    not thrown away (it was, so a run of slow games could report no deal at all)."""
    from recycle.study.stopping import Stop

    class AfterFirstResult(Stop):
        seen = 0

        def __call__(self) -> bool:
            return self.seen >= 1

    game = recycle.load(GAMES / "schwimmen.rcy")
    stop = AfterFirstResult()
    out = map_games(
        game,
        _slow_echo,
        [(k, str(tmp_path)) for k in range(8)],
        workers=2,
        progress=lambda d: setattr(stop, "seen", d),
        stop=stop,
    )
    assert len(out) >= 2 and out == list(range(len(out)))
