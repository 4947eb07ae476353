"""``run_eval.py --help`` in sections (model and endpoint, prompt and input, tasks, run,
cache, cost, retries and limits), so that some forty options stay readable."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import click


class GroupedCommand(click.Command):
    """A click command whose options are listed under headings; ``groups`` maps a heading
    to the parameter names (click's ``name``) shown under it, in order. Options not named
    anywhere come last under "Other options"."""

    def __init__(self, *args: object, groups: Mapping[str, Sequence[str]] | None = None,
                 **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.groups = dict(groups or {})

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        records = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                records[param.name] = record
        placed: set[str | None] = set()
        for heading, names in self.groups.items():
            rows = [records[name] for name in names if name in records]
            placed.update(names)
            if rows:
                with formatter.section(heading):
                    formatter.write_dl(rows)
        rest = [record for name, record in records.items() if name not in placed]
        if rest:
            with formatter.section("Other options"):
                formatter.write_dl(rest)
