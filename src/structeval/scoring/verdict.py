"""The outcome of grading one answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .wording import TEMPLATES

#: Credit for the stage an answer fails at ("perfect" = fails nowhere).
CREDIT = {"perfect": 1.0, "loads": 0.75, "releases": 0.5, "supports": 0.25, "geometry": 0.0,
          "invalid": 0.0}
#: English stage names (every language's are in :mod:`.wording`, ``stage.<name>``).
STAGE_LABEL = {stage: TEMPLATES[f"stage.{stage}"]["en"] for stage in CREDIT}


@dataclass(frozen=True)
class Verdict:
    ratio: float
    stage: str  # "perfect" | "loads" | "releases" | "supports" | "geometry" | "invalid"
    message: str  # feedback for a repair round: failing stage and where, no ground-truth values
    checks: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def at(cls, stage: str, message: str, checks: dict[str, Any]) -> Verdict:
        return cls(CREDIT[stage], stage, message, checks)

    def to_json(self) -> dict[str, Any]:
        return {"ratio": self.ratio, "stage": self.stage, "message": self.message,
                "checks": self.checks}

    def to_dict(self) -> dict[str, Any]:
        """The verdict as plain data (the same as :meth:`to_json`; the name Python users
        look for first)."""
        return self.to_json()
