"""The training checkpoint ``yaniv train`` writes: its metadata schema and the atomic save.

A checkpoint is one ``.zip``: the archive written by Stable-Baselines3's ``model.save``
(``data``, ``policy.pth``, ``policy.optimizer.pth``, ``pytorch_variables.pth``, ...) plus
one more entry, ``yaniv_checkpoint.json`` (:data:`agents.checkpoint.META_NAME`), holding
everything needed to refuse a model in the wrong setting and to resume training without
loss (:func:`build_metadata`):

===================  ==================================================================
key                  content
===================  ==================================================================
format               ``"yaniv-checkpoint"``, ``format_version``: 1 for Yaniv models, 2 for
                     models of another game (:func:`format_version`)
game                 ``"yaniv"`` or ``"pis_yedili"`` (:mod:`yaniv_env.games`)
package_version      ``yaniv_env.__version__`` that wrote it (and sb3/torch versions)
algorithm            ``"MaskablePPO"``
rules                ``rules.to_dict()``: every option of the game's ``Rules``, including
                     the name
num_players          players the model was trained for
observation          ``size`` and ``pieces`` (:func:`agents.checkpoint.observation_fingerprint`)
actions              ``size`` and ``names_sha256`` (:func:`agents.checkpoint.action_fingerprint`)
episode, reward      the training episode type and reward scheme
advice               the advisor's agent name (an advised model, :mod:`agents.advice`) or
                     ``None``
pretrain             the imitation before training (:mod:`training.imitation`), or ``None``
run_name, segment    the run's directory name and how many times it was resumed
timesteps            environment steps trained so far
elapsed_seconds      wall-clock training time so far (for ``--minutes`` budgets over resumes)
args                 the training arguments (:class:`training.args.Args`)
league               self-play pool (snapshot paths relative to the run directory) and
                     gate history
===================  ==================================================================

Files are written atomically (:func:`save_checkpoint`, through
:func:`agents.checkpoint.atomic_write_bytes`), so an interrupted save never destroys the
previous checkpoint. Reading them, and checking them against the rules they are used
with, is the agents' side: :mod:`agents.checkpoint` (``agents.load(path, trusted=True)``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import zipfile
from pathlib import Path

import torch

import yaniv_env
from agents.checkpoint import FORMAT, META_NAME, action_fingerprint, atomic_write_bytes, observation_fingerprint
from yaniv_env.core.game import rules_to_dict
from yaniv_env.games import game_of


def format_version(game) -> int:
    """The ``format_version`` written for a model of ``game``: Yaniv checkpoints keep
    version 1 (readable by every release), other games need version 2."""
    return 1 if game.name == "yaniv" else 2


def build_metadata(rules, *, timesteps: int, args: dict | None = None, league: dict | None = None, **extra) -> dict:
    """The ``yaniv_checkpoint.json`` content for a model trained under ``rules`` (either game's)."""
    game = game_of(rules)
    meta = {
        "format": FORMAT,
        "format_version": format_version(game),
        "game": game.name,
        "package_version": yaniv_env.__version__,
        "algorithm": "MaskablePPO",
        "rules": rules_to_dict(rules),
        "num_players": int(rules.num_players),
        "observation": observation_fingerprint(rules),
        "actions": action_fingerprint(rules),
        "timesteps": int(timesteps),
        "args": args or {},
        "league": league or {"pool": [], "history": []},
    }
    with contextlib.suppress(Exception):
        import sb3_contrib
        import stable_baselines3
        import torch

        meta["versions"] = {
            "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__,
            "torch": torch.__version__,
        }
    meta.update(extra)
    return meta


def save_checkpoint(model, path: str | os.PathLike, metadata: dict) -> Path:
    """Save an SB3 ``model`` with ``metadata`` as one ``.zip`` at ``path``, atomically."""
    buf = io.BytesIO()
    model.save(buf)
    with zipfile.ZipFile(buf, mode="a", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(META_NAME, json.dumps(metadata, indent=1, sort_keys=True, default=str))
    atomic_write_bytes(path, buf.getvalue())
    return Path(path)


__all__ = ["build_metadata", "format_version", "save_checkpoint"]


#: The lean learner's checkpoint (``--algo ppo``): ``checkpoint.pt`` in the run directory.
PPO_CHECKPOINT = "checkpoint.pt"


def read_ppo_checkpoint(path: Path, what: str, keys=("policy", "optimizer", "state", "args")) -> dict:
    """A checkpoint.pt of the lean learner (:mod:`training.ppo`: ``policy``, ``optimizer``,
    ``state``, ``pool``, ``args``; tensors, numbers and strings only, read with
    ``weights_only``, so loading runs no code from it); ``ValueError`` naming ``what`` when it
    is missing or lacks one of ``keys`` (``--init`` needs the weights only: checkpoints from
    before the arguments were kept in them serve)."""
    try:
        saved = torch.load(path, weights_only=True)
    except (OSError, RuntimeError, EOFError, pickle.UnpicklingError) as e:
        raise ValueError(f"{what}: cannot read {path.name} as a checkpoint ({str(e).splitlines()[0]})") from None
    if not isinstance(saved, dict) or not set(keys) <= saved.keys():
        raise ValueError(f"{what}: {path.name} is not a checkpoint of training/ppo.py")
    return saved
