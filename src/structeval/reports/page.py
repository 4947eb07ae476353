"""The report as one HTML document: summary, charts, and one section per task.

Every string that came from a results file, a trace or a model's answer is
escaped on the way in (answers are arbitrary text, and a report is opened in a
browser); data for the filters travels in data attributes, never in script.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ..harness.answers.grading import STAGES
from ..statistics.resampling import weighted_mean
from ..statistics.runs import TaskScores, per_task
from .charts import grouped_bars, stage_bars
from .differences import LEGEND
from .evidence import AttemptView
from .figures import Picture
from .page_assets import CSP, CSS, JS
from .presentations import (
    StructureView,
    factor_attributes,
    factor_section,
    filter_factors,
    structures_section,
)
from .runfiles import RunResults
from .taskview import TaskView

MAX_RESPONSE_CHARS = 20_000  # of a raw answer shown per attempt
_KINDS = (("members", "Members"), ("supports", "Supports"), ("hinges", "Hinges"),
          ("loads", "Loads"))


@dataclass(frozen=True)
class PageContext:
    results: RunResults
    shown_run: int
    statistics: dict[str, Any]
    views: list[TaskView]
    warnings: list[str]
    factors: dict[str, Any] = field(default_factory=dict)  # statistics.factors.factor_summary
    structures: list[StructureView] = field(default_factory=list)


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def _acc(tasks: Sequence[TaskScores], first: bool = False) -> float:
    values = [t.first_ratio if first else t.ratio for t in tasks]
    return 100.0 * weighted_mean(values, [t.difficulty for t in tasks])


def _groups(tasks: list[TaskScores], key: Callable[[TaskScores], Any],
            ) -> list[tuple[str, list[TaskScores]]]:
    grouped: dict[Any, list[TaskScores]] = {}
    for t in tasks:
        grouped.setdefault(key(t), []).append(t)
    return [(str(k), grouped[k]) for k in sorted(grouped)]


def _group_table(title: str, groups: list[tuple[str, list[TaskScores]]]) -> str:
    rows = "".join(f"<tr><td>{_e(name)}</td><td>{len(ts)}</td>"
                   f"<td>{sum(t.difficulty for t in ts)}</td><td>{_pct(_acc(ts, True))}</td>"
                   f"<td>{_pct(_acc(ts))}</td></tr>" for name, ts in groups)
    return (f"<table><tr><th>{_e(title)}</th><th>Tasks</th><th>Max score</th><th>pass@1</th>"
            f"<th>After repair</th></tr>{rows}</table>")


def _summary(ctx: PageContext) -> str:
    st = ctx.statistics
    acc, first = st["weighted_accuracy"], st["pass_at_1_weighted_accuracy"]
    rows = ctx.results.rows
    tokens = sum(r.tokens for r in rows)
    unavailable = sum(r.status != "scored" for r in rows)
    cells = [("pass@1 weighted accuracy (headline)",
              f"{first['estimate']:.2f}% <small>(95% CI {first['low']:.2f}–{first['high']:.2f})"
              "</small>"),
             ("Weighted accuracy after repair",
              f"{acc['estimate']:.2f}% <small>(95% CI {acc['low']:.2f}–{acc['high']:.2f})</small>"),
             ("Average ratio", _pct(100.0 * weighted_mean([t.ratio for t in per_task(rows)]))),
             ("Tasks × runs", f"{st['tasks']} × {st['runs']}"),
             ("Unavailable (counted as 0)", str(unavailable)),
             ("Tokens", str(tokens))]
    wall = ctx.results.summary.get("wall_s")
    if isinstance(wall, (int, float)):
        cells.append(("Wall time", f"{float(wall):.1f} s"))
    table = "".join(f"<tr><th>{_e(k)}</th><td>{v}</td></tr>" for k, v in cells)
    out = [f"<table id='headline'>{table}</table>"]
    if st["runs"] > 1:
        per_run = "".join(f"<tr><td>run {r['run']}</td><td>{r['weighted_accuracy']:.2f}%</td>"
                          f"<td>{r['pass_at_1_weighted_accuracy']:.2f}%</td>"
                          f"<td>{r['unavailable']}</td></tr>" for r in st["per_run"])
        sc = st["stage_consistency"]
        share = "–" if sc["share"] is None else f"{100.0 * sc['share']:.1f}% of {sc['tasks']}"
        out.append(f"<table><tr><th>Run</th><th>Weighted accuracy</th><th>pass@1</th>"
                   f"<th>Unavailable</th></tr>{per_run}<tr><td colspan='4'>Stage consistency "
                   f"(same final stage in every run): {share}</td></tr></table>")
    return "<div class='tables'>" + "".join(out) + "</div>"


def _charts(ctx: PageContext) -> str:
    tasks = per_task(ctx.results.rows)
    by_cat = _groups(tasks, lambda t: t.category)
    by_dif = _groups(tasks, lambda t: t.difficulty)
    series = ("pass@1", "after repair")
    shown = ctx.results.rows_of_run(ctx.shown_run)
    scored = [r for r in shown if r.status == "scored"]

    def counts(first: bool) -> dict[str, int]:
        out = dict.fromkeys(STAGES, 0)
        for r in scored:
            stage = r.first_attempt_stage if first else r.stage
            if stage in out:
                out[stage] += 1
        return out

    suffix = f" (run {ctx.shown_run})" if len(ctx.results.runs) > 1 else ""
    return "<div class='charts'>" + "".join([
        grouped_bars("Weighted accuracy by category",
                     [("all", (_acc(tasks, True), _acc(tasks)))]
                     + [(n, (_acc(ts, True), _acc(ts))) for n, ts in by_cat], series),
        grouped_bars("Weighted accuracy by difficulty",
                     [(f"d{n}", (_acc(ts, True), _acc(ts))) for n, ts in by_dif], series),
        stage_bars(f"Stage distribution of scored tasks{suffix}",
                   [("pass@1", counts(True)), ("after repair", counts(False))]),
    ]) + "</div>" + "<div class='tables'>" + _group_table("Category", by_cat) + \
        _group_table("Difficulty", by_dif) + "</div>"


def _select(ident: str, label: str, options: Sequence[tuple[str, str]], attrs: str = "") -> str:
    opts = "".join(f"<option value='{_e(v)}'>{_e(t)}</option>" for v, t in options)
    return f"<label>{_e(label)} <select id='{ident}'{attrs}>{opts}</select></label>"


def _controls(views: list[TaskView], factors: dict[str, Any]) -> str:
    present = {v.stage_key for v in views}
    stages = [s for s in ("unavailable", *STAGES) if s in present]
    categories = sorted({v.row.category for v in views})
    difficulties = sorted({v.row.difficulty for v in views})
    return ("<div id='controls'>"
            + _select("f-stage", "Stage", [("", "all"), *((s, s) for s in stages)])
            + _select("f-category", "Category", [("", "all"), *((c, c) for c in categories)])
            + _select("f-difficulty", "Difficulty",
                      [("", "all"), *((str(d), str(d)) for d in difficulties)])
            + "".join(_select(f"f-factor-{name}", name.capitalize(),
                              [("", "all"), *((v, v) for v in values)],
                              f" class='f-factor' data-factor='{name}'")
                      for name, values in filter_factors(factors.get("by_factor") or {}))
            + _select("f-sort", "Sort", [("dataset", "dataset order"), ("id", "id"),
                                         ("difficulty-desc", "difficulty, hardest first"),
                                         ("ratio-asc", "credit, lowest first"),
                                         ("ratio-desc", "credit, highest first"),
                                         ("stage", "stage, worst first")])
            + "<span id='shown'></span></div>")


def _figure(picture: Picture, caption: str, cls: str) -> str:
    if picture.uri is None:
        body = f"<div class='noimg'>{_e(picture.note or 'not available')}</div>"
    else:
        body = (f"<img class='{cls}' src='{picture.uri}' width='{picture.width}' "
                f"height='{picture.height}' alt='{_e(caption)}'>")
    return f"<figure>{body}<figcaption>{_e(caption)}</figcaption></figure>"


def _differences(view: TaskView) -> str:
    d = view.differences
    if d is None:
        return ""
    legend = "".join(f"<span class='swatch' style='background:{colour}'></span>{_e(name)} "
                     f"<small>({_e(meaning)})</small>" for name, colour, meaning in LEGEND)
    if not d.any:
        items = "<li>none: the reconstruction matches the drawing</li>"
    else:
        items = "".join(f"<li><b>{label}:</b> {_e(note)}</li>" for key, label in _KINDS
                        for note in d.notes.get(key, []))
    return f"<h4>Differences</h4><div class='legend'>{legend}</div><ul>{items}</ul>"


def _attempt(a: AttemptView) -> str:
    credit = "" if a.ratio is None else f" — credit {a.ratio:g}"
    head = f"Attempt {a.attempt}: <span class='stage s-{_e(a.stage or 'unavailable')}'>" \
           f"{_e(a.stage or a.outcome)}</span>{credit}"
    parts = [head, f"<div>Diagnosis: {_e(a.diagnosis or '–')}</div>"]
    if a.issues:
        parts.append("<div>Validation issues:<pre>" + _e("\n".join(a.issues)) + "</pre></div>")
    if a.extraction_method or a.extraction_problem:
        parts.append(f"<div><small>JSON found by: {_e(a.extraction_method or '–')}"
                     f"{'; ' + _e(a.extraction_problem) if a.extraction_problem else ''}"
                     "</small></div>")
    if a.feedback:
        parts.append(f"<div>Feedback sent for the next attempt:<pre>{_e(a.feedback)}</pre></div>")
    text = a.response
    length = max(a.response_chars, len(text))  # the view keeps only the part shown
    cut = f"\n… ({length - MAX_RESPONSE_CHARS} more characters in trace.jsonl)" \
        if length > MAX_RESPONSE_CHARS else ""
    parts.append(f"<details><summary>Raw answer ({length} characters)</summary>"
                 f"<pre>{_e(text[:MAX_RESPONSE_CHARS] + cut)}</pre></details>")
    return "<li>" + "".join(parts) + "</li>"


def _task(view: TaskView, multi_run: bool) -> str:
    r = view.row
    first = "" if r.first_attempt_ratio is None else (
        f" · first attempt {_e(r.first_attempt_stage or '?')} ({r.first_attempt_ratio:g})")
    head = (f"<h3><span class='stage s-{_e(view.stage_key)}'>{_e(view.stage_key)}</span> "
            f"{_e(r.id)} · {_e(r.category)} · difficulty {r.difficulty} · credit {r.ratio:g}"
            f"{first} · {r.attempts} attempt(s)</h3>")
    parts = [head]
    if multi_run:
        runs = ", ".join(f"run {x.run}: {_e(x.stage or x.status)} ({x.ratio:g})"
                         for x in view.runs)
        parts.append(f"<div class='meta'>{runs}</div>")
    if r.presentation:
        shown = " · ".join(f"{k} {v}" for k, v in r.presentation.items())
        parts.append(f"<div class='meta'>Structure {_e(r.structure)} · {_e(shown)}</div>")
    if view.notes:
        parts.append("<ul class='notes'>" + "".join(f"<li>{_e(n)}</li>" for n in view.notes)
                     + "</ul>")
    best = view.evidence.best_attempt if view.evidence else None
    recon = f"Model's reconstruction (attempt {best})" if best else "Model's reconstruction"
    p = view.pictures
    parts.append("<div class='figs'>" + _figure(view.image, "Input drawing", "input")
                 + _figure(p.gt, "Ground truth (our renderer)", "gt")
                 + _figure(p.cand, recon, "cand") + "</div>")
    parts.append("<div class='figs'>" + _figure(p.gt_moment, "Bending moments: ground truth",
                                                "gt-moment")
                 + _figure(p.cand_moment, "Bending moments: reconstruction", "cand-moment")
                 + "</div>")
    parts.append(_differences(view))
    attempts = view.evidence.attempts if view.evidence else ()
    best_view = view.evidence.best() if view.evidence else None
    if best_view is not None:
        parts.append(f"<h4>Diagnosis</h4><p>{_e(best_view.diagnosis or '–')}</p>")
    elif r.status != "scored":
        parts.append("<h4>Diagnosis</h4><p>unavailable: the API kept failing; the task counts "
                     "0 and is re-run by run_eval.py --resume</p>")
    if attempts:
        parts.append("<h4>Attempts</h4><ol class='attempts'>"
                     + "".join(_attempt(a) for a in attempts) + "</ol>")
    attrs = (f"id='task-{view.order}' data-id='{_e(r.id)}' data-stage='{_e(view.stage_key)}' "
             f"data-category='{_e(r.category)}' data-difficulty='{r.difficulty}' "
             f"data-ratio='{r.ratio:g}' data-order='{view.order}'{factor_attributes(r)}")
    return f"<article class='task' {attrs}>" + "".join(parts) + "</article>"


def render_page(ctx: PageContext) -> str:
    info = ctx.results.info
    title = f"StructuralEval report: {info.model}"
    meta = " · ".join(x for x in (f"prompt {info.prompt_type}" if info.prompt_type else "",
                                  f"shown as {info.modality}" if info.modality else "",
                                  f"run started {info.date}" if info.date else "",
                                  f"{len(ctx.results.task_ids)} task(s)",
                                  f"{len(ctx.results.runs)} run(s)",
                                  f"results: {ctx.results.directory.name}") if x)
    warnings = "".join(f"<li>{_e(w)}</li>" for w in ctx.warnings)
    multi = len(ctx.results.runs) > 1
    shown = f" (run {ctx.shown_run} of {len(ctx.results.runs)})" if multi else ""
    return "".join([
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        f"<header><h1>{_e(title)}</h1><p class='meta'>{_e(meta)}</p>",
        f"<ul class='notes'>{warnings}</ul>" if warnings else "", "</header><main>",
        "<section id='summary'><h2>Summary</h2>", _summary(ctx), _charts(ctx), "</section>",
        factor_section(ctx.factors, len(ctx.results.runs)),
        structures_section(ctx.structures, multi, ctx.shown_run),
        f"<section id='tasks'><h2>Tasks{_e(shown)}</h2>", _controls(ctx.views, ctx.factors),
        "<div id='task-list'>", "".join(_task(v, multi) for v in ctx.views), "</div></section>",
        f"</main><script>{JS}</script></body></html>\n"])
