"""Differential check of the batched engine against the scalar engine.

``yaniv verify --games 20000 --workers 2 --json FILE`` (or ``python -m
yaniv_env.tools.verify``) plays that many games per preset and player count (2-5) on
:class:`~yaniv_env.yaniv.batched.BatchedYaniv` and replays each, decision by decision, through
:mod:`yaniv_env.yaniv.engine` from the same seed: at every decision the acting seat and phase,
the legal mask and the acting seat's observation (every seat's every few steps), at every
round end the round result, the score changes and the places, every seat's reward under
every reward scheme and episode type (the AEC environment's
:func:`yaniv_env.yaniv.rewards.part_rewards` against :func:`~yaniv_env.yaniv.batched.round_rewards`), at
the game end the ranking. The games are cut into chunks of ``--chunk-games`` (the
configurations' chunks in turn); ``--shard i/n`` plays every ``n``-th chunk from the
``i``-th (one machine or session each), ``--workers`` processes share them, ``--json FILE``
records each chunk as it ends and ``--resume`` continues a stopped run from that file. It
prints one line per preset and player count (games, decisions, rounds, divergences,
seconds) and exits 1 on any divergence (a diverging chunk stops at its first).

The moves come from a mix of uniform random play and a greedy player (call Yaniv when
allowed, lay the heaviest discard, take a low card, slam, challenge and Blast when offered),
chosen per game (``--greedy-share``), so that calls, challenges, slams, Blasts and long
rounds all occur. A game's moves depend on its seed only (:func:`_chooser`): the batch size
and the number of ``--workers`` (processes sharing the games) change the speed, never the
games, and a game named by a divergence replays alone with ``--games 1 --seed <its seed>``.

Seeding: the scalar game seeded ``s`` is ``engine.new_game(rules, seed=s)``; both engines
draw every deal, lot and reshuffle from the per-round streams of :mod:`yaniv_env.core.seeding`
(the contract in :mod:`yaniv_env.yaniv.engine`'s docstring).

Cost: the replay is Python (the scalar engine); ``docs/verification.md`` gives the measured
rate and what a full run takes.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from ..core.cpus import map_in_processes
from ..yaniv import engine
from ..yaniv.batched.engine import REASONS, BatchedYaniv, StepResult, round_rewards
from ..yaniv.batched.kernels import greedy_pick
from ..yaniv.batched.tables import greedy_tables
from ..yaniv.observation import ObservationLayout
from ..yaniv.rewards import EPISODES, REWARD_SCHEMES, part_rewards
from ..yaniv.rules import PRESETS, Rules, get_rules
from .configs import COUNTS, ConfigSummary


def scalar_game(rules: Rules, seed: int) -> engine.State:
    """The scalar game seeded ``seed`` (the batched slot seeded ``seed`` plays the same)."""
    return engine.new_game(rules, seed=seed)


class Divergence(AssertionError):
    """The batched engine and the scalar engine disagree."""


@dataclass
class Summary(ConfigSummary):
    divergences: int = 0

    def line(self) -> str:
        return (
            f"{self.label}: {self.games:,} games, {self.decisions:,} decisions, "
            f"{self.rounds:,} rounds, {self.divergences} divergences, {self.seconds:.1f} s"
        )


def _chooser(game_seed: int) -> random.Random:
    """The stream of uniform numbers that chooses the moves of the game seeded
    ``game_seed``: the first says whether the greedy player plays it (below
    ``greedy_share``), each next one picks a move of the random player. A function of the
    game seed only: a game plays the same moves whatever the batch, the worker, the other
    games."""
    return random.Random(_CHOICE_STREAM + game_seed)


_CHOICE_STREAM = 0x5EED_C401CE << 64


def _diverged(eng: BatchedYaniv, b: int, s: engine.State, what: str):
    rules = eng.rules
    raise Divergence(
        f"{rules.name} {rules.num_players}p, game seed {eng.game_seeds[b]}, round {s.round_index}, "
        f"turn {s.round_turns}: {what}"
    )


def _all_rewards(res: StepResult) -> dict[tuple[str, str], np.ndarray]:
    """The batched rewards of every reward scheme and episode type for ``res``."""
    return {(scheme, episode): round_rewards(res, scheme, episode) for scheme in REWARD_SCHEMES for episode in EPISODES}


def _check_round(
    res: StepResult,
    b: int,
    s: engine.State,
    before: list[int],
    eng: BatchedYaniv,
    rewards: dict[tuple[str, str], np.ndarray],
) -> None:
    rr = s.round_result
    n = s.num_players
    totals = [-1 if t is None else t for t in rr.hand_totals]
    got = {
        "reason": REASONS[res.reason[b]],
        "caller": None if res.caller[b] < 0 else int(res.caller[b]),
        "challenger": None if res.challenger[b] < 0 else int(res.challenger[b]),
        "caller_beaten": bool(res.caller_beaten[b]),
        "hand_totals": res.hand_totals[b].tolist(),
        "points": res.points[b].tolist(),
        "winners": np.flatnonzero(res.winners[b]).tolist(),
        "scores": res.scores[b].tolist(),
        "eliminated": np.flatnonzero(res.eliminated[b]).tolist(),
        "truncated": bool(res.truncated[b]),
        "first_player": int(res.first_player[b]),
        "turns": int(res.turns[b]),
        "score_delta": res.score_delta[b].tolist(),
        "places": res.places[b].tolist(),
        "game_over": bool(res.game_over[b]),
        "game_truncated": bool(res.game_truncated[b]),
    }
    want = {
        "reason": rr.reason,
        "caller": rr.caller,
        "challenger": rr.challenger,
        "caller_beaten": rr.caller_beaten,
        "hand_totals": totals,
        "points": rr.points,
        "winners": sorted(rr.winners),
        "scores": rr.scores,
        "eliminated": sorted(rr.eliminated),
        "truncated": rr.truncated,
        "first_player": rr.first_player,
        "turns": rr.turns,
        "score_delta": [rr.scores[p] - before[p] for p in range(n)],
        "places": engine.ranking(s),
        "game_over": s.phase == engine.GAME_OVER,
        "game_truncated": s.game_truncated,
    }
    for name, value in want.items():
        if got[name] != value:
            _diverged(eng, b, s, f"round result {name}: batched {got[name]}, scalar {value}")
    live = [p for p, total in enumerate(rr.hand_totals) if total is not None]
    for (scheme, episode), batch in rewards.items():
        expected, got_rewards = part_rewards(s, before, scheme, episode, live), batch[b].tolist()
        if got_rewards != expected:
            _diverged(eng, b, s, f"rewards ({scheme}, {episode} episodes): batched {got_rewards}, scalar {expected}")


def _mask_lists(masks: np.ndarray) -> tuple[list[int], list[int]]:
    """The legal ids of every row of ``masks`` end to end (ascending within a row) and where
    each row's ids start (one more entry: the end)."""
    width = masks.shape[1]
    flat = np.flatnonzero(masks)
    starts = np.searchsorted(flat, np.arange(0, (len(masks) + 1) * width, width)).tolist()
    return (flat % width).tolist(), starts


def _check_observations(
    eng: BatchedYaniv, states: list, slots: list[int], got: np.ndarray, built: list, seats: list[int] | None
) -> None:
    """``got`` (the batched observations of ``slots``) must equal ``built`` (the scalar
    engine's, bit for bit); ``seats``: the observing seats (None: the acting ones)."""
    want = np.concatenate(built).reshape(len(built), -1)
    if got.view(np.uint32).tobytes() == want.view(np.uint32).tobytes():
        return
    i = int(np.flatnonzero((got.view(np.uint32) != want.view(np.uint32)).any(axis=1))[0])
    b, s = slots[i], states[slots[i]]
    diff = np.flatnonzero(got[i].view(np.uint32) != want[i].view(np.uint32)).tolist()
    seat = "the acting seat" if seats is None else f"seat {seats[i]}"
    _diverged(eng, b, s, f"observation of {seat} differs at {diff}: batched {got[i, diff]}, scalar {want[i, diff]}")


def auto_batch(games: int) -> int:
    """The default batch for ``games`` games: about an eighth of them, at most 256 (the
    games end at different times, so the batch of the last ones runs mostly empty)."""
    return max(1, min(256, games // 8))


def verify(
    rules: Rules,
    games: int,
    seed: int = 0,
    batch: int | None = None,
    greedy_share: float = 0.5,
    all_seats_every: int = 7,
    max_decisions: int | None = None,
    workers: int = 1,
) -> Summary:
    """Play ``games`` games (seeded ``seed``, ``seed + 1``, ...) both ways (see the module
    docstring); raises :class:`Divergence` at the first disagreement. ``max_decisions``
    stops earlier (then games finished count). ``workers`` > 1 splits the games between
    that many processes (the same games, the same moves: they depend on the game seeds only)."""
    if workers > 1:
        if max_decisions is not None:
            raise ValueError("max_decisions needs workers=1")
        return _verify_parallel(rules, games, seed, batch, greedy_share, all_seats_every, workers)
    start = time.perf_counter()
    summary = Summary(rules.name, rules.num_players)
    batch = min(batch or auto_batch(games), games)
    eng = BatchedYaniv(rules, num_envs=batch, seed=seed)
    replay = _Replay(rules, eng, greedy_share)
    started = batch
    slots = list(range(batch))  # the games still playing
    step = 0
    while slots:
        actions = replay.decide(slots, check_all=step % all_seats_every == 0)
        step += 1
        res = eng.step(np.array(actions, dtype=np.int64))
        summary.decisions += len(slots)
        finished = replay.play(res, actions, slots, summary)
        if max_decisions is not None and summary.decisions >= max_decisions:
            break
        if finished:
            more = finished[: max(0, games - started)]
            if more:
                eng.reset_games(np.array(more, dtype=np.int64))
                for b in more:
                    replay.start(b)
            started += len(more)
            done = set(finished[len(more) :])
            if done:
                slots = [b for b in slots if b not in done]
    summary.seconds = time.perf_counter() - start
    return summary


class _Replay:
    """The scalar games beside the batched engine's slots: each slot's game from its seed,
    the scores at its round's start and the stream choosing its moves (:func:`_chooser`)."""

    def __init__(self, rules: Rules, eng: BatchedYaniv, greedy_share: float):
        self.rules, self.eng, self.greedy_share = rules, eng, greedy_share
        batch = eng.num_envs
        # One layout per slot (shallow copies: the gather tables are shared): a layout keeps the
        # card counts and score pieces of the state it last built from (replacing them whole),
        # which a slot's own layout finds again at its next decision.
        layout = ObservationLayout(rules)
        self.build = [copy.copy(layout).build for _ in range(batch)]
        self.values, self.low_take = greedy_tables(rules)
        self.states: list = [None] * batch  # slot -> its scalar game, set by start()
        self.befores: list = [None] * batch
        self.choices: list = [None] * batch
        self.greedy: list = [None] * batch
        for b in range(batch):
            self.start(b)

    def start(self, b: int) -> None:
        """Slot ``b``'s game, from its start (the greedy player plays it or not)."""
        game_seed = int(self.eng.game_seeds[b])
        self.states[b] = scalar_game(self.rules, game_seed)
        self.befores[b] = list(self.states[b].scores)
        self.choices[b] = _chooser(game_seed).random
        self.greedy[b] = self.choices[b]() < self.greedy_share

    def decide(self, slots: list[int], check_all: bool) -> list[int]:
        """Check the decision of every slot in ``slots`` against its scalar game (seat, phase,
        legal moves, the acting seat's observation, every seat's with ``check_all``) and
        choose its move; returns the moves of the whole batch (0 where nothing plays)."""
        eng = self.eng
        batch = eng.num_envs
        seats = range(eng.num_players)
        masks = eng.legal_masks()
        obs = eng.observations()
        seat_obs = [eng.observations(np.full(batch, p)) for p in seats] if check_all else None
        current, phase = eng.current.tolist(), eng.phase.tolist()
        cols, starts = _mask_lists(masks)
        legal_actions, states, build = engine.legal_actions, self.states, self.build
        actions = [0] * batch
        built = []
        others: list[list] = [[] for _ in seats]
        for b in slots:
            s = states[b]
            legal = legal_actions(s)
            if current[b] != s.current or phase[b] != s.phase:
                _diverged(eng, b, s, f"seat/phase {current[b]}/{phase[b]} != {s.current}/{s.phase}")
            row = cols[starts[b] : starts[b + 1]]
            if row != legal and row != sorted(legal):
                _diverged(eng, b, s, f"legal mask {row} != scalar {legal}")
            layout_build = build[b]
            built.append(layout_build(s, s.current))
            if check_all:
                for p in seats:
                    others[p].append(built[-1] if p == s.current else layout_build(s, p))
            actions[b] = (
                greedy_pick(np.array(legal), len(legal), self.values, self.low_take)
                if self.greedy[b]
                else legal[int(self.choices[b]() * len(legal))]
            )
        index = slots if len(slots) < batch else slice(None)
        _check_observations(eng, states, slots, obs[index], built, None)
        if check_all:
            for p in seats:
                _check_observations(eng, states, slots, seat_obs[p][index], others[p], [p] * len(slots))
        return actions

    def play(self, res: StepResult, actions: list[int], slots: list[int], summary: Summary) -> list[int]:
        """Play ``actions`` in the scalar games of ``slots`` and check every round's end and
        game's ranking against ``res`` (counted in ``summary``); returns the slots whose
        game ended (their next round is dealt for the others)."""
        eng, states, apply = self.eng, self.states, engine.apply
        round_over = res.round_over.tolist()
        rewards = _all_rewards(res) if any(round_over) else {}
        finished = []
        for b in slots:
            s = states[b]
            apply(s, actions[b])
            over = s.phase >= engine.ROUND_OVER
            if round_over[b] != over:
                _diverged(eng, b, s, f"round over {round_over[b]} != scalar {over}")
            if over:
                summary.rounds += 1
                _check_round(res, b, s, self.befores[b], eng, rewards)
                if s.phase == engine.ROUND_OVER:
                    engine.start_next_round(s)
                    self.befores[b] = list(s.scores)
                else:
                    finished.append(b)
        if finished:
            ranking = eng.ranking()
            for b in finished:
                s = states[b]
                summary.games += 1
                want = engine.ranking(s)
                if res.places[b].tolist() != want or ranking[b].tolist() != want:
                    _diverged(eng, b, s, f"final ranking {ranking[b]} != {want}")
        return finished


def _verify_chunk(args: tuple) -> Summary:
    rules, games, seed, batch, greedy_share, all_seats_every = args
    return verify(rules, games, seed=seed, batch=batch, greedy_share=greedy_share, all_seats_every=all_seats_every)


def _verify_parallel(
    rules: Rules, games: int, seed: int, batch: int | None, greedy_share: float, all_seats_every: int, workers: int
) -> Summary:
    """:func:`verify` with the game seeds cut into chunks played by ``workers`` processes;
    the first divergence stops them all and is raised."""
    start = time.perf_counter()
    # about four chunks a worker, but at least eight full batches a chunk (the batch of a
    # chunk's last games runs mostly empty) unless a worker would get none
    size = max(-(-games // (workers * 4)), min(8 * (batch or 256), -(-games // workers)))
    chunks = [
        (rules, min(size, games - first), seed + first, batch, greedy_share, all_seats_every)
        for first in range(0, games, size)
    ]
    summary = Summary(rules.name, rules.num_players)
    for part in map_in_processes(_verify_chunk, chunks, workers):
        summary.add(part, COUNTS)  # the wall clock is the parallel run's own
    summary.seconds = time.perf_counter() - start
    return summary


@dataclass(frozen=True)
class Chunk:
    """Games ``first .. first + games - 1`` (offsets from the run's seed) of one preset and
    player count: the unit a sharded run (:func:`run_chunks`) plays, records and resumes."""

    preset: str
    players: int
    first: int
    games: int

    @property
    def name(self) -> str:
        return f"{self.preset} {self.players}p +{self.first}"


def chunks(presets: list[str], players: list[int], games: int, chunk_games: int, shard: tuple[int, int]) -> list[Chunk]:
    """The chunks of shard ``i`` of ``n`` (every ``n``-th chunk from the ``i``-th, the
    configurations' chunks taken in turn so that every one advances)."""
    per_config = [
        [Chunk(preset, n, first, min(chunk_games, games - first)) for first in range(0, games, chunk_games)]
        for preset in presets
        for n in players
        if n <= get_rules(preset).max_seats
    ]
    ordered = [c for turn in itertools.zip_longest(*per_config) for c in turn if c is not None]
    i, n = shard
    return ordered[i::n]


def _play_chunk(args: tuple) -> dict:
    chunk, seed, greedy_share = args
    rules = get_rules(chunk.preset, chunk.players)
    start, cpu = time.perf_counter(), time.process_time()
    record = asdict(chunk) | {"decisions": 0, "rounds": 0, "divergence": None}
    try:
        summary = verify(rules, chunk.games, seed=seed + chunk.first, greedy_share=greedy_share)
        record |= {"decisions": summary.decisions, "rounds": summary.rounds}
    except Divergence as e:
        record["divergence"] = str(e)
    return record | {
        "seconds": round(time.perf_counter() - start, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
    }


def run_chunks(
    todo: list[Chunk],
    seed: int,
    workers: int,
    greedy_share: float = 0.5,
    on_chunk: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Play the chunks (``workers`` processes), each a :func:`verify` of its games; a
    divergence is recorded with its chunk (and the chunk's other games are not played)."""
    jobs = [(chunk, seed, greedy_share) for chunk in todo]
    records = []
    for record in map_in_processes(_play_chunk, jobs, workers):
        records.append(record)
        if on_chunk is not None:
            on_chunk(record)
    return records


#: The options a resumed run must share with the run it continues.
_RUN_OPTIONS = ("games", "seed", "chunk_games", "greedy_share", "shard")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="yaniv verify",
        description="Replay batched-engine games through the scalar engine and count divergences.",
    )
    parser.add_argument("--games", type=int, default=20_000, help="games per preset and player count (default 20000)")
    parser.add_argument("--presets", "--rules", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5], help="player counts (default 2 3 4 5)")
    parser.add_argument("--seed", type=int, default=0, help="the first game seed of every configuration")
    parser.add_argument("--workers", type=int, default=1, help="processes sharing the chunks (default 1)")
    parser.add_argument("--shard", default="0/1", help="play shard i of n of the chunks (i/n, default 0/1: all)")
    parser.add_argument("--chunk-games", type=int, default=500, help="games per chunk (the unit recorded and resumed)")
    parser.add_argument("--greedy-share", type=float, default=0.5, help="share of the games the greedy player plays")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON (after every chunk)")
    parser.add_argument("--resume", action="store_true", help="continue the run whose results are in --json FILE")
    args = parser.parse_args(argv)
    try:
        i, n = (int(x) for x in args.shard.split("/"))
        if not 0 <= i < n:
            raise ValueError
    except ValueError:
        parser.error(f"--shard must be i/n with 0 ≤ i < n, got {args.shard!r}")
    if args.games < 1 or args.workers < 1 or args.chunk_games < 1 or not 0 <= args.greedy_share <= 1:
        parser.error("--games, --workers and --chunk-games must be ≥ 1 and --greedy-share in [0, 1]")
    if args.resume and not args.json:
        parser.error("--resume continues the run of --json FILE")
    records, wall = [], 0.0
    if args.resume and os.path.exists(args.json):
        with open(args.json) as f:
            previous = json.load(f)
        for option in _RUN_OPTIONS:
            if previous[option] != getattr(args, option):
                parser.error(f"--resume: {args.json} has {option} {previous[option]}, not {getattr(args, option)}")
        records, wall = previous["chunks"], previous["wall_seconds"]
    done = {(r["preset"], r["players"], r["first"]) for r in records}
    todo = [
        c
        for c in chunks(args.presets, args.players, args.games, args.chunk_games, (i, n))
        if (c.preset, c.players, c.first) not in done
    ]
    start = time.perf_counter()

    def save(record: dict | None) -> None:
        if record is not None:
            records.append(record)
            if record["divergence"]:
                print(
                    f"{Chunk(record['preset'], record['players'], record['first'], record['games']).name}: "
                    f"{record['divergence']}",
                    flush=True,
                )
        if args.json:
            report = {option: getattr(args, option) for option in _RUN_OPTIONS} | {
                "command": "yaniv verify " + " ".join(sys.argv[1:] if argv is None else argv),
                "workers": args.workers,
                "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
                "wall_seconds": round(wall + time.perf_counter() - start, 1),
                "chunks_left": len(todo) - (len(records) - len(done)),
                "configs": _config_totals(records),
                "chunks": records,
            }
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)

    run_chunks(todo, args.seed, args.workers, args.greedy_share, on_chunk=save)
    save(None)
    for config in _config_totals(records):
        print(
            f"{config['preset']} {config['players']}p: {config['games']:,} games, {config['decisions']:,} decisions, "
            f"{config['rounds']:,} rounds, {config['divergences']} divergences, {config['seconds']:.1f} worker-seconds "
            f"({config['cpu_seconds']:.1f} s of CPU)"
        )
    divergences = sum(1 for r in records if r["divergence"])
    print(
        f"all: {sum(r['games'] for r in records):,} games, {sum(r['decisions'] for r in records):,} decisions, "
        f"{divergences} divergences, {wall + time.perf_counter() - start:.1f} s"
    )
    return 1 if divergences else 0


def _config_totals(records: list[dict]) -> list[dict]:
    """The chunk records added up per preset and player count."""
    counted = ("games", "decisions", "rounds", "divergences", "seconds", "cpu_seconds")
    totals: dict[tuple[str, int], dict] = {}
    for r in records:
        t = totals.setdefault(
            (r["preset"], r["players"]), {"preset": r["preset"], "players": r["players"]} | dict.fromkeys(counted, 0)
        )
        for key in counted[:3] + counted[4:]:
            t[key] += r[key]
        t["divergences"] += bool(r["divergence"])
    return [totals[k] for k in sorted(totals, key=lambda k: (list(PRESETS).index(k[0]), k[1]))]


if __name__ == "__main__":
    sys.exit(main())
