"""`recycle play`: a person against the computer players, driven through a real
pseudo-terminal (pexpect) with scripted keys, and in-process checks that the person sees
no card hidden from their seat and that a hint uses only the seat's information."""

import io
import json
import os
import random
import re
import subprocess
import sys

import pexpect
import pytest

import recycle
from recycle.cli.play import PlaySession, Terminal, seat_specs
from recycle.engine.knowledge import determinize
from recycle.lang.forms.values import MoveEvent, may_see
from recycle.players import make_player, make_players
from recycle.players.human import HumanPlayer, hint, strongest

from ..conftest import CORPUS, GAMES, ROOT, requires_corpus

SCHWIMMEN = str(GAMES / "schwimmen-lives.rcy")
HEARTS = str(GAMES / "hearts.rcy")
PROMPT = r"Your choice \(1-(\d+), h, u, r, q\): "
AGAIN = r"Play again\? a = deal"
PAUSE = r"Press Enter for round \d+ \(q quits\) "  # a round's end, on a terminal
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
DECISION = re.compile(r"decision (\d+) · you are")


def spawn(*args, cwd=None, env=None):
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8", **(env or {})}
    env.pop("NO_COLOR", None)
    return pexpect.spawn(
        sys.executable,
        ["-m", "recycle", "play", *args],
        cwd=cwd,
        env=env,
        encoding="utf-8",
        dimensions=(70, 160),
        timeout=120,
    )


def plain(text: str) -> str:
    return ANSI.sub("", text).replace("\r", "")


def play_to_end(child, key="1", limit=3000):
    """Answer every decision with ``key`` (and Enter at a round's end) until the game-over
    offer; the screens seen."""
    screens = []
    for _ in range(limit):
        got = child.expect([PROMPT, AGAIN, PAUSE])
        screens.append(plain(child.before))
        if got == 1:
            return screens
        child.sendline(key if got == 0 else "")
    raise AssertionError("the game did not end")


def next_prompt(child):
    """Wait for the next decision, pressing Enter at a round's end on the way."""
    while child.expect([PROMPT, PAUSE]) == 1:
        child.sendline("")


def replay(path):
    # the records are written outside the games' folder: it is named, as `play` says to
    return subprocess.run(
        [sys.executable, "-m", "recycle", "replay", str(path), "--game-folder", str(GAMES)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


# -- through a real terminal ----------------------------------------------------------------


@pytest.mark.slow  # (3-4 s: the fast suite must stay under 5 minutes on 2 cores)
def test_a_whole_game_of_schwimmen_through_a_terminal(tmp_path):
    out = tmp_path / "swim.json"
    child = spawn(SCHWIMMEN, "--deal", "2", "--players", "random", "--record", str(out))
    screens = play_to_end(child)
    end = screens[-1]
    assert "game over" in end and "Every card now, revealed" in end
    assert "The deal of every round, revealed (at its first decision):" in end and "  Round 2 (decision " in end
    assert re.search(r"Winner: P\d|Tie for first: ", end)
    assert f"Game record saved to {out}" in end
    first = screens[0]
    # the screen: your hand by name, the others as counts, whose deal, the options in words
    # deal 2: P2 draws the highest card and deals, so P0 first chooses at the third decision
    assert "schwimmen-lives · deal #2 · decision 3 · you are P0" in first
    assert re.search(r"You, P0 +HAND \(3\)  \S+[♠♥♦♣]", first)
    assert "P1 random      HAND 3 cards" in first
    # in the game's own words (its ;@ notes): no "set PASS to 1", no bookkeeping storages
    assert "  1  pass\n" in first and "  3  swap: 8♠ for 9♠\n" in first
    assert "  12  knock (everybody else gets one more turn)" in first
    assert "PASS" not in first and not re.search(r"\b(SEATS?|ALIVE|STARTED|BEST|LOW)\b", first)
    assert "P1 random      HAND 3 cards · lives 3\n" in first
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    rec = json.loads(out.read_text())
    assert rec["players"] == ["human", "random", "random", "random"] and rec["seed"] == 2 and rec["winners"]
    r = replay(out)
    assert r.returncode == 0, r.stderr
    assert "replay identical to the record: deal #2" in r.stderr


@pytest.mark.slow  # (over 7 s: the fast suite stays under 5 minutes)
def test_a_game_of_hearts_to_the_end_then_the_same_deal_again(tmp_path):
    out = tmp_path / "hearts.json"
    child = spawn(HEARTS, "--seat", "2", "--deal", "4711", "--players", "random", "--record", str(out))
    screens = play_to_end(child, limit=5000)
    assert "hearts · deal #4711 · decision" in screens[0] and "you are P2" in screens[0]
    # the cards to pass are listed in the order of the hand as shown
    hand = re.search(r"You, P2 +HAND \(13\)  (.*)", screens[0]).group(1).split()
    assert re.findall(r"^ +\d+  pass: (\S+)$", screens[0], re.M) == hand
    assert "  1  pass: " in screens[0] and "your HAND to your PASS" not in screens[0]
    assert "passing to the right" in screens[0] and "SHIFT" not in screens[0]
    assert "Final scores: P0 random" in screens[-1]
    child.sendline("a")  # the same deal again: the same first screen
    child.expect(PROMPT)
    assert DECISION.search(plain(child.before)).group(1) == DECISION.search(screens[0]).group(1)
    assert re.search(r"You, P2 +HAND \(13\).*", plain(child.before)).group(0) == re.search(
        r"You, P2 +HAND \(13\).*", screens[0]
    ).group(0)
    child.sendline("q")
    child.expect(pexpect.EOF)
    rec = json.loads(out.read_text())
    assert rec["players"][2] == "human" and len(rec["scores"]) == 4
    assert replay(out).returncode == 0


def test_undo_hint_bad_key_and_record(tmp_path):
    child = spawn(SCHWIMMEN, "--deal", "11", "--players", "random", "--record", str(tmp_path / "r.json"))
    child.expect(PROMPT)
    first = plain(child.before)
    d1 = DECISION.search(first).group(1)
    child.sendline("2")
    child.expect(PROMPT)
    d2 = DECISION.search(plain(child.before)).group(1)
    assert d2 != d1
    # a bad key: a clear message, the same decision waiting, nothing lost
    child.sendline("x")
    child.expect(PROMPT)
    screen = plain(child.before)
    assert "'x' is not a key here: type the number of an option" in screen
    assert DECISION.search(screen).group(1) == d2
    child.sendline("99")
    child.expect(PROMPT)
    assert "there is no option 99" in plain(child.before)
    # a hint: the strongest player's choice and a chance of winning for each option
    child.sendline("h")
    child.expect(PROMPT)
    screen = plain(child.before)
    # random players at the table: the hint comes from an adviser, and the screen says so
    assert re.search(r"hint from an ismcts:200 adviser: \d+\. ", screen)
    assert "(estimated chance of winning, its likely range and its tries, from an ismcts:200 adviser)" in screen
    # each figure with its interval and its tries (issue 40.6): a bare 0% read as a certainty
    assert re.search(r"^\s+1\s+(\d+% \(\d+-\d+%, (only )?\d+ tr(y|ies)(: a guess)?\)|not tried)", screen, re.M)
    assert "<- hint" in screen
    # the record so far, as the seat saw it
    child.sendline("r")
    child.expect("Press Enter")
    assert "The game so far, as you saw it:" in plain(child.before)
    child.sendline("")
    child.expect(PROMPT)
    # undo: back at the first decision, the same hand
    child.sendline("u")
    child.expect(PROMPT)
    screen = plain(child.before)
    assert "took back your last decision" in screen
    assert DECISION.search(screen).group(1) == d1
    hand = re.compile(r"You, P0 +HAND.*")
    assert hand.search(screen).group(0) == hand.search(first).group(0)
    child.sendline("u")
    child.expect(PROMPT)
    assert "nothing to undo" in plain(child.before)
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_undo_then_the_record_replays(tmp_path):
    out = tmp_path / "undo.json"
    child = spawn(SCHWIMMEN, "--deal", "5", "--players", "greedy:1,random", "--record", str(out))
    for key in ("2", "1", "u", "3", "u", "u", "1", "2"):
        next_prompt(child)  # deal 5's first round ends on the way
        child.sendline(key)
    next_prompt(child)
    child.sendline("q")
    child.expect(pexpect.EOF)
    rec = json.loads(out.read_text())
    assert rec["unfinished"] is True
    mine = [d["chosen"] for d in rec["decisions"] if d["player"] == 0 and d["options"] > 1]
    assert mine == [0, 1]
    r = replay(out)
    assert r.returncode == 0, r.stderr
    assert "unfinished" in r.stderr


@pytest.mark.slow  # (5-6 s: the fast suite must stay under 5 minutes on 2 cores)
def test_quit_saves_into_the_records_folder_and_the_record_replays(tmp_path):
    # not into the current folder (in a checkout it shows in `git status`): the user's data folder
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    child = spawn(HEARTS, "--deal", "99", "--players", "random", cwd=work, env={"XDG_DATA_HOME": str(data)})
    for key in ("1", "1", "1", "1"):
        child.expect(PROMPT)
        child.sendline(key)
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(pexpect.EOF)
    text = plain(child.before).replace("\n", "")
    saved = data / "recycle" / "records" / "hearts-deal-99.json"
    assert "you quit at decision" in text and f"saved to {saved}" in text
    assert list(work.iterdir()) == []
    rec = json.loads(saved.read_text())
    assert rec["unfinished"] and rec["scores"] == [] and len(rec["decisions"]) >= 4
    r = replay(saved)
    assert r.returncode == 0, r.stderr
    # one count of the decisions made, in the transcript and in the summary
    n = len(rec["decisions"])
    assert f"Stopped after {n} decisions," in r.stdout
    assert f"replay identical to the record: deal #99, {n} decisions, unfinished" in r.stderr


def test_end_of_input_saves_the_game(tmp_path):
    out = tmp_path / "eof.json"
    child = spawn(SCHWIMMEN, "--deal", "3", "--players", "random", "--record", str(out))
    child.expect(PROMPT)
    child.sendline("2")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    assert "end of input at decision" in plain(child.before)
    assert json.loads(out.read_text())["unfinished"] is True
    assert replay(out).returncode == 0


def test_the_first_screen_shows_none_of_the_others_cards(tmp_path):
    out = tmp_path / "peek.json"
    child = spawn(HEARTS, "--deal", "31", "--players", "random", "--record", str(out))
    child.expect(PROMPT)
    screen = plain(child.before)
    child.sendline("q")
    child.expect(pexpect.EOF)
    deal = json.loads(out.read_text())["deal"]
    others = [c for label in ("HAND(P1)", "HAND(P2)", "HAND(P3)") for c in deal[label]]
    assert len(others) == 39
    mine = deal["HAND(P0)"]
    assert all(re.search(rf"(?<![0-9]){re.escape(c)}", screen) for c in mine)
    assert not [c for c in others if re.search(rf"(?<![0-9]){re.escape(c)}", screen)]


# -- plain lines when standard input is not a terminal --------------------------------------


def test_plain_lines_when_stdin_is_not_a_terminal(tmp_path):
    keys = "1\n" * 3000 + "q\n"
    r = subprocess.run(
        [sys.executable, "-m", "recycle", "play", SCHWIMMEN, "--deal", "7", "--players", "random"],
        input=keys,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "\x1b[" not in r.stdout
    assert "  1  pass" in r.stdout and "game over" in r.stdout
    assert not list(tmp_path.glob("*.json"))  # a finished game is saved only with --record


def test_run_with_a_human_seat_asks_at_the_terminal():
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "recycle",
            "run",
            str(GAMES / "schwimmen.rcy"),
            "--seed",
            "7",
            "--players",
            "human,random",
        ],
        input="1\n" * 200,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "Your choice (1-" in r.stdout and "Final scores: " in r.stdout


@pytest.mark.slow  # (5-7 s: the fast suite stays under 5 minutes on 2 cores)
def test_bad_arguments_are_refused():
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "recycle", *args], capture_output=True, text=True, cwd=ROOT, timeout=120, input=""
        )

    r = run("play", SCHWIMMEN, "--seat", "4")
    assert r.returncode == 2 and "has seats 0 to 3" in r.stderr
    r = run("play", SCHWIMMEN, "--players", "random,human")
    assert r.returncode == 2 and "computer players" in r.stderr
    r = run("play", SCHWIMMEN, "--players", "wizard")
    assert r.returncode == 2 and "unknown player" in r.stderr
    r = run("simulate", SCHWIMMEN, "-n", "2", "--players", "human,random")
    assert r.returncode == 2 and "a person plays one game at a time" in r.stderr


# -- in process: the player kind, no peeking, hints -------------------------------------------


def test_human_is_a_player_kind_with_an_interface():
    assert isinstance(make_player("human"), HumanPlayer)
    with pytest.raises(ValueError, match="takes no budget"):
        make_player("human:3")
    seen = []

    def ui(view, options):
        seen.append((view.player, len(options)))
        return len(options) - 1

    g = recycle.load(str(GAMES / "schwimmen.rcy"))
    players = make_players("human,random", g.nplayers)
    players[0].ui = ui
    result = g.play(players, seed=4)
    assert seen and all(p == 0 for p, _ in seen) and result.winners
    with pytest.raises(ValueError, match="needs an interface"):
        g.play(make_players("human,random", g.nplayers), seed=4)


def test_seat_specs_and_the_hint_player():
    assert seat_specs("pimc:200", 4, 2) == ["pimc:200", "pimc:200", "human", "pimc:200"]
    assert seat_specs("greedy,random", 4, 0) == ["human", "greedy", "random", "random"]
    assert seat_specs(None, 3, 1)[1] == "human"
    assert seat_specs("greedy,human,pimc", 3, 1) == ["greedy", "human", "pimc"]
    assert strongest(["human", "random", "pimc:50", "ismcts:20", "ismcts:300"]) == "ismcts:300"
    assert strongest(["human", "pimc:50", "ismcts"]) == "ismcts:200"
    assert strongest(["human", "pimc:500", "random"]) == "pimc:500"
    assert strongest(["human", "omniscient:500", "greedy"]) == "ismcts:200"  # never the cheat


class CheckingTerminal(Terminal):
    """A plain terminal whose keys come from a script and which checks, at every prompt,
    that nothing printed names a card the seat has never been able to see."""

    def __init__(self, keys, rng):
        super().__init__(io.StringIO(), io.StringIO(), tty=False)
        self.keys = list(keys)
        self.rng = rng
        self.session = None
        self.mark = 0
        self.checked = 0

    def ask(self, prompt):
        text = self.stdout.getvalue()[self.mark :]
        self.mark = len(self.stdout.getvalue())
        s = self.session.state
        if prompt.startswith("Your choice"):
            self.check(text, s)
            if self.keys:
                return self.keys.pop(0)
            n = int(re.search(r"1-(\d+)", prompt).group(1))
            return str(self.rng.randrange(n) + 1)
        return "q"

    def check(self, text, s):
        g = s.game
        me = self.session.seat
        infos = g.layout.infos
        seen = set()
        for i, lst in enumerate(s.locs):
            if lst and may_see(infos[i], me, s.team_of):
                seen.update(int(c) for c in lst)
        for ev in self.session.events:
            if isinstance(ev, MoveEvent) and any(
                x is not None and may_see(infos[x], me, s.team_of) for x in (ev.src, ev.dst)
            ):
                seen.add(ev.card)
        # a card whose name another card it has seen also bears (Coup's ASSASSINs) cannot be told apart
        seen_names = {g.card_name(c) for c in seen}
        never = [c for c in range(len(s.card_loc)) if c not in seen and g.card_name(c) not in seen_names]
        leaked = [
            g.card_name(c)
            for c in never
            if re.search(rf"(?<![0-9A-Za-z]){re.escape(g.card_name(c))}(?![0-9A-Za-z])", text)
        ]
        assert not leaked, f"cards hidden from P{me} printed: {leaked}"
        self.checked += 1


@pytest.mark.parametrize(
    "path,seat,keys,prompts",
    [
        (SCHWIMMEN, 1, ["h", "r", "2", "u", "x"], 20),
        (HEARTS, 3, ["r", "h", "5", "u", "3"], 20),
        # an option that draws from the stock and discards from the hand once named the drawn cards
        pytest.param(str(CORPUS / "Coup4.rcy"), 0, [], 10, marks=[requires_corpus(), pytest.mark.slow]),  # 5 s
    ],
)
def test_no_card_hidden_from_the_seat_is_ever_printed(path, seat, keys, prompts):
    g = recycle.load(path)
    term = CheckingTerminal(keys, random.Random(seat))
    specs = seat_specs("random", g.nplayers, seat)
    session = PlaySession(term, g, path, seat, specs, deal=17)
    term.session = session
    session.run(17)
    assert session.state.is_terminal() and term.checked > prompts
    assert "game over" in term.stdout.getvalue()


def test_a_hint_uses_only_the_seats_information():
    g = recycle.load(HEARTS)
    s = g.new_state(seed=8, track=True)
    rng = random.Random(2)
    while s.current_player() != 0 or s.decisions < 20:  # into the tricks, P0 to play
        s.apply(rng.randrange(s.num_options()))
    other = s.clone(track=True)
    determinize(other, 0, random.Random(5), other.known_locations(0))
    hidden = [i for i, info in enumerate(g.layout.infos) if s.locs[i] and not may_see(info, 0, s.team_of)]
    assert any(s.locs[i] != other.locs[i] for i in hidden)  # another world, the same to P0
    a = hint(s.observation(0), s.legal_options(), "ismcts:40", seed=3)
    b = hint(other.observation(0), other.legal_options(), "ismcts:40", seed=3)
    assert (a.choice, a.chances) == (b.choice, b.chances)


def test_the_screen_in_docs_play_is_the_programs(tmp_path):
    doc = (ROOT / "docs" / "play.md").read_text()
    block = re.search(r"```text\n( schwimmen-lives · deal #7 .*?)\n```", doc, re.S).group(1)
    r = subprocess.run(
        [sys.executable, "-m", "recycle", "play", SCHWIMMEN, "--deal", "7", "--record", str(tmp_path / "r.json")],
        input="2\n3\nq\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    shown = [line.rstrip() for line in r.stdout.splitlines()]
    lines = block.splitlines()[:-1]  # the prompt line ends the block
    start = shown.index(lines[0].rstrip())
    assert shown[start : start + len(lines)] == [line.rstrip() for line in lines]


def test_play_with_another_number_of_players(tmp_path):
    eights = str(GAMES / "crazy-eights.rcy")
    r = subprocess.run(
        [sys.executable, "-m", "recycle", "play", eights, "-p", "2", "--deal", "3", "--players", "random"],
        input="1\nq\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "P1 random      HAND 7 cards" in r.stdout and "P2" not in r.stdout
    assert "note: 2 players (--num-players): a record replays the game file as it is" in r.stderr
    assert list(tmp_path.iterdir()) == []  # no record of a game that is not the file as it is
    r = subprocess.run(
        [sys.executable, "-m", "recycle", "play", eights, "-p", "2", "--record", "x.json"],
        input="q\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert r.returncode == 2 and "cannot be used with --num-players" in r.stderr


def test_play_is_native_by_default_says_so_once_and_decides_as_the_reference():
    """`recycle play` steps the game natively when it builds here (``auto``, the default), its
    first screen says which engine plays (once), and the same deal, keys and players give the
    same screens but that line, and the same record, as ``--engine reference``."""
    pytest.importorskip("numpy")
    from recycle.env.engines import is_native
    from recycle.native import available

    if not available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    path = SCHWIMMEN
    g = recycle.load(path)
    out = {}
    for engine in ("auto", "reference"):
        keys = "\n".join(["2", "h", "1", "3", "1", "q"]) + "\n"
        term = Terminal(io.StringIO(keys), io.StringIO(), tty=False)
        specs = seat_specs("pimc:8,random", g.nplayers, 0)
        session = PlaySession(term, g, path, 0, specs, 5, engine=engine)
        session.run(5)
        out[engine] = (term.stdout.getvalue(), session.recorder.decisions, is_native(session.state))
    text, decisions, native = out["auto"]
    ref_text, ref_decisions, ref_native = out["reference"]
    assert native and not ref_native
    assert text.count("played by: native code") == 1
    assert ref_text.count("played by: the reference interpreter (asked for)") == 1
    assert text.replace("played by: native code", "") == ref_text.replace(
        "played by: the reference interpreter (asked for)", ""
    )
    assert decisions == ref_decisions and len(decisions) > 4
    assert "hint from" in text
