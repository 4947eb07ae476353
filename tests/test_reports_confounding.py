"""Confounded presentation deltas are found from the data, and only when the pairs coincide."""

from __future__ import annotations

from structeval.reports.confounding import confounded_deltas
from structeval.statistics.factors import presentation_deltas
from structeval.statistics.runs import TaskScores

BASE = {"dimensioning": "full", "values": "numeric", "language": "en"}


def task(tid: str, structure: str, ratio: float, **factors: str) -> TaskScores:
    return TaskScores(tid, "beam", 2, (ratio,), (ratio,), ("perfect",), ("perfect",),
                      structure, {**BASE, **factors})


def matched() -> list[TaskScores]:
    """Three structures, each drawn plainly and as an exam sheet with parametric values
    (both factors change together), and in Chinese (one factor alone)."""
    out = []
    for k, s in enumerate(("S1", "S2", "S3")):
        out += [task(f"{s}-plain", s, 1.0), task(f"{s}-exam", s, 0.5 + 0.1 * k,
                                                   dimensioning="exam", values="parametric"),
                task(f"{s}-zh", s, 0.75, language="zh")]
    return out


def test_two_factors_that_always_change_together_are_named_confounded():
    tasks = matched()
    deltas = presentation_deltas(tasks)
    found = confounded_deltas(tasks, deltas)
    assert set(found) == {("dimensioning", "exam − full"), ("values", "parametric − numeric")}
    one = found[("dimensioning", "exam − full")]
    assert (one.other, one.other_label, one.same_sign) == ("values", "parametric − numeric",
                                                           True)
    assert "cannot be told apart" in one.sentence
    assert ("language", "zh − en") not in found  # varied alone: controlled pairs exist


def test_a_controlled_pair_removes_the_confounding():
    """One structure also drawn with exam dimensioning but numeric values: the factors are
    no longer the same comparison, and the dimensioning delta has a controlled pair."""
    tasks = [*matched(), task("S1-exam-numeric", "S1", 0.9, dimensioning="exam")]
    deltas = presentation_deltas(tasks)
    assert confounded_deltas(tasks, deltas) == {}


def test_opposite_orientation_is_reported():
    """A factor whose reference side is the other's v side: the same comparison, sign flipped."""
    tasks = []
    for s in ("S1", "S2"):
        tasks += [task(f"{s}-a", s, 1.0, language="zh"),
                  task(f"{s}-b", s, 0.5, dimensioning="exam")]
    deltas = presentation_deltas(tasks)
    found = confounded_deltas(tasks, deltas)
    assert found[("dimensioning", "exam − full")].same_sign is False
    assert "opposite sign" in found[("dimensioning", "exam − full")].sentence


def test_deltas_without_controlled_pairs_over_other_pairs_are_not_confounded():
    """Exam dimensioning comes with a sketch in one structure and with Chinese in another:
    no delta has a controlled pair, but no two compare the same task pairs."""
    tasks = [task("S1-plain", "S1", 1.0), task("S1-x", "S1", 0.5, dimensioning="exam",
                                                 language="zh"),
             task("S2-plain", "S2", 1.0), task("S2-x", "S2", 0.25, dimensioning="exam",
                                                 values="parametric")]
    deltas = presentation_deltas(tasks)
    assert {e["controlled_pairs"] for es in deltas.values() for e in es} == {0}
    assert len(deltas) == 3
    assert confounded_deltas(tasks, deltas) == {}
