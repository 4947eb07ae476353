"""What a generator run tried: drafts, acceptances and rejection reasons per template.

The acceptance rate per family is how a template is judged (a family that throws
most drafts away wastes time and hides a bias), so runs can collect it cheaply and
``tools/generation_report.py`` prints it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class FamilyStats:
    drafts: int = 0
    accepted: int = 0
    seconds: float = 0.0
    rejections: Counter[str] = field(default_factory=Counter)
    accepted_members: list[int] = field(default_factory=list)

    @property
    def acceptance(self) -> float:
        return self.accepted / self.drafts if self.drafts else 0.0


@dataclass
class GenerationStats:
    families: dict[str, FamilyStats] = field(default_factory=dict)

    def record(self, template: str, reason: str | None, seconds: float,
               members: int | None) -> None:
        entry = self.families.setdefault(template, FamilyStats())
        entry.drafts += 1
        entry.seconds += seconds
        if reason is None:
            entry.accepted += 1
            if members is not None:
                entry.accepted_members.append(members)
        else:
            entry.rejections[reason] += 1

    @property
    def drafts(self) -> int:
        return sum(f.drafts for f in self.families.values())

    @property
    def accepted(self) -> int:
        return sum(f.accepted for f in self.families.values())
