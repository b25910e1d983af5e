"""Frames (``render_mode="rgb_array"``), the window (``"human"``) and videos of a game
(Gymnasium's ``RecordVideo``), for Yaniv and Pis Yedili: the frames' size, that they follow
the game, that hidden hands are card backs and the viewer's hand card faces (pixels
compared with the cards :func:`yaniv_env.core.frames.card_image` draws), and that
rendering changes nothing in the game."""

from __future__ import annotations

import sys

import gymnasium
import numpy as np
import pytest

import yaniv_env
from yaniv_env import pis_yedili
from yaniv_env.core import frames
from yaniv_env.pis_yedili.render import table_view as pis_table_view
from yaniv_env.yaniv.render import sorted_cards
from yaniv_env.yaniv.render import table_view as yaniv_table_view

pytest.importorskip("PIL")

FRAME_SHAPE = (frames.FRAME_SIZE[1], frames.FRAME_SIZE[0], 3)
GAMES = {"yaniv": (yaniv_env, yaniv_table_view), "pis_yedili": (pis_yedili, pis_table_view)}


def random_moves(env, steps: int, seed: int = 0):
    """Play ``steps`` uniform random legal moves on an AEC environment, yielding after each."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not env.agents:
            return
        obs, _, term, trunc, _ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if term or trunc else int(legal[rng.integers(len(legal))]))
        yield


def card_pixels_match(frame: np.ndarray, box: frames.Box, card: int | None) -> bool:
    """Whether ``frame`` shows ``card`` (a kind, or ``None`` for a back) in ``box``: its
    opaque pixels are those of :func:`frames.card_image`."""
    image = np.asarray(frames.card_image(card, box.w, box.h))
    opaque = image[:, :, 3] == 255
    region = frame[box.y : box.y + box.h, box.x : box.x + box.w]
    return bool((region[opaque] == image[opaque][:, :3]).all())


@pytest.mark.parametrize(("game", "players"), [("yaniv", 2), ("yaniv", 5), ("pis_yedili", 2), ("pis_yedili", 7)])
def test_frames_through_the_wrappers_have_one_size_and_follow_the_game(game, players):
    module, _ = GAMES[game]
    env = module.env(num_players=players, render_mode="rgb_array")  # PettingZoo's standard wrappers
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    env.reset(seed=3)
    shots = [env.render()]
    for _ in random_moves(env, 40):
        shots.append(env.render())
    assert all(f.shape == FRAME_SHAPE and f.dtype == np.uint8 for f in shots)
    changed = sum(not np.array_equal(a, b) for a, b in zip(shots, shots[1:], strict=False))
    assert changed == len(shots) - 1  # every move shows (at least in the list of the last moves)


@pytest.mark.parametrize("game", GAMES)
def test_every_table_fits_in_the_frame(game):
    module, table_view = GAMES[game]
    for n in range(2, max(r.max_seats for r in module.PRESETS.values()) + 1):
        env = module.raw_env(num_players=n)
        env.reset(seed=n)
        view = table_view(env.game, reveal=True)
        view.seats[0].cards = [k % 52 for k in range(40)]  # a hand far larger than any deal
        lay = frames.table_layout(view)
        width, height = frames.FRAME_SIZE
        for row, boxes in zip(lay.seat_rows, lay.seat_cards, strict=True):
            assert row.x >= 0 and row.x + row.w <= width and row.y + row.h <= height
            for box in boxes:  # every card inside its seat's row, left of the middle panel
                assert row.x < box.x and box.x + box.w < row.x + row.w and row.y < box.y
                assert box.y + box.h < row.y + row.h
        assert all(a.y + a.h <= b.y for a, b in zip(lay.seat_rows, lay.seat_rows[1:], strict=False))
        middle = min([lay.stock.x] + [b.x for pile in lay.pile_cards for b in pile])
        assert lay.seat_rows[-1].x + lay.seat_rows[-1].w < middle


def _seat_shows(frame: np.ndarray, view: frames.TableView, seat: int) -> str:
    """``"faces"`` if every card box of ``seat`` shows the card ``view`` says (all faces),
    ``"backs"`` if they all show a back, else ``"mixed"``."""
    boxes = frames.table_layout(view).seat_cards[seat]
    cards = view.seats[seat].cards
    # an overlapped card shows its left strip only: compare the last card whole, the others' strips
    for i, (card, box) in enumerate(zip(cards, boxes, strict=True)):
        if i + 1 < len(boxes):
            box = frames.Box(box.x, box.y, min(box.w, boxes[i + 1].x - box.x), box.h)
        strip = np.asarray(frames.card_image(card, boxes[i].w, boxes[i].h))[:, : box.w]
        opaque = strip[:, :, 3] == 255
        region = frame[box.y : box.y + box.h, box.x : box.x + box.w]
        assert (region[opaque] == strip[opaque][:, :3]).all(), (seat, i, card)
    if all(c is None for c in cards):
        return "backs"
    return "faces" if all(c is not None for c in cards) else "mixed"


def test_yaniv_hidden_hands_show_backs_and_the_viewers_hand_faces():
    env = yaniv_env.raw_env(num_players=3, render_mode="rgb_array", reveal=1)
    env.reset(seed=0)
    frame = env.render()
    g = env.game
    view = yaniv_table_view(g, env.recent_events, reveal=1)
    assert [_seat_shows(frame, view, p) for p in range(3)] == ["backs", "faces", "backs"]
    assert view.seats[1].cards == sorted_cards(g.hands[1])
    boxes = frames.table_layout(view).seat_cards
    assert not card_pixels_match(frame, boxes[0][-1], g.hands[0][0])  # a back is not a face
    # every hand shown when asked; the discard's cards that may be taken are raised and outlined
    everything = yaniv_env.raw_env(num_players=3, render_mode="rgb_array", reveal=True)
    everything.reset(seed=0)
    view = yaniv_table_view(everything.game, reveal=True)
    assert [_seat_shows(everything.render(), view, p) for p in range(3)] == ["faces"] * 3
    pile = view.piles[0]
    assert pile.cards == list(g.top) and pile.takeable == [k in g.takeable for k in g.top] and any(pile.takeable)


def test_yaniv_known_cards_show_among_the_backs():
    env = yaniv_env.raw_env(num_players=2, render_mode="rgb_array", reveal=0)
    env.reset(seed=0)
    for _ in random_moves(env, 200, seed=1):
        g = env.game
        if g.known[1] and g.phase < yaniv_env.yaniv.engine.ROUND_OVER:
            break
    else:
        pytest.fail("nobody took a card from the discard")
    view = yaniv_table_view(g, reveal=0)
    cards = view.seats[1].cards
    known = sorted_cards(g.known[1])
    assert cards == [None] * (len(g.hands[1]) - len(known)) + known
    assert _seat_shows(env.render(), view, 1) == "mixed"


def test_pis_yedili_shows_the_hand_of_the_player_to_act():
    env = pis_yedili.raw_env(num_players=4, render_mode="rgb_array")  # reveal="current"
    env.reset(seed=2)
    for _ in random_moves(env, 10):
        pass
    g = env.game
    frame = env.render()
    view = pis_table_view(g, reveal="current")
    expected = ["faces" if p == g.current else "backs" for p in range(4)]
    assert [_seat_shows(frame, view, p) for p in range(4)] == expected
    assert view.piles[0].cards == [g.top] and view.stock == len(g.stock)


def test_words_of_the_frame_are_the_texts():
    env = yaniv_env.raw_env(num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    for _ in random_moves(env, 30):
        pass
    view = yaniv_table_view(env.game, env.recent_events, reveal=env.reveal)
    text = yaniv_env.yaniv.render.render_table(env.game, env.last_event, reveal=env.reveal)
    assert text.startswith(f"{view.title}, {view.status}")
    assert view.events[-1] == env.last_event and 1 < len(view.events) <= frames.RECENT_EVENTS
    assert f"last: {env.last_event}" in text


def test_rendering_changes_nothing_in_the_game():
    def play(render_mode):
        env = yaniv_env.raw_env(num_players=3, render_mode=render_mode)
        env.reset(seed=5)
        for _ in random_moves(env, 60, seed=5):
            if render_mode:
                env.render()
        g = env.game
        return g.scores, g.hands, g.stock, g.current, g.phase, g.round_index

    assert play("rgb_array") == play(None)


def test_gymnasium_frames_follow_the_learner():
    env = gymnasium.make("yaniv_env/Yaniv-v0", num_players=3, episode="round", render_mode="rgb_array")
    assert env.metadata["render_fps"] == yaniv_env.raw_env.metadata["render_fps"]
    obs, info = env.reset(seed=0)
    first = env.render()
    assert first.shape == FRAME_SHAPE
    raw = env.unwrapped.aec
    view = yaniv_table_view(raw.game, reveal=raw.reveal)
    # the learner (seat 0) is to act: its hand is the one shown
    assert [_seat_shows(first, view, p) for p in range(3)] == ["faces", "backs", "backs"]
    obs, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert not np.array_equal(env.render(), first)
    env.close()


def call_when_allowed(mask: np.ndarray, rng: np.random.Generator) -> int:
    """Call Yaniv when the mask allows it (short rounds), else a random legal move."""
    return 1 if mask[1] else int(rng.choice(np.flatnonzero(mask)))


def test_record_video_writes_a_video_of_a_game(tmp_path):
    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy (the [render] extra)")
    from gymnasium.wrappers import RecordVideo

    env = gymnasium.make("yaniv_env/Yaniv-v0", num_players=3, episode="round", render_mode="rgb_array")
    env = RecordVideo(env, video_folder=str(tmp_path / "videos"), name_prefix="yaniv", episode_trigger=lambda e: True)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        obs, reward, terminated, truncated, info = env.step(call_when_allowed(info["action_mask"], rng))
        done, steps = terminated or truncated, steps + 1
    recorded = list(env.recorded_frames)
    env.close()
    assert len(recorded) == steps + 1 and all(f.shape == FRAME_SHAPE for f in recorded)
    assert len({f.tobytes() for f in recorded}) == len(recorded)  # the game moves in every frame
    video = tmp_path / "videos" / "yaniv-episode-0.mp4"
    assert video.stat().st_size > 10_000


def test_human_mode_shows_the_frames_in_a_window(headless_window):
    env = pis_yedili.raw_env(num_players=3, render_mode="human")
    env.reset(seed=0)  # opens the window and shows the first frame
    import pygame

    screen = pygame.display.get_surface()
    assert screen.get_size() == frames.FRAME_SIZE
    for _ in random_moves(env, 3):
        pass  # each move is shown
    assert env.render() is None
    shown = pygame.surfarray.array3d(screen).swapaxes(0, 1)
    env.render_mode = "rgb_array"
    assert np.array_equal(shown, env.render())
    env.close()
    assert pygame.display.get_surface() is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="other systems always have a display")
def test_human_mode_without_a_display_says_so(monkeypatch):
    pytest.importorskip("pygame")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    env = yaniv_env.raw_env(render_mode="human")
    with pytest.raises(RuntimeError, match="needs a display.*rgb_array"):
        env.reset(seed=0)


def test_missing_libraries_name_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(ImportError, match=r"pygame-ce.*yaniv-env\[render\]"):
        frames.Window("t", 1).show(np.zeros((4, 4, 3), np.uint8))
    for name in ("PIL", "PIL.Image", "PIL.ImageDraw", "PIL.ImageFont"):
        monkeypatch.setitem(sys.modules, name, None)
    env = yaniv_env.raw_env(render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(ImportError, match=r"Pillow.*yaniv-env\[render\]"):
        env.render()
