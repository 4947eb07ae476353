"""tools/report.py end to end: a scripted run, its HTML report, and the page in Chromium.

The run is made by the real harness against the scripted local server of the
harness tests (no network, no key), on a four-task fixture dataset, with one
outcome of each kind: repaired to perfect, stuck at loads after a no-JSON
answer, stuck at geometry (an invalid model and a repaired-JSON answer in between), and
unavailable. The page is
then opened in headless Chromium through the DevTools protocol (a small
websocket client below, stdlib only) to check that it renders without console
errors or network requests, that every task section and image is there, that
the filters work, and to save a screenshot.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import queue
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from structeval.harness import GradingSettings, RetryPolicy, Session
from structeval.harness.common.settings import TransportSettings
from structeval.reports.report import build_report
from tests.fakeserver import fixture as fx
from tests.fakeserver.server import Answer, Fail, FakeOpenAI, Script

ROOT = Path(__file__).resolve().parents[1]
ORDER = ("beam_t01", "frame_t01", "truss_t01", "beam_t02")
HOSTILE = ("I cannot read it. <script>window.__pwned = 1</script><img src=x "
           "onerror='window.__pwned = 2'></pre></details>")
EXPECTED_STAGES = {"beam_t01": "perfect", "frame_t01": "loads", "truss_t01": "geometry",
                   "beam_t02": "unavailable"}


def make_run(tmp: Path) -> tuple[Path, Path]:
    """(run directory, data directory) of the scripted four-task run."""
    data = tmp / "data"
    tasks = {t.id: t for t in fx.build_dataset(data)}
    sha = {k: fx.image_sha(t) for k, t in tasks.items()}
    script = (Script()
              .on(sha["beam_t01"], 1, Answer(fx.tagged(fx.support_kind("beam_t01", "S2", "pin"))))
              .on(sha["beam_t01"], 2, Answer(fx.fenced(fx.equivalent("beam_t01"))))
              .on(sha["frame_t01"], 1, Answer(HOSTILE))
              .on(sha["frame_t01"], 2, Answer(fx.tagged(
                  fx.released("frame_t01", "L2", "endB", "rigid"))))
              .on(sha["frame_t01"], 3, Answer(fx.tagged(fx.scaled_load("frame_t01", "Q1", 1.5))))
              .on(sha["truss_t01"], 1, Answer(fx.tagged(fx.moved_point("truss_t01", "C", 0.5))))
              .on(sha["truss_t01"], 2, Answer(fx.tagged(fx.invalid("truss_t01"))))
              .on(sha["truss_t01"], 3, Answer(fx.broken_json(
                  fx.moved_point("truss_t01", "C", 0.5))))
              .on(sha["beam_t02"], 1, Fail(503)))
    out = tmp / "run"
    with FakeOpenAI(script) as server:
        Session(out, grading=GradingSettings(model="fake-vlm", max_retries=2),
                transport_settings=TransportSettings(api_base=server.base_url, timeout=5.0,
                                                     concurrency=2),
                policy=RetryPolicy(tries=2, base_delay=0.001, max_delay=0.002),
                api_key=fx.SECRET_KEY, resume=False, data_dir=data).run([tasks[i] for i in ORDER],
                                                         progress=False, echo=lambda _t: None)
    return out, data


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("report")
    run, data = make_run(tmp)
    html_path = tmp / "report.html"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "report.py"), str(run),
                           "--data-dir", str(data), "-o", str(html_path), "--no-progress"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return {"run": run, "data": data, "path": html_path, "html": html_path.read_text("utf-8"),
            "tmp": tmp, "stdout": done.stdout, "stderr": done.stderr}


# ----------------------------------------------------------------------------- the file


def sections(html: str) -> dict[str, str]:
    parts = re.split(r"(?=<article class='task')", html)
    out = {}
    for part in parts[1:]:
        task_id = re.search(r"data-id='([^']+)'", part).group(1)
        out[task_id] = part.split("</article>")[0]
    return out


def test_every_task_has_its_section_in_dataset_order(report):
    found = sections(report["html"])
    assert list(found) == list(ORDER)
    for task_id, stage in EXPECTED_STAGES.items():
        assert f"data-stage='{stage}'" in found[task_id]
    assert report["stderr"] == ""  # no warnings: dataset and trace were found


PICTURES = {  # the unavailable task has no reconstruction; a pin-jointed truss no moments
    "beam_t01": ["gt", "cand", "gtm", "candm"],
    "frame_t01": ["gt", "cand", "gtm", "candm"],
    "truss_t01": ["gt", "cand"],
    "beam_t02": ["gt", "gtm"],
}


def payload(html: str) -> dict[str, Any]:
    """The page's packed data block (drawings and raw answers), unpacked as the browser does."""
    packed = re.search(r"<script type='application/octet-stream' id='page-data'>([^<]*)"
                       "</script>", html).group(1)
    return json.loads(gzip.decompress(base64.b64decode(packed)))


def drawn(sketches: dict[str, Any]) -> list[str]:
    """Which of the four drawings a task's data can draw (the others carry a note)."""
    out = [side for side in ("gt", "cand") if sketches[side] is not None]
    return out + [f"{side}m" for side in ("gt", "cand")
                  if sketches[side] is not None and "m" in sketches[side]]


def test_pictures_per_task(report):
    found = sections(report["html"])
    data = payload(report["html"])
    for k, task_id in enumerate(ORDER):
        assert re.findall(r"<img class='([a-z-]+)' id='img-\d+' src='data:image/webp;base64,",
                          found[task_id]) == ["input"], task_id
        assert sorted(drawn(data["s"][k])) == sorted(PICTURES[task_id]), task_id
    assert "the task has no graded attempt" in data["s"][3]["candNote"]
    # a truss's |M| is round-off (~1e-18 kN·m): a note, not noise scaled to full height
    truss = data["s"][2]
    assert all("no bending moment anywhere" in truss[side]["mnote"] for side in ("gt", "cand"))


def test_the_page_is_self_contained(report):
    html = report["html"]
    assert not re.search(r"""(?:src|href)\s*=\s*['"](?!data:)""", html)
    assert "@import" not in html and "url(" not in html
    assert "Content-Security-Policy" in html
    assert len(html.encode()) < 200_000  # four tasks: pictures are small WebP, data packed


def test_differences_diagnosis_and_feedback_are_shown(report):
    found = sections(report["html"])
    frame = found["frame_t01"]
    loads = "the loads on the member between your point B and your point C"
    assert frame.count(loads) == 1  # the diagnosis, not again in the differences or feedback
    assert frame.count("<li>Attempt ") == 3
    assert frame.count("Feedback sent for the next attempt:") == 2  # after attempts 1 and 2
    assert "Hinges (releases) stage failed" in frame or "releases" in frame
    truss = found["truss_t01"]
    assert "links[0].b" in truss  # the validation issue of the invalid first answer
    assert "Geometry stage failed" in truss
    assert "none: the reconstruction matches the drawing" in found["beam_t01"]


def test_each_diagnosis_is_shown_once(report):
    """A stuck model earns the same diagnosis at every attempt, and each feedback quotes it:
    every distinct diagnosis text stands once in its task's section."""
    found = sections(report["html"])
    for task_id, section in found.items():
        texts = set(re.findall(r"<div>Diagnosis: ([^<]+)</div>", section))
        texts |= set(re.findall(r"<h4>Diagnosis</h4><p>([^<]+)</p>", section))
        for text in texts - {"–"}:
            if not text.startswith("same as "):
                assert section.count(text) == 1, (task_id, text)


def test_hostile_answers_are_escaped(report):
    html = report["html"]
    assert "<script>window.__pwned" not in html
    assert HOSTILE in payload(html)["a"][1]  # the raw answer, shown by textContent
    assert html.count("<script>") == 1


def test_the_key_never_reaches_the_report(report):
    assert fx.SECRET_KEY not in report["html"]


def test_the_report_is_deterministic(report, tmp_path):
    again, _ = build_report(report["run"], data_dir=report["data"])
    assert again == report["html"]


def test_without_data_dir_the_report_uses_the_runs_own_dataset(report):
    """run.json records --data-dir, so the report finds the fixture's dataset by itself."""
    html, warnings = build_report(report["run"])
    assert not any("could not be loaded" in w for w in warnings)
    assert html == report["html"]


def test_a_missing_dataset_is_a_warning_not_a_crash(report, tmp_path):
    html, warnings = build_report(report["run"], data_dir=tmp_path / "nowhere")
    assert any("could not be loaded" in w for w in warnings)
    assert list(sections(html)) == list(ORDER)
    assert "not in the dataset given to the report" in html


def test_a_truncated_trace_still_gives_a_page(report, tmp_path):
    run = tmp_path / "cut"
    shutil.copytree(report["run"], run)
    trace = run / "trace.jsonl"
    data = trace.read_bytes()
    trace.write_bytes(data[: len(data) // 2])
    html, warnings = build_report(run, data_dir=report["data"])
    assert list(sections(html)) == list(ORDER)
    assert any("unreadable line" in w for w in warnings)


def test_an_unknown_run_index_is_refused(report):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "report.py"), str(report["run"]),
                           "--run", "3", "-o", os.devnull], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 2 and "has no run 3" in done.stderr


# ----------------------------------------------------------------------------- Chromium


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class DevTools:
    """Just enough of the Chrome DevTools protocol over a websocket (RFC 6455) client."""

    def __init__(self, ws_url: str, timeout: float = 30.0):
        match = re.match(r"ws://([^/:]+):(\d+)(/.*)", ws_url)
        assert match, ws_url
        host, port, path = match.group(1), int(match.group(2)), match.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            assert chunk, "DevTools closed the connection during the handshake"
            head += chunk
        assert head.startswith(b"HTTP/1.1 101"), head
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def _exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            assert chunk, "DevTools closed the connection"
            buf += chunk
        return buf

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def _message(self) -> dict[str, Any]:
        data = b""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._exact(8))[0]
            payload = self._exact(n)
            opcode = b0 & 0x0F
            if opcode == 9:  # ping
                self._send_frame(10, payload)
                continue
            assert opcode != 8, "DevTools closed the websocket"
            data += payload
            if b0 & 0x80:
                return json.loads(data)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self._send_frame(1, json.dumps({"id": self.next_id, "method": method,
                                        "params": params}).encode())
        while True:
            msg = self._message()
            if msg.get("id") == self.next_id:
                assert "error" not in msg, msg
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, method: str, timeout: float = 30.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while time.monotonic() < end:
            msg = self._message()
            self.events.append(msg)
            if msg.get("method") == method:
                return msg
        raise AssertionError(f"no {method} within {timeout} s")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    exe = chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium; .ci/run "
                    "installs it)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    proc = subprocess.Popen(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--remote-debugging-port=0",
         "--window-size=1400,1000", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found: queue.Queue[int] = queue.Queue()

    def drain() -> None:  # read stderr to the end, so Chromium never blocks on a full pipe
        for line in proc.stderr:
            match = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if match:
                found.put(int(match.group(1)))

    threading.Thread(target=drain, daemon=True).start()
    try:
        try:
            port = found.get(timeout=60)
        except queue.Empty:
            pytest.fail("Chromium did not open its DevTools port within 60 s")
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def open_page(port: int, url: str) -> DevTools:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
        targets = json.loads(resp.read())
    page = next(t for t in targets if t.get("type") == "page")
    tools = DevTools(page["webSocketDebuggerUrl"])
    for domain in ("Page", "Runtime", "Log", "Network"):
        tools.call(f"{domain}.enable")
    tools.call("Page.navigate", url=url)
    tools.wait_for("Page.loadEventFired", timeout=60)
    return tools


def console_errors(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            out.append(str(details.get("exception", {}).get("description")
                           or details.get("text"))[:300])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            out.append(json.dumps(params.get("args", []))[:300])
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            out.append(params["entry"].get("text", "")[:300])
    return out


def test_the_report_renders_in_chromium(report, browser):
    url = report["path"].resolve().as_uri()
    tools = open_page(browser, url)
    try:
        state = tools.evaluate("""(() => {
            const imgs = Array.from(document.images);
            return {
              sections: Array.from(document.querySelectorAll('article.task'))
                             .map(a => a.dataset.id),
              images: imgs.length,
              broken: imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.alt),
              scripts: document.scripts.length,
              pwned: window.__pwned === undefined ? null : window.__pwned,
              shown: document.getElementById('shown').textContent,
              charts: document.querySelectorAll('svg.chart').length,
            };
        })()""")
        assert state["sections"] == list(ORDER)
        assert state["images"] == len(ORDER)  # the input drawings
        assert state["broken"] == []
        assert state["scripts"] == 2 and state["pwned"] is None  # the code, the packed data

        opened = tools.evaluate("""(async () => {
            document.querySelectorAll('details').forEach(d => { d.open = true; });
            await new Promise(r => setTimeout(r, 500));
            const out = {};
            document.querySelectorAll('article.task').forEach(a => {
              out[a.dataset.id] = {
                drawn: Array.from(a.querySelectorAll('[data-which]'))
                            .filter(b => b.querySelector('svg.sketch'))
                            .map(b => b.dataset.which),
                lines: a.querySelectorAll('svg.sketch line').length,
                answers: Array.from(a.querySelectorAll('details.answer pre'))
                              .map(p => p.textContent),
              };
            });
            out.pwned = window.__pwned === undefined ? null : window.__pwned;
            return out;
        })()""")
        for task_id in ORDER:
            assert sorted(opened[task_id]["drawn"]) == sorted(PICTURES[task_id]), task_id
            assert opened[task_id]["lines"] > 0, task_id
        assert opened["frame_t01"]["answers"][0] == HOSTILE  # as text, not as markup
        assert opened["pwned"] is None
        assert state["shown"] == "4 of 4 task(s) shown"
        assert state["charts"] == 5  # category, difficulty, members, loads, stages

        visible = tools.evaluate("""(() => {
            const pick = (id, value) => {
              const el = document.getElementById(id);
              el.value = value;
              el.dispatchEvent(new Event('change'));
            };
            const ids = () => Array.from(document.querySelectorAll('article.task'))
                                   .filter(a => !a.hidden).map(a => a.dataset.id);
            const out = {};
            pick('f-stage', 'perfect'); out.perfect = ids();
            pick('f-stage', ''); pick('f-category', 'beam'); out.beam = ids();
            pick('f-category', ''); pick('f-difficulty', '2'); out.d2 = ids();
            pick('f-difficulty', ''); pick('f-sort', 'ratio-asc'); out.byRatio = ids();
            pick('f-sort', 'dataset'); out.dataset = ids();
            out.shown = document.getElementById('shown').textContent;
            return out;
        })()""")
        assert visible["perfect"] == ["beam_t01"]
        assert visible["beam"] == ["beam_t01", "beam_t02"]
        assert visible["d2"] == ["truss_t01", "beam_t02"]
        # credit: truss 0 and beam_t02 0 (dataset order breaks the tie), frame 0.75, beam 1
        assert visible["byRatio"] == ["truss_t01", "beam_t02", "frame_t01", "beam_t01"]
        assert visible["dataset"] == list(ORDER)

        shot = tools.call("Page.captureScreenshot", format="png")
        png = base64.b64decode(shot["data"])
        artifact = report["tmp"] / "report-screenshot.png"
        artifact.write_bytes(png)
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000

        errors = console_errors(tools.events)
        assert errors == [], errors
        fetched = [e["params"]["request"]["url"][:80] for e in tools.events
                   if e.get("method") == "Network.requestWillBeSent"
                   and not e["params"]["request"]["url"].startswith(("file:", "data:"))]
        assert fetched == []
    finally:
        tools.close()


def test_the_browser_checks_can_fail(browser, tmp_path):
    """The detectors above must see a script error, a console error and a network fetch."""
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><body><img src='http://127.0.0.1:9/x.png'>"
                    "<script>console.error('logged'); throw new Error('boom');</script>"
                    "</body></html>")
    tools = open_page(browser, page.resolve().as_uri())
    try:
        tools.evaluate("1")  # let pending events arrive
        errors = console_errors(tools.events)
        assert any("boom" in e for e in errors) and any("logged" in e for e in errors), errors
        fetched = [e for e in tools.events if e.get("method") == "Network.requestWillBeSent"
                   and e["params"]["request"]["url"].startswith("http:")]
        assert fetched
    finally:
        tools.close()


def test_hostile_ids_in_a_drawing_stay_text(browser, tmp_path):
    """Point ids of a model's answer are drawn by the page's script: as text nodes, never
    as markup (a sketch built from a parsed model whose ids are hostile)."""
    from structeval.model import parse_model
    from structeval.reports.page_assets import CSP
    from structeval.reports.sketch import sketch
    from structeval.reports.sketch_script import SKETCH_JS, packed_block

    hostile = "<img src=x onerror='window.__pwned=3'>"
    model = parse_model({
        "points": [{"id": hostile, "x": 0, "y": 0}, {"id": "B</script>", "x": 4, "y": 0}],
        "links": [{"id": "L1", "a": hostile, "b": "B</script>"}],
        "supports": [{"id": "S1", "at": {"type": "point", "id": hostile}, "kind": "pin"},
                     {"id": "S2", "at": {"type": "point", "id": "B</script>"},
                      "kind": "roller"}],
        "loads": [{"id": "Q1", "kind": "distributedLoad",
                   "at": {"type": "link", "id": "L1"}, "wStart": 5, "wEnd": 5, "angleDeg": -90}]})
    data = {"gt": sketch(model, {"link:L1": "#d55e00"}), "cand": None, "gtNote": None,
            "candNote": hostile}
    boxes = "".join(f"<div data-which='{w}'></div>" for w in ("gt", "cand", "gtm", "candm"))
    page = tmp_path / "hostile.html"
    packed = packed_block("page-data", {"s": [data], "a": [[]]})
    page.write_text(
        f"<!DOCTYPE html><html><head><meta http-equiv='Content-Security-Policy' "
        f"content=\"{CSP}\"></head><body><details class='drawings' data-order='0' open>"
        f"<summary>s</summary>{boxes}</details>{packed}"
        f"<script>{SKETCH_JS}</script></body></html>", encoding="utf-8")
    tools = open_page(browser, page.resolve().as_uri())
    try:
        got = tools.evaluate("""(async () => {
            await new Promise(r => setTimeout(r, 300));
            return {
              texts: Array.from(document.querySelectorAll('svg.sketch text'))
                          .map(t => t.textContent),
              svgs: document.querySelectorAll('svg.sketch').length,
              imgs: document.images.length,
              note: document.querySelector("[data-which='cand']").textContent,
              red: document.querySelectorAll("svg.sketch line[stroke='#d55e00']").length,
              pwned: window.__pwned === undefined ? null : window.__pwned,
            };
        })()""")
        assert got["svgs"] == 2  # the structure and its moments; the candidate is a note
        assert hostile in got["texts"] and "B</script>" in got["texts"]
        assert "5 kN/m" in got["texts"]
        assert got["note"] == hostile and got["imgs"] == 0 and got["pwned"] is None
        assert got["red"] == 1  # the member marked as missing
        # the tab may be the one a test before used: Log/Runtime.enable replay its messages
        start = next(k for k, e in enumerate(tools.events)
                     if e.get("method") == "Page.frameNavigated")
        assert console_errors(tools.events[start:]) == []
    finally:
        tools.close()
