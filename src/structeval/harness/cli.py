"""``python run_eval.py``: evaluate a vision-language model on the StructuralEval tasks.

Exit codes: 0 every selected task scored; 3 some tasks are unavailable (the API
kept failing; finish them with ``--resume``); 2 bad usage, dataset or output
directory (in use by another session, read-only, disk full — one sentence on
stderr, never a traceback); 4 the API refused our credentials or model; 1
``--debug`` found problems (every failing task is named with its reason); 130
interrupted (finished tasks are kept; ``--resume`` continues).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import signal
import sys
from pathlib import Path

import click

from ..dataset.benchmark import ALL, BENCHMARK
from ..model.errors import StructEvalError
from ..presentation import FACTORS, PresentationError
from ..safe_files import explain_os_error
from ..statistics.runs import format_statistics
from .images import MAX_IMAGE_BYTES
from .printout import format_failures, format_summary
from .response import MAX_ANSWER_CHARS
from .runner import Session
from .settings import PROMPT_TYPES, GradingSettings, RetryPolicy, TransportSettings
from .tasks import select_tasks, verify_selected
from .trace import Redactor
from .transport import ServiceFatal

EXIT_UNAVAILABLE, EXIT_USAGE, EXIT_FATAL, EXIT_INTERRUPTED = 3, 2, 4, 130
LOCAL_PLACEHOLDER_KEY = "no-key"  # sent to a custom --api-base when no key is configured


def _default_output(model: str, prompt_type: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-") or "model"
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"{safe}_{prompt_type}_{stamp}"


def _hard_exit(code: int) -> None:
    """Leave without waiting for in-flight requests: every finished task is already in
    the trace (the same state a kill -9 leaves), and --resume continues from there."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _fail(message: str, output: Path, session: Session | None) -> None:
    """Exit 2 with one sentence (and how to continue, when the run has begun). Once tasks
    are in flight they are not waited for: what finished is in the trace already."""
    hint = ""
    if (output / "trace.jsonl").is_file() and "--resume" not in message:
        hint = f"\nFinished tasks are kept in {output}; continue with --resume --output {output}"
    click.echo(f"error: {message}{hint}", err=True)
    if session is not None and session.executing:
        _hard_exit(EXIT_USAGE)
    sys.exit(EXIT_USAGE)


@click.command(context_settings={"help_option_names": ["-h", "--help"],
                                 "max_content_width": 100})
@click.option("--model", help="Model name sent to the chat-completions API, e.g. gpt-4o.")
@click.option("--api-base", envvar="OPENAI_BASE_URL", show_envvar=True,
              help="OpenAI-compatible endpoint; default: the OpenAI API.")
@click.option("--api-key", envvar="OPENAI_API_KEY", show_envvar=True, show_default=False,
              help="API key (never printed, logged or stored).")
@click.option("--max-retries", default=3, show_default=True, type=click.IntRange(0, 20),
              help="Repair rounds after a failed first attempt (the diagnosis is fed back).")
@click.option("--debug", is_flag=True,
              help="Verify the selected tasks (images, ground truth through solver and "
                   "scorer) and exit; no API calls.")
@click.option("--prompt-type", type=click.Choice(PROMPT_TYPES), default="standard",
              show_default=True)
@click.option("--filter", "id_filter",
              help="Only tasks whose id matches: a glob (beam_0*) or a substring.")
@click.option("--limit", type=click.IntRange(1), help="At most this many tasks (after filters).")
@click.option("--split", help="Which tasks: 'benchmark' (the default of an evaluation: 450 "
                   "tasks balanced over category x level), 'all' (the default of --debug), "
                   "or split names joined by commas (core, hard, matched).")
@click.option("--presentation", "presentation", multiple=True, metavar="KEY=VALUE",
              help="Only tasks shown this way, e.g. language=zh or dimensioning=exam; "
                   "repeatable (different factors must all match, values of one factor may "
                   "be joined by commas). Factors: " + ", ".join(FACTORS) + ".")
@click.option("--category", multiple=True, help="beam, frame or truss; repeatable.")
@click.option("--difficulty", multiple=True, type=click.IntRange(1, 5), help="1-5; repeatable.")
@click.option("--concurrency", default=4, show_default=True, type=click.IntRange(1, 256),
              help="Tasks in flight at once; results do not depend on it.")
@click.option("--temperature", default=0.0, show_default=True, type=click.FloatRange(0, 2))
@click.option("--max-tokens", default=8192, show_default=True, type=click.IntRange(1))
@click.option("--timeout", default=600.0, show_default=True,
              type=click.FloatRange(0, min_open=True),
              help="Wall-clock seconds for one whole request: connect, headers, body and "
                   "stream together (a server trickling bytes cannot stretch it).")
@click.option("--stream/--no-stream", default=False, show_default=True,
              help="Stream completions (SSE).")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path),
              help="Run directory; default results/<model>_<prompt>_<UTC time>.")
@click.option("--resume", is_flag=True,
              help="Continue the run in --output: only missing or unavailable tasks are run.")
@click.option("--data-dir", metavar="DIR|hf://OWNER/NAME@REV",
              help="Dataset: a data/ folder, a folder written by tools/export_hf.py, or a "
                   "Hugging Face dataset hf://owner/name@revision (needs `datasets`); "
                   "default: STRUCTEVAL_DATA, else the checkout's data/.")
@click.option("--tolerance", default=0.02, show_default=True,
              type=click.FloatRange(0, 1, min_open=True), help="Scorer's relative tolerance.")
@click.option("--transport-retries", default=6, show_default=True, type=click.IntRange(1, 100),
              help="Requests per call before a task is declared unavailable.")
@click.option("--backoff-base", default=2.0, show_default=True, type=click.FloatRange(0),
              help="First backoff delay in seconds (doubles per failure, ±25% jitter).")
@click.option("--backoff-max", default=60.0, show_default=True, type=click.FloatRange(0),
              help="Longest wait between two tries in seconds, a server's Retry-After "
                   "included (NaN, negative or absurd Retry-After values are ignored).")
@click.option("--wait-budget", default=600.0, show_default=True, type=click.FloatRange(0),
              help="Most seconds of backoff one task may wait in all; past it the task is "
                   "unavailable now and --resume runs it again.")
@click.option("--max-answer-chars", default=MAX_ANSWER_CHARS, show_default=True,
              type=click.IntRange(1000), help="Characters of an answer kept and graded; the "
              "rest is not read (noted in the trace).")
@click.option("--max-image-mb", default=MAX_IMAGE_BYTES / (1 << 20), show_default=True,
              type=click.FloatRange(0, min_open=True),
              help="Largest task image sent, in MB; a larger one makes its task unavailable "
                   "with the reason.")
@click.option("--runs", default=1, show_default=True, type=click.IntRange(1, 100),
              help="Answer every task this many independent times; results.json then reports "
                   "the mean with a task-bootstrap 95% CI, per-run scores and stage "
                   "consistency (use --temperature > 0 for independent samples).")
def main(model: str | None, api_base: str | None, api_key: str | None, max_retries: int,
         debug: bool, prompt_type: str, id_filter: str | None, limit: int | None,
         split: str | None, presentation: tuple[str, ...], category: tuple[str, ...],
         difficulty: tuple[int, ...],
         concurrency: int, temperature: float, max_tokens: int, timeout: float, stream: bool,
         output: Path | None, resume: bool, data_dir: str | None, tolerance: float,
         transport_retries: int, backoff_base: float, backoff_max: float, wait_budget: float,
         max_answer_chars: int, max_image_mb: float, runs: int) -> None:
    """Ask a vision-language model to write each drawing as FrameCalc JSON and grade it."""
    if hasattr(signal, "SIGXFSZ"):  # past `ulimit -f` a write fails with EFBIG: a sentence
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    redact = Redactor([api_key])
    if not debug:
        if not model:
            raise click.UsageError("--model is required (unless --debug)")
        if not api_key and not api_base:
            raise click.UsageError("no API key: pass --api-key or set OPENAI_API_KEY")
        if resume and output is None:
            raise click.UsageError("--resume needs the --output directory of the run to continue")
    try:
        chosen_split = split or (ALL if debug else BENCHMARK)
        tasks = select_tasks(data_dir, split=chosen_split, categories=category,
                             difficulties=difficulty, id_filter=id_filter, limit=limit,
                             presentation=presentation)
    except PresentationError as exc:
        raise click.BadParameter(str(exc), param_hint="--presentation") from None
    except StructEvalError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    if not tasks:
        click.echo("error: no task matches the selection", err=True)
        sys.exit(EXIT_USAGE)
    if debug:
        report = verify_selected(tasks)
        click.echo(report.table())
        if report.failures:
            click.echo(format_failures(report.failures))
        sys.exit(0 if report.ok else 1)
    assert model is not None
    api_key = api_key or LOCAL_PLACEHOLDER_KEY
    output = output or _default_output(model, prompt_type)

    grading = GradingSettings(model=model, prompt_type=prompt_type, temperature=temperature,
                              max_tokens=max_tokens, max_retries=max_retries,
                              tolerance=tolerance)
    transport = TransportSettings(api_base=api_base, timeout=timeout, stream=stream,
                                  concurrency=concurrency)
    longest = max(backoff_max, backoff_base)
    policy = RetryPolicy(tries=transport_retries, base_delay=backoff_base, max_delay=longest,
                         max_retry_after=longest, wait_budget=wait_budget)
    session: Session | None = None
    try:
        session = Session(output, grading=grading, transport_settings=transport,
                          policy=policy, api_key=api_key, resume=resume, runs=runs,
                          data_dir=data_dir, max_answer_chars=max_answer_chars,
                          max_image_bytes=int(max_image_mb * (1 << 20)))
        outcome = session.run(tasks, echo=lambda text: click.echo(redact(text), err=True))
    except ServiceFatal as exc:
        click.echo(f"error: {redact(str(exc))}\nFinished tasks are kept in {output}; "
                   f"continue with --resume --output {output}", err=True)
        _hard_exit(EXIT_FATAL)
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted: finished tasks are kept in {output}; "
                   f"continue with --resume --output {output}", err=True)
        _hard_exit(EXIT_INTERRUPTED)
    except StructEvalError as exc:
        _fail(redact(str(exc)), output, session)
    except OSError as exc:  # a write we did not foresee: still one sentence, never a traceback
        _fail(redact(explain_os_error(exc, exc.filename or output, "write")), output, session)
    click.echo(redact(format_summary(outcome.summary, model=model, prompt_type=prompt_type,
                                     output=str(output))))
    click.echo(format_statistics(outcome.summary["statistics"]))
    if outcome.reused:
        click.echo(f"(resumed: {outcome.reused} task(s) taken from earlier sessions, "
                   f"{outcome.ran} run now)")
    sys.exit(EXIT_UNAVAILABLE if outcome.summary["unavailable"] else 0)
