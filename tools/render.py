"""Draw a FrameCalc model as a textbook figure (or its bending-moment diagram).

    python tools/render.py MODEL.json -o out.png [--style cad|textbook|scanned|sketch|exam-page]
        [--seed N] [--scale PX_PER_M] [--min-long-side PX] [--moment] [--layout layout.json]
        [--language en|zh [--category beam|frame|truss]]

``--language`` draws the figure as a task shows it: with the notes block under it
(and, for ``--style exam-page``, the page's statement) in that language; without it
the figure is bare and in English. Chinese texts need the Debian package
fonts-noto-cjk, the sketch style fonts-comic-neue (and fonts-arphic-ukai for Chinese).

Exit status: 0 on success, 2 when the model (or an option) cannot be drawn, with the
reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from structeval.model import StructEvalError, parse_model
from structeval.presentation import FACTORS, Presentation
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
    ap.add_argument("--language", choices=FACTORS["language"], default=None,
                    help="draw the task's figure in this language (notes under it; the "
                         "statement of an exam page)")
    ap.add_argument("--category", choices=("beam", "frame", "truss"), default=None,
                    help="what the exam page's statement calls the structure")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    try:
        text = args.model.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.model}: {exc}", file=sys.stderr)
        return 2
    try:
        model = parse_model(text)
        if args.moment:
            from structeval.fe import analyze

            result = moment_diagram_result(model, analyze(model)[0], style=args.style,
                                           seed=args.seed, scale=args.scale)
        else:
            shown = (Presentation(language=args.language, style=args.style)
                     if args.language else None)
            result = render_model(model, style=args.style, seed=args.seed, scale=args.scale,
                                  min_long_side=args.min_long_side or None,
                                  presentation=shown, category=args.category)
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
