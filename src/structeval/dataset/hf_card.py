"""The dataset card (README.md) of a Hugging Face export: YAML front matter and text.

The front matter is what the Hub reads: licence, languages, one ``data_files``
entry per split (so ``load_dataset("owner/name")`` finds the parquet files), the
features and split sizes; the text says what each column holds and how to cite.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .hf_format import DATA_FOLDER, LICENSE, features

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
`--data-dir hf://owner/name@revision`) runs the whole benchmark on this export.

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


def dataset_card(rows: Mapping[str, int], languages: Iterable[str] = ("en",)) -> str:
    """README.md of the export: YAML front matter (licence, the drawings' languages, one
    data_files entry per split, the features, split sizes) and the description, citation
    included."""
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
    for split, count in rows.items():
        lines += [f"  - name: {split}", f"    num_examples: {count}"]
    lines += ["---", ""]
    return "\n".join(lines) + _CARD_BODY.format(first=next(iter(rows)))


def _size_category(n: int) -> str:
    return "n<1K" if n < 1000 else "1K<n<10K" if n < 10000 else "10K<n<100K"
