"""Card-movement / information-flow graphs (the "Card Movement Graph" of CardStock's pages).

``flow_graph(game, rollouts, seed)`` plays recorded rollouts and folds every card movement
into a ``networkx.MultiDiGraph``: one node per location that cards pass through (per owner
and name), one edge per (from, to, flow class) with how many cards took it. ``to_dot``
draws it with Graphviz conventions:

* node fill by visibility — public green, hidden yellow, private blue, memory light gray,
  others-only (``oloc``: everyone but its owner) orange; a bold border where a location
  held cards of more than one deck (cards with distinct backs);
* owners (the table, the players, the teams) as clusters;
* edges labelled with the card count (per rollout, or the mean over rollouts) and the
  visibility change; *taken* information (public → private/hidden) red dotted, *shared*
  information (a player's private cards moved to another player) blue dashed, remembered
  cards gray with hollow arrows, every other move solid black.

``write_dot(source, path)`` writes .gv/.dot text or renders .svg/.png/.pdf with ``dot``.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import networkx as nx

from ..lang.values import HIDDEN, MEMORY, OTHERS, PRIVATE, PUBLIC, MoveEvent

# node fill per visibility class (RECYCLE.md section 6); "others" is our choice (orange)
VIS_COLOURS = {
    PUBLIC: "#a6dba0",   # green
    HIDDEN: "#fee08b",   # yellow
    PRIVATE: "#9ecae1",  # blue
    MEMORY: "#d9d9d9",   # light gray
    OTHERS: "#fdae6b",   # orange
}
VIS_WORDS = {
    PUBLIC: "public: everyone sees the cards",
    HIDDEN: "hidden: nobody sees the cards",
    PRIVATE: "private: only the owner sees the cards",
    MEMORY: "memory: remembered references to cards",
    OTHERS: "others: everyone except the owner sees them",
}
# edge flow class -> (colour, style, arrowhead)
EDGE_STYLES = {
    "taken": ("red", "dotted", "normal"),
    "shared": ("blue", "dashed", "normal"),
    "move": ("black", "solid", "normal"),
    "remember": ("gray45", "solid", "onormal"),
}
EDGE_WORDS = {
    "taken": "taken information: public → private or hidden",
    "shared": "shared information: private cards to another player",
    "move": "other card movement",
    "remember": "remembered (a reference copied to memory)",
}
RENDER_FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf"}
DOT_SUFFIXES = (".gv", ".dot")


def flow_class(src, dst, action: str, team_members=None) -> str:
    """How a card movement changes information: "taken", "shared", "remember" or "move".

    ``src``/``dst`` are ``LocationInfo``. Shared: a card leaves a player's private location
    for a location owned by another player, or by a team with another member (when the
    current team membership ``team_members`` is known; without it any team counts).
    """
    if action == "remember":
        return "remember"
    if src.visibility == PUBLIC and dst.visibility in (PRIVATE, HIDDEN):
        return "taken"
    if src.visibility == PRIVATE and src.owner_kind == "player":
        p = src.owner
        if dst.owner_kind == "player" and dst.owner != p:
            return "shared"
        if dst.owner_kind == "team":
            members = team_members[dst.owner] if team_members is not None and dst.owner < len(team_members) else None
            if members is None or any(m != p for m in members):
                return "shared"
    return "move"


class _Tally:
    """An event sink for one rollout: counts movements by (src, dst, class) as they happen.

    Counting as events arrive keeps long rollouts from holding every event in memory.
    """

    def __init__(self, game):
        self.infos = game.layout.infos  # the live list: it grows when a name is computed at run time
        self.card_deck = game.card_deck
        self.moves: Counter = Counter()    # (src, dst, class, action) -> cards
        self.chosen: Counter = Counter()   # same key -> cards moved by a player's decision
        self.created: Counter = Counter()  # loc -> cards created there
        self.forgotten: Counter = Counter()
        self.decks: set = set()            # (loc, deck name)
        self.state = None

    def attach(self, state) -> None:
        self.state = state

    def append(self, ev) -> None:
        if type(ev) is not MoveEvent:
            return
        deck = self.card_deck[ev.card]
        if ev.action == "create" or ev.src is None:
            self.created[ev.dst] += 1
            self.decks.add((ev.dst, deck))
            return
        if ev.action == "forget" or ev.dst is None:
            self.forgotten[ev.src] += 1
            return
        src, dst = self.infos[ev.src], self.infos[ev.dst]
        members = self.state.team_members if self.state is not None else None
        key = (ev.src, ev.dst, flow_class(src, dst, ev.action, members), ev.action)
        self.moves[key] += 1
        if ev.chooser is not None:
            self.chosen[key] += 1
        self.decks.add((ev.src, deck))
        self.decks.add((ev.dst, deck))


def node_id(info, per_player: bool = False) -> str:
    """The graph node of a location: ``table/iloc/STOCK``, ``each player/iloc/HAND``, ``P2/iloc/HAND``.

    No colons: Graphviz reads ``a:b`` in an edge as node ``a``, port ``b``.
    """
    if info.owner_kind == "game":
        owner = "table"
    elif per_player:
        owner = info.owner_label
    else:
        owner = "each player" if info.owner_kind == "player" else "each team"
    return f"{owner}/{info.kind}/{info.name}"


def flow_graph(game, rollouts: int = 1, seed: int = 0, per_player: bool = False,
               max_steps: int | None = None, timeout: float | None = None) -> nx.MultiDiGraph:
    """Play ``rollouts`` recorded random games and return the information-flow graph.

    One rollout uses ``seed`` itself; several use ``rollout_seed(seed, i)``. Rollouts that
    hit the step limit are skipped (``G.graph["skipped"]``); counts are means over the
    completed ones. Nodes carry ``name, kind, owner_kind, owner, cluster, visibility,
    decks, mixed_backs, created, forgotten, cards_in, cards_out``; edges (keyed by flow
    class) carry ``count`` (total), ``mean``, ``chosen`` (moved by players' decisions),
    ``src_vis``, ``dst_vis`` and ``actions``. Player (team) locations of one name are a
    single "each player" node unless ``per_player``. ``timeout`` (seconds) stops starting
    new rollouts after that time; ``G.graph["played"]`` says how many were played.
    """
    import time

    from ..errors import StepLimitExceeded
    from ..engine.game import DEFAULT_MAX_STEPS, rollout_seed

    if rollouts < 1:
        raise ValueError("rollouts must be at least 1")
    total = _Tally(game)
    done = skipped = 0
    deadline = None if timeout is None else time.perf_counter() + timeout
    for i in range(rollouts):
        if deadline is not None and i and time.perf_counter() > deadline:
            break
        s = seed if rollouts == 1 else rollout_seed(seed, i)
        tally = _Tally(game)
        try:
            game.play(seed=s, record=tally, max_steps=max_steps or DEFAULT_MAX_STEPS)
        except StepLimitExceeded:
            skipped += 1  # a partial game would distort the means
            continue
        done += 1
        for name in ("moves", "chosen", "created", "forgotten"):
            getattr(total, name).update(getattr(tally, name))
        total.decks |= tally.decks
    return _build(game, total, done, skipped, rollouts, seed, per_player)


def _build(game, t: _Tally, done: int, skipped: int, rollouts: int, seed: int, per_player: bool):
    G = nx.MultiDiGraph(game=game.name, rollouts=rollouts, played=done + skipped, completed=done, skipped=skipped,
                        seed=seed,
                        per_player=per_player, nplayers=game.nplayers)
    infos = game.layout.infos
    div = max(done, 1)

    def node(loc: int) -> str:
        info = infos[loc]
        nid = node_id(info, per_player)
        if nid not in G:
            folded = info.owner_kind != "game" and not per_player
            G.add_node(nid, name=info.name, kind=info.kind, owner_kind=info.owner_kind,
                       owner=None if folded else info.owner, cluster=nid.rsplit("/", 2)[0],
                       visibility=info.visibility, decks=[], mixed_backs=False, created=0.0, forgotten=0.0,
                       cards_in=0.0, cards_out=0.0)
        return nid

    for loc, n in t.created.items():
        G.nodes[node(loc)]["created"] += n / div
    for loc, n in t.forgotten.items():
        G.nodes[node(loc)]["forgotten"] += n / div
    edges: dict = {}
    for (src, dst, cls, action), n in t.moves.items():
        u, v = node(src), node(dst)
        e = edges.setdefault((u, v, cls), {"count": 0, "chosen": 0, "actions": set(),
                                           "src_vis": infos[src].visibility, "dst_vis": infos[dst].visibility})
        e["count"] += n
        e["chosen"] += t.chosen.get((src, dst, cls, action), 0)
        e["actions"].add(action)
    for (u, v, cls), e in sorted(edges.items()):
        mean = e["count"] / div
        G.add_edge(u, v, key=cls, flow=cls, count=e["count"], mean=mean, chosen=e["chosen"],
                   actions=sorted(e["actions"]), src_vis=e["src_vis"], dst_vis=e["dst_vis"])
        G.nodes[u]["cards_out"] += mean
        G.nodes[v]["cards_in"] += mean
    decks: dict[str, set] = {}
    for loc, deck in t.decks:
        decks.setdefault(node(loc), set()).add(deck)
    for nid, names in decks.items():
        G.nodes[nid]["decks"] = sorted(names)
        G.nodes[nid]["mixed_backs"] = len(names) > 1
    return G


# -- drawing ---------------------------------------------------------------------------------
def _num(x: float) -> str:
    """A count for a label: integers plainly, means with up to two decimals."""
    if abs(x - round(x)) < 1e-9:
        return str(int(round(x)))
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}".rstrip("0").rstrip(".")


def _cluster_label(G, cluster: str) -> str:
    n = G.graph.get("nplayers", 0)
    if cluster == "each player":
        return f"each player (P0–P{n - 1})" if n > 1 else "each player (P0)"
    if cluster == "table":
        return "table (game)"
    return cluster


def _cluster_order(cluster: str):
    # table first, then folded owners, then players and teams by number
    if cluster == "table":
        return (0, 0, "")
    if cluster.startswith("each"):
        return (1, 0, cluster)
    return (2 if cluster[0] == "P" else 3, int(cluster[1:]) if cluster[1:].isdigit() else 0, cluster)


def _legend_html() -> str:
    rows = ['<TR><TD COLSPAN="2" ALIGN="LEFT"><B>legend</B></TD></TR>']
    for vis in (PUBLIC, HIDDEN, PRIVATE, MEMORY, OTHERS):
        rows.append(f'<TR><TD BGCOLOR="{VIS_COLOURS[vis]}" BORDER="1" WIDTH="28"> </TD>'
                    f'<TD ALIGN="LEFT">{VIS_WORDS[vis]}</TD></TR>')
    rows.append('<TR><TD BORDER="3" WIDTH="28"> </TD>'
                '<TD ALIGN="LEFT">bold border: cards from different decks (distinct backs)</TD></TR>')
    arrows = {"taken": "· · · ·&gt;", "shared": "- - - -&gt;", "move": "———&gt;", "remember": "———▷"}
    for cls, (colour, _style, _head) in EDGE_STYLES.items():
        rows.append(f'<TR><TD><FONT COLOR="{colour}"><B>{arrows[cls]}</B></FONT></TD>'
                    f'<TD ALIGN="LEFT">{EDGE_WORDS[cls]}</TD></TR>')
    rows.append('<TR><TD COLSPAN="2" ALIGN="LEFT">edge label: cards moved, visibility before → after</TD></TR>')
    return '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" CELLPADDING="2">' + "".join(rows) + "</TABLE>>"


def to_dot(G: nx.MultiDiGraph, legend: bool = True) -> str:
    """The Graphviz DOT text of a flow graph (see the module docstring for the conventions)."""
    import graphviz

    done, rollouts = G.graph.get("completed", 1), G.graph.get("rollouts", 1)
    if rollouts == 1:
        title = f"{G.graph.get('game', '')}: card movement in one rollout (seed {G.graph.get('seed', 0)})"
    else:
        title = (f"{G.graph.get('game', '')}: mean cards moved per game over {done} rollouts "
                 f"(seed {G.graph.get('seed', 0)})")
    if G.graph.get("skipped"):
        title += f"; {G.graph['skipped']} rollouts hit the step limit and are left out"
    d = graphviz.Digraph("flow", graph_attr={"label": title, "labelloc": "t", "fontname": "Helvetica",
                                              "fontsize": "16", "rankdir": "TB", "nodesep": "0.5",
                                              "ranksep": "0.7", "newrank": "true"},
                         node_attr={"shape": "box", "style": "rounded,filled", "fontname": "Helvetica",
                                    "fontsize": "13", "penwidth": "1"},
                         edge_attr={"fontname": "Helvetica", "fontsize": "10"})
    clusters: dict[str, list] = {}
    for nid, a in G.nodes(data=True):
        clusters.setdefault(a.get("cluster", "table"), []).append(nid)
    for i, cluster in enumerate(sorted(clusters, key=_cluster_order)):
        with d.subgraph(name=f"cluster_{i}") as c:
            # players' labels go underneath: edges from the table arrive at the top of their box
            c.attr(label=_cluster_label(G, cluster), style="rounded", color="gray35", fontname="Helvetica",
                   fontsize="14", labelloc="t" if cluster == "table" else "b")
            for nid in sorted(clusters[cluster]):
                a = G.nodes[nid]
                label = f"{a['name']}\\n{a['kind']} · {a['visibility']}"
                if a.get("created"):
                    n = a["created"]
                    label += f"\\n▶ {_num(n)} card{'' if n == 1 else 's'} start{'s' if n == 1 else ''} here"
                if a.get("forgotten"):
                    label += f"\\n{_num(a['forgotten'])} forgotten"
                # "\\n" is DOT's line break: one line per node keeps the .gv easy to grep and diff
                attrs = {"fillcolor": VIS_COLOURS.get(a["visibility"], "white")}
                if a.get("mixed_backs"):
                    attrs.update(style="rounded,filled,bold", penwidth="3.5")
                c.node(nid, label, **attrs)
    for u, v, key, a in G.edges(keys=True, data=True):
        colour, style, head = EDGE_STYLES.get(key, EDGE_STYLES["move"])
        change = a["src_vis"] if a["src_vis"] == a["dst_vis"] else f"{a['src_vis']} → {a['dst_vis']}"
        width = 1.2 + min(2.0, math.log2(1 + a["mean"]) / 2)
        if style != "solid":
            width += 0.6  # dots and dashes need a heavier pen to read at a glance
        d.edge(u, v, label=f" {_num(a['mean'])} · {change} ", color=colour, fontcolor=colour, style=style,
               arrowhead=head, penwidth=f"{width:.2f}")
    if legend:
        with d.subgraph(name="cluster_legend") as c:
            c.attr(label="", color="gray70", style="rounded")
            c.node("legend", _legend_html(), shape="plaintext", style="", fontsize="11")
    return d.source


def to_json(G: nx.MultiDiGraph) -> dict:
    """The graph as ``networkx.node_link_data`` (nodes, edges and the graph attributes)."""
    return nx.node_link_data(G, edges="edges")


def write_dot(source: str, path: str | Path) -> str | None:
    """Write DOT ``source`` to ``path`` by its suffix; return a note for the user or None.

    .gv/.dot: the text. .svg/.png/.pdf: rendered with Graphviz's ``dot``; when ``dot`` is
    not installed the text goes to the same name with .gv and the note says how to render
    it. Raises ``ValueError`` for another suffix and ``RuntimeError`` when ``dot`` fails.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in DOT_SUFFIXES:
        path.write_text(source, encoding="utf-8")
        return None
    fmt = RENDER_FORMATS.get(suffix)
    if fmt is None:
        raise ValueError(f"cannot write {path.name}: use a .gv, .dot, .svg, .png or .pdf file name")
    exe = shutil.which("dot")
    if exe is None:
        gv = path.with_suffix(".gv")
        gv.write_text(source, encoding="utf-8")
        return (f"Graphviz's dot is not installed: wrote {gv}; render it with: "
                f"dot -T{fmt} {gv} -o {path}")
    proc = subprocess.run([exe, f"-T{fmt}", "-o", str(path)], input=source.encode("utf-8"),
                          capture_output=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"dot failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return None
