"""Play Yaniv in the terminal against agents: ``yaniv play``.

.. code-block:: text

    yaniv play --opponents heuristic,search [--rules standard] [--seed N] [--seat 0]
               [--record game.json] [--turn-limit N]

You sit at ``player_0`` (or ``--seat``); each opponent is an agent name of the policy
registry (:mod:`yaniv_env.core.policies`, which ``agents`` fills) or a path to a trained
model (``.safetensors``). At each of your decisions the table is shown from
your seat (your hand sorted, the discard and what may be taken from it, the scores, the
cards known to be in other hands) with your legal moves numbered; answer with a move's
number or its name (``draw from stock``, ``call yaniv``, ``discard 7h 7s``: suits may be
typed as letters, the cards of a set in any order when that names one move, and a unique
beginning of a name is enough; an answer that fits several moves lists them). ``help`` or
``?`` lists the commands, ``q`` quits. The end of input or Ctrl-C leaves the game cleanly
(exit code 0, or 130 for Ctrl-C). After a draw from the stock you are told the card you
drew; at the end of each round every hand is revealed with its total and each player's
last drawn card, and the final ranking ends the game. ``--record FILE`` saves the game for
``yaniv replay FILE``, also when you leave it early (a partial record).

:func:`play` takes ``input_fn`` and ``print_fn`` so that tests (or another front end) can
drive a game.
"""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from collections.abc import Callable, Sequence

from ..core.limits import file_error
from ..core.seeding import agent_seed
from ..yaniv.actions import DRAW_STOCK
from ..yaniv.cards import JOKER, parse_card
from ..yaniv.engine import DRAW, GAME_OVER, RoundResult, ranking
from ..yaniv.records import make_record, save
from ..yaniv.render import hand_name, render_table
from ..yaniv.rules import PRESETS, Rules, get_rules
from .replay import _ordinal

_SUIT_LETTERS = str.maketrans({"♠": "s", "♥": "h", "♦": "d", "♣": "c"})

HELP = """Commands:
  a number           play the move with that number in the list
  a move's name      e.g. "draw from stock", "call yaniv", "take 5c", "discard 7h 7s":
                     suits as letters (s h d c) or symbols, jk for a joker, the cards of
                     a set in any order, and a unique beginning of a name is enough
  help, ?            show this help
  q, quit            leave the game (with --record, the game so far is saved)"""


class _Quit(Exception):
    pass


class _BadOpponent(Exception):
    """An opponent that cannot be seated (the message says why)."""


def _error(message: str) -> int:
    """Report a bad argument or an unreadable file on one line of stderr: exit code 2."""
    print(f"yaniv play: {message}", file=sys.stderr)
    return 2


def _normal(text: str) -> str:
    text = text.replace("🃏", "jk").translate(_SUIT_LETTERS).lower()
    return re.sub(r"\s+", " ", text).strip()


def _cards_of(normal_name: str) -> tuple[str, list[int]] | None:
    """The verb and the cards (kinds, in the order written) of a normalised move, or
    ``None`` if the words after the verb are not all cards. A parenthesised note is left
    out."""
    words = normal_name.split("(")[0].split()
    if len(words) < 2:
        return None
    try:
        return words[0], [JOKER if w == "jk" else parse_card(w) for w in words[1:]]
    except ValueError:
        return None


def match_moves(answer: str, legal: Sequence[int], names: Sequence[str]) -> list[int]:
    """The moves among ``legal`` (named ``names``) that ``answer`` may mean: the move of a
    1-based number, a move's exact name, the moves it is a beginning of, or, when the
    beginning fits no single move, the moves with the same verb and the same cards in any
    order (those in the order typed first). One element when the answer is clear; several
    when it is ambiguous."""
    answer = answer.strip()
    if answer.isdigit():
        i = int(answer)
        return [legal[i - 1]] if 1 <= i <= len(legal) else []
    want = _normal(answer)
    if not want:
        return []
    normal = [_normal(n) for n in names]
    exact = [a for a, n in zip(legal, normal, strict=True) if n == want]
    if exact:
        return exact[:1]
    starts = [a for a, n in zip(legal, normal, strict=True) if n.startswith(want)]
    if len(starts) == 1:
        return starts
    wanted = _cards_of(want)
    if wanted is not None:
        verb, cards = wanted
        moves = [(a, _cards_of(n)) for a, n in zip(legal, normal, strict=True)]
        same = [(a, m[1]) for a, m in moves if m is not None and m[0] == verb and sorted(m[1]) == sorted(cards)]
        in_order = [a for a, laid in same if laid == cards]
        if len(in_order) == 1:
            return in_order
        if same:
            return [a for a, _ in same]
    return starts


def parse_move(answer: str, legal: Sequence[int], names: Sequence[str]) -> int | None:
    """The action chosen by ``answer`` (see :func:`match_moves`); ``None`` if it names no
    move or several."""
    moves = match_moves(answer, legal, names)
    return moves[0] if len(moves) == 1 else None


def _round_summary(rr: RoundResult, number: int, labels: list[str], last_drawn: dict[int, int]) -> list[str]:
    """The end of a round for people: how it ended, then every hand revealed with its
    total, the card each player drew last, the points taken and the new score."""
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
    lines = [head + "."]
    width = max(len(w) for w in who)
    hands = {p: hand_name(rr.hands[p]) or "(no cards)" for p, t in enumerate(rr.hand_totals) if t is not None}
    hand_width = max(map(len, hands.values()))
    for p, total in enumerate(rr.hand_totals):
        if total is None:
            continue
        notes = []
        if p in last_drawn:
            notes.append(f"last drew {hand_name([last_drawn[p]])}")
        if p in rr.winners:
            notes.append("wins the round")
        if p in rr.eliminated:
            notes.append("is out of the game")
        lines.append(
            f"  {who[p]:<{width}}  {hands[p]:<{hand_width}}  = {total:>2}"
            f"   +{rr.points[p]:<3} score {rr.scores[p]:>4}" + (f"   ({', '.join(notes)})" if notes else "")
        )
    return lines


def play(
    opponents: Sequence,
    rules: str | Rules = "standard",
    seed: int | None = None,
    seat: int = 0,
    record: str | None = None,
    *,
    turn_limit: int | None = None,
    trust: bool = False,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[..., None] = print,
) -> int:
    """Play one game at ``seat`` against ``opponents`` (agent names, model paths or policy
    objects, seated in order at the other seats; ``.zip`` checkpoints only with ``trust``).
    Returns the exit code: 0 (game over, or left with ``q`` / end of input), 130 (Ctrl-C) or
    2 (bad arguments, or a model file that cannot be read: one line on stderr)."""
    from ..yaniv.aec import raw_env

    n = 1 + len(opponents)
    if not opponents:
        return _error("give at least one opponent (--opponents random)")
    try:
        rules = get_rules(rules, n)
        if turn_limit is not None:
            rules = rules.replace(turn_limit=turn_limit)
    except ValueError as e:
        return _error(str(e))
    if not 0 <= seat < n:
        return _error(f"--seat must be between 0 and {n - 1} for {n} players, got {seat}")
    if seed is None:
        seed = secrets.randbelow(2**31)
    try:
        policies, labels = _seat_opponents(opponents, seat, rules, seed, trust)
    except _BadOpponent as e:
        return _error(str(e))
    env = raw_env(rules=rules, num_players=n, render_mode="ansi")
    env.reset(seed=seed)
    print_fn(f"Yaniv, {rules.name} rules, {n} players, seed {seed}.")
    others = ", ".join(f"player_{s} = {labels[s]}" for s in policies)
    print_fn(f"You are {env.possible_agents[seat]}. {others}.")
    print_fn("Answer with a move's number (or its name); q quits.")
    steps: list[list] = []
    try:
        _play_moves(env, seat, policies, labels, steps, input_fn, print_fn)
    except (_Quit, EOFError, KeyboardInterrupt) as e:
        message = {
            _Quit: "You left the game.",
            EOFError: "\nEnd of input: leaving the game.",
            KeyboardInterrupt: "\nInterrupted: leaving the game.",
        }[type(e)]
        print_fn(message)
        if record:
            _save(record, make_record(rules, n, seed, steps, env.game, labels=labels, complete=False), print_fn)
        return 130 if isinstance(e, KeyboardInterrupt) else 0
    _print_ranking(env.game, labels, seat, print_fn)
    if record and not _save(record, make_record(rules, n, seed, steps, env.game, labels=labels), print_fn):
        return 1
    return 0


def _seat_opponents(opponents: Sequence, seat: int, rules: Rules, seed: int, trust: bool):
    """The opponents' policies by seat (the seats other than ``seat``, in order) and every
    seat's label (``you`` at ``seat``); :class:`_BadOpponent` for one that cannot be made."""
    from ..core.policies import make_policy

    n = 1 + len(opponents)
    labels = ["you"] * n
    policies: dict[int, object] = {}
    for s, spec in zip([s for s in range(n) if s != seat], opponents, strict=True):
        if isinstance(spec, str):
            try:
                options = {"trusted": True} if trust and spec.endswith(".zip") else {}
                policies[s] = make_policy(spec, seed=agent_seed(seed, s), rules=rules, **options)
            except (OSError, ValueError) as e:
                raise _BadOpponent(file_error(e)) from None
            except ImportError as e:
                raise _BadOpponent(
                    f"agent {spec!r} is registered but could not be loaded ({e}); try another one"
                ) from None
            labels[s] = spec
        else:
            policies[s] = spec
            labels[s] = getattr(spec, "name", type(spec).__name__)
    return policies, labels


def _play_moves(env, seat: int, policies: dict, labels: list[str], steps: list[list], input_fn, print_fn) -> None:
    """Play the game to its end: ask for the moves at ``seat``, play the policies' at the
    others and show them, tell the card drawn from the stock and sum up each round;
    ``steps`` receives every ``[agent, action]`` played (the record's steps)."""
    me = env.possible_agents[seat]
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    table = env.table
    last_rr = None
    rounds = 0
    out_noted = False
    last_drawn: dict[int, int] = {}  # seat -> the card it drew last this round
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
        drawing = env.game.phase == DRAW
        before = list(env.game.hands[s]) if drawing else None
        env.step(action)
        rr = env.infos[agent].get("round_result")
        new_round = rr is not None and rr is not last_rr
        if drawing:  # the card drawn is in the hand now, or in the hand revealed at the round's end
            added = _added(before, rr.hands[s] if new_round else env.game.hands[s])
            if added:
                last_drawn[s] = added[0]
                if agent == me and action == DRAW_STOCK and not new_round:
                    print_fn(f"You drew {hand_name(added)}.")
        if new_round:
            last_rr = rr
            rounds += 1
            print_fn("")
            for line in _round_summary(rr, rounds, labels, last_drawn):
                print_fn(line)
            last_drawn = {}


def _print_ranking(g, labels: list[str], seat: int, print_fn) -> None:
    """The final ranking, and the place of the player at ``seat``."""
    n = len(labels)
    places = ranking(g)
    print_fn("\nGame over" + (" (round limit reached)" if g.game_truncated else "") + ". Final ranking:")
    width = max(len(f"player_{p} ({labels[p]})") for p in range(n))
    for p in sorted(range(n), key=lambda p: (places[p], p)):
        print_fn(f"  {_ordinal(places[p] + 1):>4}  {f'player_{p} ({labels[p]})':<{width}}  {g.scores[p]:>4} points")
    print_fn(f"You finished {_ordinal(places[seat] + 1)} of {n}.")


def _added(before: list[int], after: list[int]) -> list[int]:
    """The cards in ``after`` that were not in ``before`` (multisets)."""
    rest = list(before)
    added = []
    for k in after:
        if k in rest:
            rest.remove(k)
        else:
            added.append(k)
    return added


def _save(path: str, rec: dict, print_fn) -> bool:
    """Save a record and say where (or why nothing was saved)."""
    try:
        saved = save(rec, path)
    except OSError as e:
        print_fn(f"yaniv play: could not save the game to {path}: {e}; nothing was saved")
        return False
    what = "Game" if rec["complete"] else f"The game so far ({len(rec['steps'])} moves, a partial record)"
    print_fn(f"{what} saved to {saved} (yaniv replay {saved}).")
    return True


def _ask(env, seat: int, table, input_fn, print_fn) -> int:
    legal = env.legal_actions()
    names = [table.name(a) for a in legal]
    print_fn("")
    print_fn(render_table(env.game, env.last_event, reveal=seat))
    print_fn("Your moves:")
    for i, name in enumerate(names, start=1):
        print_fn(f"  {i:>3}. {name}")
    while True:
        answer = input_fn(f"Your move [1-{len(legal)}, ? for help, q quits]: ")
        command = answer.strip().lower()
        if command in ("q", "quit", "exit"):
            raise _Quit
        if command in ("help", "?", "h"):
            print_fn(HELP)
            continue
        moves = match_moves(answer, legal, names)
        if len(moves) == 1:
            return moves[0]
        if moves:
            print_fn(f"{answer.strip()!r} fits {len(moves)} moves; type the number of the one you mean:")
            for a in moves:
                print_fn(f"  {legal.index(a) + 1:>3}. {table.name(a)}")
            continue
        print_fn(
            f"{answer.strip()!r} is not one of your moves: type a number from 1 to {len(legal)}, "
            "a move's name, or ? for help."
        )


def main(
    argv: list[str] | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[..., None] = print,
) -> int:
    """``yaniv play``."""
    p = argparse.ArgumentParser(prog="yaniv play", description="Play Yaniv in the terminal against agents.")
    p.add_argument(
        "--opponents", default="heuristic", help="comma-separated agent names or model files (default heuristic)"
    )
    p.add_argument("--rules", default="standard", choices=sorted(PRESETS), help="rules preset (default standard)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="a rule option on top of the preset, e.g. --set call_max=7 (repeatable; see yaniv_env/yaniv/RULES.md)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the deal (default: random, printed)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 = player_0 (default)")
    p.add_argument("--record", metavar="FILE", help="save the finished game as a replay")
    p.add_argument("--turn-limit", type=int, default=None, help="turns in a round before it is a draw")
    p.add_argument(
        "--trust",
        action="store_true",
        help="also load .zip training checkpoints as opponents (reading them unpickles and can run code: only "
        "files you made yourself or trust)",
    )
    args = p.parse_args(argv)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    try:
        rules = get_rules(args.rules).with_options(args.set)
    except ValueError as e:
        p.error(str(e))
    try:
        return play(
            opponents,
            rules=rules,
            seed=args.seed,
            seat=args.seat,
            record=args.record,
            turn_limit=args.turn_limit,
            trust=args.trust,
            input_fn=input_fn,
            print_fn=print_fn,
        )
    except KeyboardInterrupt:  # while the opponents load
        print_fn("\nInterrupted: leaving the game.")
        return 130


if __name__ == "__main__":
    sys.exit(main())
