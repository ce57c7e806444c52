"""(indexed OWNER KIND NAME), a family of locations as a collection (issue 41, the first of its two
new forms): its members in order up to the highest one holding a card, with the empty ones below
it; any, all, filter and size over it; its errors; and tests/lang/dialect/rummy.rcy, a small
Rummy laying off with it, to the letter for a fixed seed and with every card kept."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

import recycle
from recycle.cli import app

from ..conftest import ConservationCheck

DIALECT = Path(__file__).resolve().parent / "dialect"
RUMMY = DIALECT / "rummy.rcy"
DECK = "(deck (RANK (A, B, C)) (SUIT (X, Y)))"
runner = CliRunner()


def game(body: str, engine: str = "reference"):
    return recycle.loads(
        f"""(game
 (setup (create players 3) (create deck (game iloc STOCK) {DECK}))
 {body}
 (scoring max 0))""",
        "t.rcy",
        engine=engine,
    )


def stos(state, *names):
    return [state.sto("game", n) for n in names]


def test_the_members_run_up_to_the_highest_holding_a_card_with_the_empty_ones_below():
    s = (
        game("""(do (
 (move (top (game iloc STOCK)) (top (game vloc RUN 2)))
 (move (top (game iloc STOCK)) (top ((1 player) vloc RUN 0)))
 (set (game sto N) (size (indexed game vloc RUN)))
 (set (game sto M) (size (indexed (1 player) vloc RUN)))
 (set (game sto Z) (size (indexed (2 player) vloc RUN)))
 (set (game sto F) (size (filter (indexed game vloc RUN) 'L (> (size 'L) 0))))
 (all (indexed game vloc RUN) 'L (inc (game sto SEEN) (+ 1 (size 'L))))
 (all (indexed game vloc RUN) 'L ((> (size 'L) 0) (move (top 'L) (top (game vloc RUN 0)))))
 (set (game sto AFTER) (size (indexed game vloc RUN)))))""")
        .play(seed=0)
        .state
    )
    # RUN[0] (empty), RUN[1] (never named before: empty), RUN[2]; each owner its own family
    assert stos(s, "N", "M", "Z", "F", "SEEN", "AFTER") == [3, 1, 0, 1, 4, 1]
    assert len(s.location("game", "vloc", "RUN[0]")) == 1 and s.location("game", "vloc", "RUN[2]") == []


def test_any_in_a_choice_offers_one_option_per_member_and_binds_the_location():
    g = game("""(do (
 (move (top (game iloc STOCK)) (top (game vloc SET (game sto K))))
 (inc (game sto K))
 (move (top (game iloc STOCK)) (top (game vloc SET (game sto K))))))
 (choice ((any (indexed game vloc SET) 'S (move (top (game iloc STOCK)) (top 'S)))))""")
    s = g.new_state(seed=0)
    assert len(s.legal_options()) == 2
    s.apply(1)
    assert len(s.location("game", "vloc", "SET[1]")) == 2 and len(s.location("game", "vloc", "SET[0]")) == 1


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ("(indexed game RUN)", "t.rcy:3:31: error: expected (indexed OWNER KIND NAME), as in (indexed game vloc RUN)"),
        ("(indexed game vloc 'X)", "t.rcy:3:50: error: expected the NAME of a family of locations, got 'X"),
        ("(indexed game pile RUN)", "t.rcy:3:31: error: expected (indexed OWNER KIND NAME)"),
    ],
)
def test_a_malformed_indexed_is_a_positioned_error(form, message):
    with pytest.raises(recycle.RecycleError) as exc:
        game(f"(do ((set (game sto N) (size {form}))))")
    assert str(exc.value).startswith(message)


def test_rummy_plays_to_the_letter_for_seed_95():
    """The transcript of `recycle run` (rummy_seed95.txt): a set laid, a run laid and taken back,
    a run laid above the emptied one and laid off on through the filter, a card laid off on a set."""
    r = runner.invoke(app, ["run", str(RUMMY), "--seed", "95"])
    assert r.exit_code == 0, r.output
    *transcript, engine = r.output.splitlines(keepends=True)
    assert "".join(transcript) == (DIALECT / "rummy_seed95.txt").read_text()
    assert engine.startswith("played by: ")  # (either engine plays it to the letter)


def test_rummy_passes_strict_check_and_keeps_every_card():
    r = runner.invoke(app, ["check", "--strict", str(RUMMY)])
    assert r.exit_code == 0, r.output
    g = recycle.load(RUMMY)
    for seed in range(6):
        sink = ConservationCheck()
        r = g.play(seed=seed, record=sink)
        assert sink.checked > 0 and r.winners
        s = r.state
        families = [name for kind, name in s.game.layout.loc_base if name[:4] in ("SET[", "RUN[")]
        assert len(families) == 20 and all(s.location("game", "vloc", name) == [] for name in families)
        assert s.sto("game", "LEFTOVER") == 0


def test_the_native_engine_plays_rummy_as_the_reference_does():
    """The native writer (recycle/lang/forms/form_indexed.py, write_indexed): every rollout ends with the same
    scores, steps, decisions, options listed and card places, and none is stopped."""
    from recycle.engine.game import rollout_seed
    from recycle.native import available, why_not_native

    if not available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    from ..engine.test_native import compiled

    g = recycle.load(RUMMY)
    assert why_not_native(g) is None
    seeds = [rollout_seed(1, i) for i in range(30)]
    scores, counts, where = compiled(g).rollouts(seeds, 20_000, g.max_work, places=True)
    for i, sd in enumerate(seeds):
        s = g.random_rollout(sd, 20_000)
        native = (int(counts[i, 0]), [int(v) for v in scores[i]], *(int(v) for v in counts[i, 1:4]))
        assert native == (0, list(s.scores), s.steps, s.decisions, s.options_total), f"seed {sd}"
        assert [int(v) for v in where[i]] == [int(v) for v in s.card_loc], f"seed {sd}"


def test_describing_an_option_leaves_the_views_its_variables_hold_alone():
    """`recycle run` describes each option chosen by working it out on a copy of the state; the
    copy's moves out of a group bound by `any` (melds.rcy's `(repeat all (move (top 'G) ...))`)
    took the cards out of the real option's group too, which then moved from an empty group."""
    for seed in (1, 2):
        r = runner.invoke(app, ["run", str(DIALECT / "melds.rcy"), "--seed", str(seed)])
        assert r.exit_code == 0 and "runtime error" not in r.output, r.output
