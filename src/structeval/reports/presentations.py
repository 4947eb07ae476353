"""The report's view of presentations: the factor table and each structure shown side by side.

The figures come from ``structeval.statistics.factors`` (the same code that
writes results.json's ``by_factor``, ``presentation_deltas`` and
``presentation_robustness``), recomputed from the task rows so that results
written before presentations existed still give a page (without this part).
Every string is escaped; factor names come from the fixed list of factors, so
they are safe inside attribute names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from ..statistics.factors import MODALITY, task_factors
from .charts import forest_plot
from .confounding import Confounded
from .figures import Picture
from .runfiles import TaskRow
from .taskview import TaskView


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


@dataclass(frozen=True)
class ShownTask:
    """One presentation of a structure: the task, its factors and a thumbnail."""

    order: int  # the task's position in the page (its section is #task-<order>)
    row: TaskRow
    factors: dict[str, str]
    picture: Picture


@dataclass(frozen=True)
class StructureView:
    structure: str
    category: str
    difficulty: int
    varying: tuple[str, ...]  # the factors whose value differs between its tasks
    shown: tuple[ShownTask, ...]


def filter_factors(by_factor: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
    """The factors the task list can be filtered by: those with two or more values
    (a run has one modality, so filtering by it would show everything or nothing)."""
    return [(f, list(values)) for f, values in by_factor.items()
            if f != MODALITY and len(values) >= 2]


def factor_attributes(row: TaskRow) -> str:
    """``data-f-<factor>='<value>'`` attributes for the page's filters."""
    return "".join(f" data-f-{f}='{_e(v)}'" for f, v in task_factors(row).items())


def structure_views(views: Sequence[TaskView]) -> list[StructureView]:
    """The structures shown in two or more presentations, in dataset order, each with a
    thumbnail of every presentation (the task's own input picture: the page holds each
    picture once, and the gallery shows it again by reference)."""
    grouped: dict[str, list[TaskView]] = {}
    for v in views:
        grouped.setdefault(v.row.structure or v.row.id, []).append(v)
    out = []
    for structure, members in grouped.items():
        factors = [task_factors(v.row) for v in members]
        if len(members) < 2 or len({tuple(sorted(f.items())) for f in factors}) < 2:
            continue
        varying = tuple(name for name in factors[0] if len({f.get(name) for f in factors}) > 1)
        shown = []
        for v, f in zip(members, factors, strict=True):
            shown.append(ShownTask(v.order, v.row, f, v.image))
        first = members[0].row
        out.append(StructureView(structure, first.category, first.difficulty, varying,
                                 tuple(shown)))
    return out


# --------------------------------------------------------------------------- tables


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def _ci(interval: Mapping[str, Any]) -> str:
    return (f"{interval['estimate']:+.1f} <small>[{interval['low']:+.1f}, "
            f"{interval['high']:+.1f}]</small>")


def _accuracy_table(by_factor: Mapping[str, Mapping[str, Any]], runs: int) -> str:
    rows = []
    for factor, values in by_factor.items():
        for k, (value, r) in enumerate(values.items()):
            name = f"<td rowspan='{len(values)}'>{_e(factor)}</td>" if k == 0 else ""
            rows.append(f"<tr data-factor='{_e(factor)}' data-value='{_e(value)}'>{name}"
                        f"<td class='v'>{_e(value)}</td><td>{r['tasks'] // max(runs, 1)}</td>"
                        f"<td>{r['unavailable']}</td><td>{r['max_score'] // max(runs, 1)}</td>"
                        f"<td>{_pct(r['pass_at_1_accuracy'])}</td>"
                        f"<td>{_pct(r['accuracy'])}</td><td>{_pct(r['avg_ratio'])}</td></tr>")
    unavailable = "Unavailable" + (" (task × run)" if runs > 1 else "")
    return ("<table id='factor-table'><tr><th>Factor</th><th>Value</th><th>Tasks</th>"
            f"<th>{unavailable}</th><th>Max score</th><th>pass@1</th><th>After repair</th>"
            f"<th>Average ratio</th></tr>{''.join(rows)}</table>")


Confounding = Mapping[tuple[str, str], Confounded]


def _delta_table(deltas: Mapping[str, Sequence[Mapping[str, Any]]],
                 confounded: Confounding) -> str:
    rows = []
    for factor, entries in deltas.items():
        for e in entries:
            c = e.get("controlled")
            controlled = (f"<td>{_ci(c['pass_at_1'])}</td><td>{_ci(c['after_repair'])}</td>"
                          if c else "<td>–</td><td>–</td>")
            same = confounded.get((factor, str(e["label"])))
            note = f"<td class='v confounded'>† {_e(same.sentence)}</td>" if same else \
                "<td></td>"
            rows.append(f"<tr data-factor='{_e(factor)}'><td class='v'>{_e(factor)}: "
                        f"{_e(e['label'])}</td>"
                        f"<td>{e['structures']}</td><td>{e['controlled_pairs']}</td>"
                        f"<td>{_ci(e['pass_at_1'])}</td><td>{_ci(e['after_repair'])}</td>"
                        f"{controlled}{note}</tr>")
    return ("<table id='delta-table'><tr><th>Delta (points)</th><th>Structures</th>"
            "<th>Controlled pairs</th><th>pass@1 [95% CI]</th><th>After repair [95% CI]</th>"
            "<th>Controlled pass@1</th><th>Controlled after repair</th><th>Note</th></tr>"
            f"{''.join(rows)}</table>")


def forest_rows(deltas: Mapping[str, Sequence[Mapping[str, Any]]], confounded: Confounding,
                key: str) -> list[tuple[str, float, float, float, bool]]:
    """(label, estimate, low, high, confounded) of every delta, for :func:`forest_plot`."""
    return [(f"{factor}: {e['label']}", e[key]["estimate"], e[key]["low"], e[key]["high"],
             (factor, str(e["label"])) in confounded)
            for factor, entries in deltas.items() for e in entries]


def forests(deltas: Mapping[str, Sequence[Mapping[str, Any]]], confounded: Confounding,
            prefix: str = "") -> str:
    """The forest plots of the paired deltas, pass@1 and after repair."""
    note = "† confounded: the same task pairs as another factor's delta" if confounded else ""
    return "<div class='charts'>" + "".join(
        forest_plot(f"{prefix}Presentation deltas, {name}", forest_rows(deltas, confounded, key),
                    note) for key, name in (("pass_at_1", "pass@1"),
                                            ("after_repair", "after repair"))) + "</div>"


def _robustness(robustness: Mapping[str, Mapping[str, Any]]) -> str:
    first, final = robustness.get("pass_at_1") or {}, robustness.get("after_repair") or {}
    if not first.get("compared"):
        return ""
    per_run = " (structure × run pairs)" if first.get("runs", 1) > 1 else ""

    def part(label: str, r: Mapping[str, Any]) -> str:
        return (f"{label} <b>{100.0 * r['share']:.1f}%</b> ({r['robust']} of "
                f"{r['compared']}{per_run})")

    return (f"<p id='robustness'>Presentation robustness (same stage in every presentation "
            f"of a structure): {part('pass@1', first)}; {part('after repair', final)}.</p>")


DEFINITIONS = (
    "Accuracy per value: difficulty-weighted, over the tasks shown with that value "
    "(unavailable tasks count 0). Delta v − w: per structure answered at both values, its "
    "mean credit at v minus at w; the difficulty-weighted mean over those structures, in "
    "points, with a 95% paired bootstrap interval over structures. Controlled: the same "
    "over task pairs of one structure that differ in that factor only. Deltas and "
    "robustness leave out tasks that were unavailable in some run.")


def factor_section(factors: Mapping[str, Any], runs: int,
                   confounded: Confounding | None = None) -> str:
    """The "Presentation factors" section, or "" when the run varies no factor
    (``confounded``: :func:`.confounding.confounded_deltas` of the same run)."""
    confounded = confounded or {}
    by_factor = factors.get("by_factor") or {}
    deltas = factors.get("presentation_deltas") or {}
    if not deltas and not any(len(values) >= 2 for values in by_factor.values()):
        return ""  # nothing varies (a recorded modality alone is no comparison)
    parts = ["<section id='factors'><h2>Presentation factors</h2><div class='tables'>",
             _accuracy_table(by_factor, runs), "</div>"]
    if deltas:
        parts.append(forests(deltas, confounded))
        parts.append("<div class='tables'>" + _delta_table(deltas, confounded) + "</div>")
    parts.append(_robustness(factors.get("presentation_robustness") or {}))
    parts.append(f"<p class='meta'>{_e(DEFINITIONS)}</p></section>")
    return "".join(parts)


# --------------------------------------------------------------------------- gallery


def _stage(row: TaskRow, first: bool) -> str:
    if row.status != "scored":
        return "<span class='stage s-unavailable'>unavailable</span>"
    stage = (row.first_attempt_stage if first else row.stage) or "unavailable"
    ratio = row.first_attempt_ratio if first else row.ratio
    credit = "" if ratio is None else f" {ratio:g}"
    return f"<span class='stage s-{_e(stage)}'>{_e(stage)}</span>{credit}"


def _shown(s: ShownTask, varying: Sequence[str]) -> str:
    label = " · ".join(f"{f} {s.factors.get(f, '?')}" for f in varying)
    if s.picture.uri is None:
        body = f"<div class='noimg'>{_e(s.picture.note or 'not available')}</div>"
    else:  # the page's script copies the task's own picture here (it is stored once)
        body = (f"<img class='thumb' data-from='img-{s.order}' width='{s.picture.width}' "
                f"height='{s.picture.height}' alt='{_e(s.row.id)}'>")
    return (f"<figure class='shown'{factor_attributes(s.row)} data-id='{_e(s.row.id)}'>{body}"
            f"<figcaption><a href='#task-{s.order}'>{_e(s.row.id)}</a> · {_e(label)}<br>"
            f"pass@1 {_stage(s.row, True)} · after repair {_stage(s.row, False)}"
            "</figcaption></figure>")


def structures_section(structures: Sequence[StructureView], multi_run: bool,
                       shown_run: int) -> str:
    """One card per structure shown in several presentations (or "" when there is none)."""
    if not structures:
        return ""
    cards = "".join(
        f"<article class='structure' data-structure='{_e(s.structure)}'><h3>{_e(s.structure)} · "
        f"{_e(s.category)} · difficulty {s.difficulty} · {len(s.shown)} presentations "
        f"<small>(differing in {_e(', '.join(s.varying))})</small></h3>"
        f"<div class='figs'>{''.join(_shown(x, s.varying) for x in s.shown)}</div></article>"
        for s in structures)
    run = f" (run {shown_run})" if multi_run else ""
    return (f"<section id='structures'><h2>Structures in several presentations{_e(run)}</h2>"
            "<p class='meta'>The same ground truth drawn differently; the filters of the task "
            f"list below apply here too.</p>{cards}</section>")
