"""Hand-authored classic exam problems (provenance "hand-authored").

Layouts every structural-mechanics course sets: multi-span Gerber beams,
three-hinged frames, statically indeterminate frames, compound trusses, plus a
few that exercise what the generator does rarely (a slanted roller, every load
kind on one beam). Written by hand with textbook numbers; solved like any other
problem by ``tools/generate_gt.py``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from ..dataset.problem import Problem, make_problem
from ..model.types import (
    AngleMode,
    BendingMoment,
    DistributedLoad,
    Load,
    Model,
    OffsetMode,
    PointLoad,
    Position,
    Target,
)
from .builder import ModelBuilder, renumber_loads
from .generator import image_choice

SPLIT = "core"  # the hand-authored problems belong to the core set
DOWN = 270.0


def force(pid: str, value: float, angle: float = DOWN) -> PointLoad:
    return PointLoad("", Target("point", pid), value, angle, AngleMode.WORLD, 1)


def force_on(lid: str, s: float, value: float, angle: float = DOWN) -> PointLoad:
    return PointLoad("", Target("link", lid), value, angle, AngleMode.WORLD, 1,
                     Position("A", OffsetMode.METRES, s))


def line_load(lid: str, w0: float, w1: float | None = None, *, start: float = 0.0,
              end: float = 0.0, angle: float = DOWN, relative: bool = False,
              flip: int = 1) -> DistributedLoad:
    mode = AngleMode.RELATIVE if relative else AngleMode.WORLD
    return DistributedLoad("", Target("link", lid), w0, w0 if w1 is None else w1, start, end,
                           angle, mode, flip)


def couple(pid: str, value: float, flip: int) -> BendingMoment:
    return BendingMoment("", Target("point", pid), value, flip)


def couple_on(lid: str, s: float, value: float, flip: int) -> BendingMoment:
    return BendingMoment("", Target("link", lid), value, flip, Position("A", OffsetMode.METRES, s))


def _done(b: ModelBuilder, loads: list[Load]) -> Model:
    return b.build(renumber_loads(loads))


def _beam(b: ModelBuilder, xs: list[float], hinges: tuple[float, ...] = ()) -> list[str]:
    """Links along y = 0 through ``xs``; a hinge releases the link arriving from the left."""
    ids = [b.point(x, 0) for x in xs]
    return [b.link(p, q, hinge_b=xs[i + 1] in hinges)
            for i, (p, q) in enumerate(itertools.pairwise(ids))]


def gerber_three_spans() -> Model:
    b = ModelBuilder()
    l1, _, l3, l4, l5 = _beam(b, [0, 6, 8, 12, 14, 18], hinges=(8, 14))
    b.support(b.point(0, 0), "pin")
    for x in (6, 12, 18):
        b.support(b.point(x, 0), "roller")
    return _done(b, [line_load(l1, 10), force_on(l3, 2, 40), line_load(l4, 6),
                     force_on(l5, 2, 30)])


def gerber_fixed_end() -> Model:
    b = ModelBuilder()
    _, _, l3, l4, l5 = _beam(b, [0, 2, 4, 7, 9, 13], hinges=(4, 9))
    b.support(b.point(0, 0), "fixed")
    b.support(b.point(7, 0), "roller")
    b.support(b.point(13, 0), "roller")
    return _done(b, [force(b.point(2, 0), 20), line_load(l3, 8), line_load(l5, 0, 12),
                     couple_on(l4, 1, 15, -1)])


def gerber_four_spans() -> Model:
    b = ModelBuilder()
    links = _beam(b, [0, 5, 7, 10, 13, 15, 20, 22], hinges=(7, 15))
    b.support(b.point(0, 0), "roller")
    b.support(b.point(5, 0), "pin")
    for x in (10, 20):
        b.support(b.point(x, 0), "roller")
    b.support(b.point(13, 0), "roller")
    return _done(b, [line_load(links[0], 12), force(b.point(7, 0), 25),
                     line_load(links[3], 6, 6, start=1), force_on(links[5], 2.5, 40),
                     force(b.point(22, 0), 10), couple(b.point(13, 0), 20, 1)])


def continuous_fixed_end() -> Model:
    b = ModelBuilder()
    l1, l2 = _beam(b, [0, 5, 11])
    b.support(b.point(0, 0), "fixed")
    b.support(b.point(5, 0), "roller")
    b.support(b.point(11, 0), "roller")
    return _done(b, [line_load(l1, 6, 12), force_on(l2, 3, 40), couple_on(l2, 5, 10, 1)])


def overhang_every_load() -> Model:
    b = ModelBuilder()
    _, l2, l3, l4 = _beam(b, [0, 2, 5, 8, 10])
    b.support(b.point(2, 0), "pin")
    b.support(b.point(8, 0), "roller")
    return _done(b, [force(b.point(0, 0), 15), line_load(l2, 10), line_load(l3, 0, 15),
                     couple(b.point(5, 0), 20, -1), force_on(l4, 1, 12, 240)])


def _path(b: ModelBuilder, places: list[tuple[float, float]], hinge_at: int | None = None,
          ) -> list[str]:
    """Links foot → … → foot through ``places``; ``hinge_at`` indexes the hinged place
    (the link arriving there is released)."""
    ids = [b.point(x, y) for x, y in places]
    return [b.link(p, q, hinge_b=i + 1 == hinge_at)
            for i, (p, q) in enumerate(itertools.pairwise(ids))]


def _on_two_supports(b: ModelBuilder, places: list[tuple[float, float]], left: str,
                     right: str, angle_right: float = 0.0) -> None:
    b.support(b.point(*places[0]), left)
    b.support(b.point(*places[-1]), right, angle_right)


def three_hinged_portal() -> Model:
    b = ModelBuilder()
    places = [(0, 0), (0, 5), (4, 5), (8, 5), (8, 0)]
    _, left, _, _ = _path(b, places, hinge_at=2)
    _on_two_supports(b, places, "pin", "pin")
    return _done(b, [line_load(left, 10), force(b.point(0, 5), 20, 0)])


def three_hinged_gable() -> Model:
    b = ModelBuilder()
    places = [(0, 0), (0, 4), (6, 7), (12, 4), (12, 0)]
    col, rafter, _, _ = _path(b, places, hinge_at=2)
    _on_two_supports(b, places, "pin", "pin")
    return _done(b, [line_load(col, 4, angle=0), line_load(rafter, 3, angle=90, relative=True,
                                                          flip=-1), force(b.point(6, 7), 30)])


def three_hinged_stepped() -> Model:
    b = ModelBuilder()
    places = [(0, 0), (0, 6), (4, 6), (10, 6), (10, 2)]
    _, _, right, _ = _path(b, places, hinge_at=2)
    _on_two_supports(b, places, "pin", "pin")
    return _done(b, [force_on(right, 3, 50), force(b.point(0, 6), 15, 0)])


def fixed_portal() -> Model:
    b = ModelBuilder()
    places = [(0, 0), (0, 4), (6, 4), (6, 0)]
    _, beam, _ = _path(b, places)
    _on_two_supports(b, places, "fixed", "fixed")
    return _done(b, [line_load(beam, 12), force(b.point(0, 4), 20, 0)])


def two_bay_fixed() -> Model:
    b = ModelBuilder()
    tops = [b.point(x, 4) for x in (0, 5, 10)]
    for x, top in zip((0, 5, 10), tops, strict=True):
        foot = b.point(x, 0)
        b.link(foot, top)
        b.support(foot, "fixed")
    beam1, beam2 = b.link(tops[0], tops[1]), b.link(tops[1], tops[2])
    return _done(b, [line_load(beam1, 10), line_load(beam2, 15), force(tops[0], 25, 0)])


def two_storey() -> Model:
    b = ModelBuilder()
    ys = (0, 4, 7.5)
    for x in (0, 6):
        b.polyline([(x, y) for y in ys])
        b.support(b.point(x, 0), "fixed")
    floor1 = b.link(b.point(0, 4), b.point(6, 4))
    roof = b.link(b.point(0, 7.5), b.point(6, 7.5))
    return _done(b, [line_load(floor1, 20), line_load(roof, 12), force(b.point(0, 4), 20, 0),
                     force(b.point(0, 7.5), 10, 0)])


def propped_l_frame() -> Model:
    b = ModelBuilder()
    places = [(0, 0), (0, 4), (5, 4)]
    _, beam = _path(b, places)
    _on_two_supports(b, places, "fixed", "roller")
    return _done(b, [line_load(beam, 8), couple(b.point(0, 4), 30, 1)])


def slanted_roller_portal() -> Model:
    b = ModelBuilder()
    places = [(0, 0), (0, 4), (6, 4), (6, 0)]
    _, beam, _ = _path(b, places)
    _on_two_supports(b, places, "pin", "roller", 30)
    return _done(b, [line_load(beam, 10), force(b.point(0, 4), 12, 0)])


def compound_triangles() -> Model:
    """Two simple trusses sharing the apex joint, tied by a bar between them."""
    b = ModelBuilder()
    a, d, e, c = b.point(0, 0), b.point(4, 0), b.point(3, 2), b.point(6, 4)
    f, g, bb = b.point(8, 0), b.point(9, 2), b.point(12, 0)
    for p, q in ((a, d), (a, e), (e, c), (e, d), (d, c), (c, g), (g, bb), (g, f), (c, f),
                 (f, bb), (d, f)):
        b.bar(p, q)
    b.support(a, "pin")
    b.support(bb, "roller")
    return _done(b, [force(e, 20), force(c, 30), force(g, 20), force(c, 10, 0)])


def fink_roof() -> Model:
    b = ModelBuilder()
    bottom = [b.point(x, 0) for x in (0, 4, 8, 12)]
    q1, apex, q3 = b.point(3, 2), b.point(6, 4), b.point(9, 2)
    for p, q in itertools.pairwise(bottom):
        b.bar(p, q)
    for p, q in ((bottom[0], q1), (q1, apex), (apex, q3), (q3, bottom[3]), (q1, bottom[1]),
                 (bottom[1], apex), (apex, bottom[2]), (bottom[2], q3)):
        b.bar(p, q)
    b.support(bottom[0], "pin")
    b.support(bottom[3], "roller")
    return _done(b, [force(q1, 10), force(apex, 10), force(q3, 10), force(q1, 6, 0)])


def pratt_two_pins() -> Model:
    """Pratt bridge truss on two pins: externally indeterminate once."""
    b = ModelBuilder()
    n, w, h = 6, 3, 4
    bottom = [b.point(i * w, 0) for i in range(n + 1)]
    top = [b.point(i * w, h) for i in range(n + 1)]
    for i in range(n):
        b.bar(bottom[i], bottom[i + 1])
        b.bar(top[i], top[i + 1])
    for i in range(n + 1):
        b.bar(bottom[i], top[i])
    for i in range(n):
        b.bar(top[i], bottom[i + 1]) if i < n // 2 else b.bar(bottom[i], top[i + 1])
    b.support(bottom[0], "pin")
    b.support(bottom[n], "pin")
    return _done(b, [*(force(bottom[i], 20) for i in range(1, n)), force(top[0], 15, 0)])


CLASSICS: dict[str, tuple[str, str, Callable[[], Model]]] = {
    "beam-classic-gerber-3span": ("beam", "Gerber beam over three spans, two hinges",
                                  gerber_three_spans),
    "beam-classic-gerber-fixed": ("beam", "Gerber beam with a fixed end and two hinges",
                                  gerber_fixed_end),
    "beam-classic-gerber-4span": ("beam", "Gerber beam over four spans with an overhang",
                                  gerber_four_spans),
    "beam-classic-continuous-fixed": ("beam", "Two-span continuous beam with a fixed end",
                                      continuous_fixed_end),
    "beam-classic-overhang-all-loads": ("beam", "Overhanging beam carrying every load kind",
                                        overhang_every_load),
    "frame-classic-three-hinged-portal": ("frame", "Three-hinged portal frame",
                                          three_hinged_portal),
    "frame-classic-three-hinged-gable": ("frame", "Three-hinged gable frame with wind",
                                         three_hinged_gable),
    "frame-classic-three-hinged-stepped": ("frame", "Three-hinged frame on supports at "
                                           "different levels", three_hinged_stepped),
    "frame-classic-fixed-portal": ("frame", "Fixed-base portal frame (3 times indeterminate)",
                                   fixed_portal),
    "frame-classic-two-bay-fixed": ("frame", "Two-bay fixed-base frame", two_bay_fixed),
    "frame-classic-two-storey": ("frame", "Two-storey fixed-base frame", two_storey),
    "frame-classic-propped-l": ("frame", "L-frame, fixed base, propped arm", propped_l_frame),
    "frame-classic-slanted-roller": ("frame", "Portal frame on a pin and a 30° roller",
                                     slanted_roller_portal),
    "truss-classic-compound": ("truss", "Compound truss: two simple trusses, a shared joint "
                               "and a tie", compound_triangles),
    "truss-classic-fink": ("truss", "Fink roof truss", fink_roof),
    "truss-classic-pratt-two-pins": ("truss", "Pratt truss on two pins", pratt_two_pins),
}


#: levels set by hand where the rule's score understates the exam: supports at two
#: heights turn the three-hinged frame's equilibrium into simultaneous equations
OVERRIDES = {"frame-classic-three-hinged-stepped": 3}


def classic_problems() -> list[Problem]:
    out = []
    for pid, (category, title, build) in CLASSICS.items():
        out.append(make_problem(pid, category, SPLIT, build(), "hand-authored",
                                image_choice("classic", pid), title=title,
                                difficulty_level=OVERRIDES.get(pid)))
    return out
