#!/usr/bin/env python3
"""Evaluate a vision-language model on StructuralEval: ``python run_eval.py --model gpt-4o``.

Run ``python run_eval.py --help`` for the options; the harness lives in
``structeval.harness``.
"""

from structeval.harness.cli import main

if __name__ == "__main__":
    main()
