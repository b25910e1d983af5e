"""The web pages in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright. A replay page stepped through, jumped in, seen from a seat; ``yaniv serve``
started in a subprocess and a whole game played by clicking legal moves, the replay
downloaded; forged requests refused. Skipped when chromium or Playwright is missing
(``.ci/install-browser`` installs them). Screenshots go to a temporary folder, or to
``$YANIV_SCREENSHOTS`` when set."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import CHROMIUM

import agents
from yaniv_env.tools import replay
from yaniv_env.tools.replay import viewer_data, write_html

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
#: The flags this machine's Chromium needs (no sandbox as root, no GPU, no background network).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("YANIV_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),  # a fresh user-data-dir
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 860},
            accept_downloads=True,
        )
        yield context
        context.close()


@pytest.fixture()
def page(browser):
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # a refused request (4xx) is logged as a failed resource: the tests make some on purpose
    page.on(
        "console",
        lambda m: errors.append(m.text) if m.type == "error" and "Failed to load resource" not in m.text else None,
    )
    yield page
    page.close()
    assert not errors, f"errors in the page: {errors}"


# -- the replay viewer --------------------------------------------------------------------------


def _hand(page, seat: int) -> list[int]:
    return [int(k) for k in page.locator(f'.seat[data-seat="{seat}"] .hand .card').evaluate_all(
        "cards => cards.map(c => c.dataset.kind || -1)")]  # fmt: skip


def test_replay_page(page, tmp_path, shots):
    # seven: first to 100 points, a short game
    rec = replay.record_game(
        "seven", 2, 5, [agents.make("ppo", rules="seven", seed=0), agents.make("heuristic", rules="seven", seed=1)]
    )
    data = viewer_data(rec)
    frames = data["frames"]
    page.goto(write_html(rec, tmp_path / "game.html").as_uri())
    assert page.locator("#title").inner_text() == "Yaniv replay — seven, 2 players"
    assert page.locator("#position").inner_text() == f"step 0 / {len(frames) - 1}"
    for seat in (0, 1):
        assert _hand(page, seat) == frames[0]["table"]["players"][seat]["hand"]
    # forward with the keys, back with the button
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.get_by_role("button", name="◀ back").click()
    assert page.locator("#position").inner_text().startswith("step 2 /")
    decision = frames[2]["decision"]
    assert page.locator("#played").inner_text() == "played: " + data["moves"][str(decision["action"])]
    assert page.locator(".move").count() == len(decision["legal"])
    assert page.locator(".move.chosen").get_attribute("data-action") == str(decision["action"])
    # a decision of the trained agent shows its probabilities
    noted = [i for i, f in enumerate(frames) if f["decision"] and f["decision"]["note"]]
    at = next(i for i in noted if len(frames[i]["decision"]["legal"]) > 2)
    for _ in range(at - 2):
        page.keyboard.press("ArrowRight")
    assert page.locator("#moves-title").inner_text().endswith("the policy's probability of each")
    assert page.locator(".move .num").first.inner_text().endswith("%")
    page.screenshot(path=str(shots / "replay-probabilities.png"))
    # jump to round 3: the end of round 2 is shown, with every hand revealed
    page.select_option("#round", label="round 3")
    start = next(i for i, f in enumerate(frames) if f["table"]["round"] == 3)
    assert page.locator("#position").inner_text() == f"step {start} / {len(frames) - 1}"
    ended = frames[start]["round_over"]
    assert page.locator(".round-over h3").inner_text() == "Round 2 over: " + ended["text"]
    assert page.locator(".round-over .card").count() == sum(map(len, ended["hands"]))
    page.screenshot(path=str(shots / "replay-round-over.png"))
    # player_0's view: player_1's hand as backs (plus its known cards), its moves hidden
    page.select_option("#viewer", value="0")
    table = frames[start]["table"]
    other = table["players"][1]
    assert page.locator('.seat[data-seat="1"] .card.back').count() == other["size"] - len(other["known"])
    assert _hand(page, 0) == table["players"][0]["hand"]
    while frames[int(page.locator("#position").inner_text().split()[1])]["decision"]["seat"] != 1:
        page.keyboard.press("ArrowRight")
    assert "hidden in this view" in page.locator("#moves-title").inner_text()
    assert page.locator(".move").count() == 0
    page.screenshot(path=str(shots / "replay-seat-view.png"))
    page.select_option("#viewer", value="all")
    assert page.locator('.seat[data-seat="1"] .card.back').count() == 0
    # the end: the result
    page.keyboard.press("End")
    assert page.locator("#result-panel").is_visible()
    winner = rec["result"]["ranking"].index(0)
    assert page.locator(".rank-line").first.inner_text().startswith(f"1. player_{winner}")
    assert page.get_by_role("button", name="forward ▶").is_disabled()


# -- the play page --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "training.cli", "serve", "--port", str(port), "--baselines-only"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(url + "/api/options", timeout=1)
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(f"yaniv serve stopped: {proc.stdout.read()}")
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _forge(page, path: str, body) -> tuple[int, dict]:
    """A request made by hand from the page, as a forger would."""
    got = page.evaluate(
        """async ([path, body]) => {
            const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                         body: typeof body === "string" ? body : JSON.stringify(body)});
            return [r.status, await r.json()];
        }""",
        [path, body],
    )
    return got[0], got[1]


def test_play_a_whole_game(page, server, shots):
    page.goto(server)
    page.select_option("#rules", "seven")  # first to 100 points: a short game
    page.select_option("#players", "2")
    page.wait_for_selector("select.opponent")
    page.select_option("select.opponent", "heuristic")
    page.fill("#seed", "12")
    page.screenshot(path=str(shots / "play-setup.png"))
    with page.expect_response("**/api/games") as created:
        page.click("#start")
    view = created.value.json()
    game = view["game"]
    # the page shows the person's hand, the opponent's as backs
    mine = view["table"]["players"][0]
    assert _hand(page, 0) == mine["hand"]
    assert page.locator('.seat[data-seat="1"] .card.back').count() > 0
    assert page.locator('.seat[data-seat="1"] .hand.face-up').count() == 0
    buttons = page.locator("#moves button")
    assert sorted(buttons.all_inner_texts()) == sorted(m["name"] for m in view["legal"])
    # forged requests are refused and change nothing
    legal = {m["action"] for m in view["legal"]}
    move = f"/api/games/{game}/move"
    for body, status in [
        ({"seq": 0, "seat": 0, "action": next(a for a in range(400) if a not in legal)}, 422),
        ({"seq": 0, "seat": 1, "action": min(legal)}, 403),
        ({"seq": 5, "seat": 0, "action": min(legal)}, 409),
        ("not json", 400),
    ]:
        code, answer = _forge(page, move, body)
        assert code == status and answer["error"]
    assert _forge(page, "/api/games/forged/move", {"seq": 0, "seat": 0, "action": 1})[0] == 404
    assert sorted(buttons.all_inner_texts()) == sorted(m["name"] for m in view["legal"])
    # play: call Yaniv when allowed, else the first legal move; until the end
    clicks, round_shot = 0, False
    while True:
        # the page has drawn the last answer: a response arrives before the page shows it,
        # and until then the previous move's buttons are still there, disabled
        page.locator("#result-panel:visible, #moves button:enabled").first.wait_for()
        if page.locator("#result-panel").is_visible():
            break
        call = page.locator("#moves button.call:enabled")
        target = call if call.count() else page.locator("#moves button:enabled").first
        with page.expect_response(lambda r: r.url.endswith("/move")) as answered:
            target.click()
        assert answered.value.status == 200
        clicks += 1
        if clicks == 4:
            page.screenshot(path=str(shots / "play-game.png"))
        if not round_shot and page.locator(".round-over").count():
            round_shot = True
            page.screenshot(path=str(shots / "play-round-over.png"))
        assert clicks < 3000
    assert round_shot
    page.screenshot(path=str(shots / "play-game-over.png"))
    assert page.locator("#turn").inner_text() == "The game is over."
    assert page.locator("#moves button").count() == 0 and page.locator(".rank-line").count() == 2
    # a replayed request after the end changes nothing
    assert _forge(page, move, {"seq": 0, "seat": 0, "action": min(legal)})[0] == 409
    with page.expect_download() as download:
        page.click("#download")
    rec = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    final = replay.verify(rec)
    assert rec["agents"] == ["you", "heuristic"] and rec["seed"] == 12
    shown = page.locator(".rank-line").all_inner_texts()
    for p in range(2):
        assert any(line.endswith(f"player_{p} ({rec['agents'][p]}) — {final.scores[p]} points") for line in shown)
