"""Readability proof and legibility rules for the exam, parametric and mm presentations.

Every combination of ``dimensioning`` (full, exam), ``values`` (numeric, parametric)
and ``units`` (m-kN, mm-kN) must draw every structure legibly and be read back to
exactly 1.0 by the symbolic reader. Checked (layout-only path) over

* the shipped tasks re-drawn in the three factors' non-default values together (all
  of them) and in each other non-default combination (every ``SAMPLE``-th task: the
  property holds per task, and the full pass above keeps every task covered once);
* a fixed sample of hard structures from the generator, across its hard families
  (6-span Gerber beams, frames of ≥ 40 members, trusses of ≥ 60 members, and a draw
  from the whole hard pool), in full/numeric/m-kN and in the new presentations.

The times per step are reported in the terminal summary.
"""

from __future__ import annotations

import itertools
import time

import pytest

from structeval.dataset import DATA_DIR
from structeval.dataset.paths import RAW_DIR
from structeval.dataset.rawfile import read_raw
from structeval.generation.generator import synthesize
from structeval.generation.selection import Selection
from structeval.render.legibility import check
from structeval.scoring import score

from .conftest import REPORTS
from .shipped_figures import REDRAWN, ShippedFigure, presented
from .symbolic_reader import ReadError, read_drawing

FACTORS = {"dimensioning": ("full", "exam"), "values": ("numeric", "parametric"),
           "units": ("m-kN", "mm-kN")}
COMBINATIONS = [dict(zip(FACTORS, v, strict=True)) for v in itertools.product(*FACTORS.values())]
ALL_NEW = {"dimensioning": "exam", "values": "parametric", "units": "mm-kN"}
OTHERS = [c for c in COMBINATIONS[1:] if c != ALL_NEW]
SAMPLE = 10  # every SAMPLE-th shipped task in each of the other combinations
#: (family or None for the whole hard pool, least members, how many, seed)
HARD = [(("gerber_long",), 0, 2, 41), (("building_frame",), 40, 2, 42),
        (("pitched_frame",), 0, 2, 43), (("long_span",), 60, 2, 44),
        (("k_truss_long", "cantilever_truss"), 60, 2, 45), ((), 0, 3, 46)]
HARD_SHOWN = [{}, ALL_NEW, {"dimensioning": "exam"}, {"values": "parametric", "units": "mm-kN"}]
TIMES: dict[str, float] = {}


def _failures(figures: list[ShippedFigure]) -> list[str]:
    out = []
    for fig in figures:
        start = time.perf_counter()
        problems = [str(v) for v in check(fig.layout)]
        TIMES["rules"] = TIMES.get("rules", 0.0) + time.perf_counter() - start
        start = time.perf_counter()
        try:
            verdict = score(fig.model, read_drawing(fig.record, fig.notes))
            if verdict.ratio != 1.0:
                problems.insert(0, f"read {verdict.ratio} at {verdict.stage}: {verdict.message}")
        except ReadError as exc:
            problems.insert(0, f"unreadable: {exc}")
        TIMES["read+score"] = TIMES.get("read+score", 0.0) + time.perf_counter() - start
        if problems:
            shown = {k: v for k, v in fig.block["presentation"].items() if k in FACTORS}
            out.append(f"{fig.id} {shown}: " + "; ".join(problems)[:400])
    return out


def _layouts(jobs: list[tuple[dict, object, dict[str, str]]]) -> list[ShippedFigure]:  # type: ignore[type-arg]
    start = time.perf_counter()
    out = [presented(block, model, shown) for block, model, shown in jobs]  # type: ignore[arg-type]
    TIMES["layout"] = TIMES.get("layout", 0.0) + time.perf_counter() - start
    return out


@pytest.fixture(scope="module")
def shipped() -> list[tuple[dict, object]]:  # type: ignore[type-arg]
    out = []
    for path in sorted((DATA_DIR / RAW_DIR).glob("*.json")):
        _, block, model = read_raw(path)
        if block["split"] in REDRAWN:
            out.append((block, model))
    if not out:
        pytest.fail(f"no raw problems in {DATA_DIR}")
    return out


@pytest.fixture(scope="module")
def hard() -> list[tuple[dict, object]]:  # type: ignore[type-arg]
    out = []
    for families, least, count, seed in HARD:
        level = 5 if least else None  # the largest drafts are drawn at level 5
        for problem in synthesize(count, seed, split="hard", difficulty_level=level,
                                  selection=Selection("hard", families, least)):
            out.append((problem.block, problem.model))
    return out


def test_shipped_tasks_in_all_three_new_factors(shipped) -> None:  # type: ignore[no-untyped-def]
    figures = _layouts([(b, m, ALL_NEW) for b, m in shipped])
    failures = _failures(figures)
    REPORTS.append(f"presentations: {len(figures) - len(failures)} of {len(figures)} shipped "
                   "tasks read exactly and legible in exam/parametric/mm-kN")
    assert not failures, f"{len(failures)} drawing(s):\n" + "\n".join(failures[:20])


@pytest.mark.parametrize("shown", OTHERS, ids=lambda c: "-".join(c.values()))
def test_shipped_sample_in_each_other_combination(shipped, shown) -> None:  # type: ignore[no-untyped-def]
    figures = _layouts([(b, m, shown) for b, m in shipped[::SAMPLE]])
    failures = _failures(figures)
    assert not failures, f"{len(failures)} drawing(s):\n" + "\n".join(failures[:20])


def test_hard_sample_in_every_presentation(hard) -> None:  # type: ignore[no-untyped-def]
    sizes = {b["category"]: max(len(m.links) for bb, m in hard if bb["category"] == b["category"])
             for b, _ in hard}
    assert sizes["frame"] >= 40 and sizes["truss"] >= 60, sizes
    assert any(b["provenance"]["family"] == "gerber_long" for b, _ in hard)
    TIMES.clear()
    figures = _layouts([(b, m, shown) for b, m in hard for shown in HARD_SHOWN])
    failures = _failures(figures)
    REPORTS.append(f"presentations: {len(figures) - len(failures)} of {len(figures)} drawings "
                   f"of {len(hard)} hard structures read exactly and legible; per step "
                   + ", ".join(f"{k} {v:.1f} s" for k, v in TIMES.items()))
    assert not failures, f"{len(failures)} drawing(s):\n" + "\n".join(failures[:20])


def test_exam_drawings_show_fewer_numbers_never_less_information(shipped) -> None:  # type: ignore[no-untyped-def]
    """Over a sample: an exam drawing never states more numbers than the full one, and
    states fewer on most (the readability tests above show nothing is lost)."""
    def numbers(fig: ShippedFigure) -> int:
        return sum(1 for it in fig.record["items"] if it["kind"] == "label"
                   and any(c.isdigit() for c in str(it.get("text", ""))))

    fewer = 0
    sample = shipped[::SAMPLE]
    for block, model in sample:
        full, exam = _layouts([(block, model, {}), (block, model, {"dimensioning": "exam"})])
        assert numbers(exam) <= numbers(full), block["id"]
        fewer += numbers(exam) < numbers(full)
    assert fewer >= len(sample) // 2, f"only {fewer} of {len(sample)} exam drawings are leaner"
