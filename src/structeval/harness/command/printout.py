"""The summary a user reads at the end of a run, as plain text.

Built only from the ``summary`` of results.json, so what is printed and what is
stored cannot disagree.
"""

from __future__ import annotations

from typing import Any

_STAGE_LABELS = {"no_json": "no JSON", "invalid": "invalid", "geometry": "geometry",
                 "supports": "supports", "releases": "releases", "loads": "loads",
                 "perfect": "perfect"}


def _table(title: str, groups: dict[str, dict[str, Any]], overall: dict[str, Any] | None,
           ) -> list[str]:
    head = f"{title:<14}{'Tasks':>7}{'Score':>10}{'Max score':>11}{'Accuracy':>10}{'pass@1':>9}"
    lines = [head, "-" * len(head)]
    rows = list(groups.items()) + ([("OVERALL", overall)] if overall else [])
    for name, row in rows:
        lines.append(f"{name:<14}{row['tasks']:>7}{row['score']:>10.2f}{row['max_score']:>11}"
                     f"{row['accuracy']:>9.2f}%{row['pass_at_1_accuracy']:>8.2f}%")
    return lines


def format_summary(summary: dict[str, Any], *, model: str, prompt_type: str,
                   output: str) -> str:
    n, scored, unavailable = summary["tasks"], summary["scored"], summary["unavailable"]
    overall = {"tasks": n, "score": sum(r["score"] for r in summary["by_category"].values()),
               "max_score": sum(r["max_score"] for r in summary["by_category"].values()),
               "accuracy": summary["weighted_accuracy"],
               "pass_at_1_accuracy": summary["pass_at_1_weighted_accuracy"]}
    shown = ", ".join(x for x in (summary.get("modality"), summary.get("lang")) if x)
    lines = [f"StructuralEval: {model}, prompt {prompt_type}" + (f" ({shown})" if shown else "")
             + f": {n} task(s), {scored} scored, {unavailable} unavailable",
             f"Headline: pass@1 weighted accuracy {summary['pass_at_1_weighted_accuracy']:.2f}%"
             f"   (after repair {summary['weighted_accuracy']:.2f}%)", ""]
    lines += _table("Category", summary["by_category"], overall)
    lines += ["", f"Weighted accuracy: {summary['weighted_accuracy']:.2f}%   "
                  f"Average ratio: {summary['avg_ratio']:.2f}%", ""]
    lines += _table("Difficulty", summary["by_difficulty"], None)
    flags = summary.get("answer_flags") or {}
    first_flags, final_flags = flags.get("pass_at_1") or {}, flags.get("after_repair") or {}
    lines += ["", f"{'Stage (scored tasks)':<22}{'pass@1':>14}{'after repair':>16}"
                  f"{'cut off':>10}{'empty':>8}"]
    for stage, label in _STAGE_LABELS.items():
        first, final = summary["pass_at_1_stages"][stage], summary["stages"][stage]
        lines.append(f"{label:<22}{first:>7} {_share(first, scored):>6}"
                     f"{final:>9} {_share(final, scored):>6}"
                     f"{_pair(first_flags, final_flags, 'length', stage):>10}"
                     f"{_pair(first_flags, final_flags, 'empty', stage):>8}")
    lines.append("cut off: finish_reason=length; empty: no answer outside reasoning "
                 "(pass@1 / after repair)")
    factors = format_factors(summary)
    if factors:
        lines += ["", factors]
    gain = summary["weighted_accuracy"] - summary["pass_at_1_weighted_accuracy"]
    tokens = summary["tokens"]
    lines += ["",
              f"pass@1: {summary['pass_at_1_weighted_accuracy']:.2f}% weighted, "
              f"{summary['pass_at_1_avg_ratio']:.2f}% average ratio; after repair: "
              f"{summary['weighted_accuracy']:.2f}% weighted ({gain:+.2f} points), "
              f"{summary['avg_ratio']:.2f}% average ratio",
              f"Tokens: {tokens['total']} ({tokens['prompt']} prompt, "
              f"{tokens['completion']} completion"
              + (f", of which {tokens['reasoning']} reasoning" if tokens.get("reasoning")
                 else "") + ")" + (
                  f"; usage unknown for {tokens['unknown']} attempt(s), not counted"
                  if tokens.get("unknown") else "")]
    lines += _run_lines(summary)
    lines += [f"Wall time: {summary['wall_s']:.1f} s",
              f"Results: {output}/results.json   Evidence: {output}/trace.jsonl"]
    cut = sum((first_flags.get("length") or {}).values())
    if cut:
        lines.append(f"NOTE: {cut} first answer(s) were cut off by the token limit "
                     "(finish_reason=length); reasoning models may need a larger --max-tokens")
    stopped = summary.get("stopped_by_max_cost") or 0
    if stopped:
        lines.append(f"WARNING: {stopped} task(s) not run: --max-cost was reached; they count 0 "
                     f"above. Continue with: --resume --output {output} (and a higher "
                     "--max-cost)")
    if unavailable - stopped > 0:
        lines.append(f"WARNING: {unavailable - stopped} task(s) unavailable (the API kept "
                     f"failing); they count 0 above. Finish them with: --resume --output "
                     f"{output}")
    return "\n".join(lines)


def _pair(first: dict[str, Any], final: dict[str, Any], flag: str, stage: str) -> str:
    a, b = (first.get(flag) or {}).get(stage, 0), (final.get(flag) or {}).get(stage, 0)
    return f"{a}/{b}" if a or b else "-"


def _run_lines(summary: dict[str, Any]) -> list[str]:
    """Cost, cache, negotiated parameters, the API's own model names, skipped tasks."""
    lines = []
    cost = summary.get("cost") or {}
    if cost.get("prices"):
        paid = cost.get("paid_this_session_usd") or 0.0
        scored = summary.get("scored") or 0
        per_task = (f"${cost['usd'] / scored:.4f} per scored task" if scored and cost.get("usd")
                    is not None else "no task scored")
        lines.append(f"Cost: ${cost.get('usd') or 0:.4f} for the answers ({per_task}), "
                     f"${paid:.4f} paid in this session"
                     + (f"; usage unknown for {cost['unknown']} attempt(s)"
                        if cost.get("unknown") else "")
                     + (f" (estimated ${cost['estimated_this_session_usd']:.4f} from the text "
                        "sent and received, counted against --max-cost)"
                        if cost.get("estimated_this_session_usd") else "")
                     + (f"; --max-cost ${cost['max_cost']:g}" if cost.get("max_cost") else ""))
    cache = summary.get("cache")
    if cache:
        lines.append(f"Response cache: {cache['hits']} answer(s) reused, {cache['stored']} "
                     f"stored ({cache['dir']})")
    for parameter, what in (summary.get("negotiated") or {}).items():
        lines.append(f"Negotiated: {parameter} {what}")
    api = summary.get("api") or {}
    if api.get("models"):
        lines.append("Answered by: " + ", ".join(api["models"])
                     + (f" (system fingerprints: {', '.join(api['system_fingerprints'])})"
                        if api.get("system_fingerprints") else ""))
    skipped = (summary.get("skipped") or {}).get("no_dxf") or 0
    if skipped:
        lines.append(f"Skipped: {skipped} selected task(s) without a DXF file (--modality dxf)")
    return lines


def _ci(interval: dict[str, Any]) -> str:
    return (f"{interval['estimate']:+.2f} [{interval['low']:+.2f}, "
            f"{interval['high']:+.2f}]")


def format_factors(summary: dict[str, Any]) -> str:
    """The factor table: accuracy per value of every factor the run varies, the paired
    deltas over structures and the robustness (empty when no factor varies)."""
    by_factor = summary.get("by_factor") or {}
    if not any(len(values) >= 2 for values in by_factor.values()):
        return ""  # e.g. only the modality of a run that varies nothing else
    head = f"{'Factor':<14}{'Value':<12}{'Tasks':>6}{'Accuracy':>10}{'pass@1':>9}"
    lines = [head, "-" * len(head)]
    for factor, values in by_factor.items():
        for k, (value, row) in enumerate(values.items()):
            lines.append(f"{factor if k == 0 else '':<14}{value:<12}{row['tasks']:>6}"
                         f"{row['accuracy']:>9.2f}%{row['pass_at_1_accuracy']:>8.2f}%")
    deltas = summary.get("presentation_deltas") or {}
    if deltas:
        head = (f"{'Delta':<28}{'Structures':>11}{'Controlled':>11}{'pass@1 [95% CI]':>27}"
                f"{'after repair [95% CI]':>27}")
        lines += ["", "Presentation deltas in points (per structure, difficulty-weighted; "
                      "paired bootstrap over structures)", head, "-" * len(head)]
        for factor, entries in deltas.items():
            for e in entries:
                lines.append(f"{factor + ': ' + e['label']:<28}{e['structures']:>11}"
                             f"{e['controlled_pairs']:>11}{_ci(e['pass_at_1']):>27}"
                             f"{_ci(e['after_repair']):>27}")
        lines.append("Controlled: task pairs of one structure that differ in that factor only "
                     "(their deltas are in results.json)")
    robust = summary.get("presentation_robustness") or {}
    first, final = robust.get("pass_at_1") or {}, robust.get("after_repair") or {}
    if first.get("compared"):
        lines += ["", f"Presentation robustness (same stage in every presentation): pass@1 "
                      f"{first['robust']} of {first['compared']} ({100.0 * first['share']:.1f}%), "
                      f"after repair {final['robust']} of {final['compared']} "
                      f"({100.0 * final['share']:.1f}%)"]
    return "\n".join(lines)


def _share(count: int, total: int) -> str:
    return f"{100.0 * count / total:.1f}%" if total else "-"


def format_failures(failures: list[tuple[str, str]]) -> str:
    """``--debug``: every failing task with its reason, one per line."""
    lines = [f"FAILED: {len(failures)} task(s)"]
    lines += [f"  {task_id}: {reason}" for task_id, reason in failures]
    return "\n".join(lines)
