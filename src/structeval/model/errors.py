"""Validation outcome for untrusted FrameCalc JSON.

A model written by a VLM is feedback material: every problem must name the JSON
path it concerns and say how to fix it, and all problems are reported at once so
a repair round can fix them together.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Issue:
    path: str  # JSON path such as ``links[2].b`` or ``$`` for the document
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class StructEvalError(Exception):
    """Base of every typed failure the package reports instead of crashing."""


def clause(text: object) -> str:
    """A message (a server's, an exception's) as a clause inside a sentence of ours: on one
    line with every control character shown escaped (a server's text must not drive the
    terminal it is printed on), and without its closing period and spaces, so that the
    sentence's own period is never doubled ("go away.. Check ..." was what joining gave)."""
    shown = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                    for ch in str(text).strip())
    return shown.rstrip(".").rstrip()


class ModelError(StructEvalError):
    """The model is not a valid FrameCalc structure."""

    def __init__(self, issues: list[Issue]):
        self.issues = list(issues)
        super().__init__(self.describe())

    def describe(self, limit: int = 20) -> str:
        lines = [str(i) for i in self.issues[:limit]]
        more = len(self.issues) - limit
        if more > 0:
            lines.append(f"... and {more} more problem(s)")
        return "invalid FrameCalc model:\n  " + "\n  ".join(lines)
