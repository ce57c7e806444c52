"""The prepared game: parse once, compile once, then play many rollouts fast.

``load(path)`` gives a ``PreparedGame``. ``play(players, seed)`` runs one game and
returns a ``GameResult`` (scores, ranks, winners, and — when recording — every event
and decision); ``simulate(n, seed)`` runs random rollouts and returns ``SimulationStats``.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Sequence

from ..lang.forms.shapes import Const, Scope, fail
from ..lang.nodes import elaborate
from ..lang.nodes.base import Const as ConstNode, Num
from ..lang.forms.card_table import CardTable
from ..lang.forms.flow import FlowCompiler
from ..errors import RecycleCompileError, RecycleCompileErrors, RecycleError, StepLimitExceeded, TimeLimitExceeded
from ..lang.forms.items import DEFAULT_MAX_WORK, MAX_EVENTS, charge  # part of the API
from .state import State
from ..lang.syntax.notes import read_notes
from ..streams import CHANCE, PLAYERS, Stream
from ..lang.syntax.reader import SourceFile, parse_file, parse_text

DEFAULT_MAX_STEPS = 100_000
# the engines a game may be loaded with: the reference interpreter (these closures) and the
# native engine (recycle/native: ``recycle.load(..., engine="native")``); the names retired
# with the generated-Python engine and the closures' fast branches are refused by name
ENGINES = ("reference", "native")
RETIRED_ENGINES = ("python", "compiled", "closures", "plain")
# ``play(engine=...)``'s hook: deals a game natively (a state stepped from outside) or says the
# reference interpreter plays it (None). The package sets it (recycle/__init__.py) to
# recycle/native/choose.py's ``start_play``, the one place that decides: the native layer lies
# above this one, which may not import it
NATIVE_START: Callable | None = None


def _as_written(value):
    """A folded constant's value as the compiler's scope holds it (a list of NAMEs a list)."""
    return list(value) if isinstance(value, tuple) else value


def check_engine(engine: str, allowed=ENGINES) -> str:
    """``engine`` if it is one of ``allowed``, else ValueError naming them (and saying so of a
    retired name: the reference interpreter plays everything Python played)."""
    if engine in allowed:
        return engine
    if engine in RETIRED_ENGINES:
        raise ValueError(
            f"the engine {engine!r} is retired: engines are {', '.join(allowed)} "
            f"(the reference interpreter plays what {engine!r} played)"
        )
    raise ValueError(f"engine must be one of {', '.join(allowed)}, not {engine!r}")


@dataclass
class Decision:
    """One choice put to a player."""

    index: int
    player: int
    chosen: int
    options: int
    description: str = ""


@dataclass
class GameResult:
    """The outcome of one game."""

    seed: int
    scores: list[int]
    ranks: list[int]
    winners: list[int]
    decisions: int
    options_total: int
    steps: int
    state: State = field(repr=False)
    events: list | None = field(default=None, repr=False)
    choices: list[Decision] = field(default_factory=list, repr=False)
    # what played the game: "native" (machine code stepped it to its end) or "reference" (the
    # reference interpreter, from the deal or from where native code handed the game over)
    engine: str = "reference"


class PreparedGame:
    """A compiled RECYCLE game; create with ``recycle.load`` or ``PreparedGame.from_text``."""

    def __init__(
        self,
        source: SourceFile,
        fast: bool = True,
        max_work: int | None = None,
        engine: str | None = None,
        rule_counts: dict | None = None,
    ):
        # ``fast`` is accepted and ignored: there is one Python engine, the reference
        # interpreter (old callers that asked for the plain or the fast closures get it)
        check_engine("reference" if engine is None else engine, ("reference",))
        # ``rule_counts``: a dict that every game played counts into, per conditional rule
        # ``((CONDITION) ITEM)`` at (line, column), [times reached, times its condition held]
        # (recycle/lang/forms/items.py, counted; the lint backed by simulation reads it)
        self.rule_counts = rule_counts
        self.source = source
        self.engine = "reference"
        # the work budget of each game played (see ``new_state``)
        self.max_work = DEFAULT_MAX_WORK if max_work is None else check_max_work(max_work)
        self.name = Path(source.filename).stem
        # the cards made so far, their columns and point maps: all the compiled game reads of
        # its game (recycle/lang/forms/card_table.py); it grows as decks are created
        self.card_table = CardTable()
        self.warnings = list(source.warnings)
        # the game's own words for its options and storages (its ``;@`` comments: lang/syntax/notes.py);
        # the notes not understood are warnings of ``recycle check``
        self.words, self.note_warnings = read_notes(source)
        # compiling allocates a great deal and frees nothing: the cyclic collector, run
        # again and again over the growing tree of closures, would make it quadratic
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._compile(source)
        except RecycleError as exc:
            exc.source = source.text
            raise
        finally:
            if collecting:
                gc.enable()

    @classmethod
    def from_text(
        cls,
        text: str,
        filename: str = "<string>",
        fast: bool = True,
        max_work: int | None = None,
        engine: str | None = None,
    ) -> PreparedGame:
        return cls(parse_text(text, filename), fast=fast, max_work=max_work, engine=engine)

    # -- compilation -----------------------------------------------------------------------
    def _compile(self, source: SourceFile) -> None:
        # the game read once into nodes (recycle/lang/nodes): its sections, its constants
        # folded, every form checked; what reads the game afterwards reads ``self.nodes``
        nodes = elaborate(source)
        self.nodes = nodes
        # constants first: the number of players may be a declared constant
        consts = {d.name: Const(_as_written(d.value.value)) for d in nodes.declares if d.literal is not None}
        scope = Scope(None, dict(consts))
        nplayers = self._player_count(nodes.players)
        self.nplayers = nplayers
        comp = FlowCompiler(self.card_table, nplayers, source=source, rule_counts=self.rule_counts)
        self.layout = comp.layout
        self.players = comp.players
        self.teams = comp.teams
        # declarations that are not literals are evaluated at the start of each game
        # a compile error is kept and the search goes on (comp.c_item), so that a file's
        # independent errors are reported together
        try:
            dynamic_decls = []
            for d in nodes.declares:
                if d.literal is None:
                    slot = comp.new_slot()
                    try:
                        dynamic_decls.append((slot, comp.c_value(d.value, scope)))
                    except RecycleCompileErrors:
                        raise
                    except RecycleCompileError as exc:
                        comp.keep_error(exc)
                    scope = scope.bind(d.name, slot)
            setup_items = [comp.c_item(i, scope) for i in nodes.setup]
            flow = comp.sequence(nodes, scope, [comp.c_item(i, scope) for i in nodes.flow])
            self.scoring_max = nodes.scoring_max
            try:
                self._score_fn = comp.c_int(nodes.score, scope)
            except RecycleCompileErrors:
                raise
            except RecycleCompileError as exc:
                comp.keep_error(exc)
            comp.raise_errors()
        except RecycleError:
            raise
        except Exception:
            # a form compiled after an earlier error was kept may trip over what that error
            # left (an item standing for nothing): the file is wrong, and the errors found
            # so far say where (a crash with no error kept is a bug of recycle's, as always)
            if comp.errors:
                comp.raise_errors()
            raise
        # what the game's forms cost once (its loops over the players included, which are
        # paid for with the forms around them: recycle/lang/forms/flow.py, weight), paid when a
        # game begins, and what the scoring expression costs each time it is worked out
        self._game_cost = (comp.weight(nodes), nodes.span)
        self._score_cost = (comp.weight(nodes.score), nodes.scoring_at)
        self._setup = [it.run for it in setup_items]
        self._decls = dynamic_decls
        self._flow = flow
        self._compiler = comp
        self.scope = scope
        self._make_cards()
        # the locations the compile registered (alike in every process, whatever plays later):
        # what a native module may name by number (recycle/native/writer.py, named_base)
        self.compiled_blocks = frozenset(self.layout.loc_base)

    def state_after_setup(self):
        """A state (seed 0) with the declarations worked out and the setup run, before the
        first item of the flow: what every rollout of the game starts from, deck order aside."""
        s = self._fresh_state(0, False, DEFAULT_MAX_STEPS, False, None)
        for slot, val in self._decls:
            s.env[slot] = val(s, s.env)
        for run in self._setup:
            run(s, s.env)
        return s

    def _make_cards(self) -> None:
        """Run the setup once now, so that the card table and the point maps' scores are
        complete before the first game: rollouts then only read them (the first rollout is
        as fast as the thousandth). A setup that breaks a rule fails again, with its
        message, when a game is played."""
        try:
            self.state_after_setup()
        except RecycleError:
            pass

    @staticmethod
    def _player_count(count) -> int:
        """The N of ``(create players N)``: a number or a declared integer, 1 to 10."""
        n = count.value if isinstance(count, (Num, ConstNode)) else None
        if not isinstance(n, int):
            fail("the number of players must be an integer or a declared integer", count, "create")
        if not 1 <= n <= 10:
            fail(f"a game has 1 to 10 players, not {n}", count, "create")
        return n

    # -- the card table --------------------------------------------------------------------
    @property
    def card_attrs(self) -> list[dict]:
        """Per card id, its attributes (``card_table.attrs``: the cards made so far)."""
        return self.card_table.attrs

    def card_name(self, c: int) -> str:
        """A short name for a card, e.g. ``A♠`` or ``RED-7``."""
        from .transcript import card_name

        return card_name(self.card_table.attrs[c])

    # -- playing ---------------------------------------------------------------------------
    def new_state(
        self,
        seed: int = 0,
        record=False,
        max_steps: int = DEFAULT_MAX_STEPS,
        track: bool = False,
        max_work: int | None = None,
    ) -> State:
        """A new game, dealt and played up to its first decision (or to its end).

        Chance (shuffles, ``random``, ties of max/min) draws from the state's own generator,
        seeded with ``seed``. ``record=True`` keeps every event in ``state.events``; a
        list-like sink instead receives them (its ``attach(state)`` is called first if it
        has one). ``track=True`` keeps what each player has observed (``known_locations``),
        which ``Observation.sample_world`` respects. Raises ``RecycleRuntimeError`` (with
        the form and line) when the game breaks a rule of the language, and
        ``StepLimitExceeded`` when it runs too long: more than ``max_steps`` steps (stage
        turns and decisions), more than ``max_work`` units of work (its loops, the cards
        its expressions handle, the options it lists; the game's ``max_work`` by default,
        ``DEFAULT_MAX_WORK`` unless ``load`` set another), or more than ``MAX_EVENTS``
        recorded events.
        """
        s = self._fresh_state(seed, record, max_steps, track, max_work)
        s._advance(lambda: self._begin(s))
        return s

    def _fresh_state(self, seed: int, record, max_steps: int, track: bool, max_work: int | None) -> State:
        max_work = self.max_work if max_work is None else check_max_work(max_work)
        s = State(self, Stream.for_game(seed, CHANCE), False, max_steps, max_work)
        s.seed = seed
        sink = None
        if record is True:
            sink = []
        elif record is not False and record is not None:
            sink = record  # a caller's event sink (e.g. a test checking invariants)
            if hasattr(record, "attach"):
                record.attach(s)
        if track:
            from .knowledge import KnowledgeSink

            s.events = KnowledgeSink(s, sink)
        else:
            s.events = sink
        s.env = [None] * self._compiler.nslots
        return s

    def _begin(self, s: State) -> None:
        charge(s, self._game_cost[0], self._game_cost[1], "game")
        env = s.env
        for slot, val in self._decls:
            env[slot] = val(s, env)
        for run in self._setup:
            run(s, env)
        self._flow.run(s, env)

    def play(
        self,
        players: Sequence | None = None,
        seed: int = 0,
        record=False,
        max_steps: int = DEFAULT_MAX_STEPS,
        describe: bool = False,
        reveal: bool = False,
        on_decision: Callable | None = None,
        timeout: float | None = None,
        max_work: int | None = None,
        engine: str = "reference",
    ) -> GameResult:
        """Play one game. ``players`` has one Player per seat (random players by default).

        ``record`` is as in ``new_state``: the events end in ``result.events``.
        ``describe`` adds each decision's chosen option in words (as a spectator sees it, hidden
        cards as "a card", unless ``reveal``). ``on_decision(state, player, options, index)`` is called at
        every decision, before the option is applied. ``timeout`` (seconds) stops the game
        at its first decision after that time (``TimeLimitExceeded``). ``max_work`` is as in
        ``new_state``. Raises like
        ``new_state``; a ``RecycleError`` carries the game so far in ``exc.partial`` when it
        was watched. ``engine``: "reference" (the default: this interpreter), "auto" (native
        code steps the game wherever it builds, the reference interpreter otherwise) or "native"
        (raising why it cannot): recycle/native/choose.py decides. Natively, the options'
        words, the events and what each player observed come from the state's reference twin
        (recycle/native/outside.py; ``on_decision`` is handed the twin), so the game, its record and its transcript are the same;
        ``result.engine`` says which engine played. A caller's own event sink (``record`` not a
        bool) is played on the reference interpreter.
        """
        from .runner import RandomPlayer, play_out

        if players is None:
            players = [RandomPlayer() for _ in range(self.nplayers)]
        if len(players) != self.nplayers:
            raise ValueError(f"{self.name} needs {self.nplayers} players, got {len(players)}")
        recording = record is not False and record is not None
        track = any(getattr(pl, "needs_view", False) for pl in players)
        s = events = None
        mine = record is None or isinstance(record, bool)  # (not a caller's own event sink)
        if check_engine(engine, ("auto", "native", "reference")) != "reference" and NATIVE_START and mine:
            events = [] if record else None
            s = NATIVE_START(self, seed, max_steps, max_work, events, track, engine, players)
        native = s is not None
        if not native:
            s = self._fresh_state(seed, record, max_steps, track, max_work)
            events = s.events.inner if track else s.events
        player_rng = players_stream(seed)
        choices: list[Decision] = []
        watched = recording or describe or on_decision is not None or timeout is not None
        deadline = None if timeout is None else time.perf_counter() + timeout

        def watch(state, p, options, i):
            if deadline is not None and time.perf_counter() > deadline:
                raise TimeLimitExceeded(
                    f"the game was stopped after {timeout:g} s (--timeout), at decision {state.decisions}"
                )
            text = options[i].describe(-1 if not reveal else None) if describe else ""
            choices.append(Decision(state.decisions, p, i, len(options), text))
            if on_decision is not None:
                # a native state's reference twin, up to date (its options were just listed):
                # what a watcher reads of a state (its stages, scores, places) is the reference's
                on_decision(state.twin() if native else state, p, options, i)

        try:
            if not native:
                s._advance(lambda: self._begin(s))
            play_out(s, players, player_rng, watch if watched else None)
            if native:
                scores = s.returns()
                if recording:
                    s.twin()  # (the twin logs the events of the game's end)
        except RecycleError as exc:
            exc.source = self.source.text
            if watched:
                # what happened up to the error, for a transcript of the stopped game
                exc.partial = GameResult(
                    seed,
                    None,
                    None,
                    [],
                    s.decisions,
                    s.options_total,
                    s.steps,
                    s,
                    events,
                    choices,
                    getattr(s, "engine", "reference"),
                )
            raise
        if not native:
            scores = s.scores
        ranks, winners = rank(scores, self.scoring_max)
        return GameResult(
            seed,
            scores,
            ranks,
            winners,
            s.decisions,
            s.options_total,
            s.steps,
            s,
            events,
            choices,
            getattr(s, "engine", "reference"),
        )

    def random_rollout(self, seed: int, max_steps: int = DEFAULT_MAX_STEPS, max_work: int | None = None) -> State:
        """One game with random players and nothing recorded: the simulation hot path.

        The same game as ``play(seed=seed)`` with random players; returns the final state
        (``state.scores`` set). Raises like ``play``.
        """
        return self.play(seed=seed, max_steps=max_steps, max_work=max_work).state

    def final_scores(self, s: State, env: list | None = None) -> list[int]:
        """Each player's value of the ``scoring`` expression, with that player current.

        Works mid-game too (the game's declared variables are kept in the state)."""
        if env is None:
            env = s.env if s.env is not None else [None] * self._compiler.nslots
        out = []
        cost, span = self._score_cost
        for p in range(self.nplayers):
            charge(s, cost, span, "scoring")
            s.pstack.append([p, None])
            try:
                out.append(self._score_fn(s, env))
            finally:
                s.pstack.pop()
        return out


def rank(scores: list[int], higher_wins: bool) -> tuple[list[int], list[int]]:
    """Competition ranks (1 = best; ties share) and the winners (every player tied for best)."""
    order = sorted(scores, reverse=higher_wins)
    ranks = [order.index(v) + 1 for v in scores]
    best = order[0]
    winners = [p for p, v in enumerate(scores) if v == best]
    return ranks, winners


def tied_sides(winners: list[int], team_of: list[int]) -> int:
    """How many sides share the win: the distinct teams of ``winners`` (``team_of[p]`` is
    player p's team, None for a player on no team, who is a side of its own; before any
    ``create teams`` every player is a team of one).

    Partners who share a win are one side, so a team game's single winning team is no tie;
    a tie for first is two or more sides here."""
    return len({("team", team_of[p]) if team_of[p] is not None else ("player", p) for p in winners})


def players_stream(seed) -> Stream:
    """The stream the random players of the game dealt with ``seed`` draw from: its own, apart
    from the game's chance stream, so the same seed deals the same cards whoever plays."""
    return Stream.for_game(seed, PLAYERS)


def rollout_seed(seed: int, i: int) -> int:
    """The seed of rollout ``i`` of a simulation seeded with ``seed``."""
    return seed * 1_000_003 + i


def check_max_work(max_work) -> int:
    """``max_work`` as an int, or ValueError: a positive integer."""
    if isinstance(max_work, bool) or not isinstance(max_work, int) or max_work < 1:
        raise ValueError(f"max_work must be a positive integer, not {max_work!r}")
    return max_work


def load(path: str | Path, fast: bool = True, max_work: int | None = None, engine: str | None = None) -> PreparedGame:
    """Parse and compile a .rcy file.

    The game is played by the reference interpreter (the closures of recycle/lang/forms:
    exact positioned messages, visibility tracking; the oracle of the native engine's
    differential tests). ``engine``: ``"reference"`` or None (``recycle.load`` also takes
    ``"native"``); ``fast`` is ignored (kept for old callers). ``max_work``: the work budget of each game played
    (``PreparedGame.max_work``, ``DEFAULT_MAX_WORK`` by default; a call of ``new_state``,
    ``play`` or ``random_rollout`` may give its own)."""
    return PreparedGame(parse_file(path), fast=fast, max_work=max_work, engine=engine)


def loads(
    text: str, filename: str = "<string>", fast: bool = True, max_work: int | None = None, engine: str | None = None
) -> PreparedGame:
    """Parse and compile RECYCLE text (``fast``, ``max_work`` and ``engine`` as in ``load``)."""
    return PreparedGame.from_text(text, filename, fast=fast, max_work=max_work, engine=engine)


__all__ = [
    "PreparedGame",
    "GameResult",
    "Decision",
    "load",
    "loads",
    "rank",
    "StepLimitExceeded",
    "RecycleCompileError",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_MAX_WORK",
    "MAX_EVENTS",
]
