"""Draw a FrameCalc model as a textbook figure (or its bending-moment diagram).

    python tools/render.py MODEL.json -o out.png [--style cad|textbook|scanned] [--seed N]
        [--scale PX_PER_M] [--min-long-side PX] [--moment] [--layout layout.json]
        [--presentation KEY=VALUE ...]
    python tools/render.py MODEL.json -o out.dxf [--style S] [--presentation symbols=b]

An output named ``*.dxf`` is the same figure as a DXF drawing (needs ezdxf; see
``structeval.render.dxf``). A raw problem file's ``problem.presentation`` is used unless
``--presentation`` overrides a factor.

Exit status: 0 on success, 2 when the model (or an option) cannot be drawn, with the
reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from structeval.dataset.rawfile import PROBLEM_KEY
from structeval.model import StructEvalError, parse_model
from structeval.presentation import Presentation, PresentationError, parse_selectors
from structeval.render import MIN_LONG_SIDE, STYLES, moment_diagram_result, render_model


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", type=Path, help="FrameCalc model JSON")
    ap.add_argument("-o", "--output", type=Path, required=True, help=".png, .jpg or .jpeg")
    ap.add_argument("--style", choices=sorted(STYLES), default="cad")
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
                    help="a presentation factor (repeatable), e.g. symbols=b")
    return ap.parse_args(argv)


def _presentation(text: str, items: list[str]) -> Presentation:
    """The file's own ``problem.presentation`` (if it is a raw problem), with the factors
    given on the command line."""
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    block = doc.get(PROBLEM_KEY) if isinstance(doc, dict) else None
    base = block.get("presentation") if isinstance(block, dict) else None
    shown = Presentation.from_json(base if isinstance(base, dict) else None)
    changes = {}
    for key, values in parse_selectors(items).items():
        if len(values) != 1:
            raise PresentationError(f"--presentation {key} takes one value")
        changes[key] = next(iter(values))
    return shown.with_(**changes)


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    try:
        text = args.model.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.model}: {exc}", file=sys.stderr)
        return 2
    try:
        shown = _presentation(text, args.presentation)
    except PresentationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        model = parse_model(text)
        if args.output.suffix.lower() == ".dxf":
            from structeval.render.dxf import render_dxf

            if args.moment or args.layout is not None:
                print("error: --moment and --layout draw images; use a .png output",
                      file=sys.stderr)
                return 2
            drawing = render_dxf(model, style=args.style, scale=args.scale, presentation=shown)
            drawing.save(args.output)
            print(f"{args.output} (DXF, {len(drawing.data) // 1024} KB, units: "
                  f"{drawing.units.name})")
            return 0
        if args.moment:
            from structeval.fe import analyze

            result = moment_diagram_result(model, analyze(model)[0], style=args.style,
                                           seed=args.seed, scale=args.scale)
        else:
            result = render_model(model, style=args.style, seed=args.seed, scale=args.scale,
                                  min_long_side=args.min_long_side or None,
                                  presentation=shown)
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
