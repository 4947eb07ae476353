"""Why a dataset cannot be used as it is on disk.

The harness runs for hours against paid APIs; a dataset fault found late would
waste that, so every inconsistency is raised up front as one typed error that
names the file and the command that fixes it.
"""

from __future__ import annotations

from ..model.errors import StructEvalError


class DatasetError(StructEvalError):
    """The dataset on disk is inconsistent, unsafe or incomplete; ``problems`` lists why."""

    def __init__(self, problems: list[str] | str, limit: int = 20):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        lines = self.problems[:limit]
        more = len(self.problems) - limit
        if more > 0:
            lines.append(f"... and {more} more problem(s)")
        head = "dataset problem" if len(self.problems) == 1 else "dataset problems"
        super().__init__(f"{head}:\n  " + "\n  ".join(lines))


class DatasetNotFound(DatasetError):
    """No dataset was named and none sits beside the code (an installed wheel): the
    message is the one sentence that names the ways to point at one."""

    def __init__(self, sentence: str):
        self.problems = [sentence]
        StructEvalError.__init__(self, sentence)


class UnknownSplit(DatasetError):
    """``--split`` names a split the dataset does not have: one sentence that lists the
    splits it has (a typo, or a split name from another dataset's docs)."""

    def __init__(self, sentence: str):
        self.problems = [sentence]
        StructEvalError.__init__(self, sentence)
