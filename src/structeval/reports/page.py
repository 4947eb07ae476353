"""The report as one HTML document: summary, charts, and one section per task.

Every string that came from a results file, a trace or a model's answer is
escaped on the way in (answers are arbitrary text, and a report is opened in a
browser); data for the filters travels in data attributes, never in script.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ..harness.answers.grading import STAGES
from ..statistics.resampling import Interval, weighted_mean
from ..statistics.runs import TaskScores, per_task
from .accuracy import (
    GROUP_RESAMPLES,
    LOAD_BINS,
    MEMBER_BINS,
    GroupAccuracy,
    by_size,
    group_accuracy,
    grouped,
)
from .charts import grouped_bars, stage_bars
from .confounding import Confounded
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
from .runfiles import RunResults, TaskRow
from .sketch_script import SKETCH_JS, packed_block
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
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # id → (members, loads)
    confounded: dict[tuple[str, str], Confounded] = field(default_factory=dict)


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def _acc(tasks: Sequence[TaskScores], first: bool = False) -> float:
    values = [t.first_ratio if first else t.ratio for t in tasks]
    return 100.0 * weighted_mean(values, [t.difficulty for t in tasks])


def _ci(iv: Interval) -> str:
    return f"{iv.estimate:.1f}% <small>[{iv.low:.1f}, {iv.high:.1f}]</small>"


def _group_table(title: str, groups: Sequence[GroupAccuracy]) -> str:
    rows = "".join(f"<tr><td>{_e(g.name)}</td><td>{g.tasks}</td><td>{g.max_score}</td>"
                   f"<td>{_ci(g.pass_at_1)}</td><td>{_ci(g.after_repair)}</td></tr>"
                   for g in groups)
    return (f"<table><tr><th>{_e(title)}</th><th>Tasks</th><th>Max score</th>"
            f"<th>pass@1 [95% CI]</th><th>After repair [95% CI]</th></tr>{rows}</table>")


def _bars(title: str, groups: Sequence[GroupAccuracy]) -> str:
    return grouped_bars(title, [(g.name, (g.pass_at_1.estimate, g.after_repair.estimate),
                                 ((g.pass_at_1.low, g.pass_at_1.high),
                                  (g.after_repair.low, g.after_repair.high)))
                                for g in groups], ("pass@1", "after repair"))


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


def _transitions(rows: Sequence[TaskRow]) -> str:
    """Stage at the first attempt (rows) → stage after repair (columns), scored tasks."""
    scored = [r for r in rows if r.status == "scored"]
    counts: dict[tuple[str, str], int] = {}
    for r in scored:
        key = (r.first_attempt_stage or "?", r.stage or "?")
        counts[key] = counts.get(key, 0) + 1
    firsts = [x for x in STAGES if any(k[0] == x for k in counts)]
    finals = [x for x in STAGES if any(k[1] == x for k in counts)]
    if not scored:
        return ""
    top = max(counts.values())
    head = "".join(f"<th>{_e(x)}</th>" for x in finals)

    def cell(n: int) -> str:
        return f"<td style='background:rgba(31,78,137,{0.08 + 0.5 * n / top:.2f})'>{n or ''}</td>"

    body = "".join(f"<tr><td>{_e(f)}</td>"
                   + "".join(cell(counts.get((f, x), 0)) for x in finals) + "</tr>"
                   for f in firsts)
    return (f"<table id='transitions'><tr><th>pass@1 ↓ / after repair →</th>{head}</tr>{body}"
            f"<tr><td colspan='{len(finals) + 1}'><small>Scored tasks by stage at the first "
            "attempt and after repair (a repair moves a task right of its pass@1 stage)."
            "</small></td></tr></table>")


def _charts(ctx: PageContext) -> str:
    tasks = per_task(ctx.results.rows)
    by_cat = [group_accuracy("all", tasks), *grouped(tasks, lambda t: t.category)]
    by_dif = grouped(tasks, lambda t: t.difficulty, lambda d: f"d{d}")
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
    charts = [_bars("Weighted accuracy by category", by_cat),
              _bars("Weighted accuracy by difficulty", by_dif)]
    tables = [_group_table("Category", by_cat), _group_table("Difficulty", by_dif)]
    for name, index, bins in (("members", 0, MEMBER_BINS), ("loads", 1, LOAD_BINS)):
        sizes = {k: v[index] for k, v in ctx.sizes.items()}
        if sizes:
            groups = by_size(tasks, sizes, bins)
            charts.append(_bars(f"Weighted accuracy by number of {name}", groups))
            tables.append(_group_table(f"{name.capitalize()} (ground truth)", groups))
    charts.append(stage_bars(f"Stage distribution of scored tasks{suffix}",
                             [("pass@1", counts(True)), ("after repair", counts(False))]))
    return ("<div class='charts'>" + "".join(charts) + "</div><div class='tables'>"
            + _transitions(shown) + "".join(tables) + "</div>"
            "<p class='meta'>Whiskers and brackets: 95% task-bootstrap intervals "
            f"({GROUP_RESAMPLES:,} resamples, fixed seed).</p>")


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


def _figure(picture: Picture, caption: str, cls: str, ident: str = "") -> str:
    if picture.uri is None:
        body = f"<div class='noimg'>{_e(picture.note or 'not available')}</div>"
    else:
        body = (f"<img class='{cls}'{ident} src='{picture.uri}' width='{picture.width}' "
                f"height='{picture.height}' alt='{_e(caption)}'>")
    return f"<figure>{body}<figcaption>{_e(caption)}</figcaption></figure>"


class Said:
    """The texts a task section has already shown, so that each diagnosis is shown once.

    A verdict's message is also the scorer's note on the differences, the next
    attempt's feedback quotes it, and a stuck model earns the same one at every
    attempt: a later block names where the text stands instead of repeating it.
    """

    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []

    def add(self, text: str | None, where: str) -> None:
        if text and text.strip() and self.where(text) is None:
            self.texts.append((text.strip(), where))

    def where(self, text: str) -> str | None:
        return next((w for t, w in self.texts if t == text.strip()), None)

    def covers(self, note: str) -> bool:
        return any(note.strip() in t for t, _ in self.texts)

    def cite(self, text: str) -> str:
        """``text`` with every diagnosis already shown replaced by a reference to it."""
        for t, w in self.texts:
            text = text.replace(t, f"[{w}]")
        return text


def _differences(view: TaskView, said: Said) -> str:
    d = view.differences
    if d is None:
        return ""
    notes = [(label, note) for key, label in _KINDS for note in d.notes.get(key, [])]
    if not d.any:
        items = "<li>none: the reconstruction matches the drawing</li>"
    else:
        fresh = [(label, note) for label, note in notes if not said.covers(note)]
        items = "".join(f"<li><b>{label}:</b> {_e(note)}</li>" for label, note in fresh)
        if len(fresh) < len(notes):
            items += f"<li>{len(notes) - len(fresh)} more, in the diagnosis above</li>"
    return f"<h4>Differences</h4><ul>{items}</ul>"


def _legend() -> str:
    """The colours of the drawings, once for the whole task list."""
    return "<div class='legend'>Marked in the drawings:" + "".join(
        f"<span class='swatch' style='background:{colour}'></span>{_e(name)} "
        f"<small>({_e(meaning)})</small>" for name, colour, meaning in LEGEND) + "</div>"


def answer_text(a: AttemptView) -> str:
    """The raw answer as the page shows it (cut to MAX_RESPONSE_CHARS, with a note)."""
    length = max(a.response_chars, len(a.response))  # the view keeps only the part shown
    cut = f"\n… ({length - MAX_RESPONSE_CHARS} more characters in trace.jsonl)" \
        if length > MAX_RESPONSE_CHARS else ""
    return a.response[:MAX_RESPONSE_CHARS] + cut


def _attempt(a: AttemptView, said: Said, order: int, index: int) -> str:
    credit = "" if a.ratio is None else f" — credit {a.ratio:g}"
    head = f"Attempt {a.attempt}: <span class='stage s-{_e(a.stage or 'unavailable')}'>" \
           f"{_e(a.stage or a.outcome)}</span>{credit}"
    where = said.where(a.diagnosis) if a.diagnosis else None
    diagnosis = f"same as {where}" if where else _e(a.diagnosis or '–')
    said.add(a.diagnosis, f"diagnosis of attempt {a.attempt}")
    parts = [head, f"<div>Diagnosis: {diagnosis}</div>"]
    if a.issues:
        parts.append("<div>Validation issues:<pre>" + _e("\n".join(a.issues)) + "</pre></div>")
    if a.extraction_method or a.extraction_problem:
        parts.append(f"<div><small>JSON found by: {_e(a.extraction_method or '–')}"
                     f"{'; ' + _e(a.extraction_problem) if a.extraction_problem else ''}"
                     "</small></div>")
    if a.feedback:
        parts.append("<div>Feedback sent for the next attempt:<pre>"
                     f"{_e(said.cite(a.feedback))}</pre></div>")
    length = max(a.response_chars, len(a.response))
    parts.append(f"<details class='answer' data-order='{order}' data-attempt='{index}'>"
                 f"<summary>Raw answer ({length} characters)</summary><pre></pre></details>")
    return "<li>" + "".join(parts) + "</li>"


def _drawings(view: TaskView) -> str:
    """The input picture, then the structures the page's script draws when opened."""
    best = view.evidence.best_attempt if view.evidence else None
    recon = f"Model's reconstruction (attempt {best})" if best else "Model's reconstruction"
    boxes = "".join(f"<figure><div class='sk' data-which='{which}'></div>"
                    f"<figcaption>{_e(caption)}</figcaption></figure>"
                    for which, caption in (("gt", "Ground truth"), ("cand", recon),
                                           ("gtm", "Bending moments: ground truth"),
                                           ("candm", "Bending moments: reconstruction")))
    return ("<div class='figs'>"
            + _figure(view.image, "Input drawing", "input", f" id='img-{view.order}'")
            + "</div>"
            f"<details class='drawings' data-order='{view.order}'><summary>Ground truth and "
            "reconstruction, with their bending moments (drawn when opened)</summary>"
            f"<div class='figs'>{boxes}</div></details>")


def _task(view: TaskView, multi_run: bool) -> str:
    r = view.row
    first = "" if r.first_attempt_ratio is None else (
        f" · first attempt {_e(r.first_attempt_stage or '?')} ({r.first_attempt_ratio:g})")
    head = (f"<h3><span class='stage s-{_e(view.stage_key)}'>{_e(view.stage_key)}</span> "
            f"{_e(r.id)} · {_e(r.category)} · difficulty {r.difficulty} · credit {r.ratio:g}"
            f"{first} · {r.attempts} attempt(s)"
            + (f" · wrong frame: {_e(r.wrong_frame)}" if r.wrong_frame else "") + "</h3>")
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
    parts.append(_drawings(view))
    said = Said()
    attempts = view.evidence.attempts if view.evidence else ()
    best_view = view.evidence.best() if view.evidence else None
    if best_view is not None:
        parts.append(f"<h4>Diagnosis</h4><p>{_e(best_view.diagnosis or '–')}</p>")
        said.add(best_view.diagnosis, "the diagnosis above")
    elif r.status != "scored":
        parts.append("<h4>Diagnosis</h4><p>unavailable: the API kept failing; the task counts "
                     "0 and is re-run by run_eval.py --resume</p>")
    parts.append(_differences(view, said))
    if attempts:
        parts.append("<h4>Attempts</h4><ol class='attempts'>"
                     + "".join(_attempt(a, said, view.order, k)
                               for k, a in enumerate(attempts)) + "</ol>")
    attrs = (f"id='task-{view.order}' data-id='{_e(r.id)}' data-stage='{_e(view.stage_key)}' "
             f"data-category='{_e(r.category)}' data-difficulty='{r.difficulty}' "
             f"data-ratio='{r.ratio:g}' data-order='{view.order}'{factor_attributes(r)}")
    return f"<article class='task' {attrs}>" + "".join(parts) + "</article>"


def render_page(ctx: PageContext) -> str:
    info = ctx.results.info
    title = f"StructuralEval report: {info.model}"
    meta = " · ".join(x for x in (f"prompt {info.prompt_type}" if info.prompt_type else "",
                                  f"shown as {info.shown}" if info.shown else "",
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
        factor_section(ctx.factors, len(ctx.results.runs), ctx.confounded),
        structures_section(ctx.structures, multi, ctx.shown_run),
        f"<section id='tasks'><h2>Tasks{_e(shown)}</h2>", _controls(ctx.views, ctx.factors),
        _legend(),
        "<div id='task-list'>", "".join(_task(v, multi) for v in ctx.views), "</div></section>",
        packed_block("page-data", {
            "s": [v.sketches.to_json() for v in ctx.views],
            "a": [[answer_text(a) for a in (v.evidence.attempts if v.evidence else ())]
                  for v in ctx.views]}),
        f"</main><script>{JS}{SKETCH_JS}</script></body></html>\n"])
