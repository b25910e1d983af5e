"""The play format: a trained agent in one file that loads without running any code from it.

A play file (``.safetensors``, e.g. ``agents/models/ppo_standard_2p.safetensors``) is a
plain `safetensors <https://huggingface.co/docs/safetensors>`_ file: an 8-byte header
length, a JSON header naming each tensor's dtype, shape and byte range, then the raw
float32 weights of the policy network (``policy.state_dict()``). The header's
``__metadata__`` holds one string, ``yaniv_play`` (:data:`META_KEY`), a JSON object:

===================  ==================================================================
key                  content
===================  ==================================================================
format               ``"yaniv-play"``; ``format_version``: 1
game                 ``"yaniv"`` or ``"pis_yedili"``
package_version      ``yaniv_env.__version__`` that wrote it
rules, num_players   the rules the model plays (``dataclasses.asdict(rules)``)
observation          fingerprint of the observation layout (size and pieces), as in a
                     training checkpoint (:mod:`agents.checkpoint`)
actions              fingerprint of the action table (size and SHA-256 of the names)
network              the architecture by name and sizes (:func:`agents.networks.describe_policy`:
                     ``policy``, ``observation_size``, ``num_actions``, ``net_arch``,
                     ``activation``, ``share_features_extractor``, ``action_rules``,
                     ``advice_scale``, ``score_features`` when true)
advice               the advisor's agent name (an advised model, :mod:`agents.advice`) or null
timesteps            environment steps the model was trained for
weights_sha256       SHA-256 of the bytes after the header (the weights): a corrupt file
                     is refused, not played
training             informational: what the training checkpoint recorded (algorithm,
                     reward, episode, run name, library versions)
===================  ==================================================================

Reading (:func:`read_play_file`) parses the header itself before anything else and
refuses a file larger than :data:`MAX_FILE_BYTES`, a header (or metadata string) larger
than :data:`MAX_HEADER_BYTES` or nested deeper than
:data:`yaniv_env.core.limits.MAX_JSON_DEPTH`, more than :data:`MAX_TENSORS` tensors, a
tensor of more than :data:`MAX_TENSOR_ELEMENTS` values, any dtype but float32, byte
ranges that do not tile the file exactly, and weights that do not match their SHA-256;
only then are the weights read (by ``safetensors``, which never unpickles), and refused
if any is NaN or infinite. The network is rebuilt from its
description by name (:func:`agents.networks.build_policy`, a fixed list of classes and
activations), so no name in the file is ever imported, once its parameter count (computed
from the description) is within :data:`agents.networks.MAX_PARAMETERS` and equal to the
number of weights in the file. Every refusal is a ``ValueError`` naming the file and the
limit (``docs/loading-limits.md`` lists them all).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path
from typing import Any

FORMAT = "yaniv-play"
FORMAT_VERSION = 1
SUFFIX = ".safetensors"
META_KEY = "yaniv_play"

#: Limits on what a play file may ask for (the shipped model: 3.1 MB, 15 tensors).
MAX_FILE_BYTES = 256 << 20
MAX_HEADER_BYTES = 1 << 20
MAX_TENSORS = 64
MAX_TENSOR_ELEMENTS = 32 << 20

_ZIP_MAGIC = b"PK\x03\x04"


def looks_like_play_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` starts as a safetensors file does (header length, then ``{``)."""
    with open(path, "rb") as f:
        head = f.read(9)
    return len(head) == 9 and head[8:9] == b"{" and struct.unpack("<Q", head[:8])[0] <= MAX_HEADER_BYTES


def _where(path) -> str:
    return f"{str(path)!r} is not a valid yaniv play file"


def _bad(path, why: str) -> ValueError:
    return ValueError(f"{_where(path)}: {why}")


def _read_header(path: Path, data: bytes) -> dict[str, Any]:
    from yaniv_env.core.limits import loads

    if data[:4] == _ZIP_MAGIC:
        raise _bad(
            path,
            "it is a zip archive (a Stable-Baselines3 checkpoint?), not safetensors; a checkpoint loads only "
            "when trusted, with agents.load(path, trusted=True) under a .zip name",
        )
    if len(data) < 8:
        raise _bad(path, f"it has {len(data)} bytes, fewer than the 8 of a safetensors header length")
    (n,) = struct.unpack("<Q", data[:8])
    if n > MAX_HEADER_BYTES:
        raise _bad(path, f"its header claims {n:,} bytes, more than MAX_HEADER_BYTES = {MAX_HEADER_BYTES:,}")
    if 8 + n > len(data):
        raise _bad(path, f"its header claims {n} bytes but the file ends before (truncated?)")
    header = loads(data[8 : 8 + n], what=f"{_where(path)}: its header", max_bytes=n, limit="MAX_HEADER_BYTES")
    if not isinstance(header, dict):
        raise _bad(path, "its header is not a JSON object")
    tensors = {k: v for k, v in header.items() if k != "__metadata__"}
    if len(tensors) > MAX_TENSORS:
        raise _bad(path, f"it has {len(tensors)} tensors, more than MAX_TENSORS = {MAX_TENSORS}")
    end = 0
    for name, t in sorted(tensors.items(), key=lambda kv: _offsets(path, kv[0], kv[1])[0]):
        start, stop = _offsets(path, name, t)
        if t.get("dtype") != "F32":
            raise _bad(path, f"tensor {name!r} has dtype {t.get('dtype')!r} (only F32 is read)")
        shape = t.get("shape")
        if not isinstance(shape, list) or not all(isinstance(d, int) and 0 <= d <= MAX_TENSOR_ELEMENTS for d in shape):
            raise _bad(path, f"tensor {name!r} has a bad shape {shape!r}")
        numel = 1
        for d in shape:
            numel *= d
        if numel > MAX_TENSOR_ELEMENTS:
            raise _bad(
                path,
                f"tensor {name!r} asks for {numel:,} values, more than MAX_TENSOR_ELEMENTS = {MAX_TENSOR_ELEMENTS:,}",
            )
        if start != end or stop - start != 4 * numel:
            raise _bad(path, f"tensor {name!r}'s bytes [{start}, {stop}) do not match its shape or follow the last")
        end = stop
    if 8 + n + end != len(data):
        raise _bad(path, f"its tensors cover {end} bytes but the file has {len(data) - 8 - n} after the header")
    return header


def _offsets(path, name: str, t) -> tuple[int, int]:
    offsets = t.get("data_offsets") if isinstance(t, dict) else None
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(o, int) for o in offsets)):
        raise _bad(path, f"tensor {name!r} has no valid data_offsets")
    return offsets[0], offsets[1]


def read_play_file(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, Any]]:
    """The metadata and the weights (name → float32 ``torch.Tensor``) of a play file,
    within the module's limits; ``ValueError`` for anything else."""
    from yaniv_env.core.limits import loads, read_file

    path = Path(path)
    data = read_file(path, max_bytes=MAX_FILE_BYTES, limit="MAX_FILE_BYTES", what=_where(path))
    header = _read_header(path, data)
    extra = header.get("__metadata__")
    if not isinstance(extra, dict) or not isinstance(extra.get(META_KEY), str):
        raise _bad(path, f"its header has no {META_KEY!r} metadata (a safetensors file, but not a yaniv model)")
    what = f"{_where(path)}: its {META_KEY!r} metadata"
    meta = loads(extra[META_KEY], what=what, max_bytes=MAX_HEADER_BYTES, limit="MAX_HEADER_BYTES")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise _bad(path, f"its metadata has no format {FORMAT!r}")
    version = meta.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise _bad(path, f"its format_version is {version!r}")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{str(path)!r} uses play format {version}, newer than this version's {FORMAT_VERSION}; upgrade yaniv-env"
        )
    if meta.get("weights_sha256") != hashlib.sha256(_weights_section(data)).hexdigest():
        raise _bad(path, "its weights do not match their SHA-256 in the metadata (corrupt file)")
    from safetensors import SafetensorError
    from safetensors.torch import load as load_tensors

    try:
        tensors = load_tensors(data)
    except SafetensorError as e:
        raise _bad(path, f"safetensors refuses it ({e})") from None
    for name, tensor in tensors.items():
        if not bool(tensor.isfinite().all()):
            raise _bad(path, f"tensor {name!r} holds NaN or infinite weights (only finite weights are played)")
    return meta, tensors


def _weights_section(data: bytes) -> bytes:
    (n,) = struct.unpack("<Q", data[:8])
    return data[8 + n :]


def play_bytes(meta: dict[str, Any], state_dict: dict[str, Any]) -> bytes:
    """The content of a play file for ``meta`` and the weights ``state_dict``;
    ``weights_sha256`` (the SHA-256 of the bytes after the header) is added to ``meta``."""
    from safetensors.torch import save

    tensors = {name: t.detach().to("cpu").float().contiguous() for name, t in state_dict.items()}
    digest = hashlib.sha256(_weights_section(save(tensors))).hexdigest()
    return save(tensors, metadata={META_KEY: json.dumps({**meta, "weights_sha256": digest}, sort_keys=True)})


def play_metadata(rules, network: dict[str, Any], *, advice: str | None, timesteps: int, training: dict | None) -> dict:
    """The ``yaniv_play`` metadata of a model of ``network`` (described) under ``rules``."""
    import yaniv_env
    from yaniv_env.games import game_of

    from .checkpoint import action_fingerprint, observation_fingerprint, rules_to_dict

    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game_of(rules).name,
        "package_version": yaniv_env.__version__,
        "rules": rules_to_dict(rules),
        "num_players": int(rules.num_players),
        "observation": observation_fingerprint(rules),
        "actions": action_fingerprint(rules),
        "network": network,
        "advice": advice,
        "timesteps": int(timesteps),
        "training": training or {},
    }


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "META_KEY",
    "SUFFIX",
    "MAX_FILE_BYTES",
    "MAX_HEADER_BYTES",
    "MAX_TENSORS",
    "MAX_TENSOR_ELEMENTS",
    "looks_like_play_file",
    "play_bytes",
    "play_metadata",
    "read_play_file",
]
