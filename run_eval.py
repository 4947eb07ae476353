#!/usr/bin/env python3
"""Evaluate a vision-language model on StructuralEval: ``python run_eval.py --model gpt-4o``.

Run ``python run_eval.py --help`` for the options; the harness lives in
``structeval.harness``.
"""

import sys
from pathlib import Path

try:
    import structeval  # noqa: F401  (installed by `pip install -r requirements.txt`)
except ModuleNotFoundError:  # run from a checkout whose package was not installed
    sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))

from structeval.harness.command.cli import main

if __name__ == "__main__":
    main()
