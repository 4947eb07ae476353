"""The HTML report's factor table and per-structure presentations, from the scripted factor run.

Expected figures are hand arithmetic on the table in ``tests/factor_run.py``
(the same figures ``test_factors_run.py`` checks in results.json), formatted as
the page shows them. The page is also opened in headless Chromium, when
installed, to check the factor filters on the task list and the gallery.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import sys

import pytest

from structeval.reports.report import build_report
from tests.factor_run import TASKS, make_factor_run
from tests.test_reports_html import ROOT, browser, console_errors, open_page  # noqa: F401

HOSTILE = "<img src=x onerror='window.__pwned=1'>"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("factor-report")
    run = make_factor_run(tmp)
    path = tmp / "report.html"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "report.py"), str(run.run),
                           "-o", str(path), "--no-progress"], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # the run's own data folder was found through run.json
    return {"run": run, "path": path, "html": path.read_text("utf-8"), "tmp": tmp}


def section(html: str, ident: str) -> str:
    start = html.index(f"<section id='{ident}'>")
    return html[start:html.index("</section>", start)]


def cells(row_html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row_html)]


def test_the_factor_table_by_hand(page):
    """language zh: 6 tasks, 1 unavailable, max score 1+1+3+3+2+2; pass@1 4.75/12,
    after repair 7.75/12, average ratio 4.25/6. style sketch: 2 tasks, pass@1 1.5/4,
    after repair 2.5/4, average ratio 1.5/2."""
    table = section(page["html"], "factors")
    rows = {(f, v): r for f, v, r in re.findall(
        r"<tr data-factor='(\w+)' data-value='([\w-]+)'>(.*?)</tr>", table)}
    assert set(rows) == {("dimensioning", "full"), ("dimensioning", "exam"),
                         ("language", "en"), ("language", "zh"), ("style", "cad"),
                         ("style", "sketch"), ("modality", "image")}  # run.json records it
    assert cells(rows["language", "zh"])[-7:] == [
        "zh", "6", "1", str(1 + 1 + 3 + 3 + 2 + 2), f"{100 * 4.75 / 12:.1f}%",
        f"{100 * 7.75 / 12:.1f}%", f"{100 * 4.25 / 6:.1f}%"]
    assert cells(rows["style", "sketch"]) == [
        "sketch", "2", "0", "4", f"{100 * 1.5 / 4:.1f}%", f"{100 * 2.5 / 4:.1f}%",
        f"{100 * 1.5 / 2:.1f}%"]


def test_the_delta_table_and_robustness_by_hand(page):
    """zh − en over B, F, T: pass@1 −0.875/6, after repair −0.75/6, controlled −1.5/6 and
    −0.75/6 (see test_factors_run.py); robustness 1 of 3 and 2 of 3."""
    table = section(page["html"], "factors")
    row = re.search(r"<tr data-factor='language'>(.*?)</tr>", table).group(1)
    got = cells(row)
    assert got[:3] == ["language: zh − en", "3", "3"]
    assert [c.split(" [")[0] for c in got[3:7]] == [
        f"{100 * -0.875 / 6:+.1f}", f"{100 * -0.75 / 6:+.1f}", f"{100 * -1.5 / 6:+.1f}",
        f"{100 * -0.75 / 6:+.1f}"]
    assert got[7:] == [""]  # no confounding note: language is varied alone
    robust = re.search(r"<p id='robustness'>(.*?)</p>", table).group(1)
    assert re.sub(r"<[^>]+>", "", robust).endswith(
        f"pass@1 {100 / 3:.1f}% (1 of 3); after repair {200 / 3:.1f}% (2 of 3).")


def test_each_structure_shows_its_presentations_side_by_side(page):
    gallery = section(page["html"], "structures")
    cards = re.findall(r"<article class='structure' data-structure='(\w+)'>(.*?)</article>",
                       gallery)
    per_card = {s: re.findall(r"data-id='([\w-]+)'", body) for s, body in cards}
    assert per_card == {"beam_t01": ["B-en", "B-sk", "B-zh"], "beam_t02": ["C-en", "C-zh"],
                        "frame_t01": ["F-en", "F-ex", "F-sk", "F-zh"],
                        "truss_t01": ["T-en", "T-zh"]}
    # each thumbnail is the task's own picture, filled in by the page's script (stored once)
    assert len(re.findall(r"<img class='thumb' data-from='img-\d+'", gallery)) == len(TASKS)
    frame = dict(cards)["frame_t01"]
    assert "(differing in dimensioning, language, style)" in frame
    ex = re.search(r"data-id='F-ex'>(.*?)</figure>", frame).group(1)
    assert "dimensioning exam · language en · style cad" in ex
    assert "pass@1 <span class='stage s-supports'>supports</span> 0.25" in ex
    assert "after repair <span class='stage s-loads'>loads</span> 0.75" in ex
    assert "s-unavailable'>unavailable</span>" in dict(cards)["beam_t02"]


def test_the_task_list_can_be_filtered_by_factor(page):
    html = page["html"]
    selects = re.findall(r"<select id='f-factor-(\w+)' class='f-factor' data-factor='\w+'>"
                         r"(.*?)</select>", html)
    assert [(f, re.findall(r"value='([\w-]*)'", opts)) for f, opts in selects] == [
        ("dimensioning", ["", "full", "exam"]), ("language", ["", "en", "zh"]),
        ("style", ["", "cad", "sketch"])]
    article = re.search(r"<article class='task' [^>]*data-id='F-sk'[^>]*>", html).group(0)
    assert "data-f-language='zh'" in article and "data-f-style='sketch'" in article


def test_older_results_have_no_factor_part(page, tmp_path):
    run = tmp_path / "old"
    shutil.copytree(page["run"].run, run)
    data = json.loads((run / "results.json").read_text())
    for t in data["tasks"]:
        del t["structure"], t["presentation"]
    for key in ("by_factor", "presentation_deltas", "presentation_robustness"):
        del data["summary"][key]
    (run / "results.json").write_text(json.dumps(data))
    html, _ = build_report(run, data_dir=page["run"].data)
    assert "id='factors'" not in html and "id='structures'" not in html
    assert "class='f-factor'" not in html
    assert html.count("<article class='task'") == len(TASKS)


def test_factor_values_from_an_edited_results_file_are_escaped(page, tmp_path):
    run = tmp_path / "edited"
    shutil.copytree(page["run"].run, run)
    data = json.loads((run / "results.json").read_text())
    for t in data["tasks"]:
        if t["presentation"]["language"] == "zh":
            t["presentation"]["language"] = HOSTILE
    (run / "results.json").write_text(json.dumps(data))
    html, _ = build_report(run, data_dir=page["run"].data)
    assert HOSTILE not in html
    assert "&lt;img src=x onerror=&#x27;window.__pwned=1&#x27;&gt;" in html
    assert html.count("<script>") == 1


def test_the_factor_filters_work_in_chromium(page, browser):  # noqa: F811
    tools = open_page(browser, page["path"].resolve().as_uri())
    try:
        got = tools.evaluate("""(() => {
            const pick = (id, value) => {
              const el = document.getElementById(id);
              el.value = value;
              el.dispatchEvent(new Event('change'));
            };
            const tasks = () => Array.from(document.querySelectorAll('article.task'))
                                     .filter(a => !a.hidden).map(a => a.dataset.id);
            const figures = () => Array.from(document.querySelectorAll('figure.shown'))
                                       .filter(f => !f.hidden).map(f => f.dataset.id);
            const cards = () => Array.from(document.querySelectorAll('article.structure'))
                                     .filter(a => !a.hidden).map(a => a.dataset.structure);
            const out = {all: tasks().length, figures: figures().length};
            pick('f-factor-language', 'zh');
            out.zh = tasks(); out.zhFigures = figures(); out.zhCards = cards();
            pick('f-factor-style', 'sketch');
            out.sketch = tasks(); out.sketchCards = cards();
            out.shown = document.getElementById('shown').textContent;
            pick('f-factor-language', ''); pick('f-factor-style', '');
            out.reset = tasks().length;
            out.pwned = window.__pwned === undefined ? null : window.__pwned;
            out.broken = Array.from(document.images)
                              .filter(i => !i.complete || i.naturalWidth === 0).length;
            return out;
        })()""")
        zh = [t for t, (_, shown) in TASKS.items() if shown["language"] == "zh"]
        assert (got["all"], got["figures"], got["reset"]) == (len(TASKS), len(TASKS), len(TASKS))
        assert sorted(got["zh"]) == sorted(got["zhFigures"]) == sorted(zh)
        assert got["zhCards"] == ["beam_t01", "beam_t02", "frame_t01", "truss_t01"]
        assert sorted(got["sketch"]) == ["B-sk", "F-sk"]
        assert got["sketchCards"] == ["beam_t01", "frame_t01"]
        assert got["shown"] == f"2 of {len(TASKS)} task(s) shown"
        assert got["pwned"] is None and got["broken"] == 0
        assert console_errors(tools.events) == []
        shot = tools.call("Page.captureScreenshot", format="png")
        assert len(shot["data"]) > 10_000
        (page["tmp"] / "factor-report.png").write_bytes(base64.b64decode(shot["data"]))
    finally:
        tools.close()
