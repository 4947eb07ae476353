"""Every command the README and the documentation site show exists as written.

Each command in a fenced shell block or in inline code (``python run_eval.py …``,
``python tools/X.py …``, ``python -m structeval …``, ``inspect eval …``) is parsed by
its program's real parser, and its selection (split, category, difficulty,
presentation) is made on the shipped dataset, so ``--split test`` or
``-T split=test`` — a split that does not exist — fails here, naming the file, the
line and the option. The cheap ones (``--help``, ``--dry-run`` and ``--debug`` on three
tasks, the table and solve/score commands) are also run.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .doc_commands import (
    ROOT,
    all_commands,
    check,
    doc_files,
    evaluations,
    report,
    run,
    run_readers,
    runnable,
    small_data,
    with_outputs,
)
from .fakeserver.batch_api import BatchAPI
from .fakeserver.server import Answer, FakeOpenAI, Script

COMMANDS = all_commands()


def _is_inspect(command) -> bool:
    return list(command.argv[:2]) == ["inspect", "eval"]


def test_the_pages_show_commands() -> None:
    """The extraction finds the commands it should (an empty list would pass the rest)."""
    programs = {"inspect eval" if _is_inspect(c) else check(c).program for c in COMMANDS}
    assert {"run_eval.py", "structeval", "inspect eval", "pytest",
            "tools/synthesize.py", "tools/export_hf.py"} <= programs, programs
    assert len(doc_files()) > 10


def test_every_documented_command_parses() -> None:
    problems = [report(c, v) for c in COMMANDS if not _is_inspect(c) and (v := check(c)).problems]
    assert not problems, "documented commands that the tools refuse:\n" + "\n".join(problems)


def test_every_documented_inspect_command_parses() -> None:
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (requirements-dev.txt)")
    commands = [c for c in COMMANDS if _is_inspect(c)]
    assert commands
    problems = [report(c, v) for c in commands if (v := check(c)).problems]
    assert not problems, "documented inspect commands refused:\n" + "\n".join(problems)


def _planted(tmp_path: Path, lines: list[str]) -> Path:
    """A copy of README.md and docs/ with ``lines`` added as a shell block to one page."""
    shutil.copy2(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    page = tmp_path / "docs" / "dataset" / "huggingface.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text + "\n```bash\n" + "\n".join(lines) + "\n```\n", encoding="utf-8")
    return page


def test_a_planted_wrong_command_is_named_with_file_line_and_option(tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (requirements-dev.txt)")
    planted = [
        "python tools/export_hf.py --out hf-export --split test",
        "inspect eval structeval/structeval --model openai/gpt-4o -T split=test",
        "python run_eval.py --model gpt-4o --image-details high",
        "python tools/render.py MODEL.json -o f.png --style pastel",
        "structeval eval --model gpt-4o --prompt-type verbose",
        "python run_eval.py --model gpt-4o \\",
        "    --presentation language=fr",
    ]
    page = _planted(tmp_path, planted)
    first = len(page.read_text(encoding="utf-8").splitlines()) - len(planted)
    found = {c.line: report(c, v) for c in all_commands(tmp_path)
             if (v := check(c)).problems}
    where = "docs/dataset/huggingface.md"
    expected = {first: "--split test", first + 1: "split=test", first + 2: "--image-details",
                first + 3: "pastel", first + 4: "verbose", first + 5: "fr"}
    assert set(found) == set(expected), found
    for line, word in expected.items():
        assert f"{where}:{line}:" in found[line] and word in found[line], found[line]


#: Stands for the small data folder in the collected runs (made once per module).
SMALL = Path("SMALL-DATA")


def _unique_runs() -> dict[tuple[str, ...], list[str]]:
    """Each cheap command once (several pages show the same), with where it is shown."""
    runs: dict[tuple[str, ...], list[str]] = {}
    for command in COMMANDS:
        for words in runnable(command, SMALL):
            runs.setdefault(tuple(words), []).append(f"{command.where}: `{command.text}`")
    return runs


RUNS = _unique_runs()


@pytest.fixture(scope="module")
def run_env(tmp_path_factory) -> dict[str, str]:
    """No key, no user data folder; one cache folder, so the solver compiles once."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "STRUCTEVAL_DATA")}
    env.update(STRUCTEVAL_CACHE=str(tmp_path_factory.mktemp("cache")),
               STRUCTEVAL_RESPONSE_CACHE="off")
    return env


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    return small_data(tmp_path_factory.mktemp("data"))


@pytest.mark.parametrize("words", list(RUNS), ids=[" ".join(w)[:70] for w in RUNS])
def test_cheap_documented_commands_run(words, run_env, small: Path, tmp_path: Path) -> None:
    args = [str(small) if w == str(SMALL) else w for w in words]
    done = run(with_outputs(args, tmp_path), env=run_env)
    shown = "\n".join(RUNS[words])
    assert done.returncode == 0, (f"{shown}\n(run as {' '.join(words)}) exited "
                                  f"{done.returncode}:\n{done.stderr[-2000:]}")
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


def test_cheap_runs_cover_the_main_kinds() -> None:
    kinds = {" ".join(w[:3]) for w in RUNS}
    assert any("--debug" in w for w in RUNS) and any("--dry-run" in w for w in RUNS)
    assert any(k.startswith("-m structeval solve") for k in kinds), kinds
    assert any(str(SMALL) in w for w in RUNS)  # the data tools run on the small folder


def test_documented_evaluations_and_run_tools_run_against_a_local_server(
        run_env, tmp_path: Path) -> None:
    """The README's main job as written (evaluate, then report), and every documented
    evaluation and run-folder command, on two tasks against a scripted local server."""
    answer = (ROOT / "data" / "raw_models" / "frame-s1-0010.json").read_text(encoding="utf-8")
    jobs = evaluations(COMMANDS)
    assert any("--output" in w for w in jobs), jobs  # the README's main job is among them
    env = {**run_env, "OPENAI_API_KEY": "sk-docs-test-key"}
    runs = []
    # the server also speaks the Batch API, so a documented --batch job runs for real
    with FakeOpenAI(Script(default=Answer(text=f"<json>{answer}</json>")),
                    routes=BatchAPI(polls_until_done=1)) as server:
        for i, words in enumerate(jobs):
            scratch = tmp_path / f"job{i}"
            scratch.mkdir()
            args = with_outputs([*words, *([] if "--output" in words else ["--output", "run"])],
                                scratch)
            done = run([*args, "--api-base", server.base_url, "--limit", "2",
                        "--max-retries", "0"], env=env)
            assert done.returncode == 0, f"{' '.join(words)}: {done.stderr[-2000:]}"
            runs.append(Path(args[args.index("--output") + 1]))
    readers = run_readers(COMMANDS, runs[0], tmp_path)
    assert {w[0] for w in readers} >= {"tools/report.py", "tools/rescore.py"}, readers
    for words in readers:
        done = run(words, env=env)
        assert done.returncode == 0, f"{' '.join(words)}: {done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr and "sk-docs-test-key" not in done.stdout
