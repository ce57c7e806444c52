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

import html
import math
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import networkx as nx

from ..lang.forms.values import HIDDEN, MEMORY, OTHERS, PRIVATE, PUBLIC, MoveEvent
from .layoutcheck import layout_problems  # noqa: F401  (checks a drawing of to_dot's)

# node fill per visibility class (RECYCLE.md section 6); "others" is our choice (orange)
VIS_COLOURS = {
    PUBLIC: "#a6dba0",  # green
    HIDDEN: "#fee08b",  # yellow
    PRIVATE: "#9ecae1",  # blue
    MEMORY: "#d9d9d9",  # light gray
    OTHERS: "#fdae6b",  # orange
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
        self.card_deck = game.card_table.decks
        self.moves: Counter = Counter()  # (src, dst, class, action) -> cards
        self.chosen: Counter = Counter()  # same key -> cards moved by a player's decision
        self.created: Counter = Counter()  # loc -> cards created there
        self.forgotten: Counter = Counter()
        self.decks: set = set()  # (loc, deck name)
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


def crosses_owners(src, dst) -> bool:
    """Does a move go from one player's (team's) location to another player's (team's)?

    ``src``/``dst`` are ``LocationInfo`` of the locations the cards actually left and reached,
    so the owners are the real ones of this move (P1's TRICK to P3's TAKEN), not the names in
    the source text.
    """
    return src.owner_kind == dst.owner_kind and src.owner_kind in ("player", "team") and src.owner != dst.owner


def node_id(info, per_player: bool = False, other: bool = False) -> str:
    """The graph node of a location: ``table/iloc/STOCK``, ``each player/iloc/HAND``, ``P2/iloc/HAND``.

    ``other``: the location is the destination of a move from another owner's location
    (``crosses_owners``). Folded, it is then ``another player/iloc/HAND``: a node of its own,
    outside the "each player" rectangle, so that the edge visibly leaves the player whose
    cards they were (folded into one node, the move would be an edge inside one rectangle,
    or a loop, and look like a player moving cards among their own locations).
    No colons: Graphviz reads ``a:b`` in an edge as node ``a``, port ``b``.
    """
    if info.owner_kind == "game":
        owner = "table"
    elif per_player:
        owner = info.owner_label
    else:
        who = "player" if info.owner_kind == "player" else "team"
        owner = f"another {who}" if other else f"each {who}"
    return f"{owner}/{info.kind}/{info.name}"


def flow_graph(
    game,
    rollouts: int = 1,
    seed: int = 0,
    per_player: bool = False,
    max_steps: int | None = None,
    timeout: float | None = None,
    interruptible: bool = False,
) -> nx.MultiDiGraph:
    """Play ``rollouts`` recorded random games and return the information-flow graph.

    One rollout uses ``seed`` itself; several use ``rollout_seed(seed, i)``. Rollouts that
    hit the step limit are skipped (``G.graph["skipped"]``); counts are means over the
    completed ones. Nodes carry ``name, kind, owner_kind, owner, cluster, visibility,
    decks, mixed_backs, created, forgotten, cards_in, cards_out``; edges (keyed by flow
    class) carry ``count`` (total), ``mean``, ``chosen`` (moved by players' decisions),
    ``src_vis``, ``dst_vis`` and ``actions``. Player (team) locations of one name are a
    single "each player" node unless ``per_player``. ``timeout`` (seconds) stops starting
    new rollouts after that time; ``G.graph["played"]`` says how many were played. With
    ``interruptible``, Ctrl-C stops it the same way (``G.graph["interrupted"]``).
    """
    from ..errors import StepLimitExceeded
    from ..engine.game import DEFAULT_MAX_STEPS, rollout_seed
    from .stopping import Stop

    if rollouts < 1:
        raise ValueError("rollouts must be at least 1")
    total = _Tally(game)
    done = skipped = 0
    with Stop(timeout, interruptible) as stop:
        try:
            for i in range(rollouts):
                if i and stop():
                    break
                s = seed if rollouts == 1 else rollout_seed(seed, i)
                tally = _Tally(game)
                stop.hold = False  # Ctrl-C stops a game at once; the totals are kept whole
                try:
                    game.play(seed=s, record=tally, max_steps=max_steps or DEFAULT_MAX_STEPS)
                except StepLimitExceeded:
                    skipped += 1  # a partial game would distort the means
                    continue
                finally:
                    stop.hold = True
                done += 1
                for name in ("moves", "chosen", "created", "forgotten"):
                    getattr(total, name).update(getattr(tally, name))
                total.decks |= tally.decks
        except KeyboardInterrupt as exc:
            if not stop.catches(exc) or not done + skipped:
                raise
    G = _build(game, total, done, skipped, rollouts, seed, per_player)
    G.graph["interrupted"] = stop.interrupted
    return G


def _build(game, t: _Tally, done: int, skipped: int, rollouts: int, seed: int, per_player: bool):
    G = nx.MultiDiGraph(
        game=game.name,
        rollouts=rollouts,
        played=done + skipped,
        completed=done,
        skipped=skipped,
        seed=seed,
        per_player=per_player,
        nplayers=game.nplayers,
    )
    infos = game.layout.infos
    div = max(done, 1)

    drawn_as: dict[int, set] = {}  # location -> its nodes (a player's HAND: each and another player's)

    def node(loc: int, other: bool = False) -> str:
        info = infos[loc]
        other = other and not per_player  # drawn per player, the owners show it already
        nid = node_id(info, per_player, other)
        drawn_as.setdefault(loc, set()).add(nid)
        if nid not in G:
            folded = info.owner_kind != "game" and not per_player
            G.add_node(
                nid,
                name=info.name,
                kind=info.kind,
                owner_kind=info.owner_kind,
                owner=None if folded else info.owner,
                cluster=nid.rsplit("/", 2)[0],
                other=other,
                visibility=info.visibility,
                decks=[],
                mixed_backs=False,
                created=0.0,
                forgotten=0.0,
                cards_in=0.0,
                cards_out=0.0,
            )
        return nid

    for loc, n in t.created.items():
        G.nodes[node(loc)]["created"] += n / div
    for loc, n in t.forgotten.items():
        G.nodes[node(loc)]["forgotten"] += n / div
    edges: dict = {}
    for (src, dst, cls, action), n in t.moves.items():
        u, v = node(src), node(dst, crosses_owners(infos[src], infos[dst]))
        e = edges.setdefault(
            (u, v, cls),
            {
                "count": 0,
                "chosen": 0,
                "actions": set(),
                "src_vis": infos[src].visibility,
                "dst_vis": infos[dst].visibility,
            },
        )
        e["count"] += n
        e["chosen"] += t.chosen.get((src, dst, cls, action), 0)
        e["actions"].add(action)
    for (u, v, cls), e in sorted(edges.items()):
        mean = e["count"] / div
        G.add_edge(
            u,
            v,
            key=cls,
            flow=cls,
            count=e["count"],
            mean=mean,
            chosen=e["chosen"],
            actions=sorted(e["actions"]),
            src_vis=e["src_vis"],
            dst_vis=e["dst_vis"],
        )
        G.nodes[u]["cards_out"] += mean
        G.nodes[v]["cards_in"] += mean
    decks: dict[str, set] = {}
    for loc, deck in t.decks:
        for nid in drawn_as.get(loc) or {node(loc)}:
            decks.setdefault(nid, set()).add(deck)
    for nid, names in decks.items():
        G.nodes[nid]["decks"] = sorted(names)
        G.nodes[nid]["mixed_backs"] = len(names) > 1
    return G


# -- drawing ---------------------------------------------------------------------------------
def _num(x: float) -> str:
    """A count for a label: integers plainly, means with up to two decimals."""
    if abs(x - round(x)) < 1e-9:
        return str(round(x))
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}".rstrip("0").rstrip(".")


def _cluster_label(G, cluster: str) -> str:
    n = G.graph.get("nplayers", 0)
    if cluster == "each player":
        return f"each player (P0–P{n - 1})" if n > 1 else "each player (P0)"
    if cluster == "table":
        return "table (game)"
    if cluster.startswith("another"):
        return f"{cluster} (cards moved between {cluster.split()[1]}s)"
    return cluster


def _cluster_order(cluster: str):
    # table first, then folded owners, then players and teams by number
    if cluster == "table":
        return (0, 0, "")
    if cluster.startswith("each"):
        return (1, 0, cluster)
    if cluster.startswith("another"):
        return (1, 1, cluster)
    return (2 if cluster[0] == "P" else 3, int(cluster[1:]) if cluster[1:].isdigit() else 0, cluster)


def _legend_html(G: nx.MultiDiGraph | None = None) -> str:
    """The legend as an HTML-like table: fills, borders, and one drawn sample per edge style.

    With a graph ``G`` it lists only what the picture shows (its visibilities, edge styles,
    the bold and the dashed border if used), in a small font: a legend of every convention
    came out wider than a small graph such as Hearts', and the legend should explain the
    picture, not outweigh it. The line samples are table cells, not text: a filled cell draws
    a solid line (text dashes leave gaps between the glyphs), and dots and dashes are cells
    with gaps between them.
    """
    vis_used = set(VIS_COLOURS) if G is None else {a.get("visibility") for _, a in G.nodes(data=True)}
    flows_used = set(EDGE_STYLES) if G is None else {k for _, _, k in G.edges(keys=True)}
    bold = G is None or any(a.get("mixed_backs") for _, a in G.nodes(data=True))
    other = G is None or any(a.get("other") for _, a in G.nodes(data=True))
    nodes = [
        f'<TD BGCOLOR="{VIS_COLOURS[vis]}" COLOR="black" BORDER="1" WIDTH="24"> </TD>'
        f'<TD ALIGN="LEFT">{VIS_WORDS[vis]}</TD>'
        for vis in (PUBLIC, HIDDEN, PRIVATE, MEMORY, OTHERS)
        if vis in vis_used
    ]
    if bold:
        nodes.append(
            '<TD COLOR="black" BORDER="3" WIDTH="24"> </TD>'
            '<TD ALIGN="LEFT">bold border: cards from different decks (distinct backs)</TD>'
        )
    if other:
        nodes.append(
            '<TD COLOR="black" BORDER="1" STYLE="DASHED" WIDTH="24"> </TD>'
            '<TD ALIGN="LEFT">dashed border: another player\'s location (cards changed owner)</TD>'
        )
    edges = [
        f'<TD>{_line_sample(colour, style, head)}</TD><TD ALIGN="LEFT">{EDGE_WORDS[cls]}</TD>'
        for cls, (colour, style, head) in EDGE_STYLES.items()
        if cls in flows_used
    ]
    edges.append('<TD COLSPAN="2" ALIGN="LEFT">label: cards moved, visibility before → after</TD>')
    # two columns, locations on the left and edges on the right: a wide, low legend
    rows = ['<TR><TD COLSPAN="5" ALIGN="LEFT"><B>legend</B></TD></TR>']
    for i in range(max(len(nodes), len(edges))):
        left = nodes[i] if i < len(nodes) else '<TD COLSPAN="2"></TD>'
        right = edges[i] if i < len(edges) else '<TD COLSPAN="2"></TD>'
        rows.append(f'<TR>{left}<TD WIDTH="8"></TD>{right}</TR>')
    return (
        '<FONT POINT-SIZE="9"><TABLE BORDER="1" STYLE="ROUNDED" COLOR="gray70" CELLBORDER="0" '
        'CELLSPACING="2" CELLPADDING="2">' + "".join(rows) + "</TABLE></FONT>"
    )


# the pieces of a legend line sample, (cell width, gap after it), 32 points of line in all
_SAMPLE_PIECES = {"solid": [(32, 0)], "dashed": [(6, 3)] * 3 + [(5, 0)], "dotted": [(2, 2)] * 7 + [(4, 0)]}


def _line_sample(colour: str, style: str, head: str) -> str:
    """A short horizontal line in ``style`` with an arrowhead, drawn with table cells of fixed size."""
    cells = []
    for width, gap in _SAMPLE_PIECES.get(style, _SAMPLE_PIECES["solid"]):
        cells.append(f'<TD BGCOLOR="{colour}" WIDTH="{width}" HEIGHT="2" FIXEDSIZE="TRUE"></TD>')
        if gap:
            cells.append(f'<TD WIDTH="{gap}" HEIGHT="2" FIXEDSIZE="TRUE"></TD>')
    arrow = "▷" if head == "onormal" else "▶"
    cells.append(
        f'<TD WIDTH="8" HEIGHT="10" FIXEDSIZE="TRUE"><FONT COLOR="{colour}" POINT-SIZE="8">{arrow}</FONT></TD>'
    )
    return (
        '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0" WIDTH="40" HEIGHT="10" FIXEDSIZE="TRUE"><TR>'
        + "".join(cells)
        + "</TR></TABLE>"
    )


def _heading_html(title: str, legend: bool, G: nx.MultiDiGraph | None = None) -> str:
    """The picture's heading: its title and, below it, the legend (the graph's own label).

    The graph's label lies outside the area where Graphviz draws nodes and edges, so no edge
    can run through the legend.
    """
    rows = f'<TR><TD><FONT POINT-SIZE="16">{html.escape(title)}</FONT></TD></TR>'
    if legend:
        rows += f'<TR><TD ALIGN="LEFT">{_legend_html(G)}</TD></TR>'
    return f'<<TABLE BORDER="0" CELLSPACING="4">{rows}</TABLE>>'


def edge_label_id(u: str, v: str, key: str) -> str:
    """The DOT node that carries the label of the edge ``u → v`` of flow class ``key``.

    An edge's label is a node of its own on the way from ``u`` to ``v`` (drawn as text, no
    box): Graphviz keeps nodes apart, so no label overlaps another label, a location or the
    edge of another pair, none is cut off at the picture's border, and the two directions of
    a two-way pair get a label each, side by side.
    """
    return f"label {u} → {v} ({key})"


def cluster_title_id(cluster: str) -> str:
    """The DOT node that carries the title of an owner's rectangle (a node, so edges go around it)."""
    return f"title {cluster}"


def _downward(G: nx.MultiDiGraph) -> set:
    """The (u, v) pairs drawn top to bottom; the others (back edges of cycles) are drawn upwards.

    A depth-first search from the locations where cards start (then the rest, in a fixed
    order): an edge to a location still on the search path closes a cycle and goes upwards.
    Each edge's two halves are then written in one direction, so its label lies between its
    ends, and the two edges of a two-way pair get their labels side by side.
    """
    order = sorted(
        G, key=lambda n: (not G.nodes[n].get("created"), _cluster_order(G.nodes[n].get("cluster", "table")), n)
    )
    state: dict = {}
    down: set = set()
    for root in order:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(sorted(set(G.successors(root)), key=order.index)))]
        while stack:
            n, it = stack[-1]
            for m in it:
                if m not in state:
                    down.add((n, m))
                    state[m] = 1
                    stack.append((m, iter(sorted(set(G.successors(m)), key=order.index))))
                    break
                if state[m] == 2:
                    down.add((n, m))  # a cross or forward edge: no cycle
            else:
                state[n] = 2
                stack.pop()
    return down


def to_dot(G: nx.MultiDiGraph, legend: bool = True) -> str:
    """The Graphviz DOT text of a flow graph (see the module docstring for the conventions).

    Layout: each edge label is a text node between the edge's two halves (``edge_label_id``),
    inside the owner's rectangle when both ends belong to it; each rectangle's title is a text
    node at its top (``cluster_title_id``), so edges go around it; the title of the picture and
    the legend are the graph's label, above the drawing, where no edge goes.
    """
    import graphviz

    done, rollouts = G.graph.get("completed", 1), G.graph.get("rollouts", 1)
    if rollouts == 1:
        title = f"{G.graph.get('game', '')}: card movement in one rollout (seed {G.graph.get('seed', 0)})"
    else:
        title = (
            f"{G.graph.get('game', '')}: mean cards moved per game over {done} rollouts (seed {G.graph.get('seed', 0)})"
        )
    if G.graph.get("skipped"):
        title += f"; {G.graph['skipped']} rollouts hit the step limit and are left out"
    # a location with many edges fans them out over a wide row: more room between the rows
    # lets the fanned-out edges part before they reach their labels
    busiest = max((G.degree(n) - G.number_of_edges(n, n) for n in G), default=0)
    ranksep = min(0.9, 0.3 + 0.05 * max(0, busiest - 6))
    d = graphviz.Digraph(
        "flow",
        graph_attr={
            "label": _heading_html(title, legend, G),
            "labelloc": "t",
            "fontname": "Helvetica",
            "fontsize": "11",
            "rankdir": "TB",
            "nodesep": "0.3",
            "ranksep": f"{ranksep:.2f}",
            "newrank": "true",
            "pad": "0.2",
        },
        node_attr={
            "shape": "box",
            "style": "rounded,filled",
            "fontname": "Helvetica",
            "fontsize": "13",
            "penwidth": "1",
        },
        edge_attr={"fontname": "Helvetica", "fontsize": "10"},
    )
    clusters: dict[str, list] = {}
    for nid, a in G.nodes(data=True):
        clusters.setdefault(a.get("cluster", "table"), []).append(nid)
    # each edge's label node goes into the rectangle of the end drawn below it (the head of an
    # edge drawn downwards, the tail of one drawn upwards): labels between two rectangles would
    # have to stand beside both, and the picture would grow wide
    down = _downward(G)
    labels: dict[str, list] = {}
    for u, v, key in G.edges(keys=True):
        lower = v if (u, v) in down else u
        labels.setdefault(G.nodes[lower].get("cluster", "table"), []).append((u, v, key))

    def label_node(c, u, v, key) -> None:
        a = G.edges[u, v, key]
        colour = EDGE_STYLES.get(key, EDGE_STYLES["move"])[0]
        change = a["src_vis"] if a["src_vis"] == a["dst_vis"] else f"{a['src_vis']} → {a['dst_vis']}"
        c.node(
            edge_label_id(u, v, key),
            f"{_num(a['mean'])} · {change}",
            shape="plaintext",
            style="",
            fontsize="10",
            fontcolor=colour,
            width="0",
            height="0",
            margin="0.05,0.04",
        )

    for i, cluster in enumerate(sorted(clusters, key=_cluster_order)):
        with d.subgraph(name=f"cluster_{i}") as c:
            c.attr(label="", style="rounded", color="gray35")
            tid = cluster_title_id(cluster)
            c.node(tid, _cluster_label(G, cluster), shape="plaintext", style="", fontsize="14")
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
                if a.get("other"):  # a stand-in for the same location of another player
                    attrs["style"] = attrs.get("style", "rounded,filled") + ",dashed"
                c.node(nid, label, **attrs)
                # the title sits above everything in its rectangle (edges without a line)
                c.edge(tid, nid, style="invis")
            for u, v, key in labels.get(cluster, ()):
                label_node(c, u, v, key)
                c.edge(tid, edge_label_id(u, v, key), style="invis")
    for u, v, key, a in G.edges(keys=True, data=True):
        colour, style, head = EDGE_STYLES.get(key, EDGE_STYLES["move"])
        width = 1.2 + min(2.0, math.log2(1 + a["mean"]) / 2)
        if style != "solid":
            width += 0.6  # dots and dashes need a heavier pen to read at a glance
        look = {"color": colour, "style": style, "penwidth": f"{width:.2f}"}
        lid = edge_label_id(u, v, key)
        if (u, v) in down:
            d.edge(u, lid, arrowhead="none", **look)
            d.edge(lid, v, arrowhead=head, **look)
        elif u == v:  # a loop: out of the bottom to the label and back
            d.edge(u, lid, arrowhead="none", **look)
            d.edge(v, lid, dir="back", arrowtail=head, arrowhead="none", **look)
        else:  # upwards: written from v down to u, drawn with the arrowhead at v
            d.edge(v, lid, dir="back", arrowtail=head, arrowhead="none", **look)
            d.edge(lid, u, dir="back", arrowtail="none", arrowhead="none", **look)
    return d.source


def to_json(G: nx.MultiDiGraph) -> dict:
    """The graph as ``networkx.node_link_data`` (nodes, edges and the graph attributes)."""
    return nx.node_link_data(G, edges="edges")


def write_dot(source: str, path: str | Path) -> str | None:
    """Write DOT ``source`` to ``path`` by its suffix; return a note for the user or None.

    .gv/.dot: the text. .svg/.png/.pdf: rendered with Graphviz's ``dot``. When ``dot`` is
    not installed the text goes to the name asked for plus .gv (``flow.svg`` → ``flow.svg.gv``)
    and the note says so and how to render it. The whole name is kept so that ``flow.svg``
    and ``flow.png`` do not both become ``flow.gv``, the second run replacing the first; when
    the .gv file exists already (the same command run again) it is replaced and the note says
    "replaced", so nothing is overwritten without a word. Raises ``ValueError`` for another
    suffix and ``RuntimeError`` when ``dot`` fails.
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
        gv = path.with_name(path.name + ".gv")
        replaced = gv.exists()
        gv.write_text(source, encoding="utf-8")
        did = "replaced the existing file" if replaced else "wrote"
        return (
            f"Graphviz's dot is not installed, so {path} was not drawn: {did} {gv} (DOT text) "
            f"instead; render it with: dot -T{fmt} {gv} -o {path}"
        )
    proc = subprocess.run(
        [exe, f"-T{fmt}", "-o", str(path)], input=source.encode("utf-8"), capture_output=True, timeout=300
    )
    if proc.returncode != 0:
        raise RuntimeError(f"dot failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return None
