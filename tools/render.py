"""Draw a FrameCalc model as a textbook figure (or its bending-moment diagram), as an image
or as a DXF drawing.

    python tools/render.py MODEL.json -o out.png [--style cad|textbook|scanned|sketch|exam-page]
        [--seed N] [--scale PX_PER_M] [--min-long-side PX] [--moment] [--layout layout.json]
        [--presentation KEY=VALUE ...] [--language en|zh] [--category beam|frame|truss]
    python tools/render.py MODEL.json -o out.dxf [--style S] [--presentation symbols=b]

A raw problem file (``data/raw_models/<id>.json``) is drawn as its task shows it: in its
``problem.presentation`` (``--presentation`` changes a factor), with the notes block
under the figure in the task's language (and, for ``--style exam-page``, the page's
statement naming its category). A plain FrameCalc file is drawn bare (no notes block,
English, symbol set a) unless ``--presentation`` or ``--language`` asks for a task's
figure. ``--language X`` is short for ``--presentation language=X``. An output named
``*.dxf`` is the same figure as a DXF drawing (needs ezdxf; see
``structeval.render.cad.dxf``). Chinese texts need the Debian package fonts-noto-cjk, the
sketch style fonts-comic-neue (and fonts-arphic-ukai for Chinese).

Exit status: 0 on success, 2 when the model (or an option) cannot be drawn, with the
reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from structeval.dataset.rawfile import PROBLEM_KEY
from structeval.model import StructEvalError, parse_model
from structeval.presentation import FACTORS, Presentation, PresentationError, parse_selectors
from structeval.render import MIN_LONG_SIDE, STYLES, moment_diagram_result, render_model


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", type=Path, help="FrameCalc model JSON (or a raw problem file)")
    ap.add_argument("-o", "--output", type=Path, required=True, help=".png, .jpg, .jpeg or .dxf")
    ap.add_argument("--style", choices=sorted(STYLES), default=None,
                    help="drawing style (default: the task's, else cad)")
    ap.add_argument("--seed", type=int, default=0, help="jitter/degradation seed")
    ap.add_argument("--scale", type=float, default=None, help="pixels per metre (default: fit)")
    ap.add_argument("--min-long-side", type=int, default=MIN_LONG_SIDE,
                    help=f"enlarge the figure to at least this many px on its long side "
                         f"(default {MIN_LONG_SIDE}; 0: its natural size)")
    ap.add_argument("--moment", action="store_true",
                    help="draw the bending-moment diagram instead (solves the model)")
    ap.add_argument("--layout", type=Path, default=None,
                    help="also write the layout record (boxes of everything drawn) as JSON")
    ap.add_argument("--presentation", action="append", default=[], metavar="KEY=VALUE",
                    help="a presentation factor (repeatable), e.g. symbols=b or language=zh")
    ap.add_argument("--language", choices=FACTORS["language"], default=None,
                    help="short for --presentation language=...")
    ap.add_argument("--category", choices=("beam", "frame", "truss"), default=None,
                    help="what the exam page's statement calls the structure (default: the "
                         "task's)")
    return ap.parse_args(argv)


def _task_view(text: str, args: argparse.Namespace) -> tuple[Presentation | None, str | None]:
    """(presentation, category) to draw: the raw problem's own with the command line's
    changes, or None for a bare figure of a plain model."""
    try:
        doc: Any = json.loads(text)
    except ValueError:
        doc = None
    block = doc.get(PROBLEM_KEY) if isinstance(doc, dict) else None
    block = block if isinstance(block, dict) else None
    items = list(args.presentation) + ([f"language={args.language}"] if args.language else [])
    if args.style:
        items.append(f"style={args.style}")
    changes = {}
    for key, values in parse_selectors(items).items():
        if len(values) != 1:
            raise PresentationError(f"--presentation {key} takes one value")
        changes[key] = next(iter(values))
    if block is None and not (args.presentation or args.language):
        return None, args.category
    image = block.get("image") if block else None
    style = image.get("style") if isinstance(image, dict) else None
    base = Presentation.from_json(block.get("presentation") if block else None, style=style)
    category = args.category or (block.get("category") if block else None)
    return base.with_(**changes), category


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    try:
        text = args.model.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.model}: {exc}", file=sys.stderr)
        return 2
    try:
        shown, category = _task_view(text, args)
    except PresentationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    style = None if shown is not None else (args.style or "cad")
    try:
        model = parse_model(text)
        if args.output.suffix.lower() == ".dxf":
            from structeval.render.cad.dxf import render_dxf

            if args.moment or args.layout is not None:
                print("error: --moment and --layout draw images; use a .png output",
                      file=sys.stderr)
                return 2
            drawing = render_dxf(model, style=style, scale=args.scale, presentation=shown,
                                 seed=args.seed, category=category)
            drawing.save(args.output)
            print(f"{args.output} (DXF, {len(drawing.data) // 1024} KB, units: "
                  f"{drawing.units.name})")
            return 0
        if args.moment:
            from structeval.fe import analyze

            result = moment_diagram_result(model, analyze(model)[0],
                                           style=args.style or "cad", seed=args.seed,
                                           scale=args.scale)
        else:
            result = render_model(model, style=style, seed=args.seed, scale=args.scale,
                                  min_long_side=args.min_long_side or None,
                                  presentation=shown, category=category)
        result.save(args.output)
        if args.layout is not None:
            args.layout.write_text(json.dumps(result.layout_json(), indent=1) + "\n")
    except StructEvalError as exc:
        print(f"error: {args.model}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write: {exc}", file=sys.stderr)
        return 2
    print(f"{args.output} ({result.image.width}×{result.image.height} px, "
          f"{len(result.letters)} points lettered)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
