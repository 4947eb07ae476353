"""The dataset card (README.md) of a Hugging Face export: YAML front matter and text.

The front matter is what the Hub reads: licence, languages, one ``data_files``
entry per split (so ``load_dataset("owner/name")`` finds the parquet files), the
features and split sizes — ``num_examples`` and ``num_bytes`` (the split's Arrow
size, the number ``datasets`` computes itself; without it ``datasets`` ignores the
``splits`` field with a warning), ``dataset_size`` and ``download_size`` (the
parquet files). The text says what each column holds, which tasks an evaluation
runs by default (the benchmark selection), what the benchmark does not measure,
and how to cite.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .benchmark import PER_CELL, SHIPPED_SPLITS
from .hf_format import DATA_FOLDER, LICENSE, features


@dataclass(frozen=True)
class SplitSize:
    """One split of an export: rows, Arrow bytes (``num_bytes``), parquet file bytes."""

    rows: int
    num_bytes: int
    file_bytes: int

_CARD_BODY = """\
# StructuralEval

A benchmark of vision-language models on structural-mechanics drawings. Each row is
one *task*: a drawing of a beam, frame or truss (`image`) that a model must write
down as FrameCalc JSON (points, links, supports, loads). Answers are graded by
physics, not by text: a finite-element solver computes the support reactions and
bending moments of the answer and of the ground truth, and a staged diagnosis
(geometry, supports, hinges, loads) gives partial credit 0 / 0.25 / 0.5 / 0.75 / 1,
weighted by difficulty 1-5.

## Columns

- `id`: task id (unique).
- `structure`: id of the structure shown; tasks of one structure share its ground truth.
- `image`: the drawing (PNG, or JPEG for the scanned style).
- `model`: the ground-truth FrameCalc model as JSON text, with a `problem` block
  (category, split, notes, image style and seed, provenance) that FrameCalc readers
  ignore.
- `ground_truth`: JSON text: reactions, max |M| and where, the moment at 11 stations
  per link, provenance, and the sha256 of `model`.
- `category`: `beam`, `frame` or `truss`; `difficulty`: 1-5; `split`.
- `dimensioning`, `values`, `units`, `language`, `symbols`, `style`: the presentation
  factors of the drawing.
- `notes`: the note shown to the model with the drawing (may be empty).
- `license`: `cc-by-4.0`.
- `dxf`: the drawing as DXF text for tasks that have one, else null.

Units: m, kN, kN/m, kN·m; x right, y up; angles in degrees counter-clockwise from +x.

## Use

```python
from datasets import load_dataset

ds = load_dataset("parquet", data_files={{"{first}": "data/{first}-*.parquet"}})
row = ds["{first}"][0]
row["image"]           # PIL image
row["model"]           # FrameCalc JSON of the ground truth
```

Grading needs the StructuralEval package: `structeval.score(row["model"], answer)`
returns the staged verdict, and `python run_eval.py --data-dir <this folder>` (or
`--data-dir hf://owner/name@revision`) runs the benchmark on this export.

## Benchmark selection

An evaluation runs the *benchmark selection* unless told otherwise (`--split
benchmark`, the default of `run_eval.py`): from the tasks of the splits
{shipped}, in every category × difficulty cell (3 × 5) the first {per_cell} in the
order of sha256("benchmark|" + id), at most one task per structure, so no category
or level dominates the headline. It is computed from the tasks present, so an export
of part of the dataset has its own selection: on this export it holds {selected}
task(s){selection_note}. `--split all` runs every task; `--split <name>` one split.

## Limitations

- The drawings are rendered by the project's own renderer (clean CAD, textbook,
  simulated scan, pencil sketch, exam page), not photographs or scans of real
  drawings; a model's score on them is not a measurement on field documents.
- The mechanics are plane, linear-elastic and static: beams, frames and trusses of
  straight members with point loads, couples and distributed loads. No dynamics,
  buckling, plasticity, temperature, support settlement or 3-D structures.
- Grading compares support reactions and bending moments of the answer with the
  ground truth (relative tolerance 2 % by default), stage by stage; an answer that is
  statically equivalent but drawn differently can earn full credit, and the partial
  credits (0 / 0.25 / 0.5 / 0.75 / 1) are a convention of the benchmark, not a
  measure of engineering severity.
- Drawing text is English or Chinese only; DXF drawings exist for some tasks only
  (the `dxf` column), so a DXF evaluation covers fewer tasks.
- Ground truth comes from the project's finite-element solver (checked against
  closed-form textbook solutions in its tests); the problems are generated or
  hand-authored, so their distribution is the generator's, not that of real practice.

## Licence

CC BY 4.0. The problems were generated or hand-authored by the StructuralEval
project; none of the original StructuralEval benchmark's problems are included.

## Citation

```bibtex
@misc{{structuraleval,
  title  = {{StructuralEval: grading vision-language models on structural drawings with a
            finite-element solver}},
  author = {{{{StructuralEval contributors}}}},
  year   = {{2026}},
  note   = {{Dataset, CC BY 4.0}}
}}
```
"""


def dataset_card(sizes: Mapping[str, SplitSize], languages: Iterable[str] = ("en",),
                 benchmark_tasks: int = 0) -> str:
    """README.md of the export: YAML front matter (licence, the drawings' languages, one
    data_files entry per split, the features, split sizes in rows and bytes) and the
    description (benchmark selection of ``benchmark_tasks`` tasks, limitations, citation)."""
    rows = {split: size.rows for split, size in sizes.items()}
    lines = ["---", f"license: {LICENSE}", "language:", *(f"- {x}" for x in sorted(languages)),
             "pretty_name: StructuralEval",
             "task_categories:", "- image-to-text", "- visual-question-answering",
             "tags:", "- structural-engineering", "- finite-element", "- benchmark",
             "- vision-language", "size_categories:", f"- {_size_category(sum(rows.values()))}",
             "configs:", "- config_name: default", "  data_files:"]
    for split in rows:
        lines += [f"  - split: {split}", f"    path: {DATA_FOLDER}/{split}-*.parquet"]
    lines += ["dataset_info:", "  features:"]
    for name, feature in features().items():
        dtype = "image" if feature["_type"] == "Image" else feature["dtype"]
        lines += [f"  - name: {name}", f"    dtype: {dtype}"]
    lines += ["  splits:"]
    for split, size in sizes.items():
        lines += [f"  - name: {split}", f"    num_bytes: {size.num_bytes}",
                  f"    num_examples: {size.rows}"]
    lines += [f"  download_size: {sum(s.file_bytes for s in sizes.values())}",
              f"  dataset_size: {sum(s.num_bytes for s in sizes.values())}", "---", ""]
    note = ("" if benchmark_tasks else
            " (none of its tasks is in one of those splits, so an evaluation's default "
            "there is every task)")
    return "\n".join(lines) + _CARD_BODY.format(
        first=next(iter(rows)), shipped=", ".join(f"`{x}`" for x in SHIPPED_SPLITS),
        per_cell=PER_CELL, selected=benchmark_tasks, selection_note=note)


def _size_category(n: int) -> str:
    return "n<1K" if n < 1000 else "1K<n<10K" if n < 10000 else "10K<n<100K"
