"""Checks shared by the AEC environment tests of both games (``test_env_aec.py`` for Yaniv,
``test_pis_yedili_env.py`` for Pis Yedili): the reference outcome reward and the bad-input
runs. Each takes the game's environment and, where the games differ, a callable."""

from __future__ import annotations

import numpy as np
import pytest


def place_reward(place: int, players: int) -> float:
    """The reference outcome reward of ``place`` (0 = first) among ``players``."""
    return 1.0 if players < 2 else (players - 1 - 2 * place) / (players - 1)


def check_illegal_actions_raise(env, snapshot, max_iter: int, seed: int = 1) -> set[int]:
    """Random legal play on a reset ``raw_env``; at every third decision an illegal id and
    values that are no action id are tried first: each raises ``ValueError`` naming the
    action and every legal one, and ``snapshot(env)`` is unchanged. Returns the engine
    phases in which illegal actions were tried."""
    num_actions = env.action_space(env.possible_agents[0]).n
    rng = np.random.default_rng(seed)
    phases = set()
    for i, agent in enumerate(env.agent_iter(max_iter=max_iter)):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        if i % 3 == 0:
            phases.add(env.game.phase)
            illegal = int(rng.choice(np.flatnonzero(obs["action_mask"] == 0)))
            before = snapshot(env)
            with pytest.raises(ValueError) as exc:
                env.step(illegal)
            msg = str(exc.value)
            assert msg.startswith(f"{agent}: illegal action {illegal} ({env.action_name(illegal)})")
            assert "Legal actions:" in msg
            for a in legal:
                assert f"{a} ({env.action_name(a)})" in msg
            assert snapshot(env) == before
            for bad in (num_actions, -1, 10**9, 2.5, "0", None, True):
                with pytest.raises(ValueError) as exc:
                    env.step(bad)
                assert "Legal actions:" in str(exc.value)
                assert snapshot(env) == before
        env.step(legal[rng.integers(len(legal))])
    return phases


def play_until_illegal(env, turn: int, caplog, seed: int = 0) -> tuple[str, dict[str, float]]:
    """Random legal play on a reset wrapped ``env()`` until step ``turn``, where the agent
    to act plays an illegal id: PettingZoo's wrapper logs it and ends the game for every
    agent. Returns the offender and the reward each agent then received."""
    rng = np.random.default_rng(seed)
    offender = None
    received = {}
    for i, agent in enumerate(env.agent_iter(max_iter=10_000)):
        obs, reward, term, trunc, _ = env.last()
        if offender is not None:
            assert term and trunc
            received[agent] = reward
            env.step(None)
            continue
        if term or trunc:
            env.step(None)
            continue
        if i == turn:
            offender = agent
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
            assert "Illegal move" in caplog.text
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    assert offender is not None, f"the game ended before step {turn}"
    assert env.agents == []
    assert received[offender] == -1.0
    assert set(received) == set(env.possible_agents)
    return offender, received
