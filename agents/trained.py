"""Trained agents: a MaskablePPO policy network playing as an agent.

.. code-block:: python

    import agents
    bot = agents.load("agents/models/ppo_standard_2p.safetensors")    # a play file: safe from anyone
    bot = agents.load("runs/standard__1__20250101-120000/model.zip", trusted=True)  # your own checkpoint
    bot = agents.from_sb3(model, rules="standard", num_players=2)     # a model trained with SB3 directly
    agents.trained.export_for_play(bot, "my_model.safetensors")      # to share it
    action = bot.act(observation, action_mask)

=====================  ==============  =====================================  =========================
file                   suffix          who may have written it                module
=====================  ==============  =====================================  =========================
play file              ``.safetensors``  anyone: reading it runs no code       :mod:`agents.play_format`
training checkpoint    ``.zip``        only you, or someone you trust:        :mod:`agents.checkpoint`
                                       reading it unpickles (``trusted=True``)
=====================  ==============  =====================================  =========================

:func:`load` tells the two apart by content (a ``.safetensors`` name is always read as a
play file), checks the model's rules, observation layout and action table against this
version and against ``game``/``rules``/``num_players`` when given, and refuses a
checkpoint unless ``trusted=True``. :func:`from_sb3` wraps a model trained with
Stable-Baselines3's own ``MaskablePPO`` on ``gymnasium.make("yaniv_env/Yaniv-v0", ...)``;
:func:`export_for_play` writes any of these as a play file.

The networks live in :mod:`agents.networks`, the reading of checkpoints in
:mod:`agents.checkpoint` (their writing is training's: :mod:`training.checkpoint`); their
names are re-exported here for code written against earlier versions, and because
checkpoints pickle ``agents.trained.ActionFeaturePolicy`` by that name.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np

from yaniv_env.core.batches import as_batch

from .advice import advise, make_advisor
from .checkpoint import (  # noqa: F401  (re-exported: see the module docstring)
    META_NAME,
    UntrustedFileError,
    action_fingerprint,
    atomic_write_bytes,
    check_metadata,
    checkpoint_game,
    load_model,
    observation_fingerprint,
    read_metadata,
    rules_from_dict,
    rules_to_dict,
)
from .networks import ACTION_KINDS, action_features  # noqa: F401
from .play_format import FORMAT as PLAY_FORMAT
from .play_format import SUFFIX, looks_like_play_file, play_bytes, play_metadata, read_play_file

with contextlib.suppress(ImportError):  # the network classes need the [train] extra
    from .networks import ActionFeatureHead, ActionFeaturePolicy  # noqa: F401

#: Keys of a training checkpoint's metadata kept (for information) in an exported play file.
_TRAINING_KEYS = ("algorithm", "reward", "episode", "run_name", "elapsed_seconds", "versions", "package_version")


class TrainedAgent:
    """A trained MaskablePPO policy network as a :class:`agents.base.Policy`.

    ``act`` gives the action ``policy.predict(observation, action_masks=mask,
    deterministic=True)`` gives (the arg-max of the masked logits), computed straight from
    the network, without ``predict``'s checks and conversions; with
    ``deterministic=False`` it samples from the masked distribution with the agent's own
    generator (seeded by ``seed``). An advised model (``metadata["advice"]``) asks its
    advisor at every decision and appends the advice to the observation. It decides for a
    batch (:meth:`logits_batch`, then :meth:`choose`; :class:`agents.batched.BatchedTrained`
    calls them) and ``act`` is a batch of one row. An agent pickles (``yaniv train --league``
    sends the pool's members to a ``SubprocVecEnv``'s processes).
    """

    def __init__(self, policy, metadata: dict, rules, seed: int | None = None, deterministic: bool = True, name=""):
        from yaniv_env.games import game_of

        self.policy = policy
        self.metadata = metadata
        self.rules = rules
        self.game = game_of(rules)
        self.deterministic = deterministic
        self.name = name or "trained"
        self.rng = np.random.default_rng(seed)
        self.policy.set_training_mode(False)
        layout = self.game.observation_layout(rules)
        self._obs_size = layout.size
        self._rules_slice = layout.pieces["rules"].slice
        self._rules_vec = self.game.rules_vector(rules)
        self._num_actions = int(metadata["actions"]["size"])
        #: the agent whose move an advised model reads, batched (``None``: not an advised model)
        self.advisor = make_advisor(metadata["advice"], rules, seed) if metadata.get("advice") else None

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        if self.advisor is not None:
            self.advisor.reset(seed)

    @property
    def timesteps(self) -> int:
        return int(self.metadata.get("timesteps", 0))

    def _check(self, observation: np.ndarray, action_mask: np.ndarray) -> None:
        if observation.shape[-1] != self._obs_size or action_mask.shape[-1] != self._num_actions:
            raise ValueError(
                f"model {self.name!r} trained for {self.game.title} rules {self.rules.name!r} with "
                f"{self.rules.num_players} players (observation size {self._obs_size}, {self._num_actions} actions) "
                f"but got an observation of size {observation.shape[-1]} and a mask of {action_mask.shape[-1]} "
                "actions: the environment plays another game, or uses other rules or another player count"
            )
        if not np.allclose(observation[..., self._rules_slice], self._rules_vec, atol=1e-6):
            raise ValueError(
                f"model {self.name!r} trained for {self.game.title} rules {self.rules.name!r} but the observation's "
                "rules piece "
                f"differs ({observation[..., self._rules_slice].tolist()} vs {self._rules_vec.tolist()}): the "
                "environment uses other rules (pass rules= to agents.load for a precise comparison)"
            )

    def _one_row(self, observation, action_mask) -> tuple[np.ndarray, np.ndarray]:
        """One ``observation`` (as ``float32``) and its mask, checked as given (the messages
        quote them so), as a batch of one row."""
        observation = np.asarray(observation, dtype=np.float32)
        action_mask = np.asarray(action_mask)
        self._check(observation, action_mask)
        return observation.reshape(1, -1), action_mask.reshape(1, -1)

    def _masked_logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked logits ``[B, A]`` (``float64``, ``-inf`` where illegal) of checked
        ``observations [B, S]`` (``float32``) under ``masks [B, A]``: one forward pass, an
        advised model's advisor asked first (its moves appended as the advice column)."""
        import torch  # here, not kept on the agent: an agent pickles (sent to a SubprocVecEnv's processes)

        from .networks import actor_logits

        if self.advisor is not None:
            observations = advise(self.advisor, observations, masks)
        with torch.no_grad():
            logits = actor_logits(self.policy, torch.as_tensor(observations)).numpy().astype(np.float64)
        return np.where(masks.astype(bool, copy=False), logits, -np.inf)

    def logits_batch(self, observations, masks) -> np.ndarray:
        """Masked action logits ``[B, A]`` (``-inf`` for illegal actions) of ``observations
        [B, S]`` under ``masks [B, A]``, in one forward pass (``ValueError`` for other shapes,
        or observations of other rules)."""
        obs, m = as_batch(observations, masks)
        self._check(obs, m)
        return self._masked_logits(obs, m)

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Masked action logits ``[A]`` (``-inf`` for illegal actions): those of
        :meth:`logits_batch` for a batch of this one row (checked as given)."""
        return self._masked_logits(*self._one_row(observation, action_mask))[0]

    def choose(self, logits: np.ndarray) -> np.ndarray:
        """The decision of each row of masked ``logits [B, A]`` (``int64``): its arg-max, or
        (not ``deterministic``) a sample of its softmax drawn from the agent's generator, a
        uniform per row in row order (:meth:`_sample`); ``-1`` for a row with nothing legal (no
        draw). Every decision of the agent,
        scalar (a batch of one) or batched (:class:`agents.batched.BatchedTrained`), is made here."""
        legal = np.isfinite(logits).any(axis=1)
        actions = logits.argmax(axis=1) if self.deterministic else self._sample(logits, legal)
        return np.where(legal, actions, -1).astype(np.int64)

    def _sample(self, logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """A draw from the softmax of each row of masked ``logits [B, A]`` (``-1`` where its
        probabilities do not sum to more than 0: nothing legal, or logits that are not
        numbers), for the whole batch at once: what ``rng.choice(A, p=row)`` draws row by
        row (one uniform per drawn row, in row order, read through the row's cumulative
        distribution as ``choice`` reads it)."""
        z = np.exp(logits - np.where(legal, logits.max(axis=1), 0.0)[:, None])
        total = z.sum(axis=1)
        drawn = total > 0
        cdf = (z[drawn] / total[drawn, None]).cumsum(axis=1)
        cdf /= cdf[:, -1:]
        actions = np.full(len(z), -1, dtype=np.int64)
        actions[drawn] = (cdf <= self.rng.random(int(drawn.sum()))[:, None]).sum(axis=1)
        return actions

    def _choose_one(self, logits: np.ndarray) -> int:
        """:meth:`choose` for one row of masked ``logits [A]`` (``ValueError`` if it has no move)."""
        if not np.isfinite(logits).any():
            raise ValueError("the action mask allows no action")
        action = int(self.choose(logits[None])[0])
        if action < 0:  # a legal row whose probabilities are not numbers (NaN logits)
            raise ValueError(f"model {self.name!r} gave logits that are not numbers: no move can be drawn")
        return action

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The agent's move (see the class): :meth:`choose` on a batch of one row."""
        return self._choose_one(self.logits(observation, action_mask))

    def act_annotated(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[int, dict]:
        """The move :meth:`act` makes (the same generator draws) and the policy's
        probability of each legal move (``{"kind": "probabilities", "actions": [...],
        "values": [...]}``), for replays (:func:`yaniv_env.yaniv.records.decide`)."""
        logits = self.logits(observation, action_mask)
        action = self._choose_one(logits)
        legal = np.flatnonzero(np.isfinite(logits))
        z = np.exp(logits[legal] - logits[legal].max())
        return action, {"kind": "probabilities", "actions": legal.tolist(), "values": (z / z.sum()).tolist()}


def _set_threads(torch_threads: int | None) -> None:
    if torch_threads is not None:
        import torch

        torch.set_num_threads(int(torch_threads))


def _check_network(meta: dict, where: str) -> None:
    """The described network fits the metadata's layouts (one more column when advised)."""
    net = meta.get("network")
    if not isinstance(net, dict):
        raise ValueError(f"{where}: the metadata has no network description")
    advised = bool(meta.get("advice"))
    n_obs = meta["observation"]["size"] + (1 if advised else 0)
    if net.get("observation_size") != n_obs or net.get("num_actions") != meta["actions"]["size"]:
        raise ValueError(
            f"{where}: the network takes observations of {net.get('observation_size')} values and has "
            f"{net.get('num_actions')} actions, but rules {meta['rules'].get('name')!r} with "
            f"{meta.get('num_players')} players build {n_obs} values{' (with the advice column)' if advised else ''} "
            f"and {meta['actions']['size']} actions"
        )
    if advised != (net.get("policy") == "AdvisedPolicy"):
        raise ValueError(
            f"{where}: advice {meta.get('advice')!r} needs an AdvisedPolicy network, and only it (got "
            f"{net.get('policy')!r})"
        )
    if net.get("action_rules") is not None:
        try:
            fits = action_fingerprint(rules_from_dict(net["action_rules"])) == meta["actions"]
        except (TypeError, ValueError, KeyError, AttributeError):
            fits = False
        if not fits:
            raise ValueError(f"{where}: the network's action_rules do not define the model's actions")


def _play_policy(meta: dict, tensors: dict, where: str):
    from .networks import build_policy, check_description, parameter_count

    try:
        check_description(meta.get("network"))
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    described, held = parameter_count(meta["network"]), sum(t.numel() for t in tensors.values())
    if described != held:  # before anything is built: the weights bound the network
        raise ValueError(
            f"{where}: the weights do not fit the described network ({described:,} parameters described, "
            f"{held:,} weights in the file)"
        )
    _check_network(meta, where)
    try:
        policy = build_policy(meta["network"])
    except (TypeError, KeyError, AttributeError) as e:
        raise ValueError(f"{where}: the network cannot be built ({type(e).__name__}: {e})") from None
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    try:
        policy.load_state_dict(tensors, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{where}: the weights do not fit the described network ({e})") from None
    return policy


def _checkpoint_policy(path: Path, meta: dict, trusted: bool):
    model = load_model(path, trusted=trusted)
    n_obs = model.observation_space.shape[0]
    advice_columns = 1 if meta.get("advice") else 0
    if n_obs != meta["observation"]["size"] + advice_columns or model.action_space.n != meta["actions"]["size"]:
        raise ValueError(
            f"{str(path)!r}: the model's spaces (observation {n_obs}, {model.action_space.n} actions) do not match "
            f"its metadata (observation {meta['observation']['size']}, {meta['actions']['size']} actions)"
        )
    return model.policy


def load(
    path: str | os.PathLike,
    seed: int | None = None,
    rules=None,
    deterministic: bool = True,
    num_players: int | None = None,
    game: str | None = None,
    *,
    trusted: bool = False,
    torch_threads: int | None = None,
) -> TrainedAgent:
    """A model file as an agent (of the game it was trained for): a play file
    (``.safetensors``, from anyone) or a training checkpoint written by ``yaniv train``
    (``.zip``, only with ``trusted=True``: reading it unpickles, see
    :class:`agents.checkpoint.UntrustedFileError`).

    ``game`` (``"yaniv"``, ``"pis_yedili"``), ``rules`` (a preset name of the model's game,
    or a :class:`yaniv_env.Rules` / :class:`yaniv_env.pis_yedili.Rules`) and
    ``num_players``, when given, must be the ones the model was trained for, else
    ``ValueError`` names the difference. ``torch_threads``, when given, is applied with
    ``torch.set_num_threads`` (a process-wide setting: by default it is left alone).
    """
    _set_threads(torch_threads)
    path = Path(path)
    if path.suffix == SUFFIX or looks_like_play_file(path):
        meta, tensors = read_play_file(path)
        trained = check_metadata(meta, rules=rules, num_players=num_players, path=str(path), game=game)
        policy = _play_policy(meta, tensors, repr(str(path)))
    else:
        meta = read_metadata(path)
        trained = check_metadata(meta, rules=rules, num_players=num_players, path=str(path), game=game)
        policy = _checkpoint_policy(path, meta, trusted)
    return TrainedAgent(policy, meta, trained, seed=seed, deterministic=deterministic, name=path.stem)


def _rules_of(rules, num_players: int | None, game: str):
    from yaniv_env.games import get_game

    if isinstance(rules, str):
        return get_game(game).get_rules(rules, num_players) if num_players else get_game(game).get_rules(rules)
    return rules if num_players is None else rules.with_players(num_players)


def from_sb3(
    model,
    rules="standard",
    num_players: int | None = None,
    game: str = "yaniv",
    *,
    advice: str | None = None,
    seed: int | None = None,
    deterministic: bool = True,
    name: str = "sb3",
) -> TrainedAgent:
    """An agent playing a ``MaskablePPO`` ``model`` trained with Stable-Baselines3 directly
    (``MaskablePPO("MlpPolicy", gymnasium.make("yaniv_env/Yaniv-v0", ...)).learn(...)``, or
    ``MaskablePPO.load`` of its ``save``), for ``rules`` (a preset name of ``game``, or a
    rules object) and ``num_players``: the rules the environment was made with.
    ``advice``: the advisor's agent name if the model was trained on observations with the
    advice column (:class:`training.envs.VecAdvice`).

    ``ValueError`` if the model's observation or action space does not fit what these rules
    build, or its network is not one :func:`agents.networks.describe_policy` describes (so
    that :func:`export_for_play` can write it). The agent shares the model's network."""
    from .networks import describe_policy

    rules = _rules_of(rules, num_players, game)
    try:
        network = describe_policy(model.policy)
    except AttributeError:
        raise ValueError(f"expected a MaskablePPO model, got {type(model).__name__}") from None
    training = {"algorithm": type(model).__name__, "source": "agents.from_sb3"}
    meta = play_metadata(
        rules, network, advice=advice, timesteps=int(getattr(model, "num_timesteps", 0)), training=training
    )
    _check_network(meta, f"{type(model).__name__} model")
    return TrainedAgent(model.policy, meta, rules, seed=seed, deterministic=deterministic, name=name)


def export_for_play(
    source,
    path: str | os.PathLike,
    *,
    rules=None,
    num_players: int | None = None,
    game: str | None = None,
    advice: str | None = None,
    trusted: bool = False,
) -> Path:
    """Write ``source`` as a play file at ``path`` (``.safetensors``): safe to share and to
    load from anyone (:mod:`agents.play_format`). Returns the path.

    ``source``: a :class:`TrainedAgent`; a path to a model file (a training checkpoint needs
    ``trusted=True``: it is unpickled to read its weights); or a ``MaskablePPO`` model
    trained with SB3 directly, which needs ``rules`` (and ``num_players``, ``game``,
    ``advice`` as in :func:`from_sb3`). For an agent or a file, ``rules``/``num_players``
    are checked against the model's when given. The file is written atomically."""
    from .networks import describe_policy

    path = Path(path)
    if path.suffix != SUFFIX:
        raise ValueError(f"a play file's name ends in {SUFFIX}, got {path.name!r}")
    if isinstance(source, TrainedAgent):
        agent = source
        if rules is not None or num_players is not None:
            check_metadata(agent.metadata, rules=rules, num_players=num_players, game=game)
    elif isinstance(source, str | os.PathLike):
        agent = load(source, rules=rules, num_players=num_players, game=game, trusted=trusted)
    else:
        if rules is None:
            raise ValueError("exporting a Stable-Baselines3 model needs rules= (and num_players=) it was trained for")
        agent = from_sb3(source, rules=rules, num_players=num_players, game=game or "yaniv", advice=advice)
    meta = agent.metadata
    if meta.get("format") == PLAY_FORMAT:
        training = meta.get("training")
    else:
        training = {k: meta[k] for k in _TRAINING_KEYS if k in meta}
    out = play_metadata(
        agent.rules,
        describe_policy(agent.policy),
        advice=meta.get("advice"),
        timesteps=agent.timesteps,
        training=training,
    )
    atomic_write_bytes(path, play_bytes(out, agent.policy.state_dict()))
    return path


__all__ = ["TrainedAgent", "UntrustedFileError", "export_for_play", "from_sb3", "load"]
