"""The play screen of `recycle play` in the game's own words (``;@`` notes, recycle/lang/syntax/notes.py):
named options and hidden or labelled storages, forced moves, the order of the options, who gave
a hint, and where a quit game's record goes."""

import io

import recycle
from recycle.cli.play import PlaySession, Screen, Terminal
from recycle.cli.table import display_order, table_lines
from recycle.engine.public import player_view, public_options
from recycle.study.records import records_dir

from ..conftest import GAMES
from ..helpers import LAY


class Keys(Terminal):
    """A plain terminal answering every prompt from a script (then ``q``)."""

    def __init__(self, keys):
        super().__init__(io.StringIO(), io.StringIO(), tty=False)
        self.keys = list(keys)

    def ask(self, prompt):
        out = self.keys.pop(0) if self.keys else "q"
        print(prompt + out, file=self.stdout)
        return out


def play(text, keys, seat=0, specs=("human", "random")):
    g = recycle.loads(text, "lay.rcy")
    term = Keys(keys)
    session = PlaySession(term, g, "lay.rcy", seat, list(specs), deal=3)
    session.run(3)
    return term.stdout.getvalue()


def test_a_named_option_is_shown_by_its_name_and_hidden_storages_are_not():
    out = play(LAY, ["1"])
    first = out.split("Your choice")[0]
    # the name, then the card the option binds; not "move A-X from your HAND to PILE; set ..."
    assert "  1  lay: " in first and "  2  lay: " in first
    assert "move " not in first and "set " not in first
    # after the first turn: LAID is labelled, TURNS (hidden) appears nowhere
    assert "cards laid" in out and "TURNS" not in out and "LAID" not in out


def test_a_forced_move_is_told_as_forced():
    out = play(LAY, ["1"])
    # P0's second turn had one card left: never asked, told as forced in the last moves
    assert out.count("Your choice") == 1
    assert "  you   only one option: lay: " in out
    assert "  you   lay: " in out  # the chosen one, in the game's words, not forced


def test_hearts_passing_options_come_in_the_order_of_the_hand():
    g = recycle.load(str(GAMES / "hearts.rcy"))
    s = g.new_state(seed=7)
    while s.num_options() == 1:
        s.apply(0)
    view = player_view(s, 0)
    options = public_options(s, s.legal_options())
    order = display_order(view, options)
    shown = [options[k].words.split(": ")[1] for k in order]
    hand = next(line for line in table_lines(view, ["you"] * 4, 7) if "HAND (13)" in line)
    assert " ".join(shown) == " ".join(hand.split("HAND (13)")[1].split())
    assert [options[k].words for k in range(3)] != [options[k].words for k in order[:3]]  # they were not


def test_who_gave_the_hint():
    def who(specs):
        return Screen(Keys([]), None, [], specs, 1).adviser(0)

    assert who(["human", "random", "ismcts:300", "ismcts:300"]) == ("ismcts:300", "P2's ismcts:300")
    # ismcts:30 at the table: the hint is asked of a stronger one, which sits nowhere
    assert who(["human", "ismcts:30", "random"]) == ("ismcts:200", "an ismcts:200 adviser")
    assert who(["human", "random"]) == ("ismcts:200", "an ismcts:200 adviser")


def test_the_records_folder_is_in_the_users_data_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert records_dir() == tmp_path / "recycle" / "records"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/folder")  # not absolute: ignored, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert records_dir() == tmp_path / "home" / ".local" / "share" / "recycle" / "records"


def test_a_quit_games_replay_counts_the_decisions_made_once(tmp_path):
    from recycle.engine.transcript import transcript
    from recycle.study.records import read_record, replay

    game = tmp_path / "lay3.rcy"
    game.write_text(LAY.replace("(repeat 2 ", "(repeat 3 ").replace("(RANK (A, B))", "(RANK (A, B, C))"))
    g = recycle.load(str(game))
    out = tmp_path / "lay3.json"
    session = PlaySession(Keys(["1", "q"]), g, str(game), 0, ["human", "random"], deal=3, record=out)
    session.run(3)
    rec = read_record(out)
    assert rec["unfinished"] and len(rec["decisions"]) == 2  # P0's first, P1's; P0's second waited
    rp = replay(rec, record_path=out)
    assert not rp.problems
    # the transcript's count is the record's (and the summary's), not 3 with the one waiting
    assert transcript(rp.game, rp.result)[-1].startswith("Stopped after 2 decisions,")
