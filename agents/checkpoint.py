"""Reading the training checkpoints ``yaniv train`` writes: metadata, fingerprints, checks.

A checkpoint is one ``.zip``: the archive written by Stable-Baselines3's ``model.save``
plus one more entry, ``yaniv_checkpoint.json`` (:data:`META_NAME`), whose schema and
writing belong to training (:mod:`training.checkpoint`). What this module reads of it, to
refuse a model in the wrong setting:

===================  ==================================================================
key                  content
===================  ==================================================================
format               ``"yaniv-checkpoint"``, ``format_version``: 1 for Yaniv models, 2 for
                     models of another game (readers of version 1 know only Yaniv, so
                     they refuse those as too new; this version reads both)
game                 ``"yaniv"`` or ``"pis_yedili"`` (:mod:`yaniv_env.games`); version 1
                     files written before it existed have no ``game``: they are Yaniv
rules                ``rules.to_dict()``: every option of the game's ``Rules``, including
                     the name
observation          ``size`` and ``pieces`` (``[name, start, size]`` of the game's layout,
                     :class:`yaniv_env.yaniv.observation.ObservationLayout` or
                     :class:`yaniv_env.pis_yedili.observation.PisObservationLayout`)
actions              ``size`` and ``names_sha256`` (SHA-256 of the action names, one per line)
advice               the advisor's agent name of an advised model (:mod:`agents.advice`)
===================  ==================================================================

The fingerprints (:func:`observation_fingerprint`, :func:`action_fingerprint`) and
:func:`atomic_write_bytes` (a temporary file in the same folder, flushed and fsync'ed, then
``os.replace``, so that an interrupted write never destroys the previous file) serve the
play files (:mod:`agents.play_format`) and the checkpoints alike.

Reading the metadata (:func:`read_metadata`) never unpickles: before :mod:`zipfile` reads
the directory it checks the archive's end record (at most :data:`MAX_ENTRIES` entries,
a directory of at most :data:`MAX_DIRECTORY_BYTES`), then that every entry declares at
most :data:`MAX_ENTRY_BYTES` (:data:`MAX_TOTAL_BYTES` in all, and at most
:data:`MAX_COMPRESSION_RATIO` times its compressed size above 1 MiB: a zip bomb), streams
every entry once for its CRC, and reads :data:`META_NAME` in chunks that stop past
:data:`MAX_JSON_BYTES` (JSON nested at most :data:`yaniv_env.core.limits.MAX_JSON_DEPTH`
deep). Its rules are read within the game's ``rule_limits`` before any table is built.
Loading the model (:func:`load_model`) does unpickle (Stable-Baselines3 stores Python
objects in the ``data`` entry), so it is refused with :class:`UntrustedFileError` unless
the caller says the file is trusted (``trusted=True``): a checkpoint can run any code its
author chose. Models to share go in the play format (:mod:`agents.play_format`).

:func:`check_metadata` checks that the observation layout and action table the model was trained
for are the ones this version builds for its rules, and, when ``game`` or ``rules`` are
given, that they are the training game and rules (a Pis Yedili model used for Yaniv, or
the reverse, is refused as such); any failure is a ``ValueError`` naming the difference.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

from yaniv_env.core.game import rules_to_dict  # noqa: F401  (re-exported: the checkpoints' rules)
from yaniv_env.core.limits import ZIP_ERRORS, ZipLimits, loads, open_zip, read_member

META_NAME = "yaniv_checkpoint.json"
#: Limits on what a checkpoint zip may declare, checked before anything is decompressed
#: (a checkpoint of the largest play-file network, 16 M parameters, has about 200 MB in all).
MAX_ENTRIES = 64
MAX_DIRECTORY_BYTES = 1 << 20
MAX_ENTRY_BYTES = 256 << 20
MAX_TOTAL_BYTES = 1 << 30
#: An entry larger than 1 MiB may not declare more than this many times its compressed
#: size (weights hardly compress; a zip bomb of zeros compresses about 1,000 times).
MAX_COMPRESSION_RATIO = 100
MAX_JSON_BYTES = 1 << 20
ZIP_LIMITS = ZipLimits(
    max_entries=MAX_ENTRIES,
    max_directory_bytes=MAX_DIRECTORY_BYTES,
    max_entry_bytes=MAX_ENTRY_BYTES,
    max_total_bytes=MAX_TOTAL_BYTES,
    max_ratio=MAX_COMPRESSION_RATIO,
    ratio_from=1 << 20,
    name="agents.checkpoint.ZIP_LIMITS",
)
FORMAT = "yaniv-checkpoint"
#: The newest format this version reads (:mod:`training.checkpoint` writes it for games other than Yaniv).
FORMAT_VERSION = 2


def checkpoint_game(meta: dict):
    """The :class:`yaniv_env.games.Game` of a checkpoint's metadata (no ``game`` key: Yaniv)."""
    from yaniv_env.games import get_game

    name = meta.get("game", "yaniv")
    try:
        return get_game(name)
    except (ValueError, TypeError):
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


# -- reading -----------------------------------------------------------------------------
class UntrustedFileError(ValueError):
    """Reading this file would unpickle Python objects, and the caller did not say it is trusted."""


def refuse_untrusted(path: str | os.PathLike, what: str) -> None:
    """Raise :class:`UntrustedFileError` for a file of kind ``what`` whose reading unpickles."""
    raise UntrustedFileError(
        f"{str(path)!r} is {what}: loading it unpickles Python objects, and a crafted file can run any code "
        "its author chose. Load it only if you made it yourself or trust whoever did: pass trusted=True "
        "(agents.load(path, trusted=True)) or --trust on the command line. Models to share or to load from "
        "others: export them to the play format (agents.trained.export_for_play, a .safetensors file), which "
        "loads without running code."
    )


def read_metadata(path: str | os.PathLike) -> dict:
    """The metadata of a checkpoint, read without unpickling and within the module's
    limits (entries, sizes, compression ratio, JSON size and depth); ``ValueError`` for
    anything that is not a sound one, ``OSError`` for a file that cannot be read."""
    path = Path(path)
    where = f"{str(path)!r} is not a valid yaniv checkpoint"
    with open(path, "rb") as f:
        try:
            with open_zip(f, ZIP_LIMITS, where) as z:
                bad = z.testzip()  # streams every entry once, within the sizes checked above
                if bad is not None:
                    raise ValueError(f"{where}: entry {bad!r} is corrupt (CRC mismatch)")
                names = set(z.namelist())
                if META_NAME not in names:
                    if "data" in names and "policy.pth" in names:
                        raise ValueError(
                            f"{where}: it is a plain Stable-Baselines3 model without {META_NAME}, so its rules and "
                            "layouts are unknown; wrap it with agents.from_sb3(MaskablePPO.load(path), rules=..., "
                            "num_players=...) and write it with agents.trained.export_for_play (docs/training.md, "
                            "section Stable-Baselines3 directly)"
                        )
                    raise ValueError(f"{where}: it has no {META_NAME} entry")
                raw = read_member(z, META_NAME, MAX_JSON_BYTES, "MAX_JSON_BYTES", where)
        except ZIP_ERRORS as e:
            raise ValueError(f"{where} (corrupt or truncated file: {type(e).__name__}: {e})") from None
    meta = loads(raw, what=f"{where}: {META_NAME}", max_bytes=MAX_JSON_BYTES, limit="MAX_JSON_BYTES")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{where}: {META_NAME} has no format {FORMAT!r}")
    if not isinstance(meta.get("format_version", 0), int):
        raise ValueError(f"{where}: its format_version is not an integer")
    if meta.get("format_version", 0) > FORMAT_VERSION:
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
    try:
        trained = trained_game.rules_from_dict(meta["rules"])
        recorded_obs, recorded_act = dict(meta["observation"]), dict(meta["actions"])
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ValueError(f"{where}the model's metadata is malformed ({type(e).__name__}: {e})") from None
    if game is not None and get_game(game) != trained_game:
        raise ValueError(
            f"{where}model trained for {trained_game.title} (rules {trained.name!r}, {trained.num_players} players) "
            f"but it is used for {get_game(game).title}"
        )
    obs = observation_fingerprint(trained)
    if obs != recorded_obs:
        old, new = recorded_obs, obs
        if old.get("size") != new["size"]:
            what = f"observation size {old.get('size')!r} but this version builds {new['size']}"
        else:
            what = f"observation pieces {old.get('pieces')!r} but this version builds {new['pieces']}"
        raise ValueError(f"{where}model trained for {what} for rules {trained.name!r}")
    act = action_fingerprint(trained)
    if act != recorded_act:
        old = recorded_act
        if old.get("size") != act["size"]:
            what = f"{old.get('size')!r} actions but this version has {act['size']}"
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


def load_model(
    path: str | os.PathLike,
    *,
    trusted: bool = False,
    for_training: bool = False,
    env=None,
    device: str = "cpu",
    **kwargs,
):
    """The MaskablePPO model in a checkpoint (``ValueError`` if it cannot be read).
    Unpickles: :class:`UntrustedFileError` unless ``trusted=True``."""
    if not trusted:
        refuse_untrusted(path, "a Stable-Baselines3 zip (a training checkpoint)")
    from sb3_contrib import MaskablePPO

    where = f"{str(path)!r}: the model in this checkpoint cannot be loaded"
    with open(path, "rb") as f:  # what Stable-Baselines3 will decompress, within the limits
        try:
            open_zip(f, ZIP_LIMITS, where).close()
        except ZIP_ERRORS as e:
            raise ValueError(f"{where} ({type(e).__name__}: {e})") from None

    custom = {}
    if not for_training:  # schedules are not needed to act; avoid unpickling them
        custom = {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.0}
    try:
        return MaskablePPO.load(path, env=env, device=device, custom_objects=custom, **kwargs)
    except Exception as e:  # pickle, torch, zip or shape errors: never a raw traceback
        raise ValueError(
            f"{str(path)!r}: the model in this checkpoint cannot be loaded ({type(e).__name__}: {e})"
        ) from e
