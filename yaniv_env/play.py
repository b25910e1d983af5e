"""Play Yaniv in the terminal against agents: ``yaniv play``.

.. code-block:: text

    yaniv play --opponents heuristic,search [--rules standard] [--seed N] [--seat 0]
               [--record game.json] [--turn-limit N]

You sit at ``player_0`` (or ``--seat``); each opponent is an agent name of the policy
registry (:mod:`yaniv_env.core.policies`, which ``agents`` fills) or a path to a trained
``.zip`` model. At each of your decisions the table is shown from
your seat (your hand, the discard and what may be taken from it, the scores, the cards
known to be in other hands) with your legal moves numbered; answer with a move's number or
its name (``draw from stock``, ``call yaniv``, ``discard 7h 7s``: suits may be typed as
letters, a unique beginning of a name is enough). ``q`` quits. The end of input or Ctrl-C
leaves the game cleanly (exit code 0, or 130 for Ctrl-C). Round results and the final
ranking are shown; ``--record FILE`` saves the finished game for ``yaniv replay FILE``.

:func:`play` takes ``input_fn`` and ``print_fn`` so that tests (or another front end) can
drive a game.
"""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from collections.abc import Callable, Sequence

from .engine import GAME_OVER, RoundResult, ranking
from .render import render_table
from .replay import _ordinal, agent_seed, make_record, save
from .rules import PRESETS, Rules, get_rules

_SUIT_LETTERS = str.maketrans({"♠": "s", "♥": "h", "♦": "d", "♣": "c"})


class _Quit(Exception):
    pass


def _normal(text: str) -> str:
    text = text.replace("🃏", "jk").translate(_SUIT_LETTERS).lower()
    return re.sub(r"\s+", " ", text).strip()


def parse_move(answer: str, legal: Sequence[int], names: Sequence[str]) -> int | None:
    """The action chosen by ``answer``: a 1-based number in the list of ``legal`` moves, a
    move's name, or the unique beginning of one; ``None`` if it names no move."""
    answer = answer.strip()
    if answer.isdigit():
        i = int(answer)
        return legal[i - 1] if 1 <= i <= len(legal) else None
    want = _normal(answer)
    if not want:
        return None
    normal = [_normal(n) for n in names]
    exact = [a for a, n in zip(legal, normal, strict=True) if n == want]
    if exact:
        return exact[0]
    starts = [a for a, n in zip(legal, normal, strict=True) if n.startswith(want)]
    return starts[0] if len(starts) == 1 else None


def _round_summary(rr: RoundResult, number: int, labels: list[str]) -> list[str]:
    who = [f"player_{p} ({labels[p]})" for p in range(len(labels))]
    head = f"Round {number} over: "
    if rr.reason == "yaniv":
        head += f"{who[rr.caller]} called Yaniv"
        if rr.challenger is not None:
            head += f", {who[rr.challenger]} declared Asaf"
        head += " and was beaten" if rr.caller_beaten else " and won"
    elif rr.reason == "empty_hand":
        head += f"{who[rr.winners[0]]} emptied their hand"
    else:
        head += "a draw (no points)" + (" at the turn limit" if rr.truncated else "")
    lines = [head]
    for p, total in enumerate(rr.hand_totals):
        if total is None:
            continue
        mark = "  winner" if p in rr.winners else ""
        out = "  OUT" if p in rr.eliminated else ""
        lines.append(f"  {who[p]:<24} hand {total:>3}  +{rr.points[p]:<3} score {rr.scores[p]:>4}{mark}{out}")
    return lines


def play(
    opponents: Sequence,
    rules: str | Rules = "standard",
    seed: int | None = None,
    seat: int = 0,
    record: str | None = None,
    *,
    turn_limit: int | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[..., None] = print,
) -> int:
    """Play one game at ``seat`` against ``opponents`` (agent names, ``.zip`` paths or
    policy objects, seated in order at the other seats). Returns the exit code: 0 (game
    over, or left with ``q`` / end of input), 130 (Ctrl-C) or 2 (bad arguments)."""
    from .core.policies import make_policy
    from .yaniv_aec import raw_env

    n = 1 + len(opponents)
    if not opponents:
        print_fn("yaniv play: give at least one opponent (--opponents random)")
        return 2
    try:
        rules = get_rules(rules, n)
        if turn_limit is not None:
            rules = rules.replace(turn_limit=turn_limit)
    except ValueError as e:
        print_fn(f"yaniv play: {e}")
        return 2
    if not 0 <= seat < n:
        print_fn(f"yaniv play: --seat must be between 0 and {n - 1} for {n} players, got {seat}")
        return 2
    if seed is None:
        seed = secrets.randbelow(2**31)
    others = [s for s in range(n) if s != seat]
    labels = ["you"] * n
    policies: dict[int, object] = {}
    for s, spec in zip(others, opponents, strict=True):
        if isinstance(spec, str):
            try:
                policies[s] = make_policy(spec, seed=agent_seed(seed, s), rules=rules)
            except ValueError as e:
                print_fn(f"yaniv play: {e}")
                return 2
            except ImportError as e:
                print_fn(f"yaniv play: agent {spec!r} is registered but could not be loaded ({e}); try another one")
                return 2
            labels[s] = spec
        else:
            policies[s] = spec
            labels[s] = getattr(spec, "name", type(spec).__name__)
    env = raw_env(rules=rules, num_players=n, render_mode="ansi")
    env.reset(seed=seed)
    me = env.possible_agents[seat]
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    table = env.table
    print_fn(f"Yaniv, {rules.name} rules, {n} players, seed {seed}.")
    print_fn(f"You are {me}. " + ", ".join(f"player_{s} = {labels[s]}" for s in others) + ".")
    print_fn("Answer with a move's number (or its name); q quits.")
    steps: list[list] = []
    last_rr = None
    rounds = 0
    out_noted = False
    try:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                if agent == me and not out_noted and env.game.phase != GAME_OVER:
                    print_fn("You are out of the game; the others play on.")
                    out_noted = True
                steps.append([agent, None])
                env.step(None)
                continue
            s = seat_of[agent]
            if agent == me:
                action = _ask(env, seat, table, input_fn, print_fn)
            else:
                action = int(policies[s].act(obs["observation"], obs["action_mask"]))
                print_fn(f"  {agent} ({labels[s]}): {table.name(action)}")
            steps.append([agent, action])
            env.step(action)
            rr = env.infos[agent].get("round_result")
            if rr is not None and rr is not last_rr:
                last_rr = rr
                rounds += 1
                print_fn("")
                for line in _round_summary(rr, rounds, labels):
                    print_fn(line)
    except _Quit:
        print_fn("You left the game.")
        return 0
    except EOFError:
        print_fn("\nEnd of input: leaving the game.")
        return 0
    except KeyboardInterrupt:
        print_fn("\nInterrupted: leaving the game.")
        return 130
    g = env.game
    places = ranking(g)
    print_fn("\nGame over" + (" (round limit reached)" if g.game_truncated else "") + ". Final ranking:")
    for p in sorted(range(n), key=lambda p: (places[p], p)):
        print_fn(f"  {_ordinal(places[p] + 1):>4}  player_{p} ({labels[p]})  {g.scores[p]} points")
    print_fn(f"You finished {_ordinal(places[seat] + 1)} of {n}.")
    if record:
        try:
            path = save(make_record(rules, n, seed, steps, g, labels=labels), record)
        except OSError as e:
            print_fn(f"yaniv play: could not save the game to {record}: {e}")
            return 1
        print_fn(f"Game saved to {path} (yaniv replay {path}).")
    return 0


def _ask(env, seat: int, table, input_fn, print_fn) -> int:
    legal = env.legal_actions()
    names = [table.name(a) for a in legal]
    print_fn("")
    print_fn(render_table(env.game, env.last_event, reveal=seat))
    print_fn("Your moves:")
    for i, name in enumerate(names, start=1):
        print_fn(f"  {i:>3}. {name}")
    while True:
        answer = input_fn(f"Your move [1-{len(legal)}, q quits]: ")
        if answer.strip().lower() in ("q", "quit", "exit"):
            raise _Quit
        action = parse_move(answer, legal, names)
        if action is not None:
            return action
        print_fn(f"{answer.strip()!r} is not one of your moves: type a number from 1 to {len(legal)} or a move's name.")


def main(
    argv: list[str] | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[..., None] = print,
) -> int:
    """``yaniv play``."""
    p = argparse.ArgumentParser(prog="yaniv play", description="Play Yaniv in the terminal against agents.")
    p.add_argument(
        "--opponents", default="heuristic", help="comma-separated agent names or .zip models (default heuristic)"
    )
    p.add_argument("--rules", default="standard", choices=sorted(PRESETS), help="rules preset (default standard)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deal (default: random, printed)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 = player_0 (default)")
    p.add_argument("--record", metavar="FILE", help="save the finished game as a replay")
    p.add_argument("--turn-limit", type=int, default=None, help="turns in a round before it is a draw")
    args = p.parse_args(argv)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    try:
        return play(
            opponents,
            rules=args.rules,
            seed=args.seed,
            seat=args.seat,
            record=args.record,
            turn_limit=args.turn_limit,
            input_fn=input_fn,
            print_fn=print_fn,
        )
    except KeyboardInterrupt:  # while the opponents load
        print_fn("\nInterrupted: leaving the game.")
        return 130


if __name__ == "__main__":
    sys.exit(main())
