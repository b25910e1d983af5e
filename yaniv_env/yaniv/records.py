"""Yaniv's game records: the format ``yaniv play --record``, ``yaniv eval --save-replays``
and :mod:`agents.evaluation` write, and :mod:`yaniv_env.tools.replay` plays again.

A *record* is a JSON-serialisable dict that holds everything needed to play a game again
exactly: the rules (every field of :class:`yaniv_env.Rules`, so custom rules round-trip),
the number of players, the seed of the environment's generator, and every AEC step as an
``[agent, action]`` pair (``action`` is ``None`` for the dead steps of terminated agents).
The final scores and ranking are stored too (:func:`result`), and
:func:`yaniv_env.tools.replay.replay` checks that playing the steps again gives the very
same result.

Record layout (``version`` 1)::

    {"format": "yaniv-replay", "version": 1,
     "rules": {...Rules fields...}, "num_players": 2, "seed": 7, "episode": "game",
     "agents": ["random", "random"],           # labels per seat (informational)
     "steps": [["player_0", 71], ["player_0", 0], ...],
     "result": {"scores": [...], "ranking": [...], "rounds": 12, "turns": 431,
                "truncated": false},
     "complete": true,                          # false: a game left before its end
     "annotations": [null, {"kind": "probabilities", "actions": [71, 72], "values": [0.9, 0.1]}, ...]}

``annotations`` (optional, one entry per step, ``null`` where there is none) holds what an
agent said about its decision: ``"probabilities"`` (a trained policy's probability of each
legal move) or ``"values"`` (a search's mean rollout value, in points, of each move it
searched), as :func:`decide` gets them from agents that have ``act_annotated``; records
without them load and replay the same.

A *partial* record (``"complete": false``, written by ``yaniv play --record`` when the
player leaves early) holds the steps played so far; its ``result`` is the position when it
was left.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..core.game import rules_to_dict
from ..core.limits import read_json_file
from . import engine
from .rules import RULE_LIMITS, Rules

FORMAT = "yaniv-replay"
VERSION = 1
_REQUIRED = ("rules", "num_players", "seed", "steps", "result")
#: What an annotation's values are (``"kind"``): a policy's probabilities, a search's values.
ANNOTATION_KINDS = ("probabilities", "values")
#: Largest record file :func:`load` reads (a game of a million steps takes about 16 MB).
MAX_FILE_BYTES = 32 << 20


def rules_from_dict(data: Mapping, what: str = "rules") -> Rules:
    """The :class:`Rules` of :func:`~yaniv_env.core.game.rules_to_dict` (lists turned back
    into tuples), within the file limits of Yaniv's rules (:data:`~yaniv_env.yaniv.rules.RULE_LIMITS`,
    which ``yaniv_env.games.YANIV.rule_limits`` holds too)."""
    return Rules.from_dict(data, what, dict(RULE_LIMITS), "Yaniv")


# -- recording ---------------------------------------------------------------------------


def make_record(
    rules: Rules,
    num_players: int,
    seed: int,
    steps: Sequence[Sequence],
    state: engine.State,
    *,
    episode: str = "game",
    labels: Sequence[str] | None = None,
    complete: bool = True,
    annotations: Sequence[dict | None] | None = None,
) -> dict:
    """A record from the steps of a game and its ``state`` after them: the end of the
    game, or (``complete=False``) where the players left it. ``annotations``: one per step
    (``None`` where there is none), kept only if one is not ``None``."""
    record = {
        "format": FORMAT,
        "version": VERSION,
        "rules": rules_to_dict(rules),
        "num_players": int(num_players),
        "seed": int(seed),
        "episode": episode,
        "agents": list(labels) if labels is not None else None,
        "steps": [[str(a), None if x is None else int(x)] for a, x in steps],
        "result": result(state),
        "complete": bool(complete),
    }
    if annotations is not None and any(a is not None for a in annotations):
        record["annotations"] = list(annotations)
    return record


def result(state: engine.State) -> dict:
    """A record's ``result``: the scores, ranking, rounds and turns of ``state``."""
    return {
        "scores": [int(v) for v in state.scores],
        "ranking": [int(v) for v in engine.ranking(state)],
        "rounds": int(state.round_index + 1),
        "turns": int(state.turns),
        "truncated": bool(state.game_truncated),
    }


def annotation(note: Mapping) -> dict:
    """``note`` (what an agent's ``act_annotated`` returned) as plain JSON data, values
    rounded to 5 decimals; ``ValueError`` if it is not ``{"kind": one of
    ANNOTATION_KINDS, "actions": [ids], "values": [finite numbers]}``, lists of one length."""
    if not isinstance(note, Mapping):
        raise ValueError(f"an annotation is a dict, got {type(note).__name__}")
    if note.get("kind") not in ANNOTATION_KINDS:
        raise ValueError(f"an annotation's kind is one of {ANNOTATION_KINDS}, got {note.get('kind')!r}")
    actions, values = note.get("actions"), note.get("values")
    if not isinstance(actions, (list, tuple)) or not isinstance(values, (list, tuple)) or len(actions) != len(values):
        raise ValueError("an annotation holds lists 'actions' and 'values' of the same length")
    if not all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) and a >= 0 for a in actions):
        raise ValueError(f"an annotation's actions are action ids, got {list(actions)!r}")
    if not all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) and np.isfinite(v) for v in values):
        raise ValueError(f"an annotation's values are finite numbers, got {list(values)!r}")
    return {"kind": note["kind"], "actions": [int(a) for a in actions], "values": [round(float(v), 5) for v in values]}


def decide(policy, observation: np.ndarray, action_mask: np.ndarray) -> tuple[int, dict | None]:
    """The action of ``policy`` and, if the policy explains its decisions (a method
    ``act_annotated(observation, action_mask) -> (action, annotation or None)``, which
    makes the same move as ``act``: trained and search agents have it), its annotation
    (:func:`annotation`); ``None`` otherwise."""
    annotated = getattr(policy, "act_annotated", None)
    if not callable(annotated):
        return int(policy.act(observation, action_mask)), None
    action, note = annotated(observation, action_mask)
    return int(action), None if note is None else annotation(note)


# -- checking, saving, loading -------------------------------------------------------------


def check_record(record) -> None:
    """Raise ``ValueError`` if ``record`` is not a well-formed record of this version."""
    if not isinstance(record, Mapping):
        raise ValueError(f"not a Yaniv replay: expected a JSON object, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise ValueError(f"not a Yaniv replay: 'format' is {record.get('format')!r}, expected {FORMAT!r}")
    version = record.get("version")
    if version != VERSION:
        raise ValueError(f"replay format version {version!r} is not supported (this yaniv-env reads version {VERSION})")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise ValueError(f"corrupt replay: missing {', '.join(missing)}")
    for key in ("num_players", "seed"):
        if not isinstance(record[key], int) or isinstance(record[key], bool):
            raise ValueError(f"corrupt replay: {key} must be an int, got {record[key]!r}")
    try:  # the record's player count within the rules' file limits, before any table is built
        rules = record["rules"]
        rules_from_dict({**rules, "num_players": record["num_players"]} if isinstance(rules, Mapping) else rules)
    except (TypeError, ValueError) as e:
        raise ValueError(f"corrupt replay: bad rules: {e}") from None
    steps = record["steps"]
    if not isinstance(steps, list):
        raise ValueError("corrupt replay: steps must be a list of [agent, action] pairs")
    for i, step in enumerate(steps):
        ok = isinstance(step, (list, tuple)) and len(step) == 2 and isinstance(step[0], str)
        ok = ok and (step[1] is None or (isinstance(step[1], int) and not isinstance(step[1], bool)))
        if not ok:
            raise ValueError(f"corrupt replay: step {i} is {step!r}, expected [agent, action id or null]")
    recorded = record["result"]
    if not isinstance(recorded, Mapping) or not all(k in recorded for k in ("scores", "ranking")):
        raise ValueError("corrupt replay: result must hold the final scores and ranking")
    if not isinstance(record.get("complete", True), bool):
        raise ValueError(f"corrupt replay: complete must be true or false, got {record['complete']!r}")
    notes = record.get("annotations")
    if notes is not None:
        if not isinstance(notes, list) or len(notes) != len(steps):
            raise ValueError("corrupt replay: annotations must be a list with one entry (or null) per step")
        for i, note in enumerate(notes):
            try:
                if note is not None:
                    annotation(note)
            except ValueError as e:
                raise ValueError(f"corrupt replay: annotation of step {i}: {e}") from None


def save(record: dict, path: str | Path) -> Path:
    """Write ``record`` as JSON to ``path`` (parent folders are created)."""
    check_record(record)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return path


def load(path: str | Path) -> dict:
    """Read a record written by :func:`save`; ``ValueError`` if it is not a valid record
    (or larger than :data:`MAX_FILE_BYTES`, or nested deeper than
    :data:`yaniv_env.core.limits.MAX_JSON_DEPTH`), ``OSError`` if it cannot be read."""
    path = Path(path)
    what = f"{path}: not a Yaniv replay"
    record = read_json_file(path, max_bytes=MAX_FILE_BYTES, limit="yaniv_env.yaniv.records.MAX_FILE_BYTES", what=what)
    try:
        check_record(record)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    return record
