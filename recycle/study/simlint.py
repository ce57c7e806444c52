"""Lint backed by simulation: what a short run of random games shows and a static check
cannot — a choice never reached, an option never offered, a choice that always has one
option, a location that never receives a card, a location no one ever sees that cards are
moved into during play, games that hit the step limit, a seat that never wins, a rule that
breaks at run time, a conditional rule ``((CONDITION) ITEM)`` that never fires (its condition
never true) or always fires, or is never reached. Each finding has the line it is about.

The games are played by the plain engine compiled with a probe on every conditional's
condition (``rule_counts``: recycle/lang/forms/items.py, counted). Why that hook: the probe is put in
at compile time, into this lint's own copy of the game only, so normal play (every engine, the
compiled engine's generated source) carries no probe and not even a check for one; the plain
engine evaluates every condition through its closure (the closures engine caches pure
conditions, the compiled one writes them out), and all engines play the same games, so the
other findings are those the game as loaded would give. Tracing (``sys.settrace``) would be far
slower and would have to map frames back to forms.

The run is small and bounded: at most ``games`` games and ``seconds`` of time, stopped
early by ``stop()``; its findings say how many games they rest on.
"""

from __future__ import annotations

import time

from ..errors import RecycleError, StepLimitExceeded
from ..engine.game import PreparedGame, players_stream
from ..lang.nodes.base import Const, Loc, Num, Word
from ..lang.nodes.flow import Choice, When
from ..lang.nodes.numbers import Add, And, AtLeast, AtMost, Div, Equal, Greater, Less, Mod, Mul, Not, NotEqual, Or
from ..lang.nodes.numbers import Size, Sub
from ..lang.nodes.walk import children
from ..lang.reading.lint import in_text_order, location_key
from ..lang.forms.values import MEMORY, may_see

MAX_STEPS = 20_000
ALWAYS = 20  # a rule whose condition held every time is a finding once it was reached this often


def _finding(text: str, span=None) -> dict:
    return {
        "severity": "simulation",
        "message": text,
        "line": span.line if span else 0,
        "column": span.column if span else 0,
        "end_line": span.end_line if span else 0,
        "end_column": span.end_column if span else 0,
    }


def _n(n: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _within(span, line: int, col: int) -> bool:
    return (span.line, span.column) <= (line, col) <= (span.end_line, span.end_column)


def simulation_lint(game, games: int = 300, seed: int = 0, seconds: float = 3.0, stop=None) -> dict:
    """Play up to ``games`` random games (within ``seconds``) and report what never or always
    happened: ``{"games": played, "findings": [...]}`` (each finding positioned)."""
    from ..engine.game import rollout_seed

    nodes = in_text_order(game.nodes)
    rules: dict = {}  # (line, column) of a conditional rule -> [times reached, times its condition held]
    # a copy of the game that counts into ``rules`` (see the module docstring for why this hook)
    game = PreparedGame(game.source, max_work=game.max_work, rule_counts=rules)
    choices = [n for n in nodes if isinstance(n, Choice)]
    reached: dict = {}  # (line, col) of a choice -> [times, times with one option]
    offered: set = set()  # (line, col) of every action an option was made of
    received: set = set()
    moved_in: dict = {}  # a location -> cards moved into it from another location (not dealt new)
    decks: set = set()  # the locations new cards appear in: a stock no one sees is what a stock is
    wins = [0] * game.nplayers
    limit_hits = 0
    errors: dict = {}
    teams = None
    deadline = time.monotonic() + seconds
    played = 0
    for i in range(games):
        if time.monotonic() > deadline or (stop is not None and stop()):
            break
        events: list = []
        rng = players_stream(rollout_seed(seed, i))  # the rollout's own players' stream
        try:
            s = game.new_state(seed=rollout_seed(seed, i), record=events, max_steps=MAX_STEPS)
            if teams is None:  # each seat's team, as ``may_see`` asks (from a game that got past its setup)
                teams = list(s.team_of)
            while not s.is_terminal():
                opts = s.legal_options()
                span = s.waiting.span
                tally = reached.setdefault((span.line, span.column), [0, 0])
                tally[0] += 1
                tally[1] += len(opts) == 1
                for o in opts:
                    for item, _env in o.steps:
                        node = getattr(item, "node", None)
                        if node is not None and node.span is not None:
                            offered.add((node.span.line, node.span.column))
                s.apply(int(rng.random() * len(opts)))
            for p in s.winners():
                wins[p] += 1
        except StepLimitExceeded:
            limit_hits += 1
        except RecycleError as exc:
            key = str(exc.span) if exc.span else exc.message
            errors.setdefault(key, [exc, 0])[1] += 1
        for ev in events:
            dst = getattr(ev, "dst", None)
            if dst is not None:
                received.add(dst)
                if getattr(ev, "src", None) is None:
                    decks.add(dst)
                elif ev.src != dst:
                    moved_in[dst] = moved_in.get(dst, 0) + 1
        played += 1
    findings = []
    if not played:
        return {"games": 0, "findings": []}
    for exc, k in errors.values():
        findings.append(_finding(f"{k} of {_n(played, 'random game')} stopped with an error: {exc.message}", exc.span))
    if limit_hits:
        findings.append(_finding(f"{limit_hits} of {_n(played, 'random game')} hit the step limit ({MAX_STEPS} steps)"))
    finished = played - limit_hits - sum(k for _, k in errors.values())
    if not finished:  # every game broke or ran on: what never happened after that says nothing more
        return {"games": played, "findings": sorted(findings, key=lambda f: (f["line"] == 0, f["line"]))}
    for ch in choices:
        t = reached.get((ch.span.line, ch.span.column))
        if t is None:
            findings.append(_finding(f"this choice was never reached in {_n(played, 'random game')}", ch.span))
            continue
        if t[1] == t[0]:
            findings.append(
                _finding(f"this choice always had one option ({_n(t[0], 'time')} in {_n(played, 'game')})", ch.span)
            )
        for opt in ch.options:
            if opt.span is not None and not any(_within(opt.span, *p) for p in offered):
                findings.append(_finding(f"this option was never offered in {_n(played, 'random game')}", opt.span))
    findings += _rule_findings(nodes, rules, played, [f for f in findings if "never reached" in f["message"]])
    seen_names = {}
    for node in nodes:
        if isinstance(node, Loc):
            key = location_key(node)
            if key is not None:
                seen_names.setdefault(key[1], node.span)
    got: dict = {}  # a location name (HAND of every player) -> did any of them receive a card
    for info in game.layout.infos:
        if info.visibility != "memory":
            got[info.name] = got.get(info.name, False) or info.index in received
    for name in sorted(n for n, ok in got.items() if not ok):
        findings.append(
            _finding(f"the location {name} never received a card in {_n(played, 'random game')}", seen_names.get(name))
        )
    # cards moved during play into a location no player may see, other than the stock they were
    # made in: information leaves the game there (a hidden discard, a burnt card) — by design
    # or by a slip in a location's kind
    unseen: dict = {}  # a location name -> cards moved into its members
    if teams is None:  # no game got past its setup (its error is a finding): each seat its own team
        teams = list(range(game.nplayers))
    for info in game.layout.infos:
        if (
            info.visibility != MEMORY
            and moved_in.get(info.index)
            and info.index not in decks
            and not any(may_see(info, p, teams) for p in range(game.nplayers))
        ):
            unseen[info.name] = unseen.get(info.name, 0) + moved_in[info.index]
    for name, k in sorted(unseen.items()):
        findings.append(
            _finding(
                f"no player ever sees the location {name}: {_n(k, 'card')} moved into it in "
                f"{_n(played, 'random game')}",
                seen_names.get(name),
            )
        )
    if finished >= 20:
        for p, w in enumerate(wins):
            if not w:
                findings.append(_finding(f"seat P{p} never won in {_n(finished, 'random game')}"))
    findings.sort(key=lambda f: (f["line"] == 0, f["line"], f["column"]))
    return {"games": played, "findings": findings}


def _rule_findings(nodes: list, rules: dict, played: int, unreached: list) -> list:
    """Findings on the conditional rules: never fired, always fired (reached ``ALWAYS`` times
    at least) or never reached — unless inside a choice or rule already reported as never
    reached or never firing (the one finding explains the other)."""
    found = {(n.span.line, n.span.column): n for n in nodes if isinstance(n, When)}
    out: list = []
    quiet = [(f["line"], f["column"], f["end_line"], f["end_column"]) for f in unreached]
    for key in sorted(rules):
        node = found.get(key)
        if node is None:
            continue
        span = node.span
        if any((a, b) <= key <= (c, d) for a, b, c, d in quiet):
            continue
        times, fired = rules[key]
        if _settled(node.condition):
            continue
        if not fired:
            quiet.append((span.line, span.column, span.end_line, span.end_column))
            out.append(
                _finding(
                    f"this rule never fired in {_n(played, 'random game')}: its condition was never true "
                    f"(reached {_n(times, 'time')})"
                    if times
                    else f"this rule was never reached in {_n(played, 'random game')}",
                    span,
                )
            )
        elif fired == times >= ALWAYS and not _guard(node.condition):
            out.append(
                _finding(
                    f"this rule's condition was true every time ({_n(times, 'time')} in {_n(played, 'random game')})",
                    span,
                )
            )
    return out


# the forms whose value follows from their operands' alone (comparisons, junctions, arithmetic)
PURE = (Equal, NotEqual, Less, Greater, AtMost, AtLeast, And, Or, Not, Add, Sub, Mul, Div, Mod)


def _settled(x) -> bool:
    """Is the condition settled by the declarations alone (``(== 'NUMP 2)``: a variant's switch)?
    Then it never changes in play, and that it never fired says only which variant is declared."""
    match x:
        case Num() | Word():
            return True
        case Const(value=value):
            return not isinstance(value, tuple)  # a number or a NAME declared, not a list of them
    return isinstance(x, PURE) and all(_settled(i) for i in children(x))


def _guard(x) -> bool:
    """Is the condition a guard on the number of cards of a location (``(> (size STOCK) 0)``)? A
    guard that always held is there for the rare game, not a finding."""
    operands = list(children(x))
    return isinstance(x, PURE) and len(operands) == 2 and any(isinstance(i, Size) for i in operands)
