"""Recording and replaying Yaniv games.

A *record* (:mod:`yaniv_env.yaniv.records`, the library's format, which
:mod:`agents.evaluation` writes too) holds everything needed to play a game again exactly:
the rules, the number of players, the environment's seed and every AEC step, with the final
scores and ranking. :func:`record_game` plays and records a game, :func:`replay` plays a
record again and checks that it gives the very same result. ``save`` and ``load`` are
:func:`yaniv_env.yaniv.records.save` and :func:`~yaniv_env.yaniv.records.load`, importable
from here.

.. code-block:: python

    import agents
    from yaniv_env.tools import replay

    policies = [agents.make("random", seed=s) for s in range(2)]
    record = replay.record_game("standard", 2, seed=7, policies=policies)
    replay.save(record, "game.json")
    for step in replay.replay(replay.load("game.json")):   # verifies the result at the end
        print(step.index, step.agent, step.name)

:func:`record_game` records the annotations of agents that have ``act_annotated``
(:func:`yaniv_env.yaniv.records.decide`).

A replay of a *partial* record (``"complete": false``, a game left before its end) checks
the position where it was left instead of the end of the game.

Command line: ``yaniv replay FILE [--step] [--hide]`` prints the game step by step with
:func:`yaniv_env.yaniv.render.render_table` (``--step`` waits for Enter between steps; end of
input just lets the replay run on; ``--hide`` hides the hands); ``yaniv replay FILE --html
OUT.html`` writes the game as one self-contained web page instead
(:mod:`yaniv_env.tools.replay`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.limits import file_error
from ..yaniv import engine
from ..yaniv.actions import action_table
from ..yaniv.records import check_record, decide, load, make_record, result, rules_from_dict
from ..yaniv.records import save as save
from ..yaniv.render import render_table
from ..yaniv.rules import Rules, get_rules
from .web.pages import page
from .web.views import card_table, move_names, round_data, table_view

# -- recording ---------------------------------------------------------------------------


def record_game(
    rules: str | Rules,
    num_players: int,
    seed: int,
    policies: Sequence | Mapping,
    *,
    episode: str = "game",
    labels: Sequence[str] | None = None,
) -> dict:
    """Play one game with ``policies`` (one per seat, or a dict ``agent -> policy``; each
    has ``act(observation, action_mask)``) and return its record, with the annotations of
    the policies that give them (:func:`yaniv_env.yaniv.records.decide`). The policies are used as given (seed them
    yourself for a reproducible game; the record reproduces either way)."""
    from ..yaniv.aec import raw_env

    rules = get_rules(rules, num_players)
    env = raw_env(rules=rules, num_players=num_players, episode=episode)
    if isinstance(policies, Mapping):
        policies = [policies[a] for a in env.possible_agents]
    if len(policies) != num_players:
        raise ValueError(f"{len(policies)} policies for {num_players} players")
    seat = {a: i for i, a in enumerate(env.possible_agents)}
    env.reset(seed=int(seed))
    steps: list[list] = []
    notes: list[dict | None] = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action, note = None, None
        if not (term or trunc):
            action, note = decide(policies[seat[agent]], obs["observation"], obs["action_mask"])
        steps.append([agent, action])
        notes.append(note)
        env.step(action)
    if labels is None:
        labels = [getattr(p, "name", type(p).__name__) for p in policies]
    return make_record(rules, num_players, seed, steps, env.game, episode=episode, labels=labels, annotations=notes)


# -- replaying ------------------------------------------------------------------------------


@dataclass
class ReplayStep:
    """One step of a replay. ``state`` is the live engine state *after* the step (it changes
    as the replay goes on: render or copy it before asking for the next step). The first
    item of a replay is the dealt game (``index`` 0, ``agent`` and ``action`` ``None``)."""

    index: int
    agent: str | None
    action: int | None
    name: str
    state: engine.State
    event: str
    round_result: engine.RoundResult | None = None
    """Set on the step that finished a round."""


def replay(record: Mapping) -> Iterator[ReplayStep]:
    """Play a record again, yielding each step; at the end check that the final scores,
    ranking and rounds are the recorded ones (for a partial record: the scores, ranking and
    rounds where it was left). Raises ``ValueError`` with a clear message if the record is
    malformed or does not reproduce."""
    check_record(record)
    from ..yaniv.aec import raw_env

    rules = rules_from_dict(record["rules"])
    n = record["num_players"]
    try:
        env = raw_env(rules=rules, num_players=n, episode=record.get("episode", "game"), render_mode="ansi")
    except ValueError as e:
        raise ValueError(f"corrupt replay: cannot build the environment: {e}") from None
    env.reset(seed=record["seed"])
    yield ReplayStep(0, None, None, "new game", env.game, "new game")
    steps = record["steps"]
    last_rr = None
    i = 0
    for i, (agent, action) in enumerate(steps, start=1):
        if not env.agents:
            raise ValueError(
                f"replay does not reproduce: the game ended after step {i - 1} but the record has {len(steps)} steps"
            )
        if agent != env.agent_selection:
            raise ValueError(
                f"replay does not reproduce: step {i} is recorded for {agent} but {env.agent_selection} is to act"
            )
        dead = env.terminations[agent] or env.truncations[agent]
        if dead != (action is None):
            what = "a dead step (None)" if dead else "a live decision"
            raise ValueError(f"replay does not reproduce: step {i} ({agent}, {action!r}) should be {what}")
        try:
            env.step(action)
        except ValueError as e:
            raise ValueError(f"replay does not reproduce: step {i}: {e}") from None
        rr = None
        if action is not None:
            info_rr = env.infos[agent].get("round_result")
            if info_rr is not None and info_rr is not last_rr:
                rr = last_rr = info_rr
        name = env.action_name(action) if action is not None else "leaves the game"
        yield ReplayStep(i, agent, action, name, env.game, env.last_event, rr)
    complete = record.get("complete", True)
    if env.agents and complete:
        raise ValueError(f"replay does not reproduce: the record ends after {i} steps but the game goes on")
    got, want = result(env.game), record["result"]
    for key in ("scores", "ranking", "rounds"):
        if key in want and got[key] != want[key]:
            where = "final" if complete else "last"
            raise ValueError(
                f"replay does not reproduce: {where} {key} {got[key]} differ from the recorded {want[key]}"
            )


def verify(record: Mapping) -> engine.State:
    """Replay ``record`` to the end (raising ``ValueError`` if it does not reproduce) and
    return the final state."""
    state = None
    for step in replay(record):
        state = step.state
    return state


# -- as a web page (the replay viewer) --------------------------------------------------
#
# One self-contained page (inline styles and code, the game embedded as JSON; no server, no
# network). It steps forward and back (buttons, the arrow keys), jumps to a round, and shows
# at each decision the seat to act, the move in words, the legal moves that player had and,
# where the record holds them, the agent's probabilities or values (``annotations``). Every
# hand is shown, or the table from one seat (the others' hands as card backs plus the cards
# known to be in them). Command line: ``yaniv replay game.json --html game.html``.

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
        if state.phase < engine.ROUND_OVER:
            legal = engine.legal_actions(state)
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


# -- command line -------------------------------------------------------------------------------


def _ordinal(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def main(argv: list[str] | None = None, input_fn: Callable[[str], str] = input, print_fn: Callable = print) -> int:
    """``yaniv replay FILE [--step] [--hide]``."""
    parser = argparse.ArgumentParser(prog="yaniv replay", description="Replay a recorded Yaniv game step by step.")
    parser.add_argument("file", help="a replay written by yaniv play --record or yaniv eval --save-replays")
    parser.add_argument("--step", action="store_true", help="wait for Enter between steps (q + Enter quits)")
    parser.add_argument("--hide", action="store_true", help="hide the hands (show only public information)")
    parser.add_argument(
        "--html", metavar="OUT", help="write the game as one self-contained web page (open it in a browser) instead"
    )
    args = parser.parse_args(argv)
    try:
        record = load(args.file)
        if args.html:
            print_fn(f"wrote {write_html(record, args.html)} (open it in a browser)")
            return 0
    except (OSError, ValueError) as e:
        print(f"yaniv replay: {file_error(e)}", file=sys.stderr)
        return 2
    rules = rules_from_dict(record["rules"])
    labels = record.get("agents") or [None] * record["num_players"]
    seats = ", ".join(f"player_{i}" + (f" = {lab}" if lab else "") for i, lab in enumerate(labels))
    print_fn(
        f"Replay of {args.file}: rules {rules.name}, {record['num_players']} players ({seats}), seed {record['seed']}"
    )
    stepping = args.step
    reveal = not args.hide
    try:
        for step in replay(record):
            if step.action is None and step.agent is not None:
                continue  # dead steps of players already out
            title = "start" if step.agent is None else f"step {step.index}: {step.agent}: {step.name}"
            print_fn(f"\n== {title}")
            print_fn(render_table(step.state, step.event, reveal=reveal))
            if stepping:
                try:
                    answer = input_fn("[Enter] next step, q quit: ")
                except EOFError:
                    stepping = False  # no more input: play on to the end
                    continue
                if answer.strip().lower() in ("q", "quit"):
                    print_fn("replay stopped")
                    return 0
    except ValueError as e:
        print(f"yaniv replay: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print_fn("\nreplay interrupted")
        return 130
    except BrokenPipeError:  # yaniv replay FILE | head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    result = record["result"]
    if not record.get("complete", True):
        scores = ", ".join(f"player_{p} {v}" for p, v in enumerate(result["scores"]))
        print_fn(f"\nThe game was left here, in round {result['rounds']} (a partial record). Scores: {scores}")
        print_fn("replay verified: the position is identical to the recorded one")
        return 0
    print_fn("\nFinal ranking:")
    order = sorted(range(len(result["ranking"])), key=lambda p: (result["ranking"][p], p))
    for p in order:
        lab = f" ({labels[p]})" if labels[p] else ""
        print_fn(f"  {_ordinal(result['ranking'][p] + 1):>4}  player_{p}{lab}  {result['scores'][p]} points")
    print_fn("replay verified: the final result is identical to the recorded one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
