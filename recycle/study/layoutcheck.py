"""Checking a Graphviz drawing: ``layout_problems(source)`` lays DOT text out with ``dot -Tjson``
and lists what overlaps, what is cut off and which edge runs through what.

Used by the tests on every corpus game's information-flow graph (``recycle graph``) and on the
structure diagram (``recycle tree``).
"""

from __future__ import annotations

import shutil
import subprocess


def _laid_out(source: str) -> dict:
    """Graphviz's layout of the DOT ``source`` (``dot -Tjson``); RuntimeError without dot."""
    import json

    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError("Graphviz's dot is not installed")
    proc = subprocess.run([exe, "-Tjson"], input=source.encode("utf-8"), capture_output=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"dot failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return json.loads(proc.stdout)


def _bezier_points(pos: str, steps: int = 12) -> list:
    """Points along a Graphviz edge spline (``pos`` of ``-Tjson``): its cubic pieces, sampled."""
    pts = []
    for tok in pos.split():
        if tok[:2] in ("e,", "s,"):
            continue  # the arrow tips: inside the end nodes' reach
        x, y = tok.split(",")[:2]
        pts.append((float(x), float(y)))
    out = []
    for i in range(0, len(pts) - 3, 3):
        p0, p1, p2, p3 = pts[i : i + 4]
        for k in range(steps + 1):
            t = k / steps
            a, b, c, e = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t**3
            out.append((a * p0[0] + b * p1[0] + c * p2[0] + e * p3[0], a * p0[1] + b * p1[1] + c * p2[1] + e * p3[1]))
    return out


def layout_problems(source: str, margin: float = 1.0) -> list[str]:
    """What is wrong with the drawing of a ``to_dot`` graph, as lines of text (empty: nothing).

    Lays ``source`` out with Graphviz (``dot -Tjson``; needs ``dot``) and checks: no two nodes
    (locations, edge labels, rectangle titles) overlap; every node lies inside the picture
    and inside its own owner's rectangle and outside every other rectangle; no edge runs
    through a node other than its own two ends (so through no label and no title) or through
    the heading with the legend. ``margin`` points of overlap are tolerated.
    """
    data = _laid_out(source)

    def bb(text):
        x0, y0, x1, y1 = map(float, text.split(","))
        return (x0, y0, x1, y1)

    def inside(box, outer, m=margin):
        return box[0] >= outer[0] - m and box[1] >= outer[1] - m and box[2] <= outer[2] + m and box[3] <= outer[3] + m

    def overlap(a, b, m=margin):
        return a[0] < b[2] - m and b[0] < a[2] - m and a[1] < b[3] - m and b[1] < a[3] - m

    def contains(box, p, m=margin):
        return box[0] + m < p[0] < box[2] - m and box[1] + m < p[1] < box[3] - m

    picture = bb(data["bb"])
    boxes, names, cluster_of = {}, {}, {}
    clusters, free = {}, set()  # free: boxes that are no node (a label or title Graphviz places itself)
    for obj in data.get("objects", []):
        if "nodes" in obj and "bb" in obj:  # a rectangle (cluster)
            clusters[obj["name"]] = bb(obj["bb"])
            for gid in obj["nodes"]:
                cluster_of[gid] = obj["name"]
        elif "pos" in obj:
            x, y = map(float, obj["pos"].split(","))
            w, h = float(obj["width"]) * 36, float(obj["height"]) * 36
            boxes[obj["_gvid"]] = (x - w, y - h, x + w, y + h)
            names[obj["_gvid"]] = obj["name"]
    for e in data.get("edges", []):  # labels drawn by Graphviz itself (label=, xlabel=), if any
        texts = [op for op in e.get("_ldraw_", []) + e.get("_xldraw_", []) if op["op"] in ("T", "F")]
        size = 10.0
        for op in texts:
            if op["op"] == "F":
                size = op["size"]
                continue
            x, y, w = op["pt"][0], op["pt"][1], op["width"]
            x0 = x - w / 2 if op["align"] == "c" else x - w if op["align"] == "r" else x
            key = f"edge label {len(boxes)}"
            boxes[key] = (x0, y - size * 0.3, x0 + w, y + size * 0.9)
            names[key] = f"the label {op['text'].strip()!r} of {names.get(e['tail'])} -> {names.get(e['head'])}"
            free.add(key)
    for obj in data.get("objects", []):  # rectangles' titles drawn by Graphviz (label=), if any
        if obj.get("name") in clusters and obj.get("label") and "lp" in obj:
            x, y = map(float, obj["lp"].split(","))
            w, h = float(obj["lwidth"]) * 36, float(obj["lheight"]) * 36
            key = f"title {obj['name']}"
            boxes[key], names[key] = (x - w, y - h, x + w, y + h), f"the title {obj['label']!r}"
            free.add(key)
    heading = None
    if "lp" in data:
        x, y = map(float, data["lp"].split(","))
        w, h = float(data["lwidth"]) * 36, float(data["lheight"]) * 36
        heading = (x - w, y - h, x + w, y + h)
    problems = []
    ids = list(boxes)
    for i, a in enumerate(ids):
        if not inside(boxes[a], picture):
            problems.append(f"{names[a]} is cut off at the border of the picture")
        if heading and overlap(boxes[a], heading):
            problems.append(f"{names[a]} overlaps the heading or the legend")
        for c, cbox in clusters.items():
            if a in free:
                if overlap(boxes[a], cbox) and not inside(boxes[a], cbox):
                    problems.append(f"{names[a]} crosses the border of a rectangle")
            elif cluster_of.get(a) == c and not inside(boxes[a], cbox):
                problems.append(f"{names[a]} sticks out of its rectangle")
            elif cluster_of.get(a) != c and overlap(boxes[a], cbox):
                problems.append(f"{names[a]} overlaps a rectangle it does not belong to")
        for b in ids[i + 1 :]:
            if overlap(boxes[a], boxes[b]):
                problems.append(f"{names[a]} overlaps {names[b]}")
    rects = sorted(clusters)
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            if overlap(clusters[a], clusters[b]):
                problems.append(f"the rectangles {a} and {b} overlap")
    for e in data.get("edges", []):
        if "pos" not in e or e.get("style") == "invis":
            continue
        ends = {e["tail"], e["head"]}
        what = f"the edge {names[e['tail']]} -> {names[e['head']]}"
        points = _bezier_points(e["pos"])
        hit = set()
        for p in points:
            for n, box in boxes.items():
                if n not in ends and n not in hit and contains(box, p):
                    hit.add(n)
                    problems.append(f"{what} runs through {names[n]}")
            if heading and contains(heading, p) and "heading" not in hit:
                hit.add("heading")
                problems.append(f"{what} runs through the heading or the legend")
    return problems


def heading_and_drawing(source: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """(width, height) in points of the heading (title and legend) and of the drawing below it.

    The drawing is the box around every rectangle and node Graphviz placed; used to check that
    the legend stays smaller than the graph it explains. Needs ``dot``.
    """
    data = _laid_out(source)
    boxes = []
    for obj in data.get("objects", []):
        if "nodes" in obj and "bb" in obj:
            boxes.append(tuple(map(float, obj["bb"].split(","))))
        elif "pos" in obj:
            x, y = map(float, obj["pos"].split(","))
            w, h = float(obj["width"]) * 36, float(obj["height"]) * 36
            boxes.append((x - w, y - h, x + w, y + h))
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    heading = (float(data.get("lwidth", 0)) * 72, float(data.get("lheight", 0)) * 72)
    return heading, (x1 - x0, y1 - y0)
