#!/usr/bin/env python3
"""Time a full staged diagnosis of a wrong answer on a 30-member frame (issue 3 target: < 5 ms).

A load fault is the worst case: every stage must pass before the loads stage can
fail, so all four experiments (and the equivalence check) run. Prints the median
time per diagnosis for faults at each stage, and for a perfect answer.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from structeval.model import parse_model
from structeval.scoring import score

SECTION = {"E": 2.1e8, "A": 0.01, "Iz": 1e-4}


def frame(bays: int = 4, storeys: int = 3) -> dict[str, Any]:
    """A braced multi-bay, multi-storey frame with 4·3 → 30 members."""
    points, links, loads = [], [], []
    for j in range(storeys + 1):
        for i in range(bays + 1):
            points.append({"id": f"P{i}_{j}", "x": 5.0 * i, "y": 3.5 * j})
    for j in range(storeys):
        for i in range(bays + 1):
            links.append({"id": f"C{i}_{j}", "a": f"P{i}_{j}", "b": f"P{i}_{j + 1}", **SECTION})
    for j in range(1, storeys + 1):
        for i in range(bays):
            links.append({"id": f"B{i}_{j}", "a": f"P{i}_{j}", "b": f"P{i + 1}_{j}", **SECTION})
            loads.append({"id": f"Q{i}_{j}", "kind": "distributedLoad",
                          "at": {"type": "link", "id": f"B{i}_{j}"}, "wStart": 10 + i,
                          "wEnd": 10 + i, "angleDeg": 270, "angleMode": "world", "flip": 1})
    for j in range(storeys):
        links.append({"id": f"D{j}", "a": f"P0_{j}", "b": f"P1_{j + 1}", **SECTION,
                      "endA": "hinge", "endB": "hinge"})
        loads.append({"id": f"H{j}", "kind": "pointLoad", "at": {"type": "point",
                      "id": f"P0_{j + 1}"}, "value": 15, "angleDeg": 0, "angleMode": "world"})
    supports = [{"id": f"S{i}", "at": {"type": "point", "id": f"P{i}_0"},
                 "kind": "fixed" if i % 2 == 0 else "pin", "angleDeg": 0}
                for i in range(bays + 1)]
    return {"points": points, "links": links, "supports": supports, "loads": loads}


def variants(gt: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {"perfect": json.loads(json.dumps(gt))}
    loads = json.loads(json.dumps(gt))
    loads["loads"][0]["wStart"] = loads["loads"][0]["wEnd"] = 16
    out["loads fault"] = loads
    hinge = json.loads(json.dumps(gt))
    hinge["links"][20]["endB"] = "hinge"
    out["releases fault"] = hinge
    sup = json.loads(json.dumps(gt))
    sup["supports"][0]["kind"] = "pin"
    out["supports fault"] = sup
    geo = json.loads(json.dumps(gt))
    geo["points"][7]["y"] += 1.0
    out["geometry fault"] = geo
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    raw = frame()
    gt = parse_model(raw)
    print(f"ground truth: {len(gt.links)} members, {len(gt.points)} points, "
          f"{len(gt.loads)} loads")
    score(gt, raw)  # warm-up: compile the kernel, fill caches
    for name, cand in variants(raw).items():
        model = parse_model(cand)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            verdict = score(gt, model)
            times.append(time.perf_counter() - t0)
        print(f"{name:>15}: stage {verdict.stage:<9} ratio {verdict.ratio:<4}  "
              f"median {1e3 * statistics.median(times):6.2f} ms  "
              f"(p90 {1e3 * sorted(times)[int(0.9 * len(times))]:6.2f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
