"""The readability proof over the new presentations: zh, sketch, exam-page.

Every shipped task is re-drawn (layout-only path) in one of the new values, in
turn — zh in its own style, sketch, exam page (the last two in both languages) —
so each value covers a third or more of the shipped beams, frames and trusses;
each layout must satisfy every legibility rule and be rebuilt exactly by the
symbolic reader from its record and its notes in the task's language. Hard
structures from the generator's hard pool are sampled in each value too. The
second half shows that the Chinese words are really read: take the truss note out
of a zh truss and its hinges are lost.
"""

from __future__ import annotations

import copy
import json
import time
from collections import Counter

import pytest

from structeval.dataset.notes import task_notes
from structeval.dataset.rawfile import presentation_of
from structeval.generation.generator import synthesize
from structeval.generation.selection import HARD
from structeval.phrasebook import say
from structeval.presentation import Presentation
from structeval.render import layout_model
from structeval.render.legibility import check
from structeval.scoring import score

from .conftest import REPORTS
from .shipped_figures import REDRAWN, ShippedFigure
from .symbolic_reader import ReadError, read_drawing

ZH = Presentation(language="zh")

#: the value a task is re-drawn in, by its place in the sorted list
TURNS = ("language=zh", "style=sketch", "style=exam-page")


pytestmark = pytest.mark.usefixtures("drawing_fonts")


def turn_of(index: int, own: Presentation) -> tuple[str, Presentation]:
    value = TURNS[index % 3]
    other = "zh" if (index // 3) % 2 == 0 else "en"
    if value == "language=zh":
        return value, own.with_(language="zh")
    if value == "style=sketch":
        return value, own.with_(style="sketch", language=other)
    return value, own.with_(style="exam-page", language="en" if other == "zh" else "zh")


def proof(model, shown: Presentation, seed: int, category: str) -> list[str]:  # type: ignore[no-untyped-def]
    """What is wrong with the task drawn in ``shown`` ([] when legible and read exactly)."""
    lay = layout_model(model, seed=seed, presentation=shown, category=category)
    problems = [str(v) for v in check(lay)]
    record = json.loads(json.dumps(lay.layout_json()))
    try:
        candidate = read_drawing(record, task_notes(model, category, shown))
    except ReadError as exc:
        return [*problems, f"the reader cannot rebuild it: {exc}"]
    verdict = score(model, candidate)
    if verdict.ratio != 1.0:
        problems.append(f"read as {verdict.ratio} at {verdict.stage}: {verdict.message}")
    return problems


def test_every_shipped_task_in_a_new_value_is_legible_and_read_exactly(
        shipped_figures: list[ShippedFigure]) -> None:
    start = time.perf_counter()
    failures, seen, languages = [], Counter(), Counter()
    redrawn = [fig for fig in shipped_figures if fig.block["split"] in REDRAWN]
    for i, fig in enumerate(redrawn):
        value, shown = turn_of(i, presentation_of(fig.block))
        seen[(value, fig.block["category"])] += 1
        languages[shown.language] += 1
        failures += [f"{fig.id} ({value}, {shown.language}): {p}"
                     for p in proof(fig.model, shown, fig.block["image"]["seed"],
                                    fig.block["category"])]
    counts = {v: sum(n for (w, _), n in seen.items() if w == v) for v in TURNS}
    REPORTS.append(f"new presentations: {len(redrawn)} shipped tasks re-drawn "
                   f"({', '.join(f'{v}: {n}' for v, n in counts.items())}; "
                   f"{languages['zh']} in zh), {len(failures)} problems, "
                   f"{time.perf_counter() - start:.1f} s")
    assert not failures, f"{len(failures)} problem(s):\n" + "\n".join(failures[:20])
    assert all(seen[(v, c)] >= 20 for v in TURNS for c in ("beam", "frame", "truss")), seen
    assert languages["zh"] >= len(redrawn) // 2


@pytest.fixture(scope="module")
def hard() -> list:  # type: ignore[type-arg]
    """A hard beam, frame and truss (generator pool "hard", as tools/synthesize.py --hard)."""
    sample = synthesize(3, seed=11, selection=HARD)
    assert sorted(p.block["category"] for p in sample) == ["beam", "frame", "truss"]
    return sample


@pytest.mark.parametrize("shown", [Presentation(language="zh"),
                                   Presentation(language="en", style="sketch"),
                                   Presentation(language="zh", style="sketch"),
                                   Presentation(language="zh", style="exam-page")],
                         ids=["zh", "sketch-en", "sketch-zh", "exam-page-zh"])
def test_hard_structures_in_each_new_value(hard: list, shown: Presentation) -> None:  # type: ignore[type-arg]
    problems = [f"{p.id}: {x}" for p in hard
                for x in proof(p.model, shown, p.block["image"]["seed"], p.block["category"])]
    assert not problems, "\n".join(problems[:20])


# -- the Chinese words are read, and can fail ---------------------------------------------

def _zh_truss(shipped_figures: list[ShippedFigure]) -> tuple[ShippedFigure, dict]:  # type: ignore[type-arg]
    """A shipped truss drawn in zh, with its hinge circles taken out of the record: then
    only the words (the prompt's notes or the notes under the figure) say that its members
    are pin-jointed."""
    fig = next(f for f in shipped_figures if f.block["category"] == "truss")
    lay = layout_model(fig.model, seed=fig.block["image"]["seed"],
                       presentation=presentation_of(fig.block).with_(language="zh"))
    record = json.loads(json.dumps(lay.layout_json()))
    record["items"] = [it for it in record["items"] if it["kind"] != "hinge"]
    return fig, record


def _ratio(fig: ShippedFigure, record: dict, notes: str) -> float | str:  # type: ignore[type-arg]
    try:
        return score(fig.model, read_drawing(record, notes)).ratio
    except ReadError as exc:
        return f"refused: {exc}"


def test_the_zh_truss_note_is_read_from_the_prompt_or_the_figure(
        shipped_figures: list[ShippedFigure]) -> None:
    fig, record = _zh_truss(shipped_figures)
    zh_notes = task_notes(fig.model, "truss", ZH)
    assert _ratio(fig, record, zh_notes) == 1.0
    assert _ratio(fig, record, "") == 1.0  # the note printed under the figure says it
    unnoted = copy.deepcopy(record)
    unnoted["items"] = [it for it in unnoted["items"] if it.get("role") != "note"]
    assert _ratio(fig, unnoted, zh_notes) == 1.0  # the prompt's note says it
    assert _ratio(fig, unnoted, "") != 1.0  # nobody says it: the joints are read as rigid


def test_a_note_that_says_something_else_is_not_taken_for_the_truss_note(
        shipped_figures: list[ShippedFigure]) -> None:
    fig, record = _zh_truss(shipped_figures)
    changed = copy.deepcopy(record)
    swapped = 0
    for it in changed["items"]:
        if it.get("role") == "note" and "铰接" in it.get("text", ""):
            it["text"] = say("figure.rigid-joints", "zh")
            swapped += 1
    assert swapped == 1
    assert _ratio(fig, changed, "") != 1.0
    assert _ratio(fig, changed, say("figure.rigid-joints", "en")) != 1.0
