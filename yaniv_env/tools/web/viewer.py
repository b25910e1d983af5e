"""The replay viewer: a recorded game (:mod:`yaniv_env.tools.replay`) as one self-contained
web page (inline styles and code, the game embedded as JSON; no server, no network).

.. code-block:: python

    from yaniv_env.tools import replay
    from yaniv_env.tools.replay import write_html

    write_html(replay.load("game.json"), "game.html")

The page steps forward and back (buttons, the arrow keys), jumps to a round, and shows at
each decision the seat to act, the move in words, the legal moves that player had and, where
the record holds them, the agent's probabilities or values (``annotations``). Every hand
is shown, or the table from one seat (the others' hands as card backs plus the cards known
to be in them). Command line: ``yaniv replay game.json --html game.html``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ...yaniv.actions import action_table
from ...yaniv.engine import ROUND_OVER, legal_actions
from ..replay import check_record, replay, rules_from_dict
from .pages import page
from .views import card_table, move_names, round_data, table_view

#: The page template (``assets/``).
TEMPLATE = "replay.html"


def viewer_data(record: Mapping) -> dict:
    """The data the viewer draws (the game replayed and checked, :func:`yaniv_env.tools.replay.replay`):
    one *frame* per decision, the table before it (every hand) with the decision made there
    (seat, move, legal moves, annotation), then a last frame at the end (of a partial
    record: where it was left, with the moves the player had). A frame after a round's end
    holds that round's result (``round_over``)."""
    check_record(record)
    rules = rules_from_dict(record["rules"])
    notes = record.get("annotations") or [None] * len(record["steps"])
    frames: list[dict] = []
    names: set[int] = set()
    finished = None
    for step in replay(record):
        if step.agent is not None and step.action is None:
            continue  # the dead steps of players already out
        if step.agent is not None:
            decision = frames[-1]["decision"]
            decision.update(seat=int(step.agent.rsplit("_", 1)[1]), action=step.action, note=notes[step.index - 1])
            names.add(step.action)
        if step.round_result is not None:
            finished = step.round_result
        state = step.state
        frame = {"table": table_view(state), "event": step.event, "decision": None, "round_over": None}
        if finished is not None:
            frame["round_over"] = round_data(finished)
            finished = None
        if state.phase < ROUND_OVER:
            legal = legal_actions(state)
            names.update(legal)
            frame["decision"] = {"seat": int(state.current), "legal": legal}
        frames.append(frame)
    labels = record.get("agents") or [None] * record["num_players"]
    return {
        "rules": rules.name,
        "description": rules.describe(),
        "num_players": record["num_players"],
        "seed": record["seed"],
        "labels": [str(x) if x is not None else "" for x in labels],
        "complete": record.get("complete", True),
        "result": record["result"],
        "cards": card_table(),
        "moves": move_names(action_table(rules), sorted(names)),
        "frames": frames,
    }


def html(record: Mapping) -> str:
    """The viewer page of ``record`` (``ValueError`` if it is not a valid record, or does
    not reproduce)."""
    return page(TEMPLATE, viewer_data(record))


def write_html(record: Mapping, path: str | Path) -> Path:
    """Write the viewer page of ``record`` to ``path`` (parent folders are created)."""
    text = html(record)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
