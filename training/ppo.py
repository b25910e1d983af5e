"""A lean PPO for Yaniv on the batched engine, in one file that reads top to bottom (in the
manner of CleanRL's ``ppo.py``): no Stable-Baselines3 in the loop, the rollout stepped on
:class:`yaniv_env.yaniv.batched.envs.LearnerGames` (one learner seat per game, fixed opponents
acting in batch) or on :class:`yaniv_env.yaniv.batched.envs.BatchedSelfPlay` (``--opponents self``:
one network plays every seat of every game).

It is ``yaniv train`` (``--algo ppo``, the default learner): the options are :class:`training.args.Args` (those only
this learner uses say so in their help), resolved once into a :class:`training.plan.Plan`,
which :func:`train` reads; ``python -m training.ppo`` is the same command with ``--algo ppo``
given.

.. code-block:: console

    yaniv train --minutes 10                                                 # advised, warm-started
    python -m training.ppo --advice none --pretrain none --opponents greedy --minutes 5   # from scratch
    python -m training.ppo --advice none --pretrain none --opponents self:3,past:1 --minutes 60
    python -m training.ppo --resume runs/standard__1__20260101-120000       # continue a run

The network is the one :class:`agents.networks.ActionFeaturePolicy` describes (separate
actor and critic MLPs; the actor's output layer scores each action id plus a bilinear term
over the actions' card features), so the model it writes is a play file that
``agents.load`` / ``yaniv eval`` read like any other. Only its forward pass is written
here, without SB3's machinery: the action-feature head is folded into one weight matrix
per forward pass (``W + features @ P``, the same logits), and illegal actions get the
logit ``-1e8`` as sb3-contrib's ``MaskableCategorical`` gives them, so their probability is
0 and the entropy counts the legal moves only.

The games of a rollout are streams side by side (``--opponents self:3,past:1,heuristic:1``):
self-play games (one network at every seat, every seat's decisions learnt from) and games
of the learner against opponents drawn per episode and seat, among agents and, for
``past``, the pool of the network's past selves (:class:`training.league.SelfPlayPool`, the
pool MaskablePPO's league loads its snapshots into: a snapshot every ``pool_every`` steps, the
last ``pool_size`` kept, saved in the checkpoint). A past self is an agent that samples its
moves from its masked distribution (advised as the learner is); the member drawn for a seat
plays it for the whole episode, as a league member does (earlier versions drew a member anew
at every move of a past self's seat). Training episodes are whole games for an
advised run and rounds for a run from scratch (``--episode``; a call ends a round), and
evaluations play whole games.

One PPO iteration (:func:`collect`, :func:`advantages`, :func:`update`):

1. **Rollout**: ``n_steps`` steps of ``n_envs`` games. Each decision stores its
   observation, its legal moves, the position of the move sampled from the masked
   distribution, its log-probability and the critic's value. Against opponents the rewards
   of a step are the learner's (opponents' moves included); in self-play each seat's
   rewards go to that seat's last decision, and a decision's successor is the same seat's
   next decision in the same game (``next_index``), not the next row of the buffer.
2. **Advantages**: GAE(λ) along each stream's successor links, on the rewards plus the
   potential-based hand shaping. An episode's end (termination) has no successor; a
   truncation (turn or round limit) and the rollout's end bootstrap with the critic's value
   of the seat's next observation. In whole games, ``--round-end`` says what a round's end
   is: nothing (``continue``), a bootstrap from the next round's first value
   (``bootstrap``: λ is 0 there), or the end of the return (``terminal``: each round
   learnt as an episode, at the game's scores); the streams mark it (``round_end``).
3. **Update**: ``n_epochs`` passes over the rollout in minibatches of
   ``batch_size``: the clipped surrogate with per-minibatch normalised advantages,
   ``vf_coef`` times the squared value error, ``ent_coef`` times the masked entropy, the
   gradient's norm clipped to ``max_grad_norm``.

Before PPO a new run imitates ``--pretrain`` (:func:`training.imitation.imitation_pretrain`, the
behaviour cloning ``yaniv train`` does). Every ``eval_every`` steps the deterministic policy
(arg-max of the masked logits: the agent its play file makes) plays ``eval_games`` whole games
against each ``eval_opponents`` entry through :mod:`agents.evaluation` (duplicate deals, on the
batched engine: :func:`log_evaluation`, the periodic evaluation of :mod:`training.periodic_eval`
both learners share), and ``eval.csv`` gets a row per opponent: its game win rate with a 95%
Wilson interval over the games; ``checkpoint.pt`` (weights, optimiser, counters, pool,
arguments: plain tensors, numbers and strings, read with ``torch.load(weights_only=True)``)
and ``model.safetensors`` (the play file) are written every ``checkpoint_every`` steps and
at the end; TensorBoard logs go to ``tb/`` and every ended training episode to ``monitor/``
(:class:`EpisodeLog`). The run ends as ``yaniv train``'s: ``learning_curve.png`` and the
final evaluation against the baselines (:func:`run`).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import json
import math
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

import agents.advice
import yaniv_env
from training import config
from training.args import Args
from training.checkpoint import PPO_CHECKPOINT, read_ppo_checkpoint
from training.envs import hand_potential_weights, shaped_rewards
from training.final_eval import final_evaluation
from training.imitation import imitation_pretrain
from training.league import SelfPlayPool, as_agent
from training.periodic_eval import learner_win_rate, periodic_evaluation, play_learner, unfinished
from training.plan import EvalSettings, ImitationSettings, ModelSettings, Plan, PPOSettings, make_plan
from training.plots import plot_learning_curve


# -- the network -------------------------------------------------------------------------
def make_policy(
    rules, hidden: list[int], advice_scale: float | None = None, activation: str = "relu", score_features: bool = False
):
    """An untrained :class:`agents.networks.ActionFeaturePolicy` for ``rules`` (an
    :class:`agents.networks.AdvisedPolicy` with ``advice_scale``; ``activation``: ``relu`` or
    ``tanh``; ``score_features``: the networks also read
    :class:`agents.networks.ScoreFeatures`): the network this learner trains and the play
    format describes. An advised network's observations carry the advised move as one more
    column, which only its logits read (:mod:`agents.advice`)."""
    from gymnasium import spaces

    from agents.checkpoint import rules_to_dict
    from agents.networks import ActionFeaturePolicy, AdvisedPolicy
    from yaniv_env.yaniv.batched import BatchedYaniv
    from yaniv_env.yaniv.observation import ObservationLayout

    size = ObservationLayout(rules).size + (advice_scale is not None)
    obs_space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
    act_space = spaces.Discrete(BatchedYaniv(rules, num_envs=1, seed=0).num_actions)
    kind, extra = (ActionFeaturePolicy, {}) if advice_scale is None else (AdvisedPolicy, {"advice_scale": advice_scale})
    return kind(
        obs_space,
        act_space,
        lambda _: 0.0,
        net_arch={"pi": hidden, "vf": hidden},
        activation_fn={"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[activation],
        action_rules=rules_to_dict(rules),
        score_features=score_features,
        **extra,
    )


def run_policy(model: ModelSettings, rules):
    """The untrained network of a run (:func:`make_policy`)."""
    advice_scale = model.advice_scale if model.advice else None
    return make_policy(rules, list(model.net_arch), advice_scale, model.activation, model.score_features)


def head_weights(policy, rows: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The actor's output layer as one matrix ``[A, H]`` and bias ``[A]``, or only their
    ``rows`` (action ids) when given: the action-feature head ``base(x) + proj(x) @
    features.T`` is ``x @ (W_base + features @ W_proj).T + b_base + features @ b_proj``."""
    head = policy.action_net
    base_weight, base_bias, features = head.base.weight, head.base.bias, head.features
    if rows is not None:
        base_weight, base_bias, features = base_weight[rows], base_bias[rows], features[rows]
    return base_weight + features @ head.proj.weight, base_bias + features @ head.proj.bias


def legal_moves(masks) -> tuple[torch.Tensor, torch.Tensor]:
    """The legal action ids of each row of ``masks`` (bool ``[N, A]``, array or tensor), in
    increasing order and padded: ``ids [N, K]`` and ``valid [N, K]``, ``K`` the most legal
    moves of any row; a padding entry is id 0 and not valid."""
    masks = np.asarray(masks)
    rows, cols = np.nonzero(masks)
    counts = np.bincount(rows, minlength=len(masks))
    k = int(counts.max(initial=0))
    position = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    ids = np.zeros((len(masks), k), np.int64)
    valid = np.zeros((len(masks), k), bool)
    ids[rows, position] = cols
    valid[rows, position] = True
    return torch.from_numpy(ids), torch.from_numpy(valid)


def policy_and_value(
    policy, obs: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor, head=None, advice: torch.Tensor | None = None
):
    """Log-probabilities ``[N, K]`` of the legal moves ``ids`` (:func:`legal_log_probs`) and
    values ``[N]`` of the observations ``obs`` (the environment's, without the advice column)."""
    features = network_input(policy, obs)
    return legal_log_probs(policy, features, ids, valid, head, advice), critic(policy, features)


def legal_log_probs(
    policy,
    features: torch.Tensor,
    ids: torch.Tensor,
    valid: torch.Tensor,
    head: tuple[torch.Tensor, torch.Tensor] | None = None,
    advice: torch.Tensor | None = None,
) -> torch.Tensor:
    """Log-probabilities ``[N, K]`` of the legal moves ``ids`` (padding: about -1e8) in the
    positions of :func:`network_input`'s ``features``. Only the moves legal in some row are
    scored, instead of all ~1,500 ids: the batch's distinct legal moves (a few hundred) in one
    matrix product, from which each row takes its own. The same distribution as masking the
    full logits with -1e8 (sb3-contrib's ``MaskableCategorical``); a dense product and a
    gather cost far less than gathering a weight row per legal move, whose backward pass is a
    scatter. ``head``: :func:`head_weights` of every action when already computed (a rollout
    folds them once). ``advice``: the advised move of each row (an advised policy's logits
    add ``advice_scale`` to it, as :class:`agents.networks.AdvisedPolicy` does)."""
    scored, position = torch.unique(ids, return_inverse=True)
    weight, bias = head_weights(policy, scored) if head is None else (head[0][scored], head[1][scored])
    latent_pi = policy.mlp_extractor.policy_net(features)
    logits = torch.addmm(bias, latent_pi, weight.T).gather(1, position)
    if advice is not None:
        logits = logits + policy.advice_scale * (ids == advice[:, None])
    return logits.masked_fill(~valid, -1e8).log_softmax(-1)


def advise(advisor, obs, masks) -> torch.Tensor | None:
    """The advice column :func:`agents.advice.advise` appends to each row (the move of
    ``advisor``, :func:`agents.advice.make_advisor`; 0 where nothing is legal, a row never
    acted on: :func:`agents.advice.advice_column`) as action ids, ``None`` without an
    advisor; the observations are not copied into an advised batch to read that column."""
    if advisor is None:
        return None
    moves = advisor.act_batch(np.asarray(obs), np.asarray(masks, bool))
    return torch.from_numpy(agents.advice.advice_column(np.asarray(moves, dtype=np.int64)))


def network_input(policy, obs: torch.Tensor) -> torch.Tensor:
    """What the actor's and the critic's MLPs read: the observation (without the advice
    column), followed by the score features when the policy has them."""
    return policy.features_extractor(obs) if policy.score_features else obs


def critic(policy, features: torch.Tensor) -> torch.Tensor:
    """The critic's values of :func:`network_input`'s ``features``."""
    return policy.value_net(policy.mlp_extractor.value_net(features)).squeeze(-1)


def value_only(policy, obs: torch.Tensor) -> torch.Tensor:
    return critic(policy, network_input(policy, obs))


def masked_entropy(log_probs: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal moves only (a padding entry's ``p log p`` counts 0)."""
    return -(log_probs.exp() * log_probs).masked_fill(~valid, 0.0).sum(-1)


def sample(log_probs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One position per row by the Gumbel-max trick (padding, at about -1e8, is never drawn)."""
    u = torch.rand(log_probs.shape, generator=generator).clamp_(1e-12, 1.0)
    return (log_probs - torch.log(-torch.log(u))).argmax(-1)


# -- the games ---------------------------------------------------------------------------
class EpisodeLog:
    """The training episodes of a stream, a row each (return, learner decisions, seconds,
    opponents, the learner's share of the first place) in SB3's Monitor format
    (``monitor/*.monitor.csv``, as ``--algo maskable_ppo`` writes them, which has no ``won``),
    which the learning curve's training panel reads. ``timesteps`` stamps each row with the run's
    step count when its rollout began, so that a resumed run's reader can drop the episodes of
    the stretch after the last checkpoint, which the resumed run plays again."""

    COLUMNS = ("r", "l", "t", "opponent", "won", "timesteps")

    def __init__(self, path: Path):
        from stable_baselines3.common.monitor import ResultsWriter

        self.start = time.time()
        self.timesteps = 0  # the run's step count when the current rollout began
        header = ResultsWriter(str(path), header={"t_start": self.start}, extra_keys=self.COLUMNS[3:])
        self.path = header.file_handler.name
        header.close()  # the rows are appended as episodes end: nothing stays open

    def write(self, returns, lengths, opponents, won) -> None:
        t = round(time.time() - self.start, 6)
        with open(self.path, "a", newline="\n") as f:
            rows = csv.DictWriter(f, fieldnames=self.COLUMNS)
            for r, n, opponent, w in zip(returns, lengths, opponents, won, strict=True):
                row = {"r": round(float(r), 6), "l": int(n), "t": t, "opponent": opponent, "won": round(float(w), 6)}
                rows.writerow({**row, "timesteps": self.timesteps})


class LearnerStream:
    """Rollout source over :class:`LearnerGames`: the learner's decisions, one per game and
    step; a decision's successor is the next row of its game. ``past_chance``: the chance that
    an opponent's seat is a past self (:func:`seat_past_selves`)."""

    def __init__(self, rules, num_envs: int, mix, episode: str, reward: str, seed: int, past_chance: float = 0.0):
        from yaniv_env.yaniv.batched.envs import LearnerGames

        self.games = LearnerGames(rules, num_envs, rules.num_players, opponent_mix=mix, episode=episode, reward=reward)
        self.past_chance = past_chance
        self.num_envs = num_envs
        self.label = "vs opponents"
        self.obs = self.games.reset(seed)
        self.ended_returns: list[float] = []
        self.log: EpisodeLog | None = None

    def begin(self, num_steps: int) -> None:
        B = self.num_envs
        self.rewards = np.zeros(num_steps * B)
        self.ended = np.zeros(num_steps * B, bool)
        self.round_end = np.zeros(num_steps * B, bool)
        self.next_index = np.arange(B, (num_steps + 1) * B)  # the last row's: past the end, bootstrapped
        self.next_index[(num_steps - 1) * B :] = -1
        self.t = 0

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        return self.obs, self.games.action_masks()

    def step(self, actions: np.ndarray, value_of) -> None:
        """Play ``actions``. A truncated episode's reward includes ``value_of(final
        observation)`` (its bootstrap, ``gamma * V``): SB3 does the same with
        ``infos[i]["TimeLimit.truncated"]`` and ``terminal_observation``."""
        rows = slice(self.t * self.num_envs, (self.t + 1) * self.num_envs)
        self.obs, rewards, _, truncated, final, ended = self.games.step(actions)
        self.rewards[rows], self.ended[rows], self.round_end[rows] = rewards, ended, self.games.round_ended
        if truncated.any():
            self.rewards[rows][truncated] += value_of(final[truncated])
        if ended.any():
            self.ended_returns.extend(self.games.ended_returns.tolist())
            if self.log is not None:
                g = self.games
                self.log.write(g.ended_returns, g.ended_lengths, g.ended_opponents, g.ended_won)
        self.t += 1

    def pending(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(flat indices, observations) of the decisions whose successor is not in the rollout."""
        B = self.num_envs
        return [(np.arange((self.t - 1) * B, self.t * B), self.obs)]


class SelfPlayStream:
    """Rollout source over :class:`BatchedSelfPlay`: every seat is the learner. Rewards are
    credited to each seat's last decision in its game; a decision's successor is the same
    seat's next decision (``-1`` until it is made)."""

    def __init__(self, rules, num_envs: int, episode: str, reward: str, seed: int):
        from yaniv_env.yaniv.batched.envs import BatchedSelfPlay

        self.games = BatchedSelfPlay(rules, num_envs, rules.num_players, episode=episode, reward=reward)
        self.games.reset(seed)
        self.num_envs = num_envs
        self.label = "self-play"
        self.n = rules.num_players
        self.ended_returns: list[float] = []
        self.log: EpisodeLog | None = None
        self._episode_return = np.zeros((num_envs, self.n))
        self._episode_length = np.zeros((num_envs, self.n), np.int64)  # each seat's decisions

    def begin(self, num_steps: int) -> None:
        B = self.num_envs
        self.last = np.full((B, self.n), -1, np.int64)  # flat index of each seat's last decision
        self.next_index = np.full(num_steps * B, -1, np.int64)
        self.rewards = np.zeros(num_steps * B)
        self.ended = np.zeros(num_steps * B, bool)
        self.round_end = np.zeros(num_steps * B, bool)
        self.t = 0

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        return self.games.observations, self.games.masks

    def step(self, actions: np.ndarray, value_of=None) -> None:
        """Play ``actions`` (a truncated game ends like a finished one: its seats are not
        bootstrapped; ``value_of`` is unused)."""
        g, B = self.games, self.num_envs
        rows = np.arange(B)
        index = self.t * B + rows
        seats = g.seats.copy()
        before = self.last[rows, seats]
        linked = before >= 0
        self.next_index[before[linked]] = index[linked]
        self.last[rows, seats] = index
        self._episode_length[rows, seats] += 1
        rewards, ended = g.step(actions)
        self._episode_return += rewards
        has = self.last >= 0
        np.add.at(self.rewards, self.last[has], rewards[has])
        closed = self.last[g.round_ended]  # every seat's last decision of the round that ended
        self.round_end[closed[closed >= 0]] = True
        if ended.any():
            done = self.last[ended]
            self.ended[done[done >= 0]] = True
            self.last[ended] = -1
            self.ended_returns.extend(self._episode_return[ended].ravel().tolist())
            if self.log is not None:
                lengths = self._episode_length[ended].ravel()
                won = self.games.ended_won.ravel()
                self.log.write(self._episode_return[ended].ravel(), lengths, ["self"] * len(lengths), won)
            self._episode_return[ended] = 0.0
            self._episode_length[ended] = 0
        self.t += 1

    def pending(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(flat indices, observations) of the decisions still waiting for their seat's next
        one: each seat's observation now (they are bootstrapped from it)."""
        out = []
        for p in range(self.n):
            rows = np.flatnonzero(self.last[:, p] >= 0)
            if len(rows):
                out.append((self.last[rows, p], self.games.engine.observations(np.full(len(rows), p), rows=rows)))
        return out


class PastSelf:
    """A past self (a member of :class:`training.league.SelfPlayPool`: an
    :class:`agents.trained.TrainedAgent` whose network never changes) acting in batch in the
    games against opponents, in one call over all the games where it sits, as
    :class:`agents.batched.BatchedTrained` acts for an agent, but scoring the legal moves only
    with its head folded once, as the rollout does (:func:`legal_log_probs`; the agent's
    ``logits_batch`` computes every action's logit, the head unfolded, at each call). The
    agent decides among those moves (:meth:`agents.trained.TrainedAgent.choose` on their
    logits: a sample drawn from its generator), advised by its own advisor when the learner
    is advised."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        with torch.no_grad():
            self.head = head_weights(agent.policy)

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        ids, valid = legal_moves(masks)
        advice = advise(self.agent.advisor, observations, masks)
        policy = self.agent.policy
        with torch.no_grad():
            features = network_input(policy, torch.as_tensor(np.asarray(observations, np.float32)))
            log_probs = legal_log_probs(policy, features, ids, valid, self.head, advice)
        # the agent decides among each row's legal moves (masked logits [N, K]), then the ids
        position = self.agent.choose(np.where(valid.numpy(), log_probs.double().numpy(), -np.inf))
        chosen = np.take_along_axis(ids.numpy(), np.maximum(position, 0)[:, None], axis=1)[:, 0]
        return np.where(position >= 0, chosen, -1)


def split_opponents(spec: str, num_envs: int) -> tuple[int, list[tuple[str, float]], float]:
    """``--opponents`` as (games of self-play, the agent mix of the other games, the chance
    that one of their seats is a past self): ``self:3,past:1,heuristic:1`` over 256 games is
    154 self-play games and 102 against ``past`` or ``heuristic`` half the time each."""
    from training.league import parse_mix

    mix = parse_mix(spec)
    weight = dict.fromkeys(("self", "past"), 0.0)
    agents_mix = []
    for name, w in mix:
        if name in weight:
            weight[name] += w
        else:
            agents_mix.append((name, w))
    fixed = weight["past"] + sum(w for _, w in agents_mix)
    self_games = round(num_envs * weight["self"] / (weight["self"] + fixed))
    if fixed and self_games == num_envs:
        raise ValueError(f"--opponents {spec!r}: {num_envs} games leave none for the opponents other than self")
    if fixed and self_games == 0 and weight["self"]:
        raise ValueError(f"--opponents {spec!r}: {num_envs} games leave none for self-play")
    pool_chance = weight["past"] / fixed if fixed else 0.0
    return self_games, agents_mix or [("random", 1.0)], pool_chance  # random: never drawn when the pool always is


def column_block(x, offset: int, width: int, steps: int):
    """The decisions of games ``offset .. offset + width`` of a step-major buffer of
    ``steps`` rows, as that stream's own flat buffer (step-major too)."""
    return x.reshape(steps, -1, *x.shape[1:])[:, offset : offset + width].reshape(steps * width, *x.shape[1:])


def gae(rewards, values, ended, next_index, boot, gamma: float, lam: float, num_envs: int, cut=None) -> np.ndarray:
    """GAE(λ) advantages over a flat buffer whose decision ``i`` is followed by
    ``next_index[i]`` (a later index; ``-1``: none in this rollout, bootstrap ``boot[i]``)
    unless ``ended[i]``; computed a row of ``num_envs`` at a time from the last row back.
    ``cut`` (bool, optional) marks the decisions where λ is 0: their advantage stops at their
    successor's value (``--round-end bootstrap``: a round's last decision in a whole game)."""
    lams = np.where(cut, 0.0, lam) if cut is not None else np.full(len(rewards), lam)
    adv = np.zeros_like(rewards)
    for start in range(len(rewards) - num_envs, -1, -num_envs):
        i = np.arange(start, start + num_envs)
        nxt = next_index[i]
        has = nxt >= 0
        live = ~ended[i]
        next_value = np.where(live, np.where(has, values[np.maximum(nxt, 0)], boot[i]), 0.0)
        next_adv = np.where(live & has, adv[np.maximum(nxt, 0)], 0.0)
        delta = rewards[i] + gamma * next_value - values[i]
        adv[i] = delta + gamma * lams[i] * next_adv
    return adv


# -- evaluation --------------------------------------------------------------------------
def evaluate(policy, rules, opponent: str, games: int, seed: int, advice: str | None = None) -> tuple[float, int, int]:
    """(wins, games, unfinished): the deterministic policy (:func:`training.league.as_agent`,
    advised by ``advice``) at one seat and ``opponent`` at every other, in the games the lean
    learner's periodic evaluation plays (:func:`training.periodic_eval.play_learner`:
    :func:`agents.evaluation.evaluate`'s duplicate format on the deals of ``seed``, ``games``
    rounded up to whole deals, on the batched engine when every agent has an exact batched
    version). A win is a first place (a tie for it shares the win, as in the evaluation's game
    win rate). Every game ends: a round ends as a draw at the rules' turn limit and a game at
    their round limit, ranked by score; the games that reach the round limit are counted,
    ranked so, and ``unfinished`` is their number."""
    result = play_learner(functools.partial(as_agent, policy, advice=advice), rules, opponent, games, seed)
    rate = learner_win_rate(result, paired=False)
    return rate.value * rate.n, result.games, unfinished(result)


# -- saving ------------------------------------------------------------------------------
def save_play_file(policy, rules, path: Path, timesteps: int, training: dict) -> None:
    """The play file (:mod:`agents.play_format`) of the policy, ``training`` what it records of
    the run (:func:`play_training`, its ``advice`` the advisor the agent asks): ``agents.load`` reads it."""
    from agents.checkpoint import atomic_write_bytes
    from agents.networks import describe_policy
    from agents.play_format import play_bytes, play_metadata

    advice = training["advice"]
    meta = play_metadata(rules, describe_policy(policy), advice=advice, timesteps=timesteps, training=training)
    atomic_write_bytes(path, play_bytes(meta, policy.state_dict()))


def play_training(args: Args, run_name: str) -> dict:
    """What the play file of the run ``run_name`` (its directory's name) records of its
    training (:func:`save_play_file`), from its stored arguments."""
    versions = {"torch": torch.__version__, "numpy": np.__version__}
    record = training_record(dataclasses.asdict(args), run_name)
    return {**record, "package_version": yaniv_env.__version__, "versions": versions}


def play_file_from_run(run_dir: str | Path, path: str | Path) -> Path:
    """Write the play file of the run in ``run_dir`` (its ``model.safetensors``) again as
    ``path``, with the whole record its ``checkpoint.pt`` holds: the lineage, the run's own name
    (also when it was resumed in a copy of its directory) and its training clock."""
    import agents

    run_dir, path = Path(run_dir), Path(path)
    saved = read_ppo_checkpoint(run_dir / "checkpoint.pt", f"the run in {run_dir}", keys=("args", "state"))
    agent = agents.load(str(run_dir / "model.safetensors"))
    record = training_record(saved["args"], saved["args"]["run_name"])
    record["elapsed_seconds"] = round(saved["state"]["elapsed"], 3)
    save_play_file(agent.policy, agent.rules, path, agent.metadata["timesteps"], record)
    return path


def training_record(args: dict, run_name: str, generations: int = 8) -> dict:
    """The training record of a run of this learner from its stored arguments; with an
    ``init``, ``init_training`` records what that network was trained with, and so on back
    ``generations`` networks, so a play file says whether its whole lineage learnt without an
    advisor or imitation (``None`` where a network in it cannot be read)."""
    given = {key: None if args.get(key) in ("", "none", None) else args[key] for key in ("advice", "pretrain", "init")}
    record = {"algorithm": "ppo (training/ppo.py)"} | {key: args.get(key) for key in ("opponents", "reward", "episode")}
    record.update(given, run_name=run_name)
    if given["init"] and generations > 1:
        record["init_training"] = init_training(Path(given["init"]), generations - 1)
    return record


def init_training(path: Path, generations: int) -> dict | None:
    """The training record of the network an ``--init`` started from: a checkpoint.pt's from its
    stored arguments, a play file's from its metadata (``None`` when it cannot be read)."""
    try:
        if path.suffix == ".pt":
            args = read_ppo_checkpoint(path, f"--init {path}", keys=("args",))["args"]
            return training_record(args, args.get("run_name") or path.parent.name, generations)
        import agents

        return agents.load(str(path)).metadata.get("training")
    except (OSError, ValueError):
        return None


def initial_weights(path: Path, policy) -> dict:
    """The network weights of ``path`` (a checkpoint.pt or a play file of this learner), checked
    against ``policy``'s shapes: ``ValueError`` naming the first tensor that differs."""
    if path.suffix == ".pt":
        weights = read_ppo_checkpoint(path, f"--init {path}", keys=("policy",))["policy"]
    else:
        import agents

        weights = agents.load(str(path)).policy.state_dict()
    check_shapes(weights, policy, f"--init {path}")
    return weights


def check_shapes(weights: dict, policy, what: str) -> None:
    """``ValueError`` naming ``what`` and the first tensor of ``policy`` that ``weights`` lacks
    or holds in another shape."""
    for name, tensor in policy.state_dict().items():
        if name not in weights or weights[name].shape != tensor.shape:
            found = tuple(weights[name].shape) if name in weights else "nothing"
            raise ValueError(f"{what}: {name} should be {tuple(tensor.shape)}, found {found}")


def save_checkpoint(path: Path, policy, optimizer, state: dict, pool: list[dict], arguments: dict) -> None:
    """``checkpoint.pt``: the network, the optimiser, the counters, the past selves and the run's
    stored ``arguments`` (``args.json``'s)."""
    tmp = path.with_suffix(".tmp")
    saved = {"policy": policy.state_dict(), "optimizer": optimizer.state_dict(), "state": state, "pool": pool}
    torch.save({**saved, "args": arguments}, tmp)
    tmp.replace(path)


# -- the main loop -----------------------------------------------------------------------
def make_streams(
    rules,
    settings: PPOSettings,
    num_envs: int,
    policy,
    past: SelfPlayPool,
    saved: dict | None,
    seed: int,
    monitor: Path | None = None,
) -> list:
    """The rollout's ``num_envs`` games: self-play games first, then the games against past selves and
    agents (the pool ``past`` filled with the saved pool, or the initial network, and seated:
    a member drawn per episode and seat, :meth:`LearnerGames.set_pool`); with ``monitor``,
    each stream's episodes go to ``{monitor}_self`` or ``{monitor}_games`` (:class:`EpisodeLog`)."""
    if num_envs < 1:  # a rollout of no games would never advance the step count
        raise ValueError(f"the rollout needs at least one game, got {num_envs}")
    self_games, mix, pool_chance = split_opponents(settings.opponents, num_envs)
    streams: list = []
    if self_games:
        streams.append(SelfPlayStream(rules, self_games, settings.episode, settings.reward, seed))
    if self_games < num_envs:
        games = (num_envs - self_games, mix, settings.episode, settings.reward, seed + self_games, pool_chance)
        streams.append(LearnerStream(rules, *games))
        if pool_chance:
            for weights in saved["pool"] if saved is not None else [policy.state_dict()]:
                past.add(policy, weights)
            seat_past_selves(streams, past)
    for stream in streams if monitor is not None else []:
        stream.log = EpisodeLog(Path(f"{monitor}_{'self' if isinstance(stream, SelfPlayStream) else 'games'}"))
    return streams


def seat_past_selves(streams: list, past: SelfPlayPool) -> None:
    """The games against opponents seat the members of ``past`` from their next episodes on
    (:meth:`LearnerGames.set_pool`: each other seat of an episode, at the stream's
    ``past_chance``, a member drawn uniformly), each acting in batch as :class:`PastSelf` (a
    member already seated keeps its own)."""
    for stream in streams:
        if isinstance(stream, LearnerStream) and stream.past_chance:
            seated = {id(member.agent): member for member in stream.games.pool}
            members = [seated.get(id(agent)) or PastSelf(agent) for agent in past.members]
            stream.games.set_pool(members, stream.past_chance, label="past")


@dataclass
class Rollout:
    """One rollout, step-major (decision ``t * B + i`` is game ``i``'s at step ``t``)."""

    obs: torch.Tensor  # [T * B, S]
    moves: list  # per step: (legal ids [B, K], valid [B, K])
    choice: torch.Tensor  # the position of each action among its legal moves
    logp: torch.Tensor
    values: np.ndarray
    advice: torch.Tensor | None  # the advised move of each decision (an advised policy)
    followed: float | None = None  # an advised policy: the share of its choices whose arg-max is the advice


def collect(policy, streams: list, num_steps: int, generator: torch.Generator, gamma: float, advisor=None) -> Rollout:
    """Play ``num_steps`` steps of every stream's games with the sampled policy (advised by
    ``advisor`` when it is one). An advised rollout also measures ``followed``: of the
    decisions with more than one legal move, the share on which the arg-max (the evaluated
    policy) is the advised move; a warm start that drifts from its advisor shows it here
    before its evaluations do (the warm-starts note)."""
    B = sum(stream.num_envs for stream in streams)
    offsets = np.cumsum([0] + [stream.num_envs for stream in streams])
    out = Rollout(
        torch.zeros((num_steps * B, int(policy.observation_space.shape[0]) - (advisor is not None))),
        [None] * num_steps,
        torch.zeros(num_steps * B, dtype=torch.long),
        torch.zeros(num_steps * B),
        np.zeros(num_steps * B),
        None if advisor is None else torch.zeros(num_steps * B, dtype=torch.long),
    )

    def value_of(obs):
        with torch.no_grad():
            return gamma * value_only(policy, torch.as_tensor(obs)).numpy()

    for stream in streams:
        stream.begin(num_steps)
    with torch.no_grad():
        head = head_weights(policy)
    followed, choices = 0, 0
    for t in range(num_steps):
        seen = [stream.observe() for stream in streams]
        obs = torch.as_tensor(np.concatenate([o for o, _ in seen]))
        masks = np.concatenate([m for _, m in seen])
        ids, valid = out.moves[t] = legal_moves(masks)
        advice = advise(advisor, obs.numpy(), masks)
        with torch.no_grad():
            log_probs, values = policy_and_value(policy, obs, ids, valid, head, advice)
            chosen = sample(log_probs, generator)[:, None]
        rows = slice(t * B, (t + 1) * B)
        if advice is not None:
            out.advice[rows] = advice
            several = valid.sum(1) > 1
            top = ids.gather(1, log_probs.argmax(-1, keepdim=True)).squeeze(1)
            followed += int(((top == advice) & several).sum())
            choices += int(several.sum())
        out.obs[rows], out.choice[rows], out.values[rows] = obs, chosen.squeeze(1), values.numpy()
        out.logp[rows] = log_probs.gather(1, chosen).squeeze(1)
        actions = ids.gather(1, chosen).squeeze(1).numpy()
        for stream, start in zip(streams, offsets, strict=False):
            stream.step(actions[start : start + stream.num_envs], value_of)
    if advisor is not None:
        out.followed = followed / max(choices, 1)
    return out


def advantages(
    policy, rollout: Rollout, streams: list, hand_weights: torch.Tensor, settings: PPOSettings
) -> np.ndarray:
    """GAE(λ) of every decision, stream by stream (each has its own successor links), on the
    rewards plus the potential-based shaping ``γ Φ(s') - Φ(s)`` (Φ = 0 after an episode)."""
    T = settings.n_steps
    B = sum(stream.num_envs for stream in streams)
    potential = (rollout.obs @ hand_weights).numpy()
    out = np.zeros(T * B)
    start = 0
    for stream in streams:
        w = stream.num_envs
        ended, next_index = stream.ended, stream.next_index
        if settings.round_end == "terminal":  # each round's return is its own, at the game's scores
            ended = ended | stream.round_end
        values, own_potential = column_block(rollout.values, start, w, T), column_block(potential, start, w, T)
        boot_values, boot_potential = np.zeros(T * w), np.zeros(T * w)
        for index, obs in stream.pending():
            obs_t = torch.as_tensor(obs)
            with torch.no_grad():
                boot_values[index] = value_only(policy, obs_t).numpy()
            boot_potential[index] = (obs_t @ hand_weights).numpy()
        following = np.where(next_index >= 0, own_potential[np.maximum(next_index, 0)], boot_potential)
        rewards = shaped_rewards(stream.rewards, own_potential, following, ended, settings.gamma)
        cut = stream.round_end if settings.round_end == "bootstrap" else None
        adv = gae(rewards, values, ended, next_index, boot_values, settings.gamma, settings.gae_lambda, w, cut)
        out.reshape(T, B)[:, start : start + w] = adv.reshape(T, w)
        start += w
    return out


def rollout_and_advantages(
    policy, streams: list, settings: PPOSettings, generator, advisor, hand_weights, state: dict
) -> tuple[Rollout, np.ndarray]:
    """A rollout of every stream's games (:func:`collect`, on one torch thread: the matrix
    products are small) and its advantages; the episodes that end in it are logged with the
    run's step count as it begins."""
    for stream in streams:
        stream.log.timesteps = state["timesteps"]
    policy.set_training_mode(False)
    torch.set_num_threads(1)
    rollout = collect(policy, streams, settings.n_steps, generator, settings.gamma, advisor)
    return rollout, advantages(policy, rollout, streams, hand_weights, settings)


def rollout_moves(rollout: Rollout) -> tuple[torch.Tensor, torch.Tensor]:
    """The legal ids and validity of every decision of ``rollout`` (``[T * B, K]``, each
    step's padded to the widest step's ``K``)."""
    width = max(ids.shape[1] for ids, _ in rollout.moves)
    all_ids = torch.cat([torch.nn.functional.pad(ids, (0, width - ids.shape[1])) for ids, _ in rollout.moves])
    all_valid = torch.cat([torch.nn.functional.pad(v, (0, width - v.shape[1])) for _, v in rollout.moves])
    return all_ids, all_valid


def update(
    policy, optimizer, rollout: Rollout, adv: np.ndarray, settings: PPOSettings, generator, actor: bool = True
) -> np.ndarray:
    """``n_epochs`` passes of clipped PPO over the rollout in minibatches; the mean of
    (policy loss, value loss, entropy, clipped fraction). ``actor=False`` (the value warm-up)
    minimises the value loss alone: the actor's weights get no gradient."""
    returns = torch.as_tensor(adv + rollout.values, dtype=torch.float32)
    adv_t = torch.as_tensor(adv, dtype=torch.float32)
    all_ids, all_valid = rollout_moves(rollout)
    stats = []
    clip = settings.clip_range
    for _ in range(settings.n_epochs):
        for mb in torch.randperm(len(adv_t), generator=generator).split(settings.batch_size):
            ids, valid = all_ids[mb], all_valid[mb]
            advice = None if rollout.advice is None else rollout.advice[mb]
            log_probs, values = policy_and_value(policy, rollout.obs[mb], ids, valid, advice=advice)
            ratio = (log_probs.gather(1, rollout.choice[mb, None]).squeeze(1) - rollout.logp[mb]).exp()
            a = (adv_t[mb] - adv_t[mb].mean()) / (adv_t[mb].std() + 1e-8) if settings.norm_adv else adv_t[mb]
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - clip, 1 + clip)).mean()
            v_loss = 0.5 * ((values - returns[mb]) ** 2).mean()
            entropy = masked_entropy(log_probs, valid).mean()
            loss = settings.vf_coef * v_loss + (pg_loss - settings.ent_coef * entropy if actor else 0.0)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), settings.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                clipped = ((ratio - 1).abs() > clip).float().mean()
            stats.append([pg_loss.item(), v_loss.item(), entropy.item(), clipped.item()])
    return np.mean(stats, axis=0)


def flops_per_step(policy, rollout: Rollout | None, update_epochs: int, minibatch_size: int) -> float:
    """Floating-point operations per learner step (2 per multiply-add, matrix products only):
    one forward pass in the rollout and ``update_epochs`` forward and backward passes (a
    backward pass: twice a forward one). Each row of a forward pass scores every distinct
    legal move of its batch (:func:`policy_and_value`), whose head rows are folded first:
    once per rollout, once per minibatch. The distinct moves are counted on ``rollout``
    (NaN without one): per step, and per ``minibatch_size`` of its decisions drawn as a
    minibatch is."""
    if rollout is None:
        return math.nan
    layers = [m for m in policy.mlp_extractor.modules() if isinstance(m, torch.nn.Linear)]
    head = policy.action_net
    hidden, features = head.base.in_features, head.features.shape[1]
    ids, _ = rollout_moves(rollout)
    per_step = np.mean([len(torch.unique(step_ids)) for step_ids, _ in rollout.moves])
    order = torch.randperm(len(ids), generator=torch.Generator().manual_seed(0))
    per_minibatch = np.mean([len(torch.unique(ids[mb])) for mb in order.split(minibatch_size)])
    mlp = sum(m.in_features * m.out_features for m in layers) + hidden  # actor and critic MLPs, value head
    fold = features * hidden  # one head row: features @ W_proj
    forward = mlp + per_step * hidden + head.features.shape[0] * fold / len(ids)
    learn = mlp + per_minibatch * hidden + per_minibatch * fold / minibatch_size
    return 2.0 * (forward + 3 * update_epochs * learn)


def log_evaluation(policy, advice: str, settings: EvalSettings, state: dict) -> dict[str, float]:
    """The lean learner's periodic evaluation (:func:`training.periodic_eval.periodic_evaluation`,
    with its defaults): the deterministic policy (:func:`training.league.as_agent`, advised by
    ``advice``) against each periodic evaluation opponent, a row each in the run's ``eval.csv``;
    the game win rate of each."""
    policy.set_training_mode(False)
    torch.set_num_threads(1)
    learner = functools.partial(as_agent, policy, advice=advice)
    rates = periodic_evaluation(learner, settings, state["timesteps"], state["elapsed"])
    return {opponent: rate.value for opponent, rate in rates.items()}


def log_progress(
    state: dict, streams: list, steps: int, seconds: tuple, losses: tuple, policy=None, followed: float | None = None
) -> None:
    """One line per iteration: steps, minutes, speed, each stream's mean return over its last
    500 episodes, the value loss, the entropy and the clipped fraction; for an advised
    ``policy``, the share of the rollout's choices whose arg-max followed the advice
    (``followed``, :func:`collect`) and the advice scale."""
    rollout, update_ = seconds
    value_loss, entropy, clipped = losses
    returns = "  ".join(
        f"return {s.label} " + (f"{np.mean(s.ended_returns[-500:]):+.3f}" if s.ended_returns else "(none ended yet)")
        for s in streams
    )
    advice = (
        "" if followed is None else f"  arg-max advised {followed:.3f}  advice scale {policy.advice_scale.item():.3f}"
    )
    print(
        f"{state['timesteps']:>10,} steps {state['elapsed'] / 60:6.1f} min  "
        f"{steps / (rollout + update_):7.0f} steps/s (rollout {rollout:.2f} s, update {update_:.2f} s)  "
        f"{returns}  value loss {value_loss:.4f}  entropy {entropy:.3f}  clipped {clipped:.3f}{advice}",
        flush=True,
    )


def log_scalars(writer, timesteps: int, losses, steps_per_second: float) -> None:
    """An iteration's losses, entropy, clipped fraction and speed, to TensorBoard."""
    for name, value in zip(("policy_loss", "value_loss", "entropy", "clip_fraction"), losses, strict=True):
        writer.add_scalar(f"train/{name}", value, timesteps)
    writer.add_scalar("time/steps_per_second", steps_per_second, timesteps)


def starting_point(
    policy,
    optimizer,
    state: dict,
    resume: Path | None,
    model: ModelSettings,
    imitation: ImitationSettings,
    torch_threads: int,
) -> dict | None:
    """The network and optimiser set as the segment starts, and ``state`` (the segment's new
    counters) updated: from the checkpoint ``resume`` when resuming (returned: it holds the
    past selves too), else from the network ``model.init`` (empty: none; its action logits
    divided by ``model.init_temperature``) and then the imitation
    (:func:`training.imitation.imitation_pretrain`, on ``torch_threads``)."""
    if resume is not None:
        saved = read_ppo_checkpoint(resume, f"--resume {resume.parent}", keys=("policy", "optimizer", "state"))
        policy.load_state_dict(saved["policy"])
        optimizer.load_state_dict(saved["optimizer"])
        state.update({**saved["state"], "segment": state["segment"]})
        return saved
    if model.init:
        policy.load_state_dict(initial_weights(Path(model.init), policy))
        if model.init_temperature != 1.0:
            tensors = list(policy.action_net.parameters())  # the output layer: the logits are linear in it
            tensors += [policy.advice_scale] if hasattr(policy, "advice_scale") else []
            with torch.no_grad():
                for tensor in tensors:
                    tensor.div_(model.init_temperature)
    if imitation.teacher:
        torch.set_num_threads(torch_threads)  # the fit is an update: its threads
        imitation_pretrain(policy, imitation)
    return None


def write_arguments(args: Args, run_dir: Path, new_run: bool) -> dict:
    """The run's directory made and, for a new run, its ``args.json`` written; the run's stored
    arguments (``args.json``'s, and every checkpoint's)."""
    arguments = dataclasses.asdict(args)
    run_dir.mkdir(parents=True, exist_ok=True)
    if new_run:
        (run_dir / "args.json").write_text(json.dumps(arguments, indent=1) + "\n")
    return arguments


def train(plan: Plan) -> dict:
    """Train (or resume) the run of ``plan`` (``--algo ppo``); returns its directory
    (``run_dir``), the steps of this session (``steps``) and the seconds spent in rollouts,
    updates and all of it. The budget (``--minutes``) counts the imitation too."""
    from torch.utils.tensorboard import SummaryWriter

    settings, rules, run_dir, advice = plan.ppo, plan.rules, plan.run_dir, plan.model.advice
    arguments = write_arguments(plan.args, run_dir, new_run=plan.meta is None)
    torch.manual_seed(plan.seeds.training)  # the network's initial weights
    policy = run_policy(plan.model, rules)
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings.learning_rate, eps=1e-5)
    advisor = agents.advice.make_advisor(advice, rules, seed=plan.seeds.advice) if advice else None
    clock = time.perf_counter()
    state = {"timesteps": 0, "elapsed": 0.0, "segment": plan.segment, "next_eval": 0}
    state.update(next_snapshot=settings.pool_every, next_checkpoint=plan.checkpoint_every)
    resume = run_dir / PPO_CHECKPOINT if plan.meta is not None else None
    saved = starting_point(policy, optimizer, state, resume, plan.model, plan.imitation, plan.torch_threads)
    start_elapsed, first_step = state["elapsed"], state["timesteps"]
    generator = torch.Generator().manual_seed(plan.seeds.sampling)
    past = SelfPlayPool(rules, settings.pool_size, plan.seeds.pool, advice=advice or None)
    monitor = run_dir / "monitor" / f"{plan.segment:02d}"  # a file per kind of game and segment, as MaskablePPO's
    streams = make_streams(rules, settings, plan.n_envs, policy, past, saved, plan.seeds.environments, monitor)
    hand_weights = torch.as_tensor(hand_potential_weights(rules, plan.env.shaping), dtype=torch.float32)
    writer = SummaryWriter(str(run_dir / "tb" / f"ppo_{plan.segment + 1}"))
    record = play_training(plan.args, run_dir.name)

    def save() -> None:
        save_checkpoint(run_dir / PPO_CHECKPOINT, policy, optimizer, state, past.weights(), arguments)
        elapsed = {"elapsed_seconds": round(state["elapsed"], 3)}
        save_play_file(policy, rules, run_dir / "model.safetensors", state["timesteps"], {**record, **elapsed})

    budget = plan.budget if plan.budget is not None else math.inf
    total = plan.total if plan.total is not None else math.inf
    steps = plan.n_envs * settings.n_steps
    print(
        f"run: {run_dir}; PPO vs {settings.opponents}, {plan.n_envs} games x {settings.n_steps} steps a rollout",
        flush=True,
    )
    timing, rollout = {"rollout": 0.0, "update": 0.0}, None
    state["elapsed"] = start_elapsed + time.perf_counter() - clock
    while state["timesteps"] < total and state["elapsed"] < budget:
        if plan.evaluation.every and state["timesteps"] >= state["next_eval"]:
            for opp, rate in log_evaluation(policy, advice, plan.evaluation, state).items():
                writer.add_scalar(f"eval/{opp}_game_win_rate", rate, state["timesteps"])
            state["next_eval"] = state["timesteps"] + plan.evaluation.every
        t0 = time.perf_counter()
        rollout, adv = rollout_and_advantages(policy, streams, settings, generator, advisor, hand_weights, state)
        t1 = time.perf_counter()
        policy.set_training_mode(True)
        torch.set_num_threads(plan.torch_threads)
        actor = state["timesteps"] >= settings.value_warmup  # the warm-up counts from the run's first step
        losses = update(policy, optimizer, rollout, adv, settings, generator, actor)
        t2 = time.perf_counter()
        timing["rollout"] += t1 - t0
        timing["update"] += t2 - t1
        state["timesteps"] += steps
        state["elapsed"] = start_elapsed + t2 - clock
        log_progress(state, streams, steps, (t1 - t0, t2 - t1), tuple(losses[1:]), policy, rollout.followed)
        log_scalars(writer, state["timesteps"], losses, steps / (t2 - t0))
        if past.members and state["timesteps"] >= state["next_snapshot"]:
            past.add(policy)
            seat_past_selves(streams, past)
            state["next_snapshot"] = state["timesteps"] + settings.pool_every
        if state["timesteps"] >= state["next_checkpoint"]:
            save()
            state["next_checkpoint"] = state["timesteps"] + plan.checkpoint_every
    if plan.evaluation.every:
        log_evaluation(policy, advice, plan.evaluation, state)
    save()
    writer.close()
    print(f"model: {run_dir / 'model.safetensors'}\ncheckpoint: {run_dir / PPO_CHECKPOINT}", flush=True)
    return {
        "run_dir": run_dir,
        "steps": state["timesteps"] - first_step,
        "seconds": time.perf_counter() - clock,
        "rollout_seconds": timing["rollout"],
        "update_seconds": timing["update"],
        "flops_per_step": flops_per_step(policy, rollout, settings.n_epochs, settings.batch_size),
    }


def run(plan: Plan) -> int:
    """``yaniv train --algo ppo``: :func:`train`, then the learning curve and the final
    evaluation against the baselines as ``yaniv train`` ends; 130 when interrupted."""
    old_term = signal.getsignal(signal.SIGTERM)

    def _sigterm(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _sigterm)
    try:
        result = train(plan)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted; continue from the last checkpoint with: yaniv train --resume {plan.run_dir}",
            file=sys.stderr,
        )
        return 130
    finally:
        signal.signal(signal.SIGTERM, old_term)
    rules, settings = plan.rules, plan.ppo
    title = f"lean PPO on Yaniv — {rules.name}, {rules.num_players} players ({plan.run_dir.name})"
    plot = plot_learning_curve(
        plan.run_dir, plan.run_dir / "learning_curve.png", title, f"{settings.reward}, per {settings.episode}"
    )
    print(f"trained {result['steps']:,} steps in {result['seconds'] / 60:.1f} min this session")
    if plot:
        print(f"learning curve: {plot}")
    if plan.final_evaluation.games <= 0:
        return 0
    return final_evaluation(plan.final_evaluation, plan.run_dir / "model.safetensors")


def main(argv: list[str] | None = None) -> int:
    """``python -m training.ppo ...``: ``yaniv train --algo ppo ...``; 2 for bad arguments."""
    args, given = config.parse_args(Args, ["--algo", "ppo", *(sys.argv[1:] if argv is None else argv)])
    try:
        plan = make_plan(args, given)
    except ValueError as e:
        print(f"python -m training.ppo: error: {e}", file=sys.stderr)
        return 2
    return run(plan)


if __name__ == "__main__":
    sys.exit(main())
