"""The numbered grid lines every sheet's structure stands on, and what follows from them.

On every sheet the numbered grid lines carry the frames (or girders) a task can name,
at the plan's spacings; the slab, deck or roof spans one way between them, so each
carries the area loads over its tributary width. The building, bridge and shed
records share this rule, so it lives here once.
"""

from __future__ import annotations


def running_sum(steps: tuple[float, ...]) -> list[float]:
    """Grid positions from the spacings between them, starting at 0."""
    out = [0.0]
    for s in steps:
        out.append(round(out[-1] + s, 6))
    return out


class NumberedLines:
    """Behaviour of a record with ``numbers`` (the numbered grid lines) and ``spacings``
    (the distances between them)."""

    numbers: tuple[str, ...]
    spacings: tuple[float, ...]

    @property
    def ys(self) -> list[float]:
        return running_sum(self.spacings)

    def tributary(self, j: int) -> float:
        """Half the distance to each neighbouring numbered grid line."""
        left = self.spacings[j - 1] if j > 0 else 0.0
        right = self.spacings[j] if j < len(self.spacings) else 0.0
        return (left + right) / 2

    def is_edge(self, j: int) -> bool:
        return j in (0, len(self.numbers) - 1)
