"""Issue 21 (breaks 1, 6, 7, 9 and the cost items): hostile *text* from a server or the
command line against ``run_eval.py``.

* Lone surrogates (JSON ``"\\ud800"``) in an answer, a parameter refusal and the model
  name the API reports, or undecodable bytes in ``--model``: the run finishes, with and
  without the response cache, and ``--resume`` over the cache finishes too.
* Runs of 8 to 60 characters of the key, at any position of a server's error text or of
  a model's answer: none reaches results.json, trace.jsonl, the cache or the console.
* Control sequences in server text (clear screen, window title, colours, CR LF spoofing
  a line): none reaches the console, on a pty or redirected.
* ``--extra-body`` with NaN / Infinity, and ``--max-cost nan``: a usage error (exit 2).
* ``--max-cost`` against a server that reports no usage: the estimate stops the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from structeval.harness.command.cli import main
from structeval.harness.common.trace import MIN_RUN, REDACTED, Redactor, redact_then_cut
from structeval.safe_text import console_text, valid_unicode
from tests.fakeserver import fixture as fx
from tests.fakeserver.process import ROOT, RUN_EVAL, common, run_eval
from tests.fakeserver.server import Answer, Call, Fail, FakeOpenAI, Raw, Reply

GOOD = fx.tagged(fx.GT_MODELS["beam_t02"])
LONG_KEY = "sk-proj-" + hashlib.sha256(b"reltext").hexdigest()[:56]  # 64 characters
SPOOF = "all tasks perfect"
INJECTED = f"\x1b[2J\x1b[31mred\x1b[0m\x1b]0;pwned\x07\x9b1;1H\r\n{SPOOF}\rX\x00\x08"


def _dataset(root: Path, copies: int) -> tuple[Path, list[str]]:
    """``copies`` tasks of one structure, each with its own image; their image sha256s."""
    tasks = fx.build_dataset(root / "data", ["beam_t02"], copies=copies)
    return root / "data", [fx.image_sha(t) for t in tasks]


def _completion(content: str | None, *, model: str = "fake-vlm", usage: bool = True,
                **message: str) -> str:
    """A chat completion as JSON text; ``\\ud800`` written as an escape stays one."""
    body = {"id": "x", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content, **message}}]}
    if usage:
        body["usage"] = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    return json.dumps(body).replace("\\\\ud800", "\\ud800")


def _clean_exit(proc: subprocess.CompletedProcess, code: int) -> None:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr


def _grams(key: str) -> list[str]:
    return [key[i:i + MIN_RUN] for i in range(len(key) - MIN_RUN + 1)]


def _leaks(text: str, key: str) -> list[str]:
    return [g for g in _grams(key) if g in text]


# ------------------------------------------------------------------ the text functions


def test_valid_unicode_replaces_lone_surrogates_in_nested_json_data():
    value = json.loads('{"a\\ud800": ["x\\udfff", {"k": "\\ud83d\\ude00"}], "n": 1}')
    fixed = valid_unicode(value)
    assert fixed == {"a\ufffd": ["x\ufffd", {"k": "\U0001F600"}], "n": 1}
    json.dumps(fixed, ensure_ascii=False).encode("utf-8")  # writable now


def test_console_text_drops_every_control_sequence_and_keeps_lines_and_tabs():
    out = console_text("error:" + INJECTED + "\tend\nnext line")
    assert out == "error:red\n" + SPOOF + "X\tend\nnext line"
    assert "\x1b" not in out and "\r" not in out and "\x07" not in out
    assert console_text("title \x1b]0;unterminated") == "title "
    assert console_text("\ud800") == "\ufffd"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2FF), max_size=60))
def test_console_text_never_lets_a_control_character_through(text):
    out = console_text(text)
    assert all(ch in "\n\t" or not (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F) for ch in out)


@pytest.mark.parametrize("length", [8, 9, 13, 20, 30, 47, 60, 64])
def test_every_run_of_eight_or_more_key_characters_is_masked_at_any_position(length):
    redact = Redactor([LONG_KEY])
    checked = 0
    for start in range(0, len(LONG_KEY) - length + 1, 5):
        run = LONG_KEY[start:start + length]
        for text in (f"Incorrect API key provided: '{run}'. You can find your key at ...",
                     run + " at the start", "at the end " + run, "x" * 500 + run + "y" * 500):
            out = redact(text)
            assert not _leaks(out, LONG_KEY) and REDACTED in out, (length, start, out)
            assert not _leaks(redact_then_cut(text, redact, 40), LONG_KEY)
            checked += 1
    assert checked >= 4
    seven = f"seven characters of the key, {LONG_KEY[:7]}, inside a text stay"
    assert redact(seven) == seven


def test_a_bearer_tokens_runs_elsewhere_in_the_text_are_masked_too():
    redact = Redactor([])
    out = redact("sent Authorization: Bearer tok_4f9a8b7c6d5e4f3a, server saw "
                 "'4f9a8b7c6d5e' in it")
    assert "4f9a8b7c" not in out and out.count(REDACTED) == 2, out


# ------------------------------------------------------------------ break 1: surrogates


class SurrogateServer:
    """Refuses ``temperature`` with a message holding a lone surrogate (adapted once),
    then answers task 0 with one in the answer and task 1 with one in the model name."""

    def __init__(self, shas: list[str]):
        self.shas = shas

    def __call__(self, call: Call) -> Reply:
        if "temperature" in call.body:
            return Raw(json.dumps({"error": {"message": "temperature \\ud800 unsupported",
                                             "param": "temperature"}}
                                  ).replace("\\\\ud800", "\\ud800"), status=400)
        if call.image_sha == self.shas[0]:
            return Raw(_completion(GOOD + "\n\\ud800 done"))
        return Raw(_completion(GOOD, model="fake\\ud800-2025"))


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_lone_surrogates_in_answers_refusals_and_model_names_do_not_stop_a_run(tmp_path,
                                                                               cache):
    data_dir, shas = _dataset(tmp_path, 2)
    out = tmp_path / "run"
    flags = ["--max-retries", "0", "--concurrency", "1",
             *(["--cache", "--cache-dir", str(tmp_path / "cache")] if cache else ["--no-cache"])]
    with FakeOpenAI(SurrogateServer(shas)) as server:
        first = run_eval(*common(server, data_dir, out, *flags))
        _clean_exit(first, 0)
        assert "Negotiated: temperature omitted (HTTP 400: temperature \ufffd unsupported)" \
            in first.stdout
        assert "Answered by: fake-vlm, fake\ufffd-2025" in first.stdout
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        assert [t["stage"] for t in results["tasks"]] == ["perfect", "perfect"]
        trace = (out / "trace.jsonl").read_text(encoding="utf-8")
        assert "\ufffd done" in trace
        if cache:  # a new run over the same cache: every answer is a hit, nothing is sent
            sent = len(server.calls)
            again = run_eval(*common(server, data_dir, tmp_path / "again", *flags))
            _clean_exit(again, 0)
            assert len(server.calls) == sent
            assert "Response cache: 2 answer(s) reused" in again.stdout
        # undecodable bytes in --model arrive as lone surrogates (surrogateescape)
        odd = run_eval(*common(server, data_dir, tmp_path / "odd", *flags)[2:],
                       "--model", "fake\udcff")
        _clean_exit(odd, 0)
        assert "StructuralEval: fake\ufffd" in odd.stdout


# ------------------------------------------------------------------ break 6: key runs


def _key_runs_server(shas: list[str]) -> dict[str, Reply]:
    """Per task, a reply quoting a different run of the key at a different position."""
    k = LONG_KEY
    replies = [Fail(500, f"Incorrect API key provided: '{k[:60]}'. See the docs."),
               Fail(429, f"{k[10:30]} is rate limited"),
               Fail(503, f"overloaded (key ...{k[-8:]})"),
               Answer(f"The key you gave me is {k[3:33]}; anyway:\n" + GOOD),
               Answer(GOOD + "\nsigned " + k[20:28])]
    return dict(zip(shas, replies, strict=True))


def test_runs_of_the_key_in_errors_and_answers_reach_no_file_and_no_console(tmp_path):
    data_dir, shas = _dataset(tmp_path, 5)
    out, cache = tmp_path / "run", tmp_path / "cache"
    replies = _key_runs_server(shas)
    with FakeOpenAI(lambda call: replies[call.image_sha]) as server:
        proc = run_eval(*common(server, data_dir, out, "--max-retries", "0",
                                "--transport-retries", "2", "--cache", "--cache-dir",
                                str(cache)),
                        env_key=LONG_KEY)
        _clean_exit(proc, 3)
        assert all(c.authorization == f"Bearer {LONG_KEY}" for c in server.calls)
        # an error naming the key stops the run: the console gets the message, masked
        fatal = run_eval(*common(server, data_dir, tmp_path / "fatal"), env_key=LONG_KEY)
    results = json.loads((out / "results.json").read_text())
    assert sorted(t["status"] for t in results["tasks"]) == ["scored"] * 2 + \
        ["unavailable"] * 3
    assert "Incorrect API key provided: '[REDACTED]'" in (out / "trace.jsonl").read_text()
    stored = "".join(p.read_text(errors="replace") for p in cache.rglob("*") if p.is_file())
    for name, text in {"results.json": (out / "results.json").read_text(),
                       "trace.jsonl": (out / "trace.jsonl").read_text(),
                       "run.json": (out / "run.json").read_text(), "cache": stored,
                       "console": proc.stdout + proc.stderr}.items():
        assert not _leaks(text, LONG_KEY), name
    assert fatal.returncode in (3, 4) and not _leaks(fatal.stdout + fatal.stderr, LONG_KEY)


# ------------------------------------------------------------------ break 7: terminal


def _on_a_pty(*args: str) -> tuple[int, bytes]:
    """``run_eval.py`` with stdout and stderr on a pseudo-terminal: (exit code, bytes)."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY",
                                                             "OPENAI_BASE_URL")}
    proc = subprocess.Popen([sys.executable, str(RUN_EVAL), *args], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    seen = bytearray()
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        assert ready, "run_eval.py printed nothing for 60 s"
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return proc.wait(60), bytes(seen)


def _assert_no_injection(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text, repr(text)
    lines = text.replace("\r\n", "\n").split("\n")  # a pty writes each newline as CR LF
    assert not any(line.startswith(SPOOF) for line in lines), repr(text)
    assert "Traceback" not in text


@pytest.mark.parametrize("where", ["pty", "redirected"])
def test_control_sequences_in_server_text_never_reach_the_console(tmp_path, where):
    data_dir, _ = _dataset(tmp_path, 1)
    cases = {  # reply → exit code: a 401 stops the run; an unfixable refusal too
        "fatal": (Fail(401, "invalid key" + INJECTED), 4),
        "refusal": (Fail(400, "max_tokens is too large" + INJECTED, param="max_tokens"), 4),
        "adapted": (None, 0),
    }
    for name, (reply, code) in cases.items():
        def respond(call: Call, reply: Reply | None = reply) -> Reply:
            if reply is not None:
                return reply
            if "temperature" in call.body:
                return Fail(400, "temperature unsupported" + INJECTED, param="temperature")
            return Answer(GOOD)

        with FakeOpenAI(respond) as server:
            args = common(server, data_dir, tmp_path / name, "--no-cache", "--max-retries", "0")
            if where == "pty":
                returncode, raw = _on_a_pty(*args, "--api-key", fx.SECRET_KEY)
                text = raw.decode("utf-8", errors="replace")
            else:
                proc = run_eval(*args)
                returncode, text = proc.returncode, proc.stdout + proc.stderr
        assert returncode == code, (name, text)
        _assert_no_injection(text)
        assert SPOOF in text  # the server's words are shown, on the line that quotes them
        assert fx.SECRET_KEY not in text


# ------------------------------------------------------------------ break 9 and cost flags


@pytest.mark.parametrize("body", ['{"a": NaN}', '{"a": {"b": [Infinity]}}', '{"a": -Infinity}',
                                  '{"a": 1e999}'])
@pytest.mark.parametrize("mode", [[], ["--dry-run"], ["--no-cache"]],
                         ids=["run", "dry-run", "no-cache"])
def test_extra_body_with_nan_or_infinity_is_a_usage_error(tmp_path, body, mode):
    data_dir, _ = _dataset(tmp_path, 1)
    result = CliRunner().invoke(main, ["--model", "m", "--api-base", "http://127.0.0.1:9/v1",
                                       "--data-dir", str(data_dir), "--output",
                                       str(tmp_path / "run"), "--extra-body", body, *mode])
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--extra-body'" in result.output
    assert "JSON has no NaN or Infinity" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not (tmp_path / "run").exists()


def test_extra_body_nan_from_a_file_is_a_usage_error_in_a_real_process(tmp_path):
    data_dir, _ = _dataset(tmp_path, 1)
    body = tmp_path / "body.json"
    body.write_text('{"thinking": {"budget": NaN}}')
    proc = run_eval("--model", "m", "--api-base", "http://127.0.0.1:9/v1", "--data-dir",
                    str(data_dir), "--output", str(tmp_path / "run"), "--extra-body", f"@{body}",
                    "--dry-run")
    _clean_exit(proc, 2)
    assert "NaN is not a JSON number" in proc.stderr


@pytest.mark.parametrize("flag", ["--max-cost", "--price-in", "--timeout", "--wait-budget"])
@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_non_finite_number_flag_is_a_usage_error(tmp_path, flag, value):
    data_dir, _ = _dataset(tmp_path, 1)
    result = CliRunner().invoke(main, ["--model", "m", "--api-base", "http://127.0.0.1:9/v1",
                                       "--data-dir", str(data_dir), "--dry-run",
                                       "--price-in", "1", "--price-out", "1",
                                       "--max-cost", "1", flag, value])
    assert result.exit_code == 2, result.output
    assert "is not a finite number" in result.output


def test_max_cost_stops_a_run_whose_server_reports_no_usage(tmp_path):
    """Without usage the meter counts an estimate: at $1000 per million tokens one request
    (a ~1,500-token prompt with its image) costs over $0.5, past --max-cost 0.5."""
    data_dir, _ = _dataset(tmp_path, 4)
    with FakeOpenAI(lambda call: Raw(_completion(GOOD, usage=False))) as server:
        proc = run_eval(*common(server, data_dir, tmp_path / "run", "--concurrency", "1",
                                "--price-in", "1000", "--price-out", "1000",
                                "--max-cost", "0.5", "--no-cache"))
        _clean_exit(proc, 3)
        assert len(server.calls) == 1
    summary = json.loads((tmp_path / "run" / "results.json").read_text())["summary"]
    assert summary["stopped_by_max_cost"] == 3 and summary["scored"] == 1
    assert summary["cost"]["paid_this_session_usd"] == 0  # nothing was reported
    assert summary["cost"]["estimated_this_session_usd"] > 0.5
    assert "3 task(s) not run: --max-cost was reached" in proc.stdout
    assert "counted against --max-cost" in proc.stdout
