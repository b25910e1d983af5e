"""Trained policies: the checkpoint format written by ``yaniv train``, and the agent that plays one.

.. code-block:: python

    import agents
    bot = agents.load("runs/standard__1__20250101-120000/model.zip")   # or agents.make(path)
    action = bot.act(observation, action_mask)

Checkpoint format
-----------------
A checkpoint is one ``.zip``: the archive written by Stable-Baselines3's ``model.save``
(``data``, ``policy.pth``, ``policy.optimizer.pth``, ``pytorch_variables.pth``, ...) plus
one more entry, ``yaniv_checkpoint.json`` (:data:`META_NAME`), holding everything needed to
refuse a model in the wrong setting and to resume training without loss:

===================  ==================================================================
key                  content
===================  ==================================================================
format               ``"yaniv-checkpoint"``, ``format_version``: 1 for Yaniv models, 2 for
                     models of another game (readers of version 1 know only Yaniv, so
                     they refuse those as too new; this version reads both)
game                 ``"yaniv"`` or ``"pis_yedili"`` (:mod:`yaniv_env.games`); version 1
                     files written before it existed have no ``game``: they are Yaniv
package_version      ``yaniv_env.__version__`` that wrote it (and sb3/torch versions)
algorithm            ``"MaskablePPO"``
rules                ``dataclasses.asdict(rules)``: every option of the game's ``Rules``,
                     including the name
num_players          players the model was trained for
observation          ``size`` and ``pieces`` (``[name, start, size]`` of the game's layout,
                     :class:`yaniv_env.observation.ObservationLayout` or
                     :class:`yaniv_env.pis_yedili.observation.PisObservationLayout`)
actions              ``size`` and ``names_sha256`` (SHA-256 of the action names, one per line)
episode, reward      the training episode type and reward scheme
timesteps            environment steps trained so far
elapsed_seconds      wall-clock training time so far (for ``--minutes`` budgets over resumes)
args                 the training arguments (``training.train.Args``)
league               self-play pool (snapshot paths relative to the run directory) and
                     gate history
===================  ==================================================================

Files are written atomically (:func:`save_checkpoint`: a temporary file in the same folder,
flushed and fsync'ed, then ``os.replace``), so an interrupted save never destroys the
previous checkpoint.

Loading (:func:`load`) checks that the file is a sound zip (CRC of every entry), that the
metadata is present, that the observation layout and action table the model was trained
for are the ones this version builds for its rules, and, when ``game`` or ``rules`` are
given, that they are the training game and rules (a Pis Yedili model used for Yaniv, or
the reverse, is refused as such); any failure is a ``ValueError`` naming the difference.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

META_NAME = "yaniv_checkpoint.json"
FORMAT = "yaniv-checkpoint"
#: The newest format this version reads (and writes, for games other than Yaniv).
FORMAT_VERSION = 2


def format_version(game) -> int:
    """The ``format_version`` written for a model of ``game``: Yaniv checkpoints keep
    version 1 (readable by every release), other games need version 2."""
    return 1 if game.name == "yaniv" else 2


def checkpoint_game(meta: dict):
    """The :class:`yaniv_env.games.Game` of a checkpoint's metadata (no ``game`` key: Yaniv)."""
    from yaniv_env.games import get_game

    name = meta.get("game", "yaniv")
    try:
        return get_game(name)
    except ValueError:
        raise ValueError(f"the model was trained for a game this version does not know: {name!r}") from None


# -- fingerprints ------------------------------------------------------------------------
def observation_fingerprint(rules) -> dict[str, Any]:
    """Size and piece offsets of the observation vector under ``rules`` (of either game)."""
    from yaniv_env.games import game_of

    layout = game_of(rules).observation_layout(rules)
    return {"size": int(layout.size), "pieces": [[p.name, int(p.start), int(p.size)] for p in layout.pieces.values()]}


def action_fingerprint(rules) -> dict[str, Any]:
    """Number of actions and a hash of their names under ``rules`` (of either game)."""
    from yaniv_env.games import game_of

    table = game_of(rules).action_table(rules)
    digest = hashlib.sha256("\n".join(table.names()).encode()).hexdigest()
    return {"size": int(table.num_actions), "names_sha256": digest}


def rules_to_dict(rules) -> dict[str, Any]:
    return json.loads(json.dumps(dataclasses.asdict(rules)))


def rules_from_dict(d: dict[str, Any], game: str = "yaniv"):
    """The ``game``'s rules from :func:`rules_to_dict` output (lists back to tuples)."""
    from yaniv_env.games import get_game

    return get_game(game).rules_from_dict(d)


def describe_rules_difference(trained, used) -> str | None:
    """``None`` when the rule sets agree (ignoring the display name), else a sentence."""
    from yaniv_env.games import game_of

    mine, theirs = game_of(trained), game_of(used)
    if mine != theirs:
        return (
            f"model trained for {mine.title} (rules {trained.name!r}, {trained.num_players} players) but the "
            f"environment plays {theirs.title}"
        )
    if trained.num_players != used.num_players:
        return (
            f"model trained for {trained.num_players} players (rules {trained.name!r}) but the environment "
            f"has {used.num_players} players"
        )
    a, b = dataclasses.asdict(trained), dataclasses.asdict(used)
    diff = [k for k in a if k not in ("name", "num_players") and a[k] != b.get(k)]
    if not diff:
        return None
    mine = ", ".join(f"{k}={a[k]!r}" for k in diff)
    theirs = ", ".join(f"{k}={b[k]!r}" for k in diff)
    return f"model trained for rules {trained.name!r} ({mine}) but the environment uses {used.name!r} ({theirs})"


def build_metadata(rules, *, timesteps: int, args: dict | None = None, league: dict | None = None, **extra) -> dict:
    """The ``yaniv_checkpoint.json`` content for a model trained under ``rules`` (either game's)."""
    import yaniv_env
    from yaniv_env.games import game_of

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


# -- writing -----------------------------------------------------------------------------
def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` always holds either the old or the new
    content: temporary file in the same folder, fsync, ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600 files; give the usual mode
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def save_checkpoint(model, path: str | os.PathLike, metadata: dict) -> Path:
    """Save an SB3 ``model`` with ``metadata`` as one ``.zip`` at ``path``, atomically."""
    buf = io.BytesIO()
    model.save(buf)
    with zipfile.ZipFile(buf, mode="a", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(META_NAME, json.dumps(metadata, indent=1, sort_keys=True, default=str))
    atomic_write_bytes(path, buf.getvalue())
    return Path(path)


def export_for_play(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """A copy of checkpoint ``src`` for playing only, at ``dst``: the optimizer's moment
    estimates (two thirds of the file) are replaced by a fresh optimizer's state, so the
    copy loads as an agent (``agents.load``, ``yaniv eval``) at a third of the size.
    Training resumed from it restarts Adam's statistics; the metadata says so
    (``"exported_for_play": true``)."""
    meta = read_metadata(src)
    model = load_model(src)
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=1e-4, **policy.optimizer_kwargs)
    meta["exported_for_play"] = True
    return save_checkpoint(model, dst, meta)


# -- reading -----------------------------------------------------------------------------
def read_metadata(path: str | os.PathLike) -> dict:
    """The metadata of a checkpoint; ``ValueError`` for anything that is not a sound one."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {str(path)!r}")
    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            if bad is not None:
                raise ValueError(f"entry {bad!r} is corrupt (CRC mismatch)")
            names = set(z.namelist())
            if META_NAME not in names:
                if "data" in names and "policy.pth" in names:
                    raise ValueError(
                        f"it is a plain Stable-Baselines3 model without {META_NAME}; "
                        "models must be saved by `yaniv train` to record their rules and layouts"
                    )
                raise ValueError(f"it has no {META_NAME} entry")
            meta = json.loads(z.read(META_NAME).decode())
    except ValueError as e:
        raise ValueError(f"{str(path)!r} is not a valid yaniv checkpoint: {e}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, UnicodeDecodeError, KeyError) as e:
        raise ValueError(
            f"{str(path)!r} is not a valid yaniv checkpoint (corrupt or truncated file: {type(e).__name__}: {e})"
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not a valid yaniv checkpoint: {META_NAME} has no format {FORMAT!r}")
    if int(meta.get("format_version", 0)) > FORMAT_VERSION:
        raise ValueError(
            f"{str(path)!r} uses checkpoint format {meta['format_version']}, newer than this version's "
            f"{FORMAT_VERSION}; upgrade yaniv-env"
        )
    return meta


def check_metadata(
    meta: dict, rules=None, num_players: int | None = None, path: str = "", game: str | None = None
) -> Any:
    """The training rules of a checkpoint (its game's ``Rules``), after checking that this
    version builds the same observation layout and action table for them and that they
    agree with ``game`` (``"yaniv"``, ``"pis_yedili"``), ``rules`` (a preset name of the
    model's game, or a rules object of either game) and ``num_players`` when given.
    ``ValueError`` naming the difference otherwise."""
    from yaniv_env.games import get_game

    where = f"{path}: " if path else ""
    trained_game = checkpoint_game(meta)
    trained = trained_game.rules_from_dict(meta["rules"])
    if game is not None and get_game(game) != trained_game:
        raise ValueError(
            f"{where}model trained for {trained_game.title} (rules {trained.name!r}, {trained.num_players} players) "
            f"but it is used for {get_game(game).title}"
        )
    obs = observation_fingerprint(trained)
    if obs != meta["observation"]:
        old, new = meta["observation"], obs
        if old["size"] != new["size"]:
            what = f"observation size {old['size']} but this version builds {new['size']}"
        else:
            what = f"observation pieces {old['pieces']} but this version builds {new['pieces']}"
        raise ValueError(f"{where}model trained for {what} for rules {trained.name!r}")
    act = action_fingerprint(trained)
    if act != meta["actions"]:
        old = meta["actions"]
        if old["size"] != act["size"]:
            what = f"{old['size']} actions but this version has {act['size']}"
        else:
            what = "an action table with other action names (hash differs)"
        raise ValueError(f"{where}model trained for {what} for rules {trained.name!r}")
    if rules is not None or num_players is not None:
        if rules is None:
            used = trained.with_players(num_players)
        elif isinstance(rules, str):
            used = trained_game.get_rules(rules, num_players if num_players is not None else trained.num_players)
        else:
            used = rules if num_players is None else rules.with_players(num_players)
        diff = describe_rules_difference(trained, used)
        if diff:
            raise ValueError(where + diff)
    return trained


def load_model(path: str | os.PathLike, *, for_training: bool = False, env=None, device: str = "cpu", **kwargs):
    """The MaskablePPO model in a checkpoint (``ValueError`` if it cannot be read)."""
    from sb3_contrib import MaskablePPO

    custom = {}
    if not for_training:  # schedules are not needed to act; avoid unpickling them
        custom = {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.0}
    try:
        return MaskablePPO.load(path, env=env, device=device, custom_objects=custom, **kwargs)
    except Exception as e:  # pickle, torch, zip or shape errors: never a raw traceback
        raise ValueError(
            f"{str(path)!r}: the model in this checkpoint cannot be loaded ({type(e).__name__}: {e})"
        ) from e


# -- the policy network ------------------------------------------------------------------
ACTION_KINDS = ("draw", "call", "slam", "asaf", "blast", "pass", "take", "discard")


def action_features(rules) -> np.ndarray:
    """A fixed feature vector per action id, ``(num_actions, F)`` float32: the action's kind
    (one-hot), the cards it moves (count vector over the 53 kinds, and per rank), what the
    next player may take from a discard, the meld type, the number of cards and their
    Yaniv value. Actions sharing cards share features, so what is learnt for one discard
    carries over to every discard holding the same cards. Yaniv rules only."""
    from yaniv_env.actions import action_table
    from yaniv_env.games import game_of

    if game_of(rules).name != "yaniv":
        raise ValueError(f"action features describe Yaniv's actions; these are {game_of(rules).title} rules")
    from yaniv_env.cards import NUM_KINDS, NUM_RANKS, RANK, YANIV_VALUE

    table = action_table(rules)
    melds = ("single", "set", "run")
    n_feat = len(ACTION_KINDS) + 2 * NUM_KINDS + (NUM_RANKS + 1) + len(melds) + 2
    out = np.zeros((table.num_actions, n_feat), dtype=np.float32)
    o_cards = len(ACTION_KINDS)
    o_take = o_cards + NUM_KINDS
    o_rank = o_take + NUM_KINDS
    o_meld = o_rank + NUM_RANKS + 1
    for a in range(table.num_actions):
        d = table.decode(a)
        row = out[a]
        row[ACTION_KINDS.index(d.kind)] = 1.0
        for k in d.cards:
            row[o_cards + k] += 1.0
            row[o_rank + (RANK[k] if RANK[k] >= 0 else NUM_RANKS)] += 1.0
        if d.kind == "discard":
            for k in d.takeable:
                row[o_take + k] = 1.0
            row[o_meld + melds.index(d.meld)] = 1.0
        row[o_meld + 3] = len(d.cards) / rules.hand_size
        row[o_meld + 4] = sum(YANIV_VALUE[k] for k in d.cards) / 30.0
    return out


try:  # the network classes need the [train] extra; metadata helpers do not
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn
except ImportError:  # pragma: no cover
    MaskableActorCriticPolicy = None

if MaskableActorCriticPolicy is not None:

    class ActionFeatureHead(nn.Module):
        """``logits = base(latent) + proj(latent) @ features.T``: the usual per-action output
        layer plus a bilinear term over the fixed action features."""

        def __init__(self, base: nn.Module, features: np.ndarray, latent_dim: int):
            super().__init__()
            self.base = base
            self.proj = nn.Linear(latent_dim, features.shape[1])
            self.register_buffer("features", torch.as_tensor(features), persistent=False)

        def forward(self, latent):
            return self.base(latent) + self.proj(latent) @ self.features.T

    class ActionFeaturePolicy(MaskableActorCriticPolicy):
        """MaskablePPO's MLP actor-critic whose action head also scores the actions'
        features (:func:`action_features`), so that learning generalises across the ~1,500
        action ids. ``action_rules``: the rules (as a dict) that define the actions; ``None``
        gives the plain MLP head."""

        def __init__(self, *args, action_rules: dict | None = None, **kwargs):
            self.action_rules = action_rules
            super().__init__(*args, **kwargs)

        def _build(self, lr_schedule) -> None:
            super()._build(lr_schedule)
            if self.action_rules is None:
                return
            feats = action_features(rules_from_dict(self.action_rules))
            if feats.shape[0] != self.action_space.n:
                raise ValueError(f"action_rules define {feats.shape[0]} actions, the space has {self.action_space.n}")
            head = ActionFeatureHead(self.action_net, feats, self.mlp_extractor.latent_dim_pi)
            if self.ortho_init:
                from functools import partial

                head.proj.apply(partial(self.init_weights, gain=0.01))
            self.action_net = head
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

        def _get_constructor_parameters(self) -> dict[str, Any]:
            data = super()._get_constructor_parameters()
            data["action_rules"] = self.action_rules
            return data


# -- the agent ---------------------------------------------------------------------------
class TrainedAgent:
    """A trained MaskablePPO policy as a :class:`agents.base.Policy`.

    ``act`` gives the action ``model.predict(observation, action_masks=mask,
    deterministic=True)`` gives (the arg-max of the masked logits), computed straight from
    the policy network (about 3× faster than ``predict`` for one observation); with
    ``deterministic=False`` it samples from the masked distribution with the agent's own
    generator (seeded by ``seed``).
    """

    def __init__(self, model, metadata: dict, rules, seed: int | None = None, deterministic: bool = True, name=""):
        import torch

        from yaniv_env.games import game_of

        self.model = model
        self.metadata = metadata
        self.rules = rules
        self.game = game_of(rules)
        self.deterministic = deterministic
        self.name = name or "trained"
        self.rng = np.random.default_rng(seed)
        self._torch = torch
        self._policy = model.policy
        self._policy.set_training_mode(False)
        layout = self.game.observation_layout(rules)
        self._obs_size = layout.size
        self._rules_slice = layout.pieces["rules"].slice
        self._rules_vec = self.game.rules_vector(rules)
        self._num_actions = int(metadata["actions"]["size"])
        self._advisor = None
        if metadata.get("advice"):  # an advised model (agents.advice) asks its advisor at every decision
            from .advice import make_advisor

            self._advisor = make_advisor(metadata["advice"], rules, seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        if self._advisor is not None:
            self._advisor.reset(seed)

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

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Masked action logits (``-inf`` for illegal actions)."""
        observation = np.asarray(observation, dtype=np.float32)
        action_mask = np.asarray(action_mask)
        self._check(observation, action_mask)
        p = self._policy
        if self._advisor is not None:
            from .advice import advised

            observation = advised(self._advisor, observation, action_mask)
        with self._torch.no_grad():
            x = self._torch.as_tensor(observation.reshape(1, -1))
            features = p.extract_features(x, p.pi_features_extractor)
            latent = p.mlp_extractor.forward_actor(features)
            head = getattr(p, "action_logits", p.action_net)
            logits = head(latent)[0].numpy().astype(np.float64)
        return np.where(action_mask.astype(bool), logits, -np.inf)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        logits = self.logits(observation, action_mask)
        if not np.isfinite(logits).any():
            raise ValueError("the action mask allows no action")
        if self.deterministic:
            return int(np.argmax(logits))
        z = np.exp(logits - logits.max())
        return int(self.rng.choice(z.size, p=z / z.sum()))


def load(
    path: str | os.PathLike,
    seed: int | None = None,
    rules=None,
    deterministic: bool = True,
    num_players: int | None = None,
    torch_threads: int | None = 1,
    game: str | None = None,
    **_: object,
) -> TrainedAgent:
    """A checkpoint written by ``yaniv train`` as an agent (of the game it was trained for).

    ``game`` (``"yaniv"``, ``"pis_yedili"``), ``rules`` (a preset name of the model's game,
    or a :class:`yaniv_env.Rules` / :class:`yaniv_env.pis_yedili.Rules`) and
    ``num_players``, when given, must be the ones the model was trained for, else
    ``ValueError`` names the difference.
    ``torch_threads`` (default 1, right for evaluation with many workers) is applied with
    ``torch.set_num_threads``; ``None`` leaves the process setting alone.
    """
    if torch_threads is not None:
        import torch

        torch.set_num_threads(int(torch_threads))
    meta = read_metadata(path)
    trained = check_metadata(meta, rules=rules, num_players=num_players, path=str(path), game=game)
    model = load_model(path)
    n_obs = model.observation_space.shape[0]
    advice_columns = 1 if meta.get("advice") else 0
    if n_obs != meta["observation"]["size"] + advice_columns or model.action_space.n != meta["actions"]["size"]:
        raise ValueError(
            f"{str(path)!r}: the model's spaces (observation {n_obs}, {model.action_space.n} actions) do not match "
            f"its metadata (observation {meta['observation']['size']}, {meta['actions']['size']} actions)"
        )
    return TrainedAgent(model, meta, trained, seed=seed, deterministic=deterministic, name=Path(path).stem)


__all__ = [
    "export_for_play",
    "TrainedAgent",
    "load",
    "save_checkpoint",
    "read_metadata",
    "check_metadata",
    "checkpoint_game",
    "build_metadata",
    "load_model",
    "atomic_write_bytes",
    "META_NAME",
]
