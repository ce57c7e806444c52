"""Information-flow graphs (recycle.graphs), structure diagrams (recycle.structure) and
their commands (`recycle graph`, `recycle tree`)."""

import json
import re
import shutil
import xml.etree.ElementTree as ET

import networkx as nx
import pytest
from typer.testing import CliRunner

import recycle
from recycle.study import graphs
from recycle.cli import app
from recycle.study.graphs import EDGE_STYLES, VIS_COLOURS, flow_graph, to_dot, to_json, write_dot
from recycle.lang.forms.values import MoveEvent
from recycle.study.layoutcheck import heading_and_drawing
from recycle.study.structure import action_text, expr, game_tree, outline, raw_tree, tree_dot
from recycle.lang.syntax.reader import parse_text

from ..conftest import CORPUS, GAMES, requires_corpus

runner = CliRunner()
SCHWIMMEN = str(GAMES / "schwimmen.rcy")
HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed")

STOCK, EXTRA, MIDDLE, DISCARD = "table/iloc/STOCK", "table/iloc/EXTRA", "table/vloc/MIDDLE", "table/vloc/DISCARD"
HAND = "each player/iloc/HAND"

# a Hearts-like passing game: each player passes a card from its HAND to the next player's
# HAND, then plays its cards to the table, remembering each; a second deck (one JOKER) gives
# the STOCK cards with two different backs
PASSING = """(game
 (setup (create players 3)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y))))
  (create deck JOKERS (game iloc STOCK) (deck (RANK (JOKER)))))
 (do ((shuffle (game iloc STOCK))
      (all player 'P (repeat 2 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (stage player (end (== (game sto PASSED) 3))
  (choice ((any ((current player) iloc HAND) 'C (move 'C (top ((next player) iloc HAND))))))
  (inc (game sto PASSED)))
 (stage player (end (all player 'P (== (size ('P iloc HAND)) 0)))
  (choice ((any ((current player) iloc HAND) 'C
            (do ((remember 'C (top (game mem SEEN)))
                 (move 'C (top (game vloc TRICK)))))))))
 (scoring max 0))"""


@pytest.fixture(scope="module")
def game():
    return recycle.load(GAMES / "schwimmen.rcy")


def _labels(game, seed):
    """(action, src label, dst label) of every card movement of one recorded rollout."""
    r = game.play(seed=seed, record=True)
    info = game.layout.info
    return {
        (e.action, info(e.src).name, info(e.dst).name)
        for e in r.events
        if isinstance(e, MoveEvent) and e.src is not None and e.dst is not None
    }


@pytest.fixture(scope="module")
def seed(game):
    """A deal where the dealer swaps with EXTRA and the MIDDLE is replaced from the STOCK
    (found from the events, not from the graph; 1 when this was written)."""
    for s in range(1, 300):
        moves = _labels(game, s)
        if ("swap", "EXTRA", "HAND") in moves and ("move", "STOCK", "MIDDLE") in moves:
            return s
    pytest.fail("no seed in 1..299 where the dealer swaps and the middle is replaced")


@pytest.fixture(scope="module")
def G(game, seed):
    return flow_graph(game, rollouts=1, seed=seed)


@pytest.fixture(scope="module")
def passing():
    return recycle.loads(PASSING, "passing.rcy")


def _edge_line(dot, u, v):
    """The DOT lines of the edge u -> v: its two halves and its label node, as one string.

    An edge is drawn as two halves through a text node that carries its label
    (``graphs.edge_label_id``), so that labels never overlap.
    """
    ids = {m for m in re.findall(r'"(label [^"]*)"', dot) if m.startswith(f"label {u} → {v} (")}
    assert len(ids) == 1, (u, v, ids)
    lid = ids.pop()
    lines = [ln for ln in dot.splitlines() if f'"{lid}"' in ln and "style=invis" not in ln]
    assert len(lines) == 3, (u, v, lines)  # the label node and the two halves
    return "\n".join(lines)


def _node_line(dot, n):
    lines = [ln for ln in dot.splitlines() if ln.strip().startswith(f'"{n}" [')]
    assert len(lines) == 1, (n, lines)
    return lines[0]


# -- the graph ---------------------------------------------------------------------------------
def test_schwimmen_nodes_and_visibility(G):
    assert isinstance(G, nx.MultiDiGraph)
    vis = {n: a["visibility"] for n, a in G.nodes(data=True)}
    assert vis == {STOCK: "hidden", EXTRA: "hidden", MIDDLE: "public", DISCARD: "public", HAND: "private"}
    assert G.nodes[STOCK]["created"] == 32 and G.nodes[HAND]["created"] == 0
    assert not any(a["mixed_backs"] for _, a in G.nodes(data=True))  # one deck
    assert G.nodes[HAND]["cluster"] == "each player" and G.nodes[STOCK]["cluster"] == "table"


def test_schwimmen_edges(G):
    edges = {(u, v): k for u, v, k in G.edges(keys=True)}
    assert edges == {
        (STOCK, HAND): "move",
        (STOCK, EXTRA): "move",  # deal
        (HAND, EXTRA): "move",
        (EXTRA, HAND): "move",  # the dealer's swap
        (EXTRA, MIDDLE): "move",  # reveal
        (HAND, MIDDLE): "move",
        (MIDDLE, HAND): "taken",  # exchanges: taking from the table
        (HAND, DISCARD): "move",
        (MIDDLE, DISCARD): "move",
        (STOCK, MIDDLE): "move",  # end, new middle
    }

    def e(u, v):
        return G.edges[u, v, edges[(u, v)]]

    assert e(STOCK, HAND)["count"] == 15 and e(STOCK, EXTRA)["count"] == 3 and e(EXTRA, MIDDLE)["count"] == 3
    assert e(HAND, DISCARD)["count"] == 15
    assert e(HAND, EXTRA)["count"] == e(EXTRA, HAND)["count"] == 3
    assert e(HAND, MIDDLE)["count"] == e(MIDDLE, HAND)["count"] > 0
    assert e(MIDDLE, HAND)["chosen"] == e(MIDDLE, HAND)["count"]  # players decide the exchanges
    assert e(STOCK, HAND)["chosen"] == 0
    assert (e(MIDDLE, HAND)["src_vis"], e(MIDDLE, HAND)["dst_vis"]) == ("public", "private")
    assert e(MIDDLE, HAND)["actions"] == ["swap"] and e(STOCK, HAND)["actions"] == ["move"]


def test_schwimmen_dot_colours_and_styles(G):
    dot = to_dot(G)
    assert VIS_COLOURS["hidden"] in _node_line(dot, STOCK) and VIS_COLOURS["hidden"] in _node_line(dot, EXTRA)
    assert VIS_COLOURS["public"] in _node_line(dot, MIDDLE) and VIS_COLOURS["public"] in _node_line(dot, DISCARD)
    assert VIS_COLOURS["private"] in _node_line(dot, HAND)
    taken = _edge_line(dot, MIDDLE, HAND)
    assert "color=red" in taken and "style=dotted" in taken and "public → private" in taken
    plain = _edge_line(dot, STOCK, HAND)
    assert "color=black" in plain and "style=solid" in plain and "15 · hidden → private" in plain
    assert "3 · hidden" in _edge_line(dot, STOCK, EXTRA)  # no change: one word
    assert 'label="table (game)"' in dot and 'label="each player (P0–P4)"' in dot
    assert dot.count("subgraph cluster_") == 2  # table, players; the legend is in the heading
    # the legend explains what is drawn: no passing, one deck here
    assert "taken information" in dot and "shared information" not in dot and "bold border" not in dot


def test_per_player_splits_hands(game, seed):
    G = flow_graph(game, seed=seed, per_player=True)
    hands = sorted(n for n in G if n.endswith("/HAND"))
    assert hands == [f"P{p}/iloc/HAND" for p in range(5)]
    assert all(G.nodes[h]["cluster"] == h.split("/")[0] and G.nodes[h]["owner"] == int(h[1]) for h in hands)
    assert sum(G.edges[STOCK, h, "move"]["count"] for h in hands) == 15
    assert re.search(r'label="?P4"?\s', to_dot(G))


def test_two_way_edges_get_a_label_each_between_their_ends(G):
    """HAND -> EXTRA and EXTRA -> HAND (the dealer's swap): each label is a node of its own, and
    both edges are written in the same direction (one of them drawn backwards), so Graphviz puts
    the two labels side by side in the row between the two locations, not on top of each other."""
    dot = to_dot(G)
    ids = {u: graphs.edge_label_id(u, v, "move") for u, v in ((HAND, EXTRA), (EXTRA, HAND))}
    assert len(set(ids.values())) == 2
    for lid in ids.values():
        assert re.search(rf'^\s*"{re.escape(lid)}" \[label="3 · (hidden|private) → (hidden|private)"', dot, re.M)
    written = set()
    for lid in ids.values():
        halves = [ln.strip() for ln in dot.splitlines() if f'"{lid}"' in ln and "->" in ln and "invis" not in ln]
        assert len(halves) == 2, halves
        # the DOT direction of each half: (upper end, lower end) of the label node
        ends = tuple(sorted({m for h in halves for m in re.findall(r'"([^"]+)" ->|-> "([^"]+)"', h)[0] if m} - {lid}))
        written.add((re.match(r'"([^"]+)"', halves[0]).group(1), ends))
    uppers = {w[0] for w in written}
    assert len(uppers) == 1, written  # both written from the same location down through their label
    assert "dir=back" in dot  # the other direction is drawn backwards, its arrowhead at the top


@needs_dot
@pytest.mark.parametrize(
    "path, per_player, deal",
    [
        (SCHWIMMEN, False, None),
        (SCHWIMMEN, True, None),
        (GAMES / "war.rcy", False, 1),
        (GAMES / "crazy-eights.rcy", False, 0),
        (GAMES / "crazy-eights.rcy", True, 0),
        (GAMES / "oh-hell.rcy", False, 0),
        (GAMES / "oh-hell.rcy", True, 0),
        (GAMES / "hearts.rcy", True, 1),
        (GAMES / "schwimmen-lives.rcy", True, 1),
    ],
)
def test_drawing_has_no_overlaps(path, per_player, deal, request):
    """Laid out by Graphviz: no label overlaps another or is cut off, no edge runs through a
    label, a rectangle's title or the legend (``graphs.layout_problems``)."""
    if deal is None:
        deal = request.getfixturevalue("seed")  # Schwimmen's deal with a two-way swap
    G = flow_graph(recycle.load(path), seed=deal, per_player=per_player)
    assert graphs.layout_problems(to_dot(G)) == []


@needs_dot
def test_drawing_checks_find_problems(passing):
    # a rectangle's title at the bottom, crossed by the edge that leaves the rectangle downwards
    bad = 'digraph { subgraph cluster_0 { label="a long title here"; labelloc=b; a } b; a -> b }'
    assert graphs.layout_problems(bad) == ["the edge a -> b runs through the title 'a long title here'"]
    G = flow_graph(passing, seed=1)  # a loop HAND -> HAND, remembered cards, two decks
    assert graphs.layout_problems(to_dot(G)) == []
    assert graphs.layout_problems(to_dot(flow_graph(passing, seed=1, per_player=True))) == []


def test_legend_lines_are_drawn_not_typed():
    """The legend's line samples are filled table cells: one unbroken cell for a solid line,
    several with gaps for dashes and dots (typed dashes "———" left gaps and looked dashed)."""
    legend = graphs._legend_html()
    assert "———" not in legend and "- - -" not in legend
    solid = graphs._line_sample("black", "solid", "normal")
    assert solid.count('BGCOLOR="black"') == 1
    assert graphs._line_sample("blue", "dashed", "normal").count('BGCOLOR="blue"') == 4
    assert graphs._line_sample("red", "dotted", "normal").count('BGCOLOR="red"') == 8


def test_shared_information_in_a_passing_game(passing):
    G = flow_graph(passing, seed=1)
    # a card passed to the next player leaves the folded "each player" HAND for another
    # player's HAND, a node of its own (not a loop back to itself), blue dashed
    other = "another player/iloc/HAND"
    assert not G.has_edge(HAND, HAND)
    assert G.edges[HAND, other, "shared"]["count"] == 3
    assert G.edges[HAND, other, "shared"]["src_vis"] == G.edges[HAND, other, "shared"]["dst_vis"] == "private"
    assert G.nodes[other]["cluster"] == "another player" and G.nodes[other]["other"]
    assert G.edges[HAND, "table/vloc/TRICK", "move"]["count"] == 6
    assert G.edges[HAND, "table/mem/SEEN", "remember"]["count"] == 6
    assert G.nodes["table/mem/SEEN"]["visibility"] == "memory"
    assert G.nodes[STOCK]["mixed_backs"] and G.nodes[STOCK]["decks"] == ["DEFAULT", "JOKERS"]
    dot = to_dot(G)
    line = _edge_line(dot, HAND, other)
    assert "color=blue" in line and "style=dashed" in line
    assert VIS_COLOURS["memory"] in _node_line(dot, "table/mem/SEEN")
    assert "penwidth=3.5" in _node_line(dot, STOCK) and "bold" in _node_line(dot, STOCK)
    _colour, _style, head = EDGE_STYLES["remember"]
    assert f"arrowhead={head}" in _edge_line(dot, HAND, "table/mem/SEEN")
    split = flow_graph(passing, seed=1, per_player=True)
    shared = {(u, v) for u, v, k in split.edges(keys=True) if k == "shared"}
    assert shared == {
        ("P0/iloc/HAND", "P1/iloc/HAND"),
        ("P1/iloc/HAND", "P2/iloc/HAND"),
        ("P2/iloc/HAND", "P0/iloc/HAND"),
    }


def test_hearts_tricks_go_to_another_player_in_the_folded_view():
    """Hearts' trick winner takes the other players' cards: in the folded (default) view that
    move leaves the "each player" rectangle for "another player"'s TAKEN, apart from the
    winner's own card (CardStock's diagrams draw these crossing edges; folded into one
    node they looked like each player moving cards among their own locations)."""
    G = flow_graph(recycle.load(GAMES / "hearts.rcy"), seed=1)
    trick, taken = "each player/vloc/TRICK", "each player/vloc/TAKEN"
    other_taken, other_hand = "another player/vloc/TAKEN", "another player/iloc/HAND"
    # seed 1 is 11 deals of 13 tricks: 143 tricks, of whose 4 cards 3 belong to others; every
    # fourth deal passes no cards, so 9 deals pass 3 cards from each of the 4 players
    assert G.edges[trick, other_taken, "move"]["count"] == 3 * 143
    assert G.edges[trick, taken, "move"]["count"] == 143
    assert G.edges["each player/iloc/PASS", other_hand, "shared"]["count"] == 9 * 4 * 3
    assert not G.has_edge("each player/iloc/PASS", "each player/iloc/HAND")
    assert {G.nodes[n]["cluster"] for n in (other_taken, other_hand)} == {"another player"}
    assert G.out_degree(other_taken) == 0  # only a destination: its cards leave as "each player"'s
    dot = to_dot(G)
    assert "another player (cards moved between players)" in dot
    assert "dashed" in _node_line(dot, other_taken) and "dashed" not in _node_line(dot, taken)
    assert "dashed border: another player" in dot  # the legend explains the stand-in
    # drawn per player nothing is folded, so there is no stand-in
    per = flow_graph(recycle.load(GAMES / "hearts.rcy"), seed=1, per_player=True)
    assert not any(a["other"] for _, a in per.nodes(data=True))


@needs_dot
@pytest.mark.parametrize("name, deal", [("hearts", 1), ("schwimmen", 3), ("schwimmen-lives", 2)])
def test_legend_is_smaller_than_the_graph(name, deal):
    """The heading (title and legend) is narrower than the drawing and covers less area: the
    legend lists only the conventions the picture uses, in a small font."""
    G = flow_graph(recycle.load(GAMES / f"{name}.rcy"), seed=deal)
    (hw, hh), (dw, dh) = heading_and_drawing(to_dot(G))
    assert hw < dw and hw * hh < dw * dh / 2, ((hw, hh), (dw, dh))


def test_legend_lists_only_what_the_picture_uses(G):
    legend = graphs._legend_html(G)  # Schwimmen: no memory, no others-only, one deck, no passing
    assert "public: everyone" in legend and "hidden: nobody" in legend and "private: only" in legend
    assert "memory" not in legend and "others:" not in legend and "bold border" not in legend
    assert "shared information" not in legend and "dashed border" not in legend
    assert "taken information" in legend and "other card movement" in legend


def test_aggregated_rollouts_give_means(game):
    G = flow_graph(game, rollouts=30, seed=1)
    assert G.graph["completed"] == 30 and G.graph["skipped"] == 0 and G.graph["rollouts"] == 30
    assert G.edges[STOCK, HAND, "move"]["mean"] == 15 and G.edges[STOCK, HAND, "move"]["count"] == 450
    assert "mean cards moved per game over 30 rollouts" in to_dot(G)
    again = recycle.flow_graph(game, rollouts=30, seed=1)  # the top-level function delegates here
    assert nx.utils.edges_equal(G.edges(keys=True, data=True), again.edges(keys=True, data=True))


def test_rollouts_past_the_step_limit_are_skipped():
    g = recycle.loads(
        """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))
      (stage player (end (== 1 0)) (do ((move (top (game iloc STOCK)) (bottom (game iloc STOCK))))))
      (scoring max 0))""",
        "forever.rcy",
    )
    G = flow_graph(g, rollouts=3, seed=0, max_steps=200)
    assert G.graph["skipped"] == 3 and G.graph["completed"] == 0 and G.number_of_edges() == 0
    assert "3 rollouts hit the step limit" in to_dot(G)


def test_json_node_link(G):
    data = json.loads(json.dumps(to_json(G)))
    assert {n["id"] for n in data["nodes"]} == set(G)
    assert len(data["edges"]) == G.number_of_edges() and data["graph"]["game"] == "schwimmen"
    back = nx.node_link_graph(data, edges="edges")
    assert back.is_multigraph() and set(back.edges(keys=True)) == set(G.edges(keys=True))


# -- output files ------------------------------------------------------------------------------
def test_write_dot_text_and_bad_suffix(G, tmp_path):
    assert write_dot(to_dot(G), tmp_path / "f.gv") is None
    assert (tmp_path / "f.gv").read_text().startswith("digraph flow {")
    with pytest.raises(ValueError):
        write_dot(to_dot(G), tmp_path / "f.txt")


@needs_dot
def test_render_svg_parses_as_xml(G, tmp_path):
    out = tmp_path / "f.svg"
    assert write_dot(to_dot(G), out) is None
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    text = out.read_text()
    assert "STOCK" in text and "legend" in text


def test_missing_dot_keeps_the_name_and_says_how(G, tmp_path, monkeypatch):
    """Without dot the DOT text goes to the name asked for plus .gv (f.png → f.png.gv), so
    f.svg and f.png do not share f.gv; a .gv that exists is replaced, and the note says so."""
    monkeypatch.setattr(graphs.shutil, "which", lambda name: None)
    png, svg = tmp_path / "f.png", tmp_path / "f.svg"
    note = write_dot(to_dot(G), png)
    assert not png.exists() and (tmp_path / "f.png.gv").exists() and not (tmp_path / "f.gv").exists()
    assert note == (
        f"Graphviz's dot is not installed, so {png} was not drawn: wrote {png}.gv (DOT text) "
        f"instead; render it with: dot -Tpng {png}.gv -o {png}"
    )
    note = write_dot(to_dot(G), svg)
    assert (tmp_path / "f.svg.gv").exists() and (tmp_path / "f.png.gv").exists()
    assert "replaced" not in note
    (tmp_path / "f.png.gv").write_text("old")
    note = write_dot(to_dot(G), png)
    assert f"replaced the existing file {png}.gv" in note
    assert (tmp_path / "f.png.gv").read_text().startswith("digraph flow {")


# -- the commands ------------------------------------------------------------------------------
def test_cli_graph_svg_gv_json(tmp_path, seed):
    gv, js = tmp_path / "flow.gv", tmp_path / "flow.json"
    r = runner.invoke(app, ["graph", SCHWIMMEN, "--seed", str(seed), "-o", str(gv)])
    assert r.exit_code == 0, r.output
    assert r.output.strip() == f"wrote {gv} (5 locations, 10 edges)"
    assert "color=red" in gv.read_text()
    r = runner.invoke(app, ["graph", SCHWIMMEN, "--seed", "1", "--rollouts", "5", "--json", str(js)])
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    assert {n["id"] for n in data["nodes"]} == {STOCK, EXTRA, MIDDLE, DISCARD, HAND}
    assert data["graph"]["rollouts"] == 5
    r = runner.invoke(app, ["graph", SCHWIMMEN, "--per-player"])  # DOT on stdout
    assert r.exit_code == 0 and r.output.startswith("digraph flow {") and "P3/iloc/HAND" in r.output
    if HAS_DOT:
        svg = tmp_path / "flow.svg"
        r = runner.invoke(app, ["graph", SCHWIMMEN, "--seed", "3", "-o", str(svg)])
        assert r.exit_code == 0, r.output
        ET.parse(svg)


def test_cli_graph_without_dot(tmp_path, monkeypatch):
    """`graph -o flow.svg` then `graph --rollouts 2 -o flow.png` without dot: two files, each
    named after what was asked for; running the first again says it replaces its file."""
    monkeypatch.setattr(graphs.shutil, "which", lambda name: None)
    svg, png = tmp_path / "flow.svg", tmp_path / "flow.png"
    r = runner.invoke(app, ["graph", SCHWIMMEN, "--seed", "3", "-o", str(svg)])
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "dot is not installed" in lines[0]
    assert f"wrote {svg}.gv (DOT text)" in lines[0] and f"dot -Tsvg {svg}.gv -o {svg}" in lines[0]
    first = (tmp_path / "flow.svg.gv").read_text()
    r = runner.invoke(app, ["graph", SCHWIMMEN, "--rollouts", "2", "-o", str(png)])
    assert r.exit_code == 0, r.output
    assert f"wrote {png}.gv (DOT text)" in r.output and "replaced" not in r.output
    assert (tmp_path / "flow.svg.gv").read_text() == first  # the first run's file is untouched
    assert "over 2 rollouts" in (tmp_path / "flow.png.gv").read_text()
    assert not svg.exists() and not png.exists() and not (tmp_path / "flow.gv").exists()
    r = runner.invoke(app, ["graph", SCHWIMMEN, "--seed", "3", "-o", str(svg)])
    assert r.exit_code == 0 and f"replaced the existing file {svg}.gv" in r.output


def test_cli_errors(tmp_path):
    r = runner.invoke(app, ["graph", SCHWIMMEN, "-o", str(tmp_path / "flow.txt")])
    assert r.exit_code == 2 and "use a .gv" in r.output
    bad = tmp_path / "bad.rcy"
    bad.write_text("(game (setup (create players 2)")
    for cmd in ("graph", "tree"):
        r = runner.invoke(app, [cmd, str(bad)])
        assert r.exit_code == 1 and "never closed" in r.output and "Traceback" not in r.output


def test_cli_tree(tmp_path):
    r = runner.invoke(app, ["tree", SCHWIMMEN])
    assert r.exit_code == 0, r.output
    text = r.output
    assert text.splitlines()[0] == "game schwimmen.rcy"
    for piece in (
        "setup",
        "create deck of 32 cards (RANK, COLOR, SUIT) in STOCK",
        "repeat 3: move top STOCK → top HAND('P)",
        "1. swap HAND(current) ↔ EXTRA",
        "2. pass",
        "stage: each player in turn, until size STOCK < 3 or CLOSE > 'NUMP",
        "│  ├─ stage: each player in turn, until PASS == 'NUMP",  # nested stage
        "one option per 'HC in HAND(current)",
        "swap 'HC ↔ 'MC",
        "if CLOSE == 0",
        "repeat all: move top HAND(current) → top DISCARD",
        "scoring: max SCORE(current) wins",
    ):
        assert piece in text, piece
    gv = tmp_path / "s.gv"
    r = runner.invoke(app, ["tree", SCHWIMMEN, "-o", str(gv)])
    assert r.exit_code == 0 and "rankdir=LR" in gv.read_text()
    r = runner.invoke(app, ["tree", SCHWIMMEN, "--raw"])
    assert r.exit_code == 0 and r.output.startswith("(game …)\n├─ game\n├─ (declare …)")
    if HAS_DOT:
        svg = tmp_path / "s.svg"
        r = runner.invoke(app, ["tree", SCHWIMMEN, "-o", str(svg)])
        assert r.exit_code == 0, r.output
        assert "swap HAND(current) ↔" in svg.read_text() and "choice: the current" in svg.read_text()
        ET.parse(svg)


# -- the structure tree ------------------------------------------------------------------------
def _read(text, reader: str):
    """The node of one form written alone, its variables 'X, 'N, 'P and 'C bound (the words
    are written from nodes: lang/forms/wording.py)."""
    from recycle.lang.nodes.base import Binding
    from recycle.lang.nodes.flow import Elaborator
    from recycle.lang.nodes.sexpr import Scope

    scope = Scope(bindings={v: Binding(v, "let", None, None) for v in ("X", "N", "P", "C")})
    elaborator = Elaborator()
    form = parse_text(text).forms[0]
    if reader == "item":
        return elaborator.item(form, scope)
    return getattr(elaborator, reader)(form, scope)


def _expr(text):
    for reader in ("bool_", "int_", "card", "cards", "value"):
        try:
            return expr(_read(text, reader))
        except recycle.RecycleError:
            continue
    raise AssertionError(f"{text} is no expression")


@pytest.mark.parametrize(
    "text, want",
    [
        ("((current player) iloc HAND)", "HAND(current)"),
        ("((next player) vloc TRICK)", "TRICK(next)"),
        ("((2 player) sto SCORE)", "SCORE(P2)"),
        ("((team (current player)) sto SCORE)", "SCORE(team of current)"),
        ("(top (game iloc STOCK))", "top STOCK"),
        ("(and (== (game sto A) 1) (or (> 'X 2) (< 'X 0)))", "A == 1 and (X > 2 or X < 0)".replace("X", "'X")),
        ("(+ (* 2 'N) 1)", "(2 * 'N) + 1"),
        ("(any player 'P (== (size ('P iloc HAND)) 0))", "any player 'P: size HAND('P) == 0"),
        ("(cardatt SUIT (top (game vloc TRICK)))", "SUIT of top TRICK"),
        ("(max ((current player) iloc HAND) using (game points P))", "max HAND(current) using P"),
        ("(size (filter (game vloc T) 'C (== (cardatt SUIT 'C) HEARTS)))", "size (T where 'C: SUIT of 'C == HEARTS)"),
        # forms without words are written as their s-expression, keywords where their syntax has them
        ("(runs all 3 ((current player) vloc HAND) using (game points SEQ))", "(runs all 3 HAND(current) using SEQ)"),
        ("(scoremax (game vloc T) using (game points P))", "(scoremax T using P)"),
        ("(random 1..6)", "(random 1 .. 6)"),
        ("(size (other player))", "size other"),
        ("(pid ((game sto ASKED) player))", "(pid (game sto ASKED))"),
        ("(+ 1 2 'N)", "(+ 1 2 'N)"),
        ("(top 2 (game vloc T))", "top 2 of T"),
    ],
)
def test_expressions_as_text(text, want):
    assert _expr(text) == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("(forget (top (game mem SEEN)))", "forget top SEEN"),
        ("(cycle next (owner (top (game vloc TRICK))))", "next player := owner of top TRICK"),
        ("(inc ((current player) sto SCORE) 2)", "SCORE(current) += 2"),
        ("(repeat all (move (top (game vloc A)) (bottom (game vloc B))))", "repeat all: move top A → bottom B"),
        ("(shuffle faro (game vloc A) (game vloc B))", "shuffle faro A B"),
        ("(inc ((current player) sto SCORE))", "SCORE(current) += 1"),
        ("(set (game points P) (((RANK : A) 1) ((RANK : K) 13)))", "P := point map (2 awards)"),
        (
            "(create deck (game vloc STOCK) (deck (RANK (A, K)) (SUIT (H, S))))",
            "create deck of 4 cards (RANK, SUIT) in STOCK",
        ),
        ("(create deck RED (game vloc STOCK) (deck (RANK (A, K))))", "create RED deck of 2 cards (RANK) in STOCK"),
        ("(create teams (0, 2) (1, 3))", "create teams (0, 2) (1, 3)"),
        (
            "(repeat 2 (all player 'P (move (top (game vloc A)) (top ('P vloc H)))))",
            "repeat 2: all player 'P: (move top A top H('P))",
        ),
    ],
)
def test_actions_as_text(text, want):
    assert action_text(_read(text, "item")) == want


def test_passing_game_tree_and_dot(passing):
    t = game_tree(passing.source)
    kinds = [c.kind for c in t.children]
    assert kinds == ["setup", "do", "stage", "stage", "scoring"]
    lines = outline(t)
    assert "│  └─ create JOKERS deck of 1 cards (RANK) in STOCK" in lines
    assert any("one option per 'C in HAND(current)" in ln for ln in lines)
    assert any(ln.endswith("move 'C → top HAND(next)") for ln in lines)
    dot = tree_dot(t, "passing")
    assert "hexagon" in dot and dot.count("->") == sum(1 for _ in lines) - 1
    assert len(outline(raw_tree(passing.source))) > 100


def test_tree_legend_and_screen_size(tmp_path):
    from recycle.study import structure

    g = recycle.load(SCHWIMMEN)
    dot = tree_dot(game_tree(g.source), "schwimmen")
    assert "subgraph cluster_legend" in dot and "label=legend" in dot
    for kind, words in structure.LEGEND:  # one box per kind, in that kind's shape and colour
        line = next(ln for ln in dot.splitlines() if ln.strip().startswith(f"legend_{kind} ["))
        shape, fill = structure._LOOK[kind]
        assert f"shape={shape}" in line and fill in line and words.split()[0] in line, (kind, line)
    assert 'size="19,10.5"' in dot
    assert "subgraph cluster_legend" not in tree_dot(game_tree(g.source), legend=False)
    if HAS_DOT:  # rendered at 96 dpi, Schwimmen's seven levels fit a 1920 x 1080 screen
        out = tmp_path / "tree.png"
        assert write_dot(dot, out) is None
        from PIL import Image

        width, height = Image.open(out).size
        assert width <= 1920 and height <= 1080, (width, height)
        assert graphs.layout_problems(dot) == []


@requires_corpus()
@pytest.mark.slow  # a corpus-wide sweep: CI's later step
def test_every_corpus_game_has_a_tree_and_a_graph():
    for path in sorted(CORPUS.glob("*.rcy")):
        g = recycle.load(path)
        assert len(outline(game_tree(g.source))) > 5, path.name
        G = flow_graph(g, seed=1)
        assert G.number_of_nodes() >= 2 and to_dot(G).startswith("digraph"), path.name
        if HAS_DOT:  # the pictures: nothing overlaps, nothing is cut off, one node per location or per player's
            for per_player in (False, True):
                dot = to_dot(flow_graph(g, seed=1, per_player=per_player))
                assert graphs.layout_problems(dot) == [], (path.name, per_player)
        assert not re.search(r"\(\s*\)", "\n".join(outline(game_tree(g.source)))), path.name
