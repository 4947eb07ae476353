"""The sheet reader: rebuild a sheet task's frame from the sheet's layout record alone.

A drawing sheet (style ``sheet``) shows a building: elevations of several frames, a
plan, a load table and general notes. The statement names one frame and one load
case ("Model the frame on grid line 3 under load case 1."). A careful engineer
reads it the way this module does, with the rules of :mod:`tests.symbolic_reader`:

* the **named elevation**: the view whose title reads "ELEVATION ON GRID 3" (the view
  border around the title says which marks belong to it), read by
  :func:`.build.read_drawing` like any figure: geometry, supports, hinges and the wind
  loads drawn on it. Its grid bubbles, read left to right, name its columns;
* the **plan**: the bubbles name the grid lines; the spacing texts between two
  numbered grid lines give their distance; the frame's tributary width is half the
  distance to each neighbouring numbered line; a secondary beam (a dashed line named
  "SB1") spans between the two numbered lines its ends stand on, in the bay between
  the lettered lines it stands between;
* the **load table**: each row's load (by what its description says: floor, roof,
  facade of the named edge grid lines, secondary beam SBk, wind as drawn), its value
  and its factor in the named case's column ("—": not in that case);
* the **notes**, for facts: "Columns 2EI" (the columns' Iz is that multiple of the
  default), mid-bay for secondary beams, which loads act where.

Only page texts, glyph geometry and texts' boxes are used: never an owner id, a role,
the view names the renderer records, or the model. Numbers come only from texts.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Any

from structeval.model import DEFAULT_IZ

from .build import read_drawing
from .view import ReadError, reader_view

NUMBER = re.compile(r"(\d+(?:\.\d+)?)")
SECONDARY = re.compile(r"(SB|XG)\d+")  # a secondary beam's or a cross girder's name
STATEMENT = re.compile(r"grid line (\S+) under load case (\S+?)\.?$")
STATEMENT_ZH = re.compile(r"荷载工况 (\S+) 建立轴线 (\S+) 上")
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Word:
    text: str
    box: Box

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)


def named(statement: str) -> tuple[str, str]:
    """(grid line, load case) the statement names."""
    m = STATEMENT.search(statement)
    if m:
        return m.group(1), m.group(2)
    m = STATEMENT_ZH.search(statement)
    if m:
        return m.group(2), m.group(1)
    raise ReadError(f"the statement names no frame and load case: {statement!r}")


def _inside(p: tuple[float, float], r: Box) -> bool:
    return r[0] <= p[0] <= r[2] and r[1] <= p[1] <= r[3]


def _centre(bbox: list[float]) -> tuple[float, float]:
    return ((bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2)


class Sheet:
    """The sheet's views (by their borders) and the sheet's words."""

    def __init__(self, record: dict[str, Any]):
        self.view = reader_view(record)
        self.items = self.view["items"]
        self.words = [Word(str(it["text"]), tuple(it["bbox"])) for it in self.items
                      if it.get("kind") == "page" and it.get("text")]
        self.borders: list[Box] = []
        for it in self.items:
            g = it.get("glyph") or {}
            if g.get("type") == "view":
                xs = [p[0] for p in g["outline"]]
                ys = [p[1] for p in g["outline"]]
                self.borders.append((min(xs), min(ys), max(xs), max(ys)))

    def titled(self, pattern: str) -> Box:
        """The border of the view whose title matches ``pattern`` (exactly one)."""
        found = [w for w in self.words if re.fullmatch(pattern, w.text)]
        if len(found) != 1:
            raise ReadError(f"{len(found)} view titles read {pattern!r}")
        boxes = [b for b in self.borders if _inside(found[0].centre, b)]
        if len(boxes) != 1:
            raise ReadError(f"the title {found[0].text!r} is in no single view")
        return boxes[0]

    def has_title(self, pattern: str) -> bool:
        return any(re.fullmatch(pattern, w.text) for w in self.words)

    def words_in(self, box: Box) -> list[Word]:
        return [w for w in self.words if _inside(w.centre, box)]

    def glyphs_in(self, gtype: str, box: Box) -> list[tuple[dict[str, Any], list[float]]]:
        return [(it["glyph"], it["bbox"]) for it in self.items
                if (it.get("glyph") or {}).get("type") == gtype
                and _inside(_centre(it["bbox"]), box)]

    def bubbles(self, box: Box) -> list[tuple[str, tuple[float, float]]]:
        """(name, centre) of every bubble in the view: the word inside its circle."""
        out = []
        for g, _ in self.glyphs_in("bubble", box):
            c, r = tuple(g["centre"]), float(g["r"])
            inside = [w for w in self.words if math.dist(w.centre, c) < r]
            if len(inside) != 1:
                raise ReadError(f"a grid bubble at {c} holds {len(inside)} words")
            out.append((inside[0].text, c))
        return out


def _number(text: str) -> float:
    m = NUMBER.search(text)
    if not m:
        raise ReadError(f"no number in {text!r}")
    return float(m.group(1))


@dataclass(frozen=True)
class Plan:
    numbered: list[tuple[str, float]]  # name, page y (top to bottom)
    lettered: list[tuple[str, float]]  # name, page x (left to right)
    spacing: dict[tuple[str, str], float]  # neighbouring numbered lines → metres
    bays: dict[tuple[str, str], float]
    secondary: list[tuple[str, tuple[str, str], tuple[str, str]]]  # label, numbered, lettered

    def tributary(self, grid: str) -> float:
        names = [n for n, _ in self.numbered]
        if grid not in names:
            raise ReadError(f"the plan has no grid line {grid}")
        i = names.index(grid)
        near = [self.spacing[names[i - 1], grid]] if i > 0 else []
        near += [self.spacing[grid, names[i + 1]]] if i + 1 < len(names) else []
        return sum(near) / 2


def read_plan(sheet: Sheet) -> Plan:
    box = sheet.titled(r"(?:ROOF )?PLAN\b.*")
    bubbles = sheet.bubbles(box)
    numbered = sorted(((n, c[1]) for n, c in bubbles if n.isdigit()), key=lambda t: t[1])
    lettered = sorted(((n, c[0]) for n, c in bubbles if n.isalpha()), key=lambda t: t[0])
    lettered.sort(key=lambda t: t[1])
    circles = [(tuple(g["centre"]), float(g["r"])) for g, _ in sheet.glyphs_in("bubble", box)]
    values = [w for w in sheet.words_in(box) if NUMBER.fullmatch(w.text)
              and all(math.dist(w.centre, c) >= r for c, r in circles)]
    right = max(c[0] for _, c in bubbles)
    low = max(y for _, y in numbered)

    def between(lines: list[tuple[str, float]], axis: int, beyond: float
                ) -> dict[tuple[str, str], float]:
        out = {}
        for (a, pa), (b, pb) in itertools.pairwise(lines):
            hit = [w for w in values if pa < w.centre[axis] < pb
                   and w.centre[1 - axis] > beyond]
            if len(hit) != 1:
                raise ReadError(f"{len(hit)} spacing texts between grid lines {a} and {b}")
            out[a, b] = out[b, a] = float(hit[0].text)
        return out

    spacing = between(numbered, 1, right)
    bays = between(lettered, 0, low)
    secondary = []
    for g, _ in sheet.glyphs_in("secondary", box):
        (x0, y0), (x1, y1) = g["line"]
        label = min((w for w in sheet.words_in(box) if SECONDARY.fullmatch(w.text)),
                    key=lambda w: math.dist(w.centre, ((x0 + x1) / 2, (y0 + y1) / 2)))
        ends = [min(numbered, key=lambda t: abs(t[1] - y))[0] for y in (y0, y1)]
        left = [n for n, x in lettered if x < x0]
        right_ = [n for n, x in lettered if x > x0]
        if not left or not right_:
            raise ReadError(f"secondary beam {label.text} stands in no bay")
        secondary.append((label.text, (ends[0], ends[1]), (left[-1], right_[0])))
    return Plan(numbered, lettered, spacing, bays, secondary)


@dataclass(frozen=True)
class Row:
    ref: str
    what: str
    value: str
    factor: float | None


def read_table(sheet: Sheet, case: str) -> list[Row]:
    """The load table's rows with their factor in ``case``'s column."""
    box = sheet.titled(r"LOAD TABLE")
    words = [w for w in sheet.words_in(box) if w.text != "LOAD TABLE"]
    header = next((w for w in words if w.text == "REF"), None)
    if header is None:
        raise ReadError("the load table has no header")
    pitch = header.box[3] - header.box[1]
    rows: list[list[Word]] = []
    for w in sorted(words, key=lambda w: w.centre[1]):
        if rows and abs(rows[-1][0].centre[1] - w.centre[1]) < pitch / 2:
            rows[-1].append(w)
        else:
            rows.append([w])
    head = next(r for r in rows if header in r)
    columns = sorted(head, key=lambda w: w.box[0])
    names = [c.text for c in columns]
    if f"LC {case}" not in names:
        raise ReadError(f"the load table has no column for load case {case}")

    def column(w: Word) -> str:
        return min(columns, key=lambda c: abs(c.box[0] - w.box[0])).text

    out = []
    for row in rows[rows.index(head) + 1:]:
        cells = {column(w): w.text for w in row}
        if "REF" not in cells or "LOAD" not in cells:
            continue  # the load cases' names under the table
        lc = cells.get(f"LC {case}", "—")
        out.append(Row(cells["REF"], cells["LOAD"], cells.get("VALUE", ""),
                       None if lc == "—" else float(lc)))
    return out


def _notes(sheet: Sheet) -> str:
    box = sheet.titled(r"GENERAL NOTES")
    words = sorted(sheet.words_in(box), key=lambda w: (round(w.centre[1]), w.centre[0]))
    return " ".join(w.text for w in words)


def read_sheet(record: dict[str, Any], statement: str) -> dict[str, Any]:
    """The FrameCalc model of the frame and load case the statement names."""
    grid, case = named(statement)
    sheet = Sheet(record)
    box = sheet.titled(rf"ELEVATION ON GRID {re.escape(grid)}")
    figure = {"width": record["width"], "height": record["height"],
              "items": [it for it in sheet.items if it.get("kind") != "page"
                        and _inside(_centre(it["bbox"]), box)]}
    model = read_drawing(figure)
    columns = [n for n, _ in sorted(sheet.bubbles(box), key=lambda t: t[1][0])]
    plan = read_plan(sheet)
    rows = read_table(sheet, case)
    notes = _notes(sheet)
    _sections(model, notes)
    if sheet.has_title(r"PLAN OF DECK"):
        _deck_loads(model, plan, rows, grid, columns)
    elif sheet.has_title(r"ROOF PLAN"):
        _roof_loads(model, plan, rows, grid)
    else:
        _loads(model, plan, rows, grid, columns)
    return model


def _sections(model: dict[str, Any], notes: str) -> None:
    m = re.search(r"Columns (\d+(?:\.\d+)?)EI", notes)
    pts = {p["id"]: p for p in model["points"]}
    vertical = [lk for lk in model["links"]  # a truss's posts are pin-ended: not columns
                if abs(pts[lk["a"]]["x"] - pts[lk["b"]]["x"]) < 1e-9
                and not lk["endA"] == lk["endB"] == "hinge"]
    if not vertical:
        return  # a girder: every member has the defaults (the notes say EI)
    if not m:
        raise ReadError("the notes give no column stiffness")
    for link in vertical:
        link["Iz"] = float(m.group(1)) * DEFAULT_IZ


def _loads(model: dict[str, Any], plan: Plan, rows: list[Row], grid: str,
           columns: list[str]) -> None:
    pts = {p["id"]: p for p in model["points"]}
    top = max(p["y"] for p in model["points"])
    trib = plan.tributary(grid)
    floor = roof = line = 0.0
    sb_loads: dict[str, float] = {}
    for r in _drawn_factor(model, rows):
        what = r.what.lower()
        value = _number(r.value)
        if what.startswith("floor"):
            floor += r.factor * value
        elif what.startswith("roof") or "on roof" in what:
            roof += r.factor * value
        elif what.startswith("facade"):
            edges = re.findall(r"\b(\d+)\b", what.split("grid lines", 1)[1])
            if grid in edges:
                line += r.factor * value
        elif "secondary beam" in what:
            sb_loads[r.ref] = r.factor * value
        else:
            raise ReadError(f"the load table row {r.ref} says nothing the reader knows")
    xs = sorted({p["x"] for p in model["points"]})
    if len(xs) != len(columns):
        raise ReadError("the elevation's bubbles do not match its columns")

    def add(load: dict[str, Any]) -> None:
        model["loads"].append({"id": f"LD{len(model['loads']) + 1}", **load})

    for link in model["links"]:
        a, b = pts[link["a"]], pts[link["b"]]
        if abs(a["y"] - b["y"]) > 1e-9 or a["y"] <= 0:
            continue  # columns and braces carry no slab
        w = (roof if abs(a["y"] - top) < 1e-9 else floor) * trib + line
        add({"kind": "distributedLoad", "at": {"type": "link", "id": link["id"]}, "wStart": w,
             "wEnd": w, "fromStart": 0, "fromEnd": 0, "angleDeg": 270, "angleMode": "world",
             "flip": 1})
    for label, ends, bay in plan.secondary:
        if grid not in ends or label not in sb_loads:
            continue
        span = plan.spacing[ends]
        x0, x1 = xs[columns.index(bay[0])], xs[columns.index(bay[1])]
        beam = next(lk for lk in model["links"]
                    if {pts[lk["a"]]["x"], pts[lk["b"]]["x"]} == {x0, x1}
                    and pts[lk["a"]]["y"] == top == pts[lk["b"]]["y"])
        start = pts[beam["a"]]["x"]
        add({"kind": "pointLoad", "at": {"type": "link", "id": beam["id"]}, "refEnd": "A",
             "offsetMode": "m", "offset": abs((x0 + x1) / 2 - start),
             "value": sb_loads[label] * span / 2, "angleDeg": 270, "angleMode": "world",
             "flip": 1})


def _deck_loads(model: dict[str, Any], plan: Plan, rows: list[Row], grid: str,
                columns: list[str]) -> None:
    """A bridge girder's loads: every area load of the deck (kN/m²) over the girder's
    tributary width and the parapet line load of an edge girder, on every member; the
    cross girders' halves at mid-span; the drawn axle loads × their factor."""
    trib = plan.tributary(grid)
    line = 0.0
    cross: dict[str, float] = {}
    for r in _drawn_factor(model, rows):
        what = r.what.lower()
        value = _number(r.value)
        if r.value.endswith("kN/m²"):
            line += r.factor * value * trib
        elif what.startswith("parapet"):
            if grid in re.findall(r"\b(\d+)\b", what.split("girders", 1)[1]):
                line += r.factor * value
        elif "cross girder" in what:
            cross[r.ref] = r.factor * value
        else:
            raise ReadError(f"the load table row {r.ref} says nothing the reader knows")
    pts = {p["id"]: p for p in model["points"]}
    bearings = sorted(pts[s["at"]["id"]]["x"] for s in model["supports"])
    if len(bearings) != len(columns):
        raise ReadError("the elevation's bubbles do not match its bearings")

    def add(load: dict[str, Any]) -> None:
        model["loads"].append({"id": f"LD{len(model['loads']) + 1}", **load})

    for link in model["links"]:
        add({"kind": "distributedLoad", "at": {"type": "link", "id": link["id"]},
             "wStart": line, "wEnd": line, "fromStart": 0, "fromEnd": 0, "angleDeg": 270,
             "angleMode": "world", "flip": 1})
    for label, ends, bay in plan.secondary:
        if grid not in ends or label not in cross:
            continue
        mid = (bearings[columns.index(bay[0])] + bearings[columns.index(bay[1])]) / 2
        link = next(lk for lk in model["links"]
                    if min(pts[lk["a"]]["x"], pts[lk["b"]]["x"]) <= mid
                    < max(pts[lk["a"]]["x"], pts[lk["b"]]["x"]))
        start = pts[link["a"]]["x"]
        add({"kind": "pointLoad", "at": {"type": "link", "id": link["id"]}, "refEnd": "A",
             "offsetMode": "m", "offset": abs(mid - start),
             "value": cross[label] * plan.spacing[ends] / 2, "angleDeg": 270,
             "angleMode": "world", "flip": 1})


def _drawn_factor(model: dict[str, Any], rows: list[Row]) -> list[Row]:
    """Scale the loads drawn on the elevation by the factor of the table's "as drawn" row
    (drop them when the case leaves that row out); the other rows the case takes (those
    with a factor), to be read next."""
    drawn = next((r for r in rows if r.value == "as drawn"), None)
    forces = [ld for ld in model["loads"] if ld["kind"] == "pointLoad"]
    model["loads"] = []
    if drawn is not None and drawn.factor is not None:
        for f in forces:
            f["value"] *= drawn.factor
            model["loads"].append(f)
    return [r for r in rows if r is not drawn and r.factor is not None]


def _roof_loads(model: dict[str, Any], plan: Plan, rows: list[Row], grid: str) -> None:
    """A shed frame's loads: the roof loads on plan (kN/m²) × the frame's tributary width
    reach the truss through purlins at its top-chord panel points, each carrying half
    the distance on plan to its neighbours; the drawn wind × its factor."""
    q = 0.0
    for r in _drawn_factor(model, rows):
        if not r.value.endswith("kN/m²"):
            raise ReadError(f"the load table row {r.ref} says nothing the reader knows")
        q += r.factor * _number(r.value)
    q *= plan.tributary(grid)
    top: dict[float, dict[str, Any]] = {}
    for p in model["points"]:
        if p["x"] not in top or p["y"] > top[p["x"]]["y"]:
            top[p["x"]] = p
    xs = sorted(top)
    for k, x in enumerate(xs):
        left = x - xs[k - 1] if k > 0 else 0.0
        right = xs[k + 1] - x if k + 1 < len(xs) else 0.0
        model["loads"].append({"id": f"LD{len(model['loads']) + 1}", "kind": "pointLoad",
                               "at": {"type": "point", "id": top[x]["id"]},
                               "value": q * (left + right) / 2, "angleDeg": 270,
                               "angleMode": "world", "flip": 1})
