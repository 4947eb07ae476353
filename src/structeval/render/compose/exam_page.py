"""The exam-page style: the figure printed on a page of an exam paper.

Real problems rarely arrive as a clean figure alone. Here the figure sits on a
page between the words around it: the paper's header and the candidate's
fields, the problem statement that names the figure ("Problem 3. For the frame
shown in Fig. 3-12, …" / "3. 试求图 3-12 所示刚架…"), the figure with its number
and caption under it, a second problem of the paper that has no figure, and the
page number — all in the task's language (:mod:`structeval.phrasebook`). The
numbers (problem, figure, page, points, year) and the second problem are drawn
from the seed, so the same task always gets the same page.

The figure is laid out exactly as on its own and moved onto the page as a whole
(its layout record moved with it, glyph geometry included), never shrunk: the
page is made big enough for it, so every legibility rule holds on the page as it
does for the figure. Page texts are layout items of their own kind, ``page``:
a reader can tell them from the figure's labels, as a person tells a problem
statement from the numbers of a drawing.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ...phrasebook import QUESTIONS, say, statement_key
from ..scene.fonts import cap_height, lettering, text_size
from ..scene.glyphs import Glyph
from ..scene.layout import Layout
from ..scene.scene import LAYER_TEXT, LAYER_THIN, Scene, Stroke, Text, absorb, prim_bbox
from ..scene.shapes import Capsule, Rect, Similarity, rect_union
from ..scene.typeset import wrap

MARGIN = 64.0  # px of paper around the text block
MIN_TEXT_WIDTH = 760.0  # px: a page is at least this wide between its margins
FIGURE_ROOM = 24.0  # px beside the figure inside the text block
PORTRAIT = 1.414  # height / width of a sheet
MAX_PORTRAIT_WIDTH = 1100.0  # px: wider pages are as tall as their content
SIZES = {"header": 20.0, "term": 14.0, "fields": 14.0, "section": 16.0, "statement": 16.0,
         "caption": 15.0, "question": 16.0, "page-number": 14.0}
#: a Chinese page's texts are lettered this much larger than an English page's: a
#: character of ten to fifteen strokes in the box of a Latin capital loses strokes to the
#: photocopy blur once the page is shrunk to the delivery profile (the visibility proof
#: read 轴 as 铀 or 负 and 班 as 丙 on 20 and 14 px lines)
CJK_SCALE = 1.25
LINE_PITCH = 1.7  # of the size, between the tops of consecutive lines
PAGES = 6


@dataclass(frozen=True)
class PageFacts:
    """The numbers of one page, all from the seed."""

    number: int  # the figure's problem
    figure: str  # its figure's number, e.g. "3-12"
    points: int
    question: str  # phrasebook key of the second problem
    question_points: int
    page: int
    year: int

    @classmethod
    def of(cls, seed: int) -> PageFacts:
        rng = random.Random(seed * 7919 + 101)
        number = rng.randint(2, 6)
        return cls(number, f"{rng.randint(2, 9)}-{rng.randint(1, 24)}",
                   rng.choice((10, 12, 15, 16, 20)), rng.choice(QUESTIONS),
                   rng.choice((5, 6, 8, 10)), rng.randint(2, PAGES - 1), rng.randint(2019, 2025))


def statement(facts: PageFacts, category: str | None, language: str) -> str:
    return say(statement_key(category), language, number=facts.number, figure=facts.figure,
               points=facts.points)


def caption(facts: PageFacts, language: str) -> str:
    return say("page.caption", language, figure=facts.figure)


class _Typesetter:
    """Adds page texts line by line, top to bottom."""

    def __init__(self, page: Scene, left: float, width: float, name: str, scale: float = 1.0):
        self.page, self.left, self.width, self.name = page, left, width, name
        self.scale = scale  # of the style's page sizes (:data:`CJK_SCALE` on a Chinese page)
        self.y = MARGIN

    def size(self, role: str) -> float:
        """The px size of a page text of ``role``."""
        return SIZES[role] * self.page.style.text_scale * self.scale

    def add(self, role: str, text: str, *, align: str = "left", wrap_lines: bool = True,
            y: float | None = None) -> None:
        size = self.size(role)
        lines = wrap(text, size, self.width, self.name) if wrap_lines else [text]
        for line in lines:
            w = text_size(line, size, self.name)[0]
            x = self.left + ((self.width - w) / 2 if align == "centre" else 0.0)
            top = self.y if y is None else y
            prim = Text(x, top, line, size, "text", self.name)
            glyph = Glyph("text", lengths={"size": size, "cap": cap_height(size, self.name)})
            self.page.add("page", "page", "figure", role, [(prim, LAYER_TEXT)],
                          [_line_shape(prim_bbox(prim))], text=line, glyph=glyph)
            if y is None:
                self.y += LINE_PITCH * size

    def blanks(self, role: str, text: str) -> None:
        """A line of labels with blanks to fill in ("Name ____  Class ____"): each label a
        text of its own, each run of underscores a ruled line as long as the run.

        Why: typeset as characters, the blanks were read as stray commas and colons once
        an exam page was lettered larger (the visibility proof); a printed form rules
        its blanks, and a rule is not text."""
        size = self.size(role)
        glyph = Glyph("text", lengths={"size": size, "cap": cap_height(size, self.name)})
        labels = [run.strip() for run in re.findall(r"[^_]+", text) if run.strip()]
        line = self.y + max(text_size(label, size, self.name)[1] for label in labels) + 2.0
        for part in re.finditer(r"[^_]+|_+", text):
            run = part.group()
            if run.startswith("_"):  # a rule under the labels' feet, as long as the run
                x = self._x(text, part.start(), size) + 0.6 * size  # clear of the label
                a, b = (x, line), (x + text_size(run, size, self.name)[0], line)
                self.page.add("page", "page", "figure", "blank",
                              [(Stroke((a, b), 1.0, "ink"), LAYER_THIN)], [Capsule(a, b, 1.0)])
            elif run.strip():
                lead = len(run) - len(run.lstrip())
                prim = Text(self._x(text, part.start() + lead, size), self.y, run.strip(), size,
                            "text", self.name)
                self.page.add("page", "page", "figure", role, [(prim, LAYER_TEXT)],
                              [_line_shape(prim_bbox(prim))], text=run.strip(), glyph=glyph)
        self.y += LINE_PITCH * size

    def _x(self, text: str, at: int, size: float) -> float:
        """Where the character ``at`` of a left-aligned line ``text`` starts."""
        return self.left + text_size(text[:at], size, self.name)[0]

    def gap(self, px: float) -> None:
        self.y += px

    def rule(self) -> None:
        a, b = (self.left, self.y), (self.left + self.width, self.y)
        self.page.add("page", "page", "figure", "rule", [(Stroke((a, b), 1.2, "ink"), LAYER_THIN)],
                      [Capsule(a, b, 1.1)])
        self.y += 18.0


def _line_shape(box: Rect) -> Capsule:
    """A line of text as a capsule along its middle, covering its box: unlike a box, it
    stays tight when the photocopied page is tilted."""
    x0, y0, x1, y1 = box
    mid, half = (y0 + y1) / 2, (y1 - y0) / 2
    return Capsule((x0, mid), (x1, mid), half)


def _figure_box(scene: Scene) -> Rect:
    return rect_union([prim_bbox(p.prim) for p in scene.painted] + [scene.layout.extent()])


def compose_page(figure: Scene, seed: int, language: str, category: str | None) -> Scene:
    """A page scene holding the figure (moved, not scaled) and the page's texts."""
    facts = PageFacts.of(seed)
    fx0, fy0, fx1, fy1 = _figure_box(figure)
    text_width = max(fx1 - fx0 + 2 * FIGURE_ROOM, MIN_TEXT_WIDTH)
    width = text_width + 2 * MARGIN
    page = Scene(figure.style, figure.k, Layout(), shown=figure.shown)
    name = "page" if language == "zh" else "print"
    ts = _Typesetter(page, MARGIN, text_width, name, CJK_SCALE if language == "zh" else 1.0)
    with lettering(name):
        ts.add("header", say("page.header", language), align="centre")
        ts.add("term", say("page.term", language, year=facts.year, next=facts.year + 1),
               align="centre")
        ts.gap(6.0)
        ts.blanks("fields", say("page.fields", language))
        ts.rule()
        ts.add("section", say("page.section", language))
        ts.gap(4.0)
        ts.add("statement", statement(facts, category, language))
        ts.gap(10.0)
        shift = Similarity.shift_zoom(MARGIN + (text_width - (fx1 - fx0)) / 2 - fx0,
                                      ts.y - fy0, 1.0)
        absorb(page, figure, shift)  # each primitive still names the item it draws
        ts.y += fy1 - fy0 + 14.0
        ts.add("caption", caption(facts, language), align="centre")
        ts.gap(22.0)
        ts.add("question", say(facts.question, language, number=facts.number + 1,
                               points=facts.question_points))
        height = max(ts.y + MARGIN + 40.0, PORTRAIT * min(width, MAX_PORTRAIT_WIDTH))
        ts.add("page-number", say("page.number", language, page=facts.page, pages=PAGES),
               align="centre", y=height - MARGIN * 0.75)
    page.page = (0.0, 0.0, width, height)
    return page
