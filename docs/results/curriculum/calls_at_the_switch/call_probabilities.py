"""How sure a model is of its calls: in games against ``heuristic`` (the model playing its
arg-max move, as evaluations do), at every decision at which it could call Yaniv or play on,
the probability its sampling policy gives the call.

    python docs/results/curriculum/calls_at_the_switch/call_probabilities.py MODEL.safetensors [...]

Prints per model the decisions seen, the mean probability of calling, the shares of those
decisions at which it is above 0.999 and below 0.5, and the arg-max's call rate.
"""

import sys

import numpy as np
import torch

import agents
from yaniv_env.yaniv.actions import CALL_YANIV
from yaniv_env.yaniv.batched.envs import LearnerGames

GAMES, STEPS, SEED = 256, 2_000, 7


def call_probabilities(path: str) -> tuple[np.ndarray, np.ndarray]:
    """The probability of calling at each such decision, and whether the arg-max called."""
    agent = agents.load(path, seed=0)
    games = LearnerGames(agent.rules, GAMES, opponents="heuristic", episode="game")
    obs, seen, called = games.reset(SEED), [], []
    for _ in range(STEPS):
        masks = games.action_masks()
        logits = agent.logits_batch(obs, masks)
        choice = masks[:, CALL_YANIV] & (masks.sum(axis=1) > 1)
        z = np.exp(logits - logits.max(axis=1, keepdims=True))  # exp(-inf) = 0 for illegal moves
        seen.append((z[:, CALL_YANIV] / z.sum(axis=1))[choice])
        moves = logits.argmax(axis=1)
        called.append(moves[choice] == CALL_YANIV)
        obs = games.step(moves)[0]
    return np.concatenate(seen), np.concatenate(called)


if __name__ == "__main__":
    torch.set_num_threads(1)
    for path in sys.argv[1:]:
        p, called = call_probabilities(path)
        print(
            f"{path}: {p.size} decisions, p(call) mean {p.mean():.4f}, above 0.999 {np.mean(p > 0.999):.3f}, "
            f"below 0.5 {np.mean(p < 0.5):.3f}, arg-max calls {called.mean():.3f}"
        )
