"""Long runs under accidents: a worker process killed, Ctrl-C, look-ahead players in a game
that never ends, an output that cannot be written (issue 25, items 9 to 12).

Every command is run as a subprocess with a safety-net timeout, so that a hang fails the
test instead of stalling the suite; no test asserts on elapsed time.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import recycle
from recycle.engine.game import DEFAULT_MAX_WORK, loads
from recycle.errors import StepLimitExceeded
from recycle.players import make_players
from recycle.study.stats import simulate

from ..conftest import CORPUS, GAMES

SAFETY = float(os.environ.get("RECYCLE_TEST_SAFETY", "240"))  # seconds: only ever reached when something hangs
SCHWIMMEN = str(GAMES / "schwimmen.rcy")
WAR = str(GAMES / "war.rcy")
KUHN = CORPUS / "KuhnPoker2.rcy"
LINUX = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")
# a game that never ends, with a real choice at every turn
FOREVER = """(game (setup (create players 2) (create deck (game iloc S) (deck (R (A B)))))
 (stage player (end (== 1 2))
   (choice ((turn pass) ((== 1 1) (turn pass)))))
 (scoring max 0))
"""


def _env():
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(Path(recycle.__file__).parent.parent), os.environ.get("PYTHONPATH", "")]),
    )


def _start(*args, **kw):
    """``python -m recycle ARGS`` in a process group of its own, with SIGINT's default action
    (a shell starts background jobs with SIGINT ignored; Python then never raises it)."""

    def child():
        os.setpgrp()
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    return subprocess.Popen(
        [sys.executable, "-m", "recycle", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        preexec_fn=child,  # noqa: PLW1509 - no threads here
        **kw,
    )


def _finish(p):
    try:
        return p.communicate(timeout=SAFETY)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail("the command hung")


def _stat(pid: int):
    """(parent pid, CPU seconds) of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _workers(pid: int) -> list[int]:
    """The worker processes of ``pid`` (not multiprocessing's resource tracker)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if _stat(int(d.name))[0] == pid and b"spawn_main" in (d / "cmdline").read_bytes():
                    out.append(int(d.name))
            except (OSError, IndexError):
                pass
    return out


def _wait_for(test, what: str):
    """Poll until ``test()`` is true (the safety net only fails a hang)."""
    end = time.monotonic() + SAFETY
    while not test():
        if time.monotonic() > end:
            pytest.fail(f"never saw {what}")
        time.sleep(0.05)


def _busy_workers(p, cpu: float = 1.0) -> list[int]:
    """Wait until ``p``'s two workers have played for ``cpu`` seconds of CPU; their pids.
    (A worker's start, imports and the game's compile, takes about 0.4 s of CPU: the second
    half of the second is play.)"""
    found = []

    def ready():
        assert p.poll() is None, p.communicate()
        found[:] = _workers(p.pid)
        return len(found) == 2 and all(_cpu(w) >= cpu for w in found)

    _wait_for(ready, "two busy workers")
    return found


def _cpu(pid: int) -> float:
    try:
        return _stat(pid)[1]
    except (OSError, IndexError):
        return 0.0


def _figures(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in ("seconds", "rollouts_per_second", "engine", "threads")}


# -- 9: a worker killed -------------------------------------------------------------------


@LINUX
@pytest.mark.slow  # ~20 s of waiting for a killed worker's chunk to be played again
@pytest.mark.skipif(not KUHN.exists(), reason="needs the shared corpus")
def test_a_killed_worker_costs_nothing_but_time():
    n = 300_000
    # the reference interpreter: natively (a warm cache) the run can end before a worker is seen busy
    p = _start("simulate", KUHN, "-n", n, "--workers", 2, "--json", "--engine", "reference")
    victim = _busy_workers(p)[0]
    os.kill(victim, signal.SIGKILL)
    out, err = _finish(p)
    assert p.returncode == 0, err
    assert "Traceback" not in err
    undisturbed = simulate(recycle.load(KUHN), n, 0, keep_records=False)
    assert _figures(json.loads(out)) == _figures(undisturbed.to_dict())


DYING_JOB = """
import os, signal
from recycle.study.analysis import outcome

def job(game, marker, always, specs, seed, max_steps):
    # the first task run (or every one, with always) kills its own worker
    if always or not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return outcome(game, specs, seed, max_steps)
"""

MAP_SCRIPT = """
import json, sys
import recycle
from recycle.study.parallel import map_games
import dying

if __name__ == "__main__":  # the workers import this file again
    game = recycle.load(sys.argv[1])
    items = [(sys.argv[2], sys.argv[3] == "always", ["random"] * game.nplayers, seed, 100_000) for seed in range(40)]
    print(json.dumps(map_games(game, dying.job, items, workers=2)))
"""


def _map_with_deaths(tmp_path, always: bool):
    (tmp_path / "dying.py").write_text(DYING_JOB)
    script = tmp_path / "run_map.py"
    script.write_text(MAP_SCRIPT)
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    p = subprocess.Popen(
        [sys.executable, str(script), SCHWIMMEN, str(tmp_path / "marker"), "always" if always else "once"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=os.setpgrp,  # noqa: PLW1509 - no threads here
    )
    return p, _finish(p)


def test_the_task_of_a_dead_worker_is_run_again(tmp_path):
    """What analyze and duplicate run on (map_games): a worker that dies mid-task (here it
    kills itself) is replaced, and the results are those of an undisturbed run."""
    from recycle.study.analysis import outcome

    p, (out, err) = _map_with_deaths(tmp_path, always=False)
    assert p.returncode == 0, err
    assert (tmp_path / "marker").exists()  # a worker did die
    game = recycle.load(SCHWIMMEN)
    expected = [outcome(game, ["random"] * game.nplayers, seed, 100_000) for seed in range(40)]
    assert json.loads(out) == json.loads(json.dumps(expected))


def test_workers_that_keep_dying_stop_the_run(tmp_path):
    p, (_out, err) = _map_with_deaths(tmp_path, always=True)
    assert p.returncode == 1 and "WorkersLost" in err and "worker processes died 5 times" in err


# -- 10: Ctrl-C ---------------------------------------------------------------------------


@LINUX
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("as_json", [False, pytest.param(True, marks=pytest.mark.slow)])  # (4 s each)
def test_ctrl_c_reports_the_games_played(workers, as_json):
    n = 2_000_000
    p = _start("simulate", SCHWIMMEN, "-n", n, "--workers", workers, *(["--json"] if as_json else []))
    if workers == 1:
        _wait_for(lambda: _cpu(p.pid) >= 2.0, "the games under way")  # loading takes well under 1 s
    else:
        _busy_workers(p)
    os.killpg(p.pid, signal.SIGINT)  # as a terminal does: the whole process group
    out, err = _finish(p)
    assert p.returncode == 130, err
    assert "Traceback" not in err + out and "Process Spawn" not in err + out
    text = err if as_json else out
    line = next(x for x in text.splitlines() if x.startswith("interrupted after "))
    played = int(line.split()[2].replace(",", ""))
    assert 0 < played < n and line.endswith(f" of {n:,} games")
    if as_json:
        d = json.loads(out)
        assert d["stopped"] == "interrupted" and d["played"] == played
        # the games reported are the first ones of the run, as with --timeout
        assert _figures(d) == _figures(
            dict(
                simulate(recycle.load(SCHWIMMEN), played, 0, keep_records=False).to_dict(),
                games=n,
                stopped="interrupted",
            )
        )
    else:
        assert "win rate" in out


# -- 11: look-ahead players in a game that never ends --------------------------------------------


@pytest.mark.parametrize("players", ["ismcts:50", "pimc:40"])
def test_look_ahead_in_a_game_that_never_ends_stops_on_the_work_budget(tmp_path, players):
    game = tmp_path / "forever.rcy"
    game.write_text(FOREVER)
    p = _start("run", game, "--players", players, "--max-work", 300_000)
    _out, err = _finish(p)
    assert p.returncode == 1 and "Traceback" not in err
    assert "the game's work budget of 300,000 units was used up by the look-ahead players' simulations" in err
    assert "raise it with --max-work" in err


def test_the_default_work_budget_is_spent_by_look_ahead_in_a_game_that_never_ends():
    game = loads(FOREVER, "forever")
    with pytest.raises(
        StepLimitExceeded, match=f"work budget of {DEFAULT_MAX_WORK:,} units was used up by the look-ahead"
    ):
        game.play(make_players("ismcts:200", 2), seed=1)


def test_look_ahead_that_reaches_the_end_costs_the_game_nothing():
    """A game that ends: the simulations are the players' own business (Hearts with
    ismcts:300 does about 70 million units of look-ahead per decision)."""
    game = recycle.load(SCHWIMMEN)
    s = game.new_state(3, track=True)
    before = s.work
    player = make_players("ismcts:30", game.nplayers)[0]
    player.choose(s.observation(s.current_player()), s.legal_options(), random.Random(1))
    assert s.work == before


# -- 12: an output that cannot be written ---------------------------------------------------------


def _commands(tmp_path):
    record = tmp_path / "war.json"
    subprocess.run(
        [sys.executable, "-m", "recycle", "run", WAR, "--record", record], env=_env(), check=True, capture_output=True
    )
    return [
        ["players"],
        ["--version"],
        ["--help"],
        ["check", WAR],
        ["tree", WAR],
        ["run", WAR],
        ["run", WAR, "--json"],
        ["simulate", WAR, "-n", "5"],
        ["simulate", WAR, "-n", "5", "--json"],
        ["analyze", WAR, "-n", "3", "--json"],
        ["analyze", WAR, "-n", "3", "--csv"],
        ["duplicate", WAR, "--players", "random", "--deals", "2"],
        ["graph", WAR],
        ["compile", WAR],
        ["replay", record, "--game-folder", Path(WAR).parent],
    ]


@pytest.mark.slow  # (over 7 s: the fast suite stays under 5 minutes)
def test_an_output_that_cannot_be_written_is_an_error(tmp_path):
    def full_and_closed(args):
        with open("/dev/full", "w") as full:
            to_full = subprocess.run(
                [sys.executable, "-m", "recycle", *map(str, args)],
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(),
                timeout=SAFETY,
            )
        # stdout closed (`>&-`): Python has no sys.stdout at all
        closed = subprocess.run(
            ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "recycle", *map(str, args)],
            capture_output=True,
            text=True,
            env=_env(),
            timeout=SAFETY,
        )
        return to_full, closed

    commands = _commands(tmp_path)
    with ThreadPoolExecutor(4) as pool:  # the commands are independent: run a few at once
        results = list(pool.map(full_and_closed, commands))
    for args, (r, closed) in zip(commands, results):
        assert r.returncode == 1, args
        assert r.stderr.splitlines()[-1] == "error: cannot write the output: No space left on device", (args, r.stderr)
        assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, args
        assert closed.returncode == 1, args
        assert closed.stderr.splitlines()[-1] == "error: cannot write the output: the standard output is closed", (
            args,
            closed.stderr,
        )
