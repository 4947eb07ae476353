"""The shell commands the documentation shows, and a check of each against the real CLI.

Why: a command in a page is a promise to the reader, and flags and split names change
(``--split test`` once named a split that never existed). This module finds every
command in the fenced shell blocks of ``README.md`` and ``docs/**/*.md`` and parses it
with the parser of the program it names — the click command's own ``make_context``
for ``run_eval.py``, ``python -m structeval`` and the click tools, the argparse
parser of the argparse tools, the task's signature and ``inspect eval --help`` for
inspect — so an option, a choice or a split that does not exist is reported with its
file and line. Values the parsers take as free text but the tool gives a meaning to
(a split, a category, a presentation) are checked by making the selection the command
would make.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import importlib.util
import inspect as pyinspect
import io
import itertools
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import click

ROOT = Path(__file__).resolve().parent.parent

#: Fence info strings whose lines are shell commands (a plain ``` block may hold output).
SHELL_FENCES = ("", "bash", "sh", "shell", "console")

#: What a documentation placeholder stands for when a command is parsed or run.
PLACEHOLDERS = {
    "MODEL.json": "data/raw_models/frame-s1-0010.json",
    "GT.json": "data/raw_models/frame-s1-0010.json",
    "CAND.json": "data/raw_models/frame-s1-0010.json",
    "CANDIDATE.json": "data/raw_models/frame-s1-0010.json",
    "N": "1", "S": "1", "K": "3", "R": "0", "T": "0.05", "PX": "768", "USD": "1",
    "M": "gpt-4o", "GLOB": "frame-*", "KEY=VALUE": "language=zh",
    "URL": "http://127.0.0.1:9/v1",
    # folders a command reads (their existence is all a parser checks)
    **dict.fromkeys(("DIR", "RUN_DIR", "RUN_A", "RUN_B", "IMAGE_RUN", "DXF_RUN", "COPY"), "."),
}

#: Marks a problem that only counts in a full command (prose may name a program bare).
MISSING = "missing: "

#: Programs whose ``--split`` names a split to write, not one to read.
WRITES_A_SPLIT = ("tools/synthesize.py",)


@dataclass(frozen=True)
class DocCommand:
    """One command as a page shows it: where, the text, and its words."""

    path: Path
    line: int
    text: str
    argv: tuple[str, ...]
    #: written inline in prose, where a command may be named without its arguments
    inline: bool = False

    @property
    def where(self) -> str:
        try:
            shown = self.path.relative_to(ROOT)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}"


@dataclass
class Verdict:
    """What checking one command found: the program it names and every problem."""

    program: str = ""
    problems: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ extraction

def doc_files(root: Path = ROOT) -> list[Path]:
    """README.md and every Markdown page under docs/, in a stable order."""
    pages = sorted((root / "docs").rglob("*.md")) if (root / "docs").is_dir() else []
    return [root / "README.md", *pages]


def _fences(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line number, lines) of each fenced block whose info string is a shell."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opened = re.match(r"\s*(```+|~~~+)\s*([\w-]*)", lines[i])
        if not opened:
            i += 1
            continue
        marker, info = opened.group(1), opened.group(2).lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(marker):
            body.append(lines[j])
            j += 1
        if info in SHELL_FENCES:
            yield i + 2, body
        i = j + 1


def _program_words(argv: list[str]) -> list[str]:
    """The words after ``time`` and environment assignments (``A=b cmd``)."""
    while argv and (argv[0] == "time" or re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", argv[0])):
        argv = argv[1:]
    return argv


def commands_in(path: Path) -> list[DocCommand]:
    """Every command of ours in the shell blocks of one page (continuations joined)."""
    found = []
    for first, body in _fences(path.read_text(encoding="utf-8")):
        k = 0
        while k < len(body):
            start, text = first + k, body[k]
            while text.rstrip().endswith("\\") and k + 1 < len(body):
                k += 1
                text = text.rstrip()[:-1] + " " + body[k].strip()
            k += 1
            text = text.strip().removeprefix("$ ")
            try:
                words = _program_words(shlex.split(text, comments=True))
            except ValueError:
                continue
            if words and _names_our_program(words):
                found.append(DocCommand(path, start, text, tuple(words)))
    return found


def _names_our_program(words: list[str]) -> bool:
    if words[0] in ("python", "python3"):
        return len(words) > 1 and (words[1] == "run_eval.py" or words[1].startswith("tools/")
                                   or words[1:3] in (["-m", "structeval"], ["-m", "pytest"]))
    return words[0] == "structeval" or words[:2] == ["inspect", "eval"]


def inline_commands_in(path: Path) -> list[DocCommand]:
    """Commands of ours written as inline code in prose or tables (`python tools/x.py …`)."""
    found = []
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if re.match(r"\s*(```|~~~)", line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for span in re.findall(r"(?<!`)`([^`]+)`(?!`)", line):
            try:
                words = _program_words(shlex.split(span.replace("\\|", "|")))
            except ValueError:
                continue
            if words and _names_our_program(words):
                found.append(DocCommand(path, number, span, tuple(words), inline=True))
    return found


def all_commands(root: Path = ROOT) -> list[DocCommand]:
    """Every command of ours the pages show, in fenced shell blocks and inline code."""
    return [c for page in doc_files(root)
            for c in (*commands_in(page), *inline_commands_in(page))]


# ------------------------------------------------------------------ normalising

def variants(argv: tuple[str, ...], placeholders: dict[str, str] | None = None,
             ) -> list[list[str]]:
    """The concrete argument lists a documented command stands for.

    ``[--opt V]`` marks an optional part (kept), ``...`` an elision (dropped),
    ``a|b|c`` alternatives (each one checked), placeholders become sample values
    (``placeholders`` over :data:`PLACEHOLDERS`).
    """
    sample = {**PLACEHOLDERS, **(placeholders or {})}
    words: list[list[str]] = []
    for word in argv:
        word = word.strip("[]")
        if word in ("", "...", "…") or (word.endswith(("...", "…")) and not word.rstrip(".…")):
            continue
        word = word.removesuffix("...").removesuffix("…")
        if "|" in word and not word.startswith(("-", "http")) and "=" not in word:
            words.append([sample.get(w, w) for w in word.split("|")])
        else:
            words.append([sample.get(word, word)])
    width = max((len(w) for w in words), default=1)
    return [[w[min(i, len(w) - 1)] for w in words] for i in range(width)]


# ------------------------------------------------------------------ programs

def _load_script(relative: str) -> ModuleType:
    name = "doccheck_" + re.sub(r"\W", "_", relative)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _click_problems(command: click.Command, prog: str, args: list[str]) -> tuple[list[str], dict]:
    """Parse with click's own parser; nothing runs but the options' conversions."""
    if isinstance(command, click.Group) and not args:
        return [], {}  # the program named in prose: nothing to parse
    if isinstance(command, click.Group) and not args[0].startswith("-"):
        sub = command.commands.get(args[0])
        if sub is None:
            return [f"{prog} has no command {args[0]!r}"], {}
        return _click_problems(sub, f"{prog} {args[0]}", args[1:])
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            ctx = command.make_context(prog, list(args))
        except click.exceptions.Exit:
            return [], {}
        except click.MissingParameter as exc:
            return [MISSING + exc.format_message()], {}
        except click.UsageError as exc:
            return [exc.format_message()], {}
    return [], dict(ctx.params)


class _Parsed(Exception):
    pass


class _Refused(Exception):
    pass


def _argparse_problems(module: ModuleType, args: list[str]) -> list[str]:
    """Run the tool's main() up to its parse_args, with the documented words, then stop."""
    real = argparse.ArgumentParser.parse_args

    def parse(self: argparse.ArgumentParser, *_: Any, **__: Any) -> Any:
        raise _Parsed(real(self, args))

    def error(self: argparse.ArgumentParser, message: str) -> None:
        raise _Refused(message)

    with mock.patch.object(argparse.ArgumentParser, "parse_args", parse), \
            mock.patch.object(argparse.ArgumentParser, "error", error), \
            contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            wants_argv = bool(pyinspect.signature(module.main).parameters)
            module.main(args) if wants_argv else module.main()
        except _Parsed:
            return []
        except _Refused as exc:
            return [str(exc)]
        except SystemExit as exc:  # --help
            return [] if exc.code in (0, None) else [f"exit {exc.code}"]
    return ["main() returned without parsing its arguments"]


@functools.lru_cache(maxsize=64)
def _selection(split: str | None, categories: tuple[str, ...], levels: tuple[int, ...],
               presentation: tuple[str, ...], id_filter: str | None) -> str | None:
    """None when the shipped data has tasks for this selection, else why not."""
    from structeval.harness.inputs.tasks import select_tasks
    from structeval.model.errors import StructEvalError

    try:
        tasks = select_tasks(None, split=split, categories=categories, difficulties=levels,
                             id_filter=id_filter, limit=None, presentation=presentation)
    except (StructEvalError, ValueError) as exc:
        return str(exc).splitlines()[0]
    return None if tasks else "it selects no task of the shipped dataset"


#: Parameters whose values choose tasks (free text to the parser, meaningful to the loader).
SELECTING = ("split", "category", "difficulty", "presentation", "id_filter")


def _selection_problems(params: dict[str, Any], *, debug_default: bool) -> list[str]:
    """Why the tasks the command selects do not exist, when it chooses them explicitly.

    A command without selection options takes the default selection, whose tasks the
    harness tests already hold to; loading the dataset for it would only cost time.
    """
    from structeval.dataset.benchmark import ALL, BENCHMARK

    if not any(params.get(name) for name in SELECTING):
        return []
    split = params.get("split")
    if not split and debug_default:
        split = ALL if params.get("debug") else BENCHMARK
    why = _selection(split, tuple(params.get("category") or ()),
                     tuple(int(v) for v in params.get("difficulty") or ()),
                     tuple(params.get("presentation") or ()), params.get("id_filter"))
    if why is None or _challenge_not_shipped(params.get("split")):
        return []
    if params.get("split") and (wrong := split_problem(params["split"])):
        return [f"--split {params['split']}: {wrong}"]
    shown = " ".join(f"--{name.replace('_', '-')} {_shown(params[name])}" for name in SELECTING
                     if params.get(name))
    return [f"{shown}: {why}"]


def _shown(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, tuple | list) else str(value)


def _challenge_not_shipped(split: str | None) -> bool:
    """Whether ``split`` names only challenge splits (``benchmark.CHALLENGE_SPLITS``, the
    drawing sheets) that this checkout's data/ does not hold yet: their pages document
    them before their tasks ship (one branch grades sheets, another generates them), so
    the command is held to its parser alone until then — neither its selection checked
    nor it run — and to the data, and run, once they ship."""
    from structeval.dataset.benchmark import CHALLENGE_SPLITS

    names = (split or "").split(",")
    return bool(split) and all(n in CHALLENGE_SPLITS and _selection(n, (), (), (), None)
                               for n in names)


def _split_in(words: list[str]) -> str | None:
    """The ``--split`` value of an argv (``--split X`` or ``--split=X``), None without."""
    for i, word in enumerate(words):
        if word == "--split" and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--split="):
            return word.partition("=")[2]
    return None


def split_problem(split: str) -> str | None:
    """Why a split (or several joined by commas) selects nothing, naming those that exist."""
    from structeval.dataset.benchmark import ALL, BENCHMARK, SHIPPED_SPLITS

    if _selection(split, (), (), (), None) is None:
        return None
    return (f"no such split (an evaluation reads {', '.join((*SHIPPED_SPLITS, BENCHMARK, ALL))}"
            ", or several joined by commas)")


@functools.lru_cache(maxsize=1)
def inspect_command() -> click.Group | None:
    """The click group behind the ``inspect`` console script that inspect_ai installs."""
    from importlib.metadata import entry_points

    for point in entry_points(group="console_scripts", name="inspect"):
        module = importlib.import_module(point.module)
        for value in vars(module).values():
            if isinstance(value, click.Group) and "eval" in value.commands:
                return value
    return None


def _inspect_problems(args: list[str]) -> list[str]:
    from structeval import inspect_task

    problems: list[str] = []
    target, rest = (args[0], args[1:]) if args else ("", [])
    if target.endswith(".py"):
        if not (ROOT / target).is_file():
            problems.append(f"no task file {target}")
    elif not target:
        problems.append(MISSING + "no task named")
    elif target != "structeval/structeval":
        problems.append(f"unknown task {target!r} (the package's task is structeval/structeval)")
    group = inspect_command()
    if group is None:
        problems.append("inspect_ai installs no `inspect` command here")
    else:
        problems += _click_problems(group, "inspect", ["eval", *args])[0]
    accepted = set(pyinspect.signature(inspect_task.structeval).parameters)
    given: dict[str, str] = {}
    for flag, value in itertools.pairwise(rest):
        if flag == "-T":
            key, _, text = value.partition("=")
            given[key] = text
            if key not in accepted:
                problems.append(f"-T {key}: the task has no parameter {key!r} "
                                f"(it takes {', '.join(sorted(accepted))})")
    for key, allowed in (("prompt_type", inspect_task.PROMPT_TYPES),
                         ("lang", inspect_task.LANGUAGES)):
        if key in given and given[key] not in allowed:
            problems.append(f"-T {key}={given[key]}: not one of {', '.join(allowed)}")
    if problems or not any(given.get(k) for k in ("split", "category", "difficulty",
                                                  "presentation", "filter")):
        return problems
    from structeval.dataset.benchmark import BENCHMARK
    from structeval.model.errors import StructEvalError

    try:
        items = inspect_task.select_dataset_tasks(
            split=given.get("split") or BENCHMARK, category=given.get("category"),
            difficulty=given.get("difficulty"), presentation=given.get("presentation"),
            data_dir=None, limit=None, id_filter=given.get("filter"))
    except (ValueError, StructEvalError) as exc:  # the task's own refusal of a parameter
        if given.get("split") and (wrong := split_problem(given["split"])):
            return [f"-T split={given['split']}: {wrong}"]
        return [f"-T parameters: {str(exc).splitlines()[0] or type(exc).__name__}"]
    return [] if items else ["-T parameters select no task of the shipped dataset"]


def _pytest_problems(args: list[str]) -> list[str]:
    return [f"no test file {a}" for a in args
            if a.startswith("tests/") and not (ROOT / a.split("::")[0]).exists()]


def check(command: DocCommand) -> Verdict:
    """Parse every variant of the command with the real parser of its program."""
    verdict = Verdict()
    for argv in variants(command.argv):
        words = argv[1:] if argv[0].startswith("python") else argv
        problems: list[str]
        if words[:2] == ["-m", "pytest"]:
            verdict.program, problems = "pytest", _pytest_problems(words[2:])
        elif words[:1] == ["inspect"]:
            verdict.program, problems = "inspect eval", _inspect_problems(words[2:])
        elif words[:2] == ["-m", "structeval"] or words[:1] == ["structeval"]:
            from structeval.cli import main as group
            from structeval.harness.command.cli import main as run_eval
            rest = words[2:] if words[0] == "-m" else words[1:]
            verdict.program = "structeval"
            if rest[:1] == ["eval"]:  # `structeval eval` hands its words to run_eval's command
                problems = _click_problems(run_eval, "structeval eval", rest[1:])[0]
            else:
                problems = _click_problems(group, "structeval", rest)[0]
        else:
            verdict.program, problems = words[0], _script_problems(words[0], words[1:])
        if command.inline:
            problems = [p for p in problems if not p.startswith(MISSING)]
        verdict.problems += [p.removeprefix(MISSING) for p in problems
                             if p.removeprefix(MISSING) not in verdict.problems]
    return verdict


def _script_problems(script: str, args: list[str]) -> list[str]:
    if not (ROOT / script).is_file():
        return [f"no such program {script}"]
    if script == "run_eval.py":
        from structeval.harness.command.cli import main as command
    else:
        module = _load_script(script)
        command = getattr(module, "main", None)
        if not isinstance(command, click.Command):
            return _argparse_problems(module, args)
    problems, params = _click_problems(command, script, args)
    if problems or "split" not in params or script in WRITES_A_SPLIT:
        return problems
    return _selection_problems(params, debug_default=script == "run_eval.py")


def report(command: DocCommand, verdict: Verdict) -> str:
    """One line per problem: file, line, the command, what is wrong."""
    return "\n".join(f"{command.where}: `{command.text}`: {problem}"
                     for problem in verdict.problems)


# ------------------------------------------------------------------ running

#: Words that make a documented command cheap enough to run as written.
CHEAP_FLAGS = ("--help", "-h", "--dry-run", "--debug", "--list-families")
#: Programs that are cheap whatever their options (they read or solve a file or two).
CHEAP_PROGRAMS = (("-m", "structeval", "solve"), ("-m", "structeval", "score"))
#: At most this many tasks when a documented --debug or --dry-run is run.
RUN_LIMIT = "3"
#: Where a documented command writes a file or folder (moved to a scratch folder to run).
OUTPUT_FLAGS = ("-o", "--output", "--json", "--out")
#: Tools run on a small copy of the data folder: the option naming it (None: an argument).
SMALL_DATA_TOOLS = {"tools/dataset_table.py": "--data-dir", "tools/check_drawings.py": "--data-dir",
                    "tools/generate_gt.py": "--data", "tools/check_presentations.py": None}
#: The tasks of that copy: a frame (PNG), a beam (JPEG) and a truss.
SMALL_DATA_TASKS = ("frame-s1-0010", "beam-s1-0000", "truss-s1-0002")


def small_data(folder: Path) -> Path:
    """A data folder of :data:`SMALL_DATA_TASKS`, copied from the shipped one."""
    import shutil

    for sub, pattern in (("raw_models", "{}.json"), ("ground_truth_meta", "{}.json"),
                         ("images", "{}.*")):
        (folder / sub).mkdir(parents=True, exist_ok=True)
        for task in SMALL_DATA_TASKS:
            for source in (ROOT / "data" / sub).glob(pattern.format(task)):
                shutil.copy2(source, folder / sub / source.name)
    return folder


def runnable(command: DocCommand, data: Path | None = None) -> list[list[str]]:
    """The variants of a command worth running (an argv after ``python``), made cheap.

    ``--debug`` and ``--dry-run`` get ``--limit 3`` unless they give a limit; the
    tools of :data:`SMALL_DATA_TOOLS` run on ``data`` (a small data folder) when it is
    given; a command reading another dataset (``--data-dir``) is parsed only, as is
    anything needing an API or a run folder.
    """
    out: list[list[str]] = []
    places = {"DIR": str(data), "data": str(data)} if data else {}
    for argv in variants(command.argv, places):
        if argv[0] not in ("python", "python3"):
            continue
        words = argv[1:]
        if words[0] in SMALL_DATA_TOOLS and data is not None:
            option = SMALL_DATA_TOOLS[words[0]]
            if option and option not in words:
                words += [option, str(data)]
        elif "--data-dir" in words or not (
                any(flag in words for flag in CHEAP_FLAGS)
                or any(tuple(words[:len(p)]) == p for p in CHEAP_PROGRAMS)):
            continue
        if _challenge_not_shipped(_split_in(words)):
            continue
        if words[0] == "run_eval.py" and {"--debug", "--dry-run"} & set(words) \
                and "--limit" not in words and "--help" not in words:
            words += ["--limit", RUN_LIMIT]
        if words not in out:
            out.append(words)
    if out and command.inline and check(replace(command, inline=False)).problems:
        return []  # named in prose without what it needs to run
    return out


def with_outputs(words: list[str], scratch: Path) -> list[str]:
    """The command with every file or folder it writes (``-o``, ``--output``, ``--json``)
    moved into ``scratch``, under the name the page gave it."""
    words = list(words)
    for at, word in enumerate(words[:-1]):
        if word in OUTPUT_FLAGS:
            words[at + 1] = str(scratch / Path(words[at + 1]).name)
    return words


def run(words: list[str], *, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run one documented command (the words after ``python``) from the checkout."""
    return subprocess.run([sys.executable, *words], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def widest(commands: list[list[str]]) -> list[list[str]]:
    """Commands minus those another one covers: the same program with a subset of its
    options (running ``tool A B`` adds nothing once ``tool A B --opt`` ran)."""
    def shape(words: list[str]) -> tuple[str, frozenset[str]]:
        program = " ".join(words[:3]) if words[0] == "-m" else words[0]
        return program, frozenset(w for w in words if w.startswith("-"))

    kept: list[list[str]] = []
    for i, words in enumerate(commands):
        program, flags = shape(words)
        covered = any(shape(other)[0] == program and flags <= shape(other)[1]
                      and (flags < shape(other)[1] or j < i)
                      for j, other in enumerate(commands) if j != i)
        if not covered:
            kept.append(words)
    return kept


#: Programs that read a run folder (the documented ones run on a run the test made).
RUN_READERS = ("tools/report.py", "tools/compare.py", "tools/leaderboard.py",
               "tools/rescore.py")


def evaluations(commands: list[DocCommand]) -> list[list[str]]:
    """Complete evaluation commands (a shell block's ``run_eval.py``/``structeval eval``
    with ``--model``, on the shipped data, not a dry run): each once, as ``python`` words."""
    out: list[list[str]] = []
    for command in commands:
        if command.inline:
            continue
        for argv in variants(command.argv):
            if argv[0] not in ("python", "python3", "structeval"):
                continue
            words = argv[1:] if argv[0] != "structeval" else ["-m", "structeval", *argv[1:]]
            is_eval = words[:1] == ["run_eval.py"] or words[:3] == ["-m", "structeval", "eval"]
            if (is_eval and "--model" in words and words not in out
                    and not {"--dry-run", "--debug", "--help", "--data-dir"} & set(words)
                    and not _challenge_not_shipped(_split_in(words))):
                out.append(words)
    return widest(out)


def run_readers(commands: list[DocCommand], run_dir: Path, scratch: Path) -> list[list[str]]:
    """The documented commands of the run-folder tools, on ``run_dir``, writing to scratch."""
    folders = dict.fromkeys(("RUN_DIR", "RUN_A", "RUN_B", "results/gpt-4o"), str(run_dir))
    places = {**folders, "DIR": str(ROOT / "data"), "NEW": str(scratch / "rescored")}
    out: list[list[str]] = []
    for command in commands:
        for argv in variants(command.argv, places):
            words = argv[1:] if argv[0].startswith("python") else argv
            if words[0] not in RUN_READERS or words in out:
                continue
            if command.inline and check(replace(command, inline=False)).problems:
                continue
            out.append(with_outputs(words, scratch))
    return widest(out)
