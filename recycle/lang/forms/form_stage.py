"""The form ``(stage player|team (end CONDITION) ITEM ...)``: turns of the players (teams) until a
condition holds.

The form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_stage``: the shape checks
and positioned errors), its meaning in the reference interpreter (``StageForms.a_stage``, with
``stage_spine`` when its items hold a choice: the frame a stepped state waits in), its facts
(the ``@form`` record) and its native writer (``write_stage``). The simultaneous stage,
``(stage player simultaneous (end CONDITION) ITEM ...)``, is read here with its keyword left
out (``Stage.simultaneous``) and handed to ``form_simultaneous.py``, which runs its turns as
a stage's and makes its choices every player's.
"""

from __future__ import annotations

from ...errors import StepLimitExceeded
from ..nodes.base import Kind
from ..nodes.flow import Stage
from ..nodes.sexpr import Scope, fail, head_of, kw
from ..syntax.reader import SList
from .items import Item
from .registry import family, form
from .runtime import out_of_work
from .values import Suspend
from .writers import native


def read_stage(e, x: SList, scope: Scope) -> Stage:
    """The node of ``(stage player|team (end CONDITION) ITEM ...)``, or of a simultaneous stage
    (read without its keyword; no stage stands inside it)."""
    items = x.items
    simultaneous = len(items) > 2 and kw(items[2], "simultaneous")
    if simultaneous:  # (stage player simultaneous (end C) ITEM ...): read without its keyword
        if len(items) < 5 or not kw(items[1], "player") or head_of(items[3]) != "end" or len(items[3].items) != 2:
            fail("expected (stage player simultaneous (end CONDITION) ITEM ...)", x, "stage")
        for node in items[4:]:
            inner = first_stage(e.forms, node)
            if inner is not None:
                fail(
                    "a stage cannot stand inside a simultaneous stage (its choices are every player's)",
                    inner,
                    "stage",
                )
        items = (items[0], items[1], *items[3:])
    if len(items) < 4 or not kw(items[1], "player", "team") or head_of(items[2]) != "end" or len(items[2].items) != 2:
        fail("expected (stage player|team (end CONDITION) ITEM ...)", x, "stage")
    end = e.bool_(items[2].items[1], scope)
    body = tuple(e.item(i, scope) for i in items[3:])
    return Stage(items[1].value == "team", end, body, simultaneous, span=x.span, source=x)


def first_stage(forms, node):
    """The first ``(stage ...)`` form inside ``node`` (``forms``: the registry, whose roles say
    which heads are stages), or None."""
    if not isinstance(node, SList):
        return None
    if "stage" in forms.roles.get(head_of(node), ()):
        return node
    for i in node.items:
        found = first_stage(forms, i)
        if found is not None:
            return found
    return None


@family
class StageForms:
    """The stage in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(
        "stage",
        "(stage player|team (end CONDITION) ITEM ...) | (stage player simultaneous (end CONDITION) ITEM ...)",
        Kind.FLOW,
        role="stage",
        node=Stage,
        reads=read_stage,
    )
    def a_stage(self, x: Stage, scope: Scope) -> Item:
        """(stage player|team (end CONDITION) ITEM ...) | (stage player simultaneous (end CONDITION) ITEM ...)

        Pushes a copy of the player (team) cycle and runs the items turn after turn,
        advancing the cycle between turns, until the condition, checked before every turn,
        holds. In a simultaneous stage every player makes each choice, in seat order on the
        same state and unseen by the others, and the choices are applied together in seat order."""
        if x.simultaneous and not self.simultaneous:  # (its choices: form_simultaneous.py)
            return self.c_simultaneous_stage(x, scope)
        team = x.team
        end = self.c_bool(x.end, scope)
        body = self.sequence(x, scope, [self.c_item(i, scope) for i in x.body])
        span = x.span
        n = self.layout.nplayers
        w = self.weight(x)  # the work of one turn: its forms (its loops pay for their own turns)
        player_stage = not team  # a player stage's passes at depth 1 are the game's rounds (State.rounds)

        def limit(s):
            if s.steps > s.max_steps:
                raise StepLimitExceeded(f"the game did not end within {s.max_steps} steps", span, form="stage")
            out_of_work(s, span, "stage")

        brun = body.run
        if body.has_choice:
            item = self.stage_spine(x, scope, end, body, team, limit, w)
            return item

        def run(s, e):
            stack = s.tstack if team else s.pstack
            top = [stack[-1][0], None]
            stack.append(top)
            first = True
            while not end(s, e):
                if not first:
                    q = top[1]
                    if q is None:
                        top[0] = (top[0] + 1) % (s.nteams if team else n)
                    else:
                        top[0], top[1] = q, None
                first = False
                s.steps += 1
                if player_stage and len(stack) == 2:
                    s.rounds += 1
                s.work -= w
                if s.steps > s.max_steps or s.work < 0:
                    limit(s)
                brun(s, e)
            stack.pop()

        item = Item(x, scope, run=run)
        return item

    def stage_spine(self, x, scope, end, body: Item, team: bool, limit, w: int) -> Item:
        """A stage whose body holds a choice: the frame is the depth of its cycle in the
        stack (the cycle itself stays on the stack while the game waits for a decision)."""
        n = self.layout.nplayers
        player_stage = not team
        brun, bresume = body.run, body.resume

        def rounds(s, e, stack, top):
            """The stage's loop after a pass of its body: check the end, advance, run again."""
            while not end(s, e):
                q = top[1]
                if q is None:
                    top[0] = (top[0] + 1) % (s.nteams if team else n)
                else:
                    top[0], top[1] = q, None
                s.steps += 1
                if player_stage and len(stack) == 2:
                    s.rounds += 1
                s.work -= w
                if s.steps > s.max_steps or s.work < 0:
                    limit(s)
                brun(s, e)

        def run(s, e):
            stack = s.tstack if team else s.pstack
            top = [stack[-1][0], None]
            stack.append(top)
            d = len(stack) - 1
            try:
                if not end(s, e):
                    s.steps += 1
                    if player_stage and len(stack) == 2:
                        s.rounds += 1
                    s.work -= w
                    if s.steps > s.max_steps or s.work < 0:
                        limit(s)
                    brun(s, e)
                    rounds(s, e, stack, top)
            except Suspend as sus:
                sus.frames.append(d)
                raise
            stack.pop()

        def resume(s, e, frames, k):
            d = frames[k]
            stack = s.tstack if team else s.pstack
            try:
                bresume(s, e, frames, k - 1)
                rounds(s, e, stack, stack[d])
            except Suspend as sus:
                sus.frames.append(d)
                raise
            stack.pop()

        item = Item(x, scope, run=run, has_choice=True)
        item.resume = resume
        return item


# -- its native writer ---------------------------------------------------------------------
# What ``a_stage`` does, counter for counter: a turn is a step (``ctr[STEPS]``) and a unit of
# work, a player stage's turns at depth 1 are the game's rounds, and the cycle is a copy
# pushed on the players' (teams') stack, a turn passed on by ``(turn pass)`` taken first.


@native(Kind.FLOW, Stage)
def write_stage(w, x: Stage, sc) -> None:
    """The statements of a stage; a simultaneous stage's choices are every player's
    (``w.simultaneous``: the choice's writer hands them to ``form_simultaneous.py``)."""
    if x.simultaneous:
        w.simultaneous += 1
        try:
            return write_turns(w, x, sc)
        finally:
            w.simultaneous -= 1
    return write_turns(w, x, sc)


def write_turns(w, x: Stage, sc) -> None:
    """The stage's loop: push the cycle, then check the end, advance, count and run a turn."""
    team = x.team
    sp, stack, n = ("TSP", "tst", "ctr[NTEAMS]") if team else ("PSP", "pst", "NPLAYERS")
    first = w.fresh("first")
    w.comment(x)
    w.line(f"ctr[{sp}] += 1")
    with w.block(f"if ctr[{sp}] >= STACK_DEPTH:"):
        w.line("ctr[STATUS] = CAPACITY")
        w.line("return")
    w.line(f"{stack}[ctr[{sp}], 0] = {stack}[ctr[{sp}] - 1, 0]")
    w.line(f"{stack}[ctr[{sp}], 1] = -1")
    if not team:  # (which entry of the stage it is: a traced game counts its turns by it)
        w.line("pst[ctr[PSP], 2] = ctr[STEPS]")
    w.line(f"{first} = True")
    mark = w.fresh("mark")
    w.line(f"{mark} = ctr[SP]")
    end = w.bool_(x.end, sc)
    with w.block(f"while not ({end}):"):
        w.line(f"ctr[SP] = {mark}  # what the last turn put on the scratch stack is free again")
        with w.block(f"if not {first}:"):
            w.line(f"queued = {stack}[ctr[{sp}], 1]")
            with w.block("if queued < 0:"):
                w.line(f"{stack}[ctr[{sp}], 0] = ({stack}[ctr[{sp}], 0] + 1) % {n}")
            with w.block("else:"):
                w.line(f"{stack}[ctr[{sp}], 0] = queued")
                w.line(f"{stack}[ctr[{sp}], 1] = -1")
        w.line(f"{first} = False")
        w.line("ctr[STEPS] += 1")
        if not team:
            with w.block("if ctr[PSP] == 1:"):
                w.line("ctr[ROUNDS] += 1")
        w.line("ctr[WORK] += 1")
        with w.block("if ctr[STEPS] > ctr[MAX_STEPS]:"):
            w.line("ctr[STATUS] = STEP_LIMIT")
            w.line("return")
        with w.block("if ctr[WORK] > ctr[MAX_WORK]:"):
            w.line("ctr[STATUS] = WORK_LIMIT")
            w.line("return")
        w.check()  # (a rule broken by the end condition)
        w.sequence(x.body, sc)
    w.line(f"ctr[{sp}] -= 1")
