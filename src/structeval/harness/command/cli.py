"""``python run_eval.py``: evaluate a vision-language model on the StructuralEval tasks.

Exit codes: 0 every selected task scored (and ``--dry-run``); 3 some tasks are
unavailable (the API kept failing, or ``--max-cost`` was reached; finish them with
``--resume``); 2 bad usage, dataset or output directory (in use by another
session, read-only, disk full, a resume the changed scorer or dataset forbids —
one sentence on stderr, never a traceback); 4 the API refused our credentials,
the model, or a parameter in a way the harness cannot adapt to (the message names
the flag to change), or the run's first requests all failed to connect or got the
same 4xx (:mod:`.failfast`); 1 ``--debug`` found problems (every failing task is named
with its reason); 130 interrupted (finished tasks are kept; ``--resume``
continues).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
import signal
import sys
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from ...dataset.benchmark import ALL, BENCHMARK
from ...dataset.sampling import LIMIT_ORDERS, STRATIFIED
from ...model.errors import StructEvalError
from ...presentation import FACTORS, PresentationError
from ...safe_files import FileAccessError, explain_os_error, read_capped
from ...safe_text import echo, valid_unicode
from ...statistics.runs import format_statistics
from ..client.failfast import EndpointUnusable
from ..client.negotiation import IMAGE_DETAILS, RESERVED_FIELDS, ParameterRejected
from ..client.response import MAX_ANSWER_CHARS
from ..client.transport import ServiceFatal
from ..common.settings import PROMPT_TYPES, GradingSettings, RetryPolicy, TransportSettings
from ..common.trace import Redactor
from ..inputs.images import MAX_IMAGE_BYTES
from ..inputs.prompts import LANGUAGES, MODALITIES
from ..inputs.task_input import IMAGE_MODES, MAX_DXF_BYTES
from ..inputs.tasks import select_tasks, verify_selected
from ..inputs.zoom import DEFAULT_MAX_ZOOMS, MAX_ZOOMS_LIMIT
from ..run.batch import DEFAULT_POLL_S, BatchSettings
from ..run.cost import PriceError, prices_from_options
from ..run.dry_run import estimate, format_estimate
from ..run.progress import DEFAULT_INTERVAL_S, ProgressLines
from ..run.response_cache import ResponseCache, parse_size
from ..run.runner import Session
from .cli_help import GroupedCommand
from .printout import format_failures, format_summary

EXIT_UNAVAILABLE, EXIT_USAGE, EXIT_FATAL, EXIT_INTERRUPTED = 3, 2, 4, 130
LOCAL_PLACEHOLDER_KEY = "no-key"  # sent to a custom --api-base when no key is configured
REASONING_EFFORT_CHOICES = ("minimal", "low", "medium", "high")
MAX_EXTRA_BODY_BYTES = 1 << 20

HELP_GROUPS = {
    "Model and endpoint": ["model", "api_base", "api_key", "reasoning_effort", "extra_body",
                           "temperature", "max_tokens", "stream", "timeout"],
    "Prompt and input": ["prompt_type", "lang", "modality", "image_mode", "max_zooms",
                         "image_detail", "max_image_side",
                         "max_retries"],
    "Task selection": ["id_filter", "limit", "limit_order", "split", "presentation", "category",
                       "difficulty", "data_dir"],
    "Run": ["output", "resume", "force_resume", "runs", "concurrency", "tolerance", "dry_run",
            "debug", "progress_interval"],
    "Response cache": ["cache", "cache_dir", "cache_max_bytes"],
    "Cost": ["price_in", "price_out", "prices", "max_cost", "batch", "batch_poll"],
    "Retries and limits": ["transport_retries", "backoff_base", "backoff_max", "wait_budget",
                           "max_answer_chars", "max_image_mb", "max_dxf_kb"],
}


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
    echo(f"error: {message}{hint}", err=True)
    if session is not None and session.executing:
        _hard_exit(EXIT_USAGE)
    sys.exit(EXIT_USAGE)


class _NotFinite(ValueError):
    """A NaN or an infinite number in --extra-body."""


def _no_constant(name: str) -> Any:
    raise _NotFinite(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"{text} is out of range of a JSON number")
    return value


class FiniteFloatRange(click.FloatRange):
    """A FloatRange that also refuses NaN, which every bound lets through (no comparison
    with NaN is true), and infinities (``--max-cost inf`` is no limit at all)."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def _extra_body(_ctx: click.Context, _param: click.Parameter, value: str | None
                ) -> dict[str, Any]:
    """``--extra-body``: a JSON object (or ``@file.json``) merged into every request."""
    if value is None:
        return {}
    text = value
    if value.startswith("@"):
        try:
            text = read_capped(Path(value[1:]), MAX_EXTRA_BODY_BYTES, "--extra-body file"
                               ).decode("utf-8", errors="replace")
        except FileAccessError as exc:
            raise click.BadParameter(str(exc)) from None
    try:
        body = valid_unicode(json.loads(text, parse_constant=_no_constant,
                                        parse_float=_finite_float))
    except _NotFinite as exc:
        raise click.BadParameter(f"{exc}: JSON has no NaN or Infinity, and a request body "
                                 "with one cannot be sent; give a finite number") from None
    except (ValueError, RecursionError) as exc:
        raise click.BadParameter(f"not valid JSON ({exc}); e.g. "
                                 "'{\"chat_template_kwargs\": {\"enable_thinking\": true}}'"
                                 ) from None
    if not isinstance(body, dict):
        raise click.BadParameter("must be a JSON object of body fields")
    reserved = sorted(set(body) & RESERVED_FIELDS)
    if reserved:
        raise click.BadParameter(f"{', '.join(reserved)} cannot be set here: use the option "
                                 "of that name (--temperature, --max-tokens, "
                                 "--reasoning-effort, --stream)")
    return body


def _size(_ctx: click.Context, _param: click.Parameter, value: str) -> int:
    try:
        return parse_size(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _explicit(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE,
                                              ParameterSource.ENVIRONMENT)


def _check_zoom(image_mode: str, max_zooms: int | None, batch: bool,
                extra_body: dict[str, Any]) -> None:
    """The options that cannot go with (or without) ``--image-mode zoom``, as usage errors."""
    if image_mode != "zoom":
        if max_zooms is not None:
            raise click.UsageError("--max-zooms goes with --image-mode zoom")
        return
    if batch:
        raise click.UsageError("--batch cannot be combined with --image-mode zoom: a zoom "
                               "attempt is a conversation of several requests, and a batch "
                               "job line holds one")
    taken = sorted({"tools", "tool_choice"} & set(extra_body))
    if taken:
        raise click.UsageError(f"--extra-body may not set {', '.join(taken)} with "
                               "--image-mode zoom: the harness sends its own zoom tool")


def _progress_lines(interval: float) -> ProgressLines | None:
    """Periodic lines on stdout when it is not a terminal (a terminal has the bar)."""
    if interval <= 0 or sys.stdout.isatty():
        return None
    return ProgressLines(interval, lambda text: click.echo(text))


@click.command(cls=GroupedCommand, groups=HELP_GROUPS,
               context_settings={"help_option_names": ["-h", "--help"],
                                 "max_content_width": 100})
@click.option("--model", help="Model name sent to the chat-completions API, e.g. gpt-4o.")
@click.option("--api-base", envvar="OPENAI_BASE_URL", show_envvar=True,
              help="OpenAI-compatible endpoint; default: the OpenAI API.")
@click.option("--api-key", envvar="OPENAI_API_KEY", show_envvar=True, show_default=False,
              help="API key (never printed, logged, cached or stored).")
@click.option("--reasoning-effort", type=click.Choice(REASONING_EFFORT_CHOICES),
              help="Sent as reasoning_effort (OpenAI reasoning models); only when given.")
@click.option("--extra-body", callback=_extra_body, metavar="JSON",
              help="JSON object (or @file.json) merged into every request body, e.g. vLLM "
                   "chat_template_kwargs or a provider's thinking budget.")
@click.option("--temperature", default=0.0, show_default=True, type=FiniteFloatRange(0, 2),
              help="Omitted for reasoning models (o1/o3/o4/gpt-5 families) unless given "
                   "explicitly, and after a 400 that refuses it.")
@click.option("--max-tokens", default=8192, show_default=True, type=click.IntRange(1),
              help="Completion limit, sent as max_tokens or max_completion_tokens as the "
                   "endpoint accepts (reasoning models spend it on reasoning too).")
@click.option("--stream/--no-stream", default=False, show_default=True,
              help="Stream completions (SSE).")
@click.option("--timeout", default=600.0, show_default=True,
              type=FiniteFloatRange(0, min_open=True),
              help="Wall-clock seconds for one whole request: connect, headers, body and "
                   "stream together (a server trickling bytes cannot stretch it).")
@click.option("--max-retries", default=3, show_default=True, type=click.IntRange(0, 20),
              help="Repair rounds after a failed first attempt (the diagnosis is fed back).")
@click.option("--debug", is_flag=True,
              help="Verify the selected tasks (images, ground truth through solver and "
                   "scorer) and exit; no API calls.")
@click.option("--dry-run", is_flag=True,
              help="Print the requests, estimated tokens and cost of the run and exit; "
                   "nothing is sent.")
@click.option("--prompt-type", type=click.Choice(PROMPT_TYPES), default="standard",
              show_default=True)
@click.option("--lang", type=click.Choice(LANGUAGES), default="en", show_default=True,
              help="Language of the system prompt, task text, repair feedback and diagnosis "
                   "(the JSON is the same); task notes are sent as the dataset stores them.")
@click.option("--modality", type=click.Choice(MODALITIES), default="image", show_default=True,
              help="Show the drawing as an image, or as the text of its DXF file (tasks "
                   "without one are skipped and counted).")
@click.option("--image-mode", type=click.Choice(IMAGE_MODES), default="fit", show_default=True,
              help="How an image is shown: 'fit' (one picture, downscaled only by "
                   "--max-image-side), 'tiles' (the sheet downscaled, then overlapping "
                   "native-scale crops, each labelled with its pixel box) or 'zoom' (the sheet "
                   "downscaled and a zoom(x, y, width, height) tool that returns native-scale "
                   "crops; needs tool calling).")
@click.option("--max-zooms", type=click.IntRange(1, MAX_ZOOMS_LIMIT), metavar="N",
              help=f"With --image-mode zoom: zoom calls per attempt (default "
                   f"{DEFAULT_MAX_ZOOMS}); for no zoom at all use --image-mode fit or tiles.")
@click.option("--image-detail", type=click.Choice(IMAGE_DETAILS),
              help="OpenAI image detail (low|high|auto); sent only when given.")
@click.option("--max-image-side", type=click.IntRange(16), metavar="PX",
              help="Downscale images whose longer side exceeds PX before sending.")
@click.option("--filter", "id_filter",
              help="Only tasks whose id matches: a glob (beam_0*) or a substring.")
@click.option("--limit", type=click.IntRange(1),
              help="At most this many tasks (after filters): a sample spread over category x "
                   "level in proportion (deterministic), unless --limit-order id.")
@click.option("--limit-order", type=click.Choice(LIMIT_ORDERS), default=STRATIFIED,
              show_default=True,
              help="How --limit chooses: 'stratified' (category x level, in proportion) or "
                   "'id' (the first tasks in id order).")
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
@click.option("--output", type=click.Path(file_okay=False, path_type=Path),
              help="Run directory; default results/<model>_<prompt>_<UTC time>.")
@click.option("--resume", is_flag=True,
              help="Continue the run in --output: only missing or unavailable tasks are run.")
@click.option("--force-resume", is_flag=True,
              help="Resume even though the scorer, solver binary or dataset changed since the "
                   "run began (recorded in run.json).")
@click.option("--data-dir", metavar="DIR|hf://OWNER/NAME@REV",
              help="Dataset: a data/ folder, a folder written by tools/export_hf.py, or a "
                   "Hugging Face dataset hf://owner/name@revision (needs `datasets`); "
                   "default: STRUCTEVAL_DATA, else the checkout's data/.")
@click.option("--tolerance", default=0.02, show_default=True,
              type=FiniteFloatRange(0, 1, min_open=True), help="Scorer's relative tolerance.")
@click.option("--cache/--no-cache", default=True, show_default=True,
              envvar="STRUCTEVAL_RESPONSE_CACHE", show_envvar=True,
              help="Reuse replies of earlier runs with the same request (a rerun of the same "
                   "settings sends nothing).")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Response cache folder; default $XDG_CACHE_HOME/structeval/responses or "
                   "~/.cache/structeval/responses.")
@click.option("--cache-max-bytes", default="2G", show_default=True, callback=_size,
              metavar="SIZE", help="Bound of the response cache (e.g. 500M, 4G); least "
                                   "recently used replies are evicted beyond it.")
@click.option("--price-in", type=FiniteFloatRange(0), metavar="USD",
              help="Price per million input (prompt) tokens.")
@click.option("--price-out", type=FiniteFloatRange(0), metavar="USD",
              help="Price per million output (completion) tokens, reasoning included.")
@click.option("--prices", "prices_file", type=click.Path(dir_okay=False, path_type=Path),
              help="JSON file of model → {\"in\": USD, \"out\": USD} per million tokens.")
@click.option("--max-cost", type=FiniteFloatRange(0, min_open=True), metavar="USD",
              help="Stop starting tasks once this session has paid this much (in-flight "
                   "tasks finish; the rest is resumable). Needs prices.")
@click.option("--batch", is_flag=True,
              help="Send the first attempts through the OpenAI Batch API (half the price, "
                   "answers within 24 h; repairs are sent live); --resume continues a "
                   "submitted job instead of submitting it again.")
@click.option("--batch-poll", default=DEFAULT_POLL_S, show_default=True, metavar="SECONDS",
              type=click.FloatRange(0.01, 3600),
              help="Seconds between two looks at a running batch job.")
@click.option("--transport-retries", default=6, show_default=True, type=click.IntRange(1, 100),
              help="Requests per call before a task is declared unavailable.")
@click.option("--backoff-base", default=2.0, show_default=True, type=FiniteFloatRange(0),
              help="First backoff delay in seconds (doubles per failure, ±25% jitter).")
@click.option("--backoff-max", default=60.0, show_default=True, type=FiniteFloatRange(0),
              help="Longest wait between two tries in seconds, a server's Retry-After "
                   "included (NaN, negative or absurd Retry-After values are ignored).")
@click.option("--wait-budget", default=600.0, show_default=True, type=FiniteFloatRange(0),
              help="Most seconds of backoff one task may wait in all; past it the task is "
                   "unavailable now and --resume runs it again.")
@click.option("--max-answer-chars", default=MAX_ANSWER_CHARS, show_default=True,
              type=click.IntRange(1000), help="Characters of an answer kept and graded; the "
              "rest is not read (noted in the trace).")
@click.option("--max-image-mb", default=MAX_IMAGE_BYTES / (1 << 20), show_default=True,
              type=FiniteFloatRange(0, min_open=True),
              help="Largest task image sent, in MB; a larger one makes its task unavailable "
                   "with the reason.")
@click.option("--max-dxf-kb", default=MAX_DXF_BYTES // 1024, show_default=True,
              type=click.IntRange(1), help="Largest DXF file sent, in KB (--modality dxf).")
@click.option("--runs", default=1, show_default=True, type=click.IntRange(1, 100),
              help="Answer every task this many independent times; results.json then reports "
                   "the mean with a task-bootstrap 95% CI, per-run scores and stage "
                   "consistency (use --temperature > 0 for independent samples).")
@click.option("--progress-interval", default=DEFAULT_INTERVAL_S, show_default=True,
              type=click.FloatRange(0), metavar="SECONDS",
              help="When stdout is not a terminal (a log file, a pipe), print a progress line "
                   "this often: tasks done, running accuracy, unavailable, cost; 0: never.")
@click.pass_context
def main(ctx: click.Context, model: str | None, api_base: str | None, api_key: str | None,
         reasoning_effort: str | None, extra_body: dict[str, Any], temperature: float,
         max_tokens: int, stream: bool, timeout: float, max_retries: int, debug: bool,
         dry_run: bool, prompt_type: str, lang: str, modality: str, image_mode: str,
         max_zooms: int | None, image_detail: str | None,
         max_image_side: int | None, id_filter: str | None, limit: int | None,
         limit_order: str, split: str | None, presentation: tuple[str, ...],
         category: tuple[str, ...],
         difficulty: tuple[int, ...], concurrency: int, output: Path | None, resume: bool,
         force_resume: bool, data_dir: str | None, tolerance: float, cache: bool,
         cache_dir: Path | None, cache_max_bytes: int, price_in: float | None,
         price_out: float | None, prices_file: Path | None, max_cost: float | None,
         transport_retries: int, backoff_base: float, backoff_max: float, wait_budget: float,
         max_answer_chars: int, max_image_mb: float, max_dxf_kb: int, runs: int,
         batch: bool, batch_poll: float, progress_interval: float) -> None:
    """Ask a vision-language model to write each drawing as FrameCalc JSON and grade it.

    \b
    Examples:
      python run_eval.py --model gpt-4o
      python run_eval.py --model gpt-5 --reasoning-effort high
      python run_eval.py --model gpt-4o --lang zh --presentation language=zh
      python run_eval.py --model gpt-4o --dry-run --price-in 2.5 --price-out 10
      python run_eval.py --model gpt-4o --batch --output results/gpt-4o-batch
    """
    if hasattr(signal, "SIGXFSZ"):  # past `ulimit -f` a write fails with EFBIG: a sentence
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    redact = Redactor([api_key])
    model = valid_unicode(model)  # bytes that are not UTF-8 in argv arrive as lone surrogates
    if not debug:
        if not model:
            raise click.UsageError("--model is required (unless --debug)")
        if not api_key and not api_base and not dry_run:
            raise click.UsageError("no API key: pass --api-key or set OPENAI_API_KEY")
        if resume and output is None:
            raise click.UsageError("--resume needs the --output directory of the run to continue")
        if force_resume and not resume:
            raise click.UsageError("--force-resume goes with --resume")
    if image_mode != "fit" and modality == "dxf":
        raise click.UsageError(f"--image-mode {image_mode} needs --modality image (a DXF run "
                               "sends no image)")
    _check_zoom(image_mode, max_zooms, batch, extra_body)
    if image_mode == "zoom":
        max_zooms = max_zooms or DEFAULT_MAX_ZOOMS
    try:
        prices = prices_from_options(price_in, price_out, prices_file, model or "")
    except PriceError as exc:
        raise click.UsageError(str(exc)) from None
    if max_cost is not None and prices is None:
        raise click.UsageError("--max-cost needs prices: --price-in/--price-out or --prices")
    if batch and max_cost is not None:
        raise click.UsageError("--batch cannot be combined with --max-cost: a submitted batch "
                               "job is billed whole; see the estimate with --dry-run first")
    try:
        chosen_split = split or (ALL if debug else BENCHMARK)
        tasks = select_tasks(data_dir, split=chosen_split, categories=category,
                             difficulties=difficulty, id_filter=id_filter, limit=limit,
                             presentation=presentation, limit_order=limit_order)
    except PresentationError as exc:
        raise click.BadParameter(str(exc), param_hint="--presentation") from None
    except StructEvalError as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    if not tasks:
        echo("error: no task matches the selection", err=True)
        sys.exit(EXIT_USAGE)
    if debug:
        report = verify_selected(tasks)
        echo(report.table())
        if report.failures:
            echo(format_failures(report.failures))
        sys.exit(0 if report.ok else 1)
    assert model is not None
    api_key = api_key or LOCAL_PLACEHOLDER_KEY
    output = output or _default_output(model, prompt_type)

    grading = GradingSettings(model=model, prompt_type=prompt_type, temperature=temperature,
                              max_tokens=max_tokens, max_retries=max_retries,
                              tolerance=tolerance, lang=lang, modality=modality,
                              reasoning_effort=reasoning_effort, extra_body=extra_body,
                              image_detail=image_detail, max_image_side=max_image_side,
                              image_mode=image_mode, max_zooms=max_zooms)
    transport = TransportSettings(api_base=api_base, timeout=timeout, stream=stream,
                                  concurrency=concurrency)
    longest = max(backoff_max, backoff_base)
    policy = RetryPolicy(tries=transport_retries, base_delay=backoff_base, max_delay=longest,
                         max_retry_after=longest, wait_budget=wait_budget)
    echo_note = lambda text: echo(redact(text), err=True)  # noqa: E731
    responses = ResponseCache(cache_dir, max_bytes=cache_max_bytes, redact=redact,
                              warn=echo_note) if cache else None
    if responses is not None and responses.untrusted:
        responses = None  # warned: an untrusted folder is no cache at all
    session: Session | None = None
    try:
        session = Session(output, grading=grading, transport_settings=transport,
                          policy=policy, api_key=api_key, resume=resume, runs=runs,
                          data_dir=data_dir, max_answer_chars=max_answer_chars,
                          max_image_bytes=int(max_image_mb * (1 << 20)), cache=responses,
                          prices=prices, max_cost=max_cost, force_resume=force_resume,
                          temperature_explicit=_explicit(ctx, "temperature"),
                          max_dxf_bytes=max_dxf_kb * 1024,
                          batch=BatchSettings(poll_s=batch_poll) if batch else None,
                          progress_lines=_progress_lines(progress_interval),
                          selection={"split": chosen_split, "filter": id_filter,
                                     "category": list(category),
                                     "difficulty": list(difficulty),
                                     "presentation": list(presentation), "limit": limit,
                                     "limit_order": limit_order})
        if dry_run:
            found = estimate(tasks, grading=grading, system_prompt=session.prompt,
                             negotiator=session.negotiator_for_estimate(), api_base=api_base,
                             runs=runs, cache=responses, max_image_bytes=session.max_image_bytes,
                             max_dxf_bytes=session.max_dxf_bytes)
            echo(format_estimate(found, prices, batch=batch))
            sys.exit(0)
        outcome = session.run(tasks, echo=echo_note)
    except ParameterRejected as exc:
        echo(f"error: {redact(str(exc))}\nNothing more was sent; the run's files are in "
                   f"{output}. Change the flag and start a new run.", err=True)
        _hard_exit(EXIT_FATAL)
    except EndpointUnusable as exc:
        click.echo(f"error: {redact(str(exc))} (once it answers, continue with --resume "
                   f"--output {output})", err=True)
        _hard_exit(EXIT_FATAL)
    except ServiceFatal as exc:
        echo(f"error: {redact(str(exc))}\nFinished tasks are kept in {output}; "
                   f"continue with --resume --output {output}", err=True)
        _hard_exit(EXIT_FATAL)
    except KeyboardInterrupt:
        echo(f"\ninterrupted: finished tasks are kept in {output}; "
                   f"continue with --resume --output {output}", err=True)
        _hard_exit(EXIT_INTERRUPTED)
    except StructEvalError as exc:
        _fail(redact(str(exc)), output, session)
    except OSError as exc:  # a write we did not foresee: still one sentence, never a traceback
        _fail(redact(explain_os_error(exc, exc.filename or output, "write")), output, session)
    echo(redact(format_summary(outcome.summary, model=model, prompt_type=prompt_type,
                                     output=str(output))))
    echo(format_statistics(outcome.summary["statistics"]))
    if outcome.reused:
        echo(f"(resumed: {outcome.reused} task(s) taken from earlier sessions, "
                   f"{outcome.ran} run now)")
    sys.exit(EXIT_UNAVAILABLE if outcome.summary["unavailable"] else 0)

