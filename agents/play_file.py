"""Interim reader of play files (``.safetensors``): trained MLP policies that load with torch alone.

A play file is a safetensors file (which never unpickles) holding the float32 weights of
an actor-critic named as in Stable-Baselines3's ``MaskableActorCriticPolicy``
(``mlp_extractor.policy_net.*``, ``action_net.*``, and the critic's), with one metadata
string, ``yaniv_play``: a JSON object with ``format`` (``"yaniv-play"``),
``format_version`` (1), ``game``, ``rules``, ``num_players``, the ``observation`` and
``actions`` fingerprints of a training checkpoint (:mod:`agents.trained`), ``network``
(``policy``: ``"MlpPolicy"``, ``observation_size``, ``num_actions``, ``net_arch``
``{"pi": [...], "vf": [...]}``, ``activation``), ``advice`` (null), ``timesteps`` and
``training`` (informational). ``yaniv train-rllib`` writes them (:mod:`training.rllib.export`).

This module reads the ``MlpPolicy`` networks only, builds the actor in plain torch and
plays it through :class:`agents.trained.TrainedAgent`, so rules, player counts and
observation layouts are checked exactly as for ``.zip`` checkpoints. It stands in until
the general play format (``agents.play_format``) lands, which reads the same files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

SUFFIX = ".safetensors"
META_KEY = "yaniv_play"
FORMAT = "yaniv-play"
FORMAT_VERSION = 1
ACTIVATIONS = ("relu", "tanh")
#: Largest layer width, observation size or action count a play file may ask for.
MAX_WIDTH = 65_536


def read(path: str | os.PathLike) -> tuple[dict, dict]:
    """The metadata and the weights (name -> ``torch.Tensor``) of a play file; ``ValueError``
    naming what is wrong otherwise."""
    from safetensors import SafetensorError, safe_open

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {str(path)!r}")
    try:
        with safe_open(str(path), framework="pt") as f:
            extra = f.metadata() or {}
            tensors = {name: f.get_tensor(name) for name in f.keys()}  # noqa: SIM118 (safe_open is not a dict)
    except (SafetensorError, OSError) as e:
        raise ValueError(f"{str(path)!r} is not a valid yaniv play file: safetensors refuses it ({e})") from None
    try:
        meta = json.loads(extra[META_KEY])
    except (KeyError, json.JSONDecodeError):
        raise ValueError(f"{str(path)!r} is not a valid yaniv play file: no JSON {META_KEY!r} metadata") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not a valid yaniv play file: its metadata has no format {FORMAT!r}")
    if not isinstance(meta.get("format_version"), int) or meta["format_version"] > FORMAT_VERSION:
        raise ValueError(f"{str(path)!r} uses play format {meta.get('format_version')!r}; this version reads 1")
    return meta, tensors


def _actor(network: dict, path: str):
    """The actor of an ``MlpPolicy`` description in plain torch, with the attribute names
    :class:`agents.trained.TrainedAgent` calls (those of SB3's policies)."""
    import torch
    from torch import nn

    if not isinstance(network, dict) or network.get("policy") != "MlpPolicy":
        kind = network.get("policy") if isinstance(network, dict) else network
        raise ValueError(f"{path!r}: this version reads MlpPolicy play files, not {kind!r}")
    n_obs, n_act = network.get("observation_size"), network.get("num_actions")
    arch = (network.get("net_arch") or {}).get("pi")
    sizes = [n_obs, *(arch or []), n_act]
    if not isinstance(arch, list) or not all(isinstance(v, int) and 1 <= v <= MAX_WIDTH for v in sizes):
        raise ValueError(f"{path!r}: bad network sizes (observation {n_obs!r}, actions {n_act!r}, pi {arch!r})")
    if network.get("activation") not in ACTIVATIONS:
        raise ValueError(f"{path!r}: unknown activation {network.get('activation')!r}; known: {ACTIVATIONS}")
    activation = {"relu": nn.ReLU, "tanh": nn.Tanh}[network["activation"]]

    class Extractor(nn.Module):
        def __init__(self):
            super().__init__()
            layers: list[nn.Module] = []
            for a, b in zip(sizes[:-2], sizes[1:-1], strict=True):
                layers += [nn.Linear(a, b), activation()]
            self.policy_net = nn.Sequential(*layers)

        def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
            return self.policy_net(features)

    class Actor(nn.Module):
        pi_features_extractor = None

        def __init__(self):
            super().__init__()
            self.mlp_extractor = Extractor()
            self.action_net = nn.Linear(sizes[-2], n_act)

        @staticmethod
        def extract_features(obs: torch.Tensor, _extractor) -> torch.Tensor:
            return obs

        def set_training_mode(self, mode: bool) -> None:
            self.train(mode)

    return Actor()


def load(path: str | os.PathLike, seed: int | None = None, deterministic: bool = True, **options):
    """A play file as an agent (:class:`agents.trained.TrainedAgent`). The options are those
    of :func:`agents.trained.load`: ``game``, ``rules`` and ``num_players``, when given, must
    be the ones it was trained for (``ValueError`` naming the difference, as for
    checkpoints); ``torch_threads`` (default 1) is applied with ``torch.set_num_threads``."""
    import torch

    from .trained import TrainedAgent, check_metadata

    threads = options.get("torch_threads", 1)
    if threads is not None:
        torch.set_num_threads(int(threads))
    meta, tensors = read(path)
    checks = {k: options.get(k) for k in ("rules", "num_players", "game")}
    trained = check_metadata(meta, path=str(path), **checks)
    network = meta.get("network")
    actor = _actor(network, str(path))
    if (network["observation_size"], network["num_actions"]) != (meta["observation"]["size"], meta["actions"]["size"]):
        raise ValueError(f"{str(path)!r}: the network's sizes do not match its observation and action fingerprints")
    wanted = actor.state_dict()
    weights = {k: v for k, v in tensors.items() if k in wanted}
    missing = sorted(set(wanted) - set(weights))
    bad = [k for k in weights if tuple(weights[k].shape) != tuple(wanted[k].shape)]
    if missing or bad:
        raise ValueError(f"{str(path)!r}: weights missing {missing} or of the wrong shape {bad}")
    actor.load_state_dict({k: v.float() for k, v in weights.items()})

    class Model:  # what TrainedAgent reads of a model
        policy = actor

    return TrainedAgent(Model(), meta, trained, seed=seed, deterministic=deterministic, name=Path(path).stem)


def is_play_file(path: str | os.PathLike) -> bool:
    return str(path).endswith(SUFFIX)


__all__ = ["FORMAT", "META_KEY", "SUFFIX", "is_play_file", "load", "read"]
