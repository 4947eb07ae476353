"""The tables of one or more runs for a paper, as CSV or LaTeX: ``tools/export_tables.py``.

Four tables, each with one block of rows per run: ``overall`` (the headline of
results.json's ``summary.statistics``: 10,000 resamples), ``by_category`` and
``by_difficulty`` (the report's group intervals, :mod:`.accuracy`), and
``deltas`` (the presentation deltas with their controlled pairs, and the
factor each is confounded with, :mod:`.confounding`). CSV keeps every number
in its own column, for further analysis; LaTeX puts an estimate and its
interval in one cell (booktabs rules), ready for ``\\input``. Model names and
factor values come from files and are escaped for LaTeX.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..statistics.factors import factor_summary
from ..statistics.runs import per_task, run_statistics
from .accuracy import grouped
from .confounding import confounded_deltas
from .runfiles import RunResults
from .runs_page import run_labels

FORMATS = ("csv", "latex")
HEADS = {"pass_at_1": "pass@1", "after_repair": "after repair", "max_score": "max score",
         "controlled_pairs": "controlled pairs", "confounded_with": "confounded with"}
_INTERVAL = ("estimate", "low", "high")


@dataclass(frozen=True)
class Table:
    name: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    intervals: tuple[str, ...]  # column prefixes that are (estimate, low, high) triples


def _triple(prefix: str) -> tuple[str, ...]:
    return tuple(f"{prefix}_{part}" for part in _INTERVAL)


def _num(value: float) -> float:
    return round(float(value), 2) + 0.0


def overall_table(runs: Sequence[RunResults], labels: Sequence[str]) -> Table:
    rows = []
    for run, label in zip(runs, labels, strict=True):
        st = run_statistics(run.rows)
        first, final = st["pass_at_1_weighted_accuracy"], st["weighted_accuracy"]
        rows.append((label, len(run.task_ids), len(run.runs),
                     sum(r.status != "scored" for r in run.rows),
                     *(_num(first[p]) for p in _INTERVAL), *(_num(final[p]) for p in _INTERVAL)))
    return Table("overall", "Weighted accuracy (%) with 95% task-bootstrap intervals",
                 ("run", "tasks", "runs", "unavailable", *_triple("pass_at_1"),
                  *_triple("after_repair")), tuple(rows), ("pass_at_1", "after_repair"))


def group_table(runs: Sequence[RunResults], labels: Sequence[str], name: str) -> Table:
    key = (lambda t: t.category) if name == "category" else (lambda t: t.difficulty)
    rows = []
    for run, label in zip(runs, labels, strict=True):
        for g in grouped(per_task(run.rows), key):
            rows.append((label, g.name, g.tasks, g.max_score,
                         *(_num(getattr(g.pass_at_1, p)) for p in _INTERVAL),
                         *(_num(getattr(g.after_repair, p)) for p in _INTERVAL)))
    return Table(f"by_{name}", f"Weighted accuracy (%) by {name}, 95% intervals",
                 ("run", name, "tasks", "max_score", *_triple("pass_at_1"),
                  *_triple("after_repair")), tuple(rows), ("pass_at_1", "after_repair"))


def delta_table(runs: Sequence[RunResults], labels: Sequence[str]) -> Table:
    rows = []
    for run, label in zip(runs, labels, strict=True):
        deltas = factor_summary(run.rows, run.info.modality).get("presentation_deltas") or {}
        confounded = confounded_deltas(per_task(run.rows), deltas, run.info.modality)
        for factor, entries in deltas.items():
            for e in entries:
                same = confounded.get((factor, str(e["label"])))
                rows.append((label, factor, e["label"], e["structures"], e["controlled_pairs"],
                             *(_num(e["pass_at_1"][p]) for p in _INTERVAL),
                             *(_num(e["after_repair"][p]) for p in _INTERVAL),
                             f"{same.other} {same.other_label}" if same else ""))
    return Table("deltas", "Presentation deltas (points), paired over structures, 95% "
                 "intervals; confounded_with: another factor's delta over the same task pairs "
                 "(0 controlled pairs), so the two effects cannot be told apart",
                 ("run", "factor", "delta", "structures", "controlled_pairs",
                  *_triple("pass_at_1"), *_triple("after_repair"), "confounded_with"),
                 tuple(rows), ("pass_at_1", "after_repair"))


def build_tables(runs: Sequence[RunResults]) -> list[Table]:
    labels = run_labels(runs)
    return [overall_table(runs, labels), group_table(runs, labels, "category"),
            group_table(runs, labels, "difficulty"), delta_table(runs, labels)]


def to_csv(table: Table) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(table.rows)
    return buf.getvalue()


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}", "\u2212": "$-$"}


def latex_escape(value: Any) -> str:
    return "".join(_LATEX.get(c, c) for c in str(value))


def to_latex(table: Table) -> str:
    """A booktabs ``table`` environment; interval triples as ``est [low, high]``."""
    heads: list[str] = []
    cells: list[list[str]] = [[] for _ in table.rows]
    k = 0
    while k < len(table.columns):
        column = table.columns[k]
        prefix = next((p for p in table.intervals if column == f"{p}_estimate"), None)
        if prefix is not None:
            heads.append(latex_escape(HEADS.get(prefix, prefix)) + " [95\\% CI]")
            for row, out in zip(table.rows, cells, strict=True):
                out.append(f"{row[k]:.1f} [{row[k + 1]:.1f}, {row[k + 2]:.1f}]")
            k += 3
            continue
        heads.append(latex_escape(HEADS.get(column, column)))
        for row, out in zip(table.rows, cells, strict=True):
            out.append(latex_escape(row[k]))
        k += 1
    spec = "l" * 2 + "r" * (len(heads) - 2)
    body = "".join(" & ".join(c) + r" \\" + "\n" for c in cells)
    return (f"% {table.name}: written by tools/export_tables.py\n\\begin{{table}}[t]\n"
            f"\\centering\n\\caption{{{latex_escape(table.caption)}}}\n"
            f"\\label{{tab:{table.name.replace('_', '-')}}}\n"
            f"\\begin{{tabular}}{{{spec}}}\n\\toprule\n{' & '.join(heads)} \\\\\n\\midrule\n"
            f"{body}\\bottomrule\n\\end{{tabular}}\n\\end{{table}}\n")


def render(table: Table, fmt: str) -> str:
    return to_csv(table) if fmt == "csv" else to_latex(table)
