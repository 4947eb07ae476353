#!/usr/bin/env python3
"""The pixel-level visibility proof over a data folder: OCR of every text, size and contrast of
every glyph OCR cannot read, in the image as a model receives it.

    python tools/check_visibility.py                         # every task of data/, 1568 px
    python tools/check_visibility.py --profile 1024          # the second delivery profile
    python tools/check_visibility.py --data-dir DIR --filter 'beam-*' --json report.json
    python tools/check_visibility.py --every 10              # every tenth task (a quick look)
    python tools/check_visibility.py --style sketch          # the tasks of one style
    python tools/check_visibility.py --record data/visibility_proof.json   # store the pass

``--record`` writes (or updates: tasks not checked keep their entries) the proof record
the tests hold every shipped task to (structeval.dataset.visibility_record): per task the
sha256 of the image read, its texts read and missed, its glyphs below a minimum.

Prints, per style, the share of texts Tesseract read exactly, then every text of the
styles held to exact OCR that did not read as drawn (task, text, what was read), every
glyph below its size or contrast minimum, every text (of any style; for the sketch
style's hand lettering, which OCR does not read reliably, this is what it is held to)
below its size, stroke width or contrast minimum, and the time taken. Exit status: 0
when every one of those reads or passes, 1 when some do not, 2 when the data cannot be
read or Tesseract is missing (the message names the package).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from structeval.dataset import DATA_DIR
from structeval.dataset.visibility import check_tasks, raw_paths, style_of
from structeval.dataset.visibility_record import load_record, merged, write_record
from structeval.model import StructEvalError
from structeval.render.legibility import DELIVERY_LONG_SIDE
from structeval.render.legibility.visibility import (
    OCR_STYLES,
    OcrUnavailable,
    engine_version,
    ocr_available,
)
from structeval.render.scene.styles import STYLES
from structeval.safe_text import echo


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=DATA_DIR,
              show_default=True, help="Data folder (raw_models/ and images/ inside).")
@click.option("--profile", type=click.IntRange(64, 20000), default=DELIVERY_LONG_SIDE,
              show_default=True, help="Long side in px the image is shrunk to, as an API does.")
@click.option("--filter", "pattern", default="*", show_default=True,
              help="Only task ids matching this glob.")
@click.option("--every", type=click.IntRange(1), default=1, show_default=True,
              help="Check every N-th task only (in id order).")
@click.option("--style", "styles", multiple=True, type=click.Choice(sorted(STYLES)),
              help="Only the tasks drawn in this style (repeatable).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write every reading to this file.")
@click.option("--record", "record_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the proof record here (the tests read data/visibility_proof.json); "
                   "an existing record keeps the entries of the tasks not checked.")
def main(data_dir: Path, profile: int, pattern: str, every: int, styles: tuple[str, ...],
         json_out: Path | None, record_out: Path | None) -> None:
    """OCR and glyph-contrast proof of the drawings of a data folder."""
    missing = ocr_available()
    if missing:
        echo(f"error: OCR is not available: install {missing}", err=True)
        sys.exit(2)
    paths = raw_paths(data_dir, pattern)
    try:
        paths = [p for p in paths if not styles or style_of(p) in styles][::every]
    except (StructEvalError, OSError) as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(2)
    if not paths:
        echo(f"error: no raw problems matching {pattern!r}"
             + (f" in style {', '.join(styles)}" if styles else "") + f" in {data_dir}",
             err=True)
        sys.exit(2)
    started = time.monotonic()
    try:
        old = load_record(record_out) if record_out is not None and record_out.exists() else None
        report = check_tasks(paths, data_dir, profile)
        if record_out is not None:
            shipped = [p.stem for p in raw_paths(data_dir)]
            write_record(record_out, merged(old, report, engine_version(), keep=shipped))
    except (StructEvalError, OSError, OcrUnavailable) as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(2)
    elapsed = time.monotonic() - started
    for style, (ok, total) in report.shares().items():
        need = "must read exactly" if style in OCR_STYLES else "measured only"
        echo(f"{style:10s} {ok:6d} of {total:6d} texts read exactly "
                   f"({100 * ok / total:5.1f} %; {need})")
    second = sum(t.ok and t.setting > 0 for t in report.texts)
    echo(f"{second} of them read by a second reader setting (SECOND_READINGS), the rest "
         f"by the first")
    misses = report.text_misses()
    for t in misses:
        echo(f"{t.task}: text {t.text!r} ({t.role}, {t.height_px:.1f} px high) read as "
                   f"{t.read!r}")
    problems = report.glyph_problems()
    for g, found in problems:
        echo(f"{g.task}: {g.gtype} {g.owner}: {'; '.join(found)}")
    faint = report.ink_problems()
    for t, found in faint:
        echo(f"{t.task}: text {t.text!r} ({t.style}): {'; '.join(found)}")
    echo(f"{report.tasks} task(s), {len(report.texts)} texts, {len(report.glyphs)} glyphs "
               f"at {profile} px (sheets at their native size) in {elapsed:.1f} s: "
               f"{len(misses)} text(s) not read, "
               f"{len(problems)} glyph(s) below the minimums, "
               f"{len(faint)} text(s) below the size, stroke or contrast minimums")
    if json_out is not None:
        document = {"profile": profile, "tasks": report.tasks, "seconds": round(elapsed, 1),
                    "texts": [{**vars(t), "ok": t.ok} for t in report.texts],
                    "glyphs": [{**vars(g), "problems": g.problems} for g in report.glyphs],
                    "inks": [{**vars(t), "problems": t.problems} for t in report.inks]}
        json_out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    if record_out is not None:
        echo(f"proof record written to {record_out}")
    sys.exit(1 if misses or problems or faint else 0)


if __name__ == "__main__":
    main()
