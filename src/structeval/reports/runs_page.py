"""One page comparing several runs or models: ``tools/report.py RUN RUN [RUN ...]``.

Per run: its headline with intervals; by category and difficulty, each run a
series with 95 % whiskers; a forest plot of every run's paired difference
from the first run (``compare.compare_runs``: the same tasks, the paired task
bootstrap), overall and by category; and each run's presentation deltas with
confounded factors named. The runs' task sets may differ: a comparison then
uses the tasks both runs share and says how many were left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from ..statistics.factors import factor_summary
from ..statistics.runs import per_task
from .accuracy import GroupAccuracy, group_accuracy, grouped
from .charts import forest_plot, grouped_bars
from .compare import compare_runs
from .confounding import confounded_deltas
from .page_assets import CSP, CSS
from .presentations import forest_rows
from .runfiles import RunResults, load_results

RUN_COLOURS = ("#1f4e89", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7f7f7f",
               "#f0e442")


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def run_labels(runs: Sequence[RunResults]) -> list[str]:
    """The model name, with the run directory when two runs share a model."""
    models = [r.label for r in runs]
    return [f"{r.label} ({r.directory.name})" if models.count(r.label) > 1 else r.label
            for r in runs]


def _ci(g: GroupAccuracy, key: str) -> str:
    iv = getattr(g, key)
    return f"{iv.estimate:.1f}% <small>[{iv.low:.1f}, {iv.high:.1f}]</small>"


def _headline(runs: Sequence[RunResults], labels: Sequence[str]) -> str:
    rows = []
    for run, label in zip(runs, labels, strict=True):
        g = group_accuracy(label, per_task(run.rows))
        unavailable = sum(r.status != "scored" for r in run.rows)
        rows.append(f"<tr><td>{_e(label)}</td><td>{len(run.task_ids)}</td>"
                    f"<td>{len(run.runs)}</td><td>{unavailable}</td>"
                    f"<td>{_ci(g, 'pass_at_1')}</td><td>{_ci(g, 'after_repair')}</td>"
                    f"<td class='v'>{_e(run.info.shown or 'image')}</td></tr>")
    return ("<table id='runs'><tr><th>Run</th><th>Tasks</th><th>Runs (K)</th>"
            "<th>Unavailable</th><th>pass@1 [95% CI]</th><th>After repair [95% CI]</th>"
            f"<th>Shown as</th></tr>{''.join(rows)}</table>")


def _series_bars(title: str, per_run: Sequence[list[GroupAccuracy]], labels: Sequence[str],
                 key: str) -> str:
    names = list(dict.fromkeys(g.name for groups in per_run for g in groups))
    table = [{g.name: g for g in groups} for groups in per_run]
    clusters = []
    for name in names:
        ivs = [getattr(t[name], key) if name in t else None for t in table]
        clusters.append((name, [iv.estimate if iv else None for iv in ivs],
                         [(iv.low, iv.high) if iv else (0.0, 0.0) for iv in ivs]))
    return grouped_bars(title, clusters, labels, RUN_COLOURS)


def _differences(runs: Sequence[RunResults], labels: Sequence[str]) -> tuple[str, list[str]]:
    """Forest plot of run k − run 0 (overall and by category), and notes on dropped tasks."""
    rows: list[tuple[str, float, float, float, bool]] = []
    notes = []
    for run, label in zip(runs[1:], labels[1:], strict=True):
        c = compare_runs(run, runs[0], intersection=True)
        if c.only_a or c.only_b:
            notes.append(f"{label} − {labels[0]}: on the {c.overall.tasks} shared tasks "
                         f"({len(c.only_a)} only in {label}, {len(c.only_b)} only in "
                         f"{labels[0]} left out)")
        for g in [c.overall, *c.by_category]:
            d = g.difference
            rows.append((f"{label} − {labels[0]} · {g.name}", d.estimate, d.low, d.high, False))
    return forest_plot("Paired difference from the first run, after repair (points)", rows), notes


def _deltas(runs: Sequence[RunResults], labels: Sequence[str]) -> str:
    rows: list[tuple[str, float, float, float, bool]] = []
    any_confounded = False
    for run, label in zip(runs, labels, strict=True):
        deltas = factor_summary(run.rows, run.info.modality).get("presentation_deltas") or {}
        confounded = confounded_deltas(per_task(run.rows), deltas, run.info.modality)
        any_confounded |= bool(confounded)
        rows += [(f"{label} · {name}", *rest)
                 for name, *rest in forest_rows(deltas, confounded, "pass_at_1")]
    if not rows:
        return ""
    note = "† confounded: the same task pairs as another factor's delta" if any_confounded \
        else ""
    return forest_plot("Presentation deltas per run, pass@1 (points)", rows, note)


def build_runs_page(paths: Sequence[str | Path]) -> str:
    """The comparison page of two or more run directories (or results.json files)."""
    runs = [load_results(p) for p in paths]
    labels = run_labels(runs)
    tasks = [per_task(r.rows) for r in runs]
    by_cat = [[group_accuracy("all", t), *grouped(t, lambda x: x.category)] for t in tasks]
    by_dif = [grouped(t, lambda x: x.difficulty, lambda d: f"d{d}") for t in tasks]
    forest, notes = _differences(runs, labels)
    charts = [_series_bars(f"Weighted accuracy by category, {name}", by_cat, labels, key)
              for key, name in (("pass_at_1", "pass@1"), ("after_repair", "after repair"))]
    charts.append(_series_bars("Weighted accuracy by difficulty, after repair", by_dif, labels,
                               "after_repair"))
    title = "StructuralEval: " + " vs ".join(labels)
    return "".join([
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        f"<header><h1>{_e(title)}</h1><p class='meta'>{len(runs)} runs: "
        f"{_e(', '.join(str(r.directory) for r in runs))}</p></header><main>",
        "<section id='headline'><h2>Runs</h2><div class='tables'>", _headline(runs, labels),
        "</div></section><section id='by-group'><h2>By category and difficulty</h2>",
        "<div class='charts'>", "".join(charts), "</div></section>",
        "<section id='differences'><h2>Paired differences</h2><div class='charts'>", forest,
        "</div>", "".join(f"<p class='meta'>{_e(n)}</p>" for n in notes), "</section>",
        "<section id='deltas'><h2>Presentation deltas</h2><div class='charts'>",
        _deltas(runs, labels), "</div></section>",
        "<p class='meta'>Whiskers: 95% task-bootstrap intervals; differences: the paired "
        "bootstrap over the tasks both runs have.</p></main></body></html>\n"])
