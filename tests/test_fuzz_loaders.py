"""Fuzzing the loaders: mutations of the shipped model file, of a checkpoint written as
``yaniv train`` writes them and of a replay (truncation, bit flips, enlarged counts in the
headers, deep nesting, huge declared sizes in zip headers, zip bombs, NaN weights, pickle
payloads) and JSON headers drawn by Hypothesis. Every case is loaded untrusted in a
process whose memory is capped 1.5 GiB above what it uses after its imports, with a time
cap per file (:mod:`capped_loading`), and must end in a load or a ``ValueError``: never
another exception, a crash, a hang, a memory blow-up, or code run from the file.

The CI version loads a few hundred cases in one process; ``--runslow`` loads more of each."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

import torch  # noqa: E402
from capped_loading import assert_bounded, load_capped  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_safe_loading import Payload, rewrite_zip  # noqa: E402

import agents  # noqa: E402
from agents import checkpoint, play_format  # noqa: E402
from yaniv_env.tools import replay  # noqa: E402


# -- generic mutations --------------------------------------------------------------------
def truncations(data: bytes, rng: np.random.Generator, n: int) -> list[bytes]:
    cuts = {0, 1, 7, 8, 9, len(data) - 1, *rng.integers(0, len(data), n).tolist()}
    return [data[:c] for c in sorted(cuts)]


def bit_flips(data: bytes, rng: np.random.Generator, n: int, within: int | None = None) -> list[bytes]:
    """``n`` copies with 1 to 8 random bits flipped (in the first ``within`` bytes when given)."""
    out = []
    for _ in range(n):
        b = bytearray(data)
        for at in rng.integers(0, within or len(data), rng.integers(1, 9)):
            b[at] ^= 1 << int(rng.integers(8))
        out.append(bytes(b))
    return out


def enlarged(value, factor: int):
    """``value`` with every integer in it multiplied by ``factor``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value * factor
    if isinstance(value, list):
        return [enlarged(v, factor) for v in value]
    if isinstance(value, dict):
        return {k: enlarged(v, factor) for k, v in value.items()}
    return value


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


# -- play files -----------------------------------------------------------------------------
def split_play_file(data: bytes) -> tuple[dict, bytes]:
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8 : 8 + n]), data[8 + n :]


def play_file(header: dict | str, body: bytes, length: int | None = None) -> bytes:
    raw = (header if isinstance(header, str) else json.dumps(header)).encode()
    return struct.pack("<Q", len(raw) if length is None else length) + raw + body


def play_mutations(data: bytes, rng: np.random.Generator, n: int) -> list[bytes]:
    header, body = split_play_file(data)
    meta = json.loads(header["__metadata__"]["yaniv_play"])
    head = len(data) - len(body)
    cases = truncations(data, rng, n) + bit_flips(data, rng, n, within=head) + bit_flips(data, rng, n // 2)

    def with_meta(**changes) -> bytes:
        return play_file({**header, "__metadata__": {"yaniv_play": json.dumps({**meta, **changes})}}, body)

    tensors = {k: v for k, v in header.items() if k != "__metadata__"}
    for factor in (2, 1000, 1 << 40):
        cases += [
            with_meta(rules=enlarged(meta["rules"], factor)),
            with_meta(rules={**meta["rules"], "num_players": 2 * factor, "hand_size": 1, "jokers_per_deck": factor}),
            with_meta(num_players=2 * factor),
            with_meta(network=enlarged(meta["network"], factor)),
            with_meta(observation=enlarged(meta["observation"], factor), actions=enlarged(meta["actions"], factor)),
            play_file({**header, **enlarged(tensors, factor)}, body),
            play_file(header, body, length=(head - 8) * factor),
        ]
    cases += [
        with_meta(rules=json.loads(deep(30))),
        play_file(json.dumps(header)[:-1] + ', "x": ' + deep(50_000) + "}", body),
        with_meta(network={**meta["network"], "advice_scale": 1e309}),
        with_meta(advice="agents/models/ppo_standard_2p.safetensors"),
    ]
    return cases


def nan_weights(meta: dict, weights: dict, rng: np.random.Generator, n: int) -> list[bytes]:
    names = sorted(weights)
    out = []
    for _ in range(n):
        name = names[int(rng.integers(len(names)))]
        t = weights[name].clone().reshape(-1)
        t[int(rng.integers(t.numel()))] = float(rng.choice([np.nan, np.inf, -np.inf]))
        out.append(play_format.play_bytes(meta, {**weights, name: t.reshape(weights[name].shape)}))
    return out


# -- checkpoints ----------------------------------------------------------------------------
def zip_header_mutations(data: bytes, rng: np.random.Generator) -> list[bytes]:
    """Huge declared sizes and counts in the central directory, the local headers and the
    end record; compression methods and encryption the archive does not use."""
    cases = []
    huge = (0xFFFFFFFF, 0xF0000000, 1 << 30, 300 << 20)
    for signature, fields in ((b"PK\x01\x02", (20, 24)), (b"PK\x03\x04", (18, 22))):
        at = data.find(signature)
        while at >= 0:
            for field in fields:
                b = bytearray(data)
                b[at + field : at + field + 4] = struct.pack("<I", int(rng.choice(huge)))
                cases.append(bytes(b))
            at = data.find(signature, at + 4)
    # another compression method (bzip2, lzma, unknown) or the encryption flag
    for signature, method, flags in ((b"PK\x01\x02", 10, 8), (b"PK\x03\x04", 8, 6)):
        at = data.find(signature)
        for field, value in ((method, 12), (method, 14), (method, 99), (flags, 1)):
            b = bytearray(data)
            b[at + field : at + field + 2] = struct.pack("<H", value)
            cases.append(bytes(b))
    end = data.rfind(b"PK\x05\x06")
    for field, size, value in ((8, 2, 0xFFFF), (10, 2, 0xFFFF), (12, 4, 0xFFFFFFFF), (12, 4, 1 << 30), (16, 4, 0)):
        b = bytearray(data)
        b[end + field : end + field + size] = value.to_bytes(size, "little")
        cases.append(bytes(b))
    return cases


def bombs(src: Path, tmp: Path, size: int) -> list[Path]:
    """Entries of ``size`` bytes of zeros: honest sizes (refused by the ratio), and one
    declaring a few bytes (its reading stops there, the CRC refuses it)."""
    honest = tmp / "bomb.zip"
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(honest, "w", zipfile.ZIP_DEFLATED) as out:
        for info in z.infolist():
            out.writestr(info.filename, z.read(info))
        out.writestr("bomb", bytes(size))
    data = bytearray(honest.read_bytes())
    at = data.rfind(b"PK\x01\x02")  # the bomb's directory entry, the last
    data[at + 24 : at + 28] = struct.pack("<I", 1000)
    liar = tmp / "liar.zip"
    liar.write_bytes(bytes(data))
    return [honest, liar]


# -- the tests ------------------------------------------------------------------------------
def write(cases: list[bytes], folder: Path, name: str, suffix: str) -> list[Path]:
    folder.mkdir(exist_ok=True)
    paths = []
    for i, content in enumerate(cases):
        path = folder / f"{name}_{i}{suffix}"
        path.write_bytes(content)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def replay_bytes() -> bytes:
    policies = [agents.make("random", seed=s) for s in range(2)]
    return json.dumps(replay.record_game("standard", 2, seed=5, policies=policies)).encode()


def replay_mutations(data: bytes, rng: np.random.Generator, n: int) -> list[bytes]:
    record = json.loads(data)
    cases = truncations(data, rng, n) + bit_flips(data, rng, n)
    for factor in (1000, 1 << 40):
        cases += [
            json.dumps({**record, "num_players": 2 * factor}).encode(),
            json.dumps({**record, "rules": enlarged(record["rules"], factor)}).encode(),
            json.dumps({**record, "steps": enlarged(record["steps"], factor)}).encode(),
        ]
    cases += [
        json.dumps({**record, "rules": {**record["rules"], "num_players": 600, "jokers_per_deck": 600}}).encode(),
        json.dumps({**record, "steps": json.loads(deep(30))}).encode(),
        deep(100_000).encode(),
        json.dumps({**record, "steps": record["steps"] * 50}).encode(),
    ]
    return cases


def fuzz_cases(
    tmp: Path, tiny_checkpoint: Path, replay_data: bytes, marker: Path, n: int, bomb: int
) -> list[tuple[str, Path]]:
    """``n`` random mutations of each kind (and the fixed ones) of the three formats."""
    rng = np.random.default_rng(33)
    cases = []
    # both networks a play file may describe: the advised MaskablePPO one and the lean PPO's
    for kind, model in (("advised", agents.ADVISED_MODEL), ("scratch", agents.SCRATCH_MODEL)):
        meta, weights = play_format.read_play_file(model)
        mutations = play_mutations(model.read_bytes(), rng, n)
        cases += [("agent", p) for p in write(mutations, tmp / f"play_{kind}", "play", ".safetensors")]
        nans = nan_weights(meta, weights, rng, max(2, n // 10))
        cases += [("agent", p) for p in write(nans, tmp / f"nan_{kind}", "nan", ".safetensors")]
    ckpt = tiny_checkpoint.read_bytes()
    zips = truncations(ckpt, rng, n) + bit_flips(ckpt, rng, n) + zip_header_mutations(ckpt, rng)
    with zipfile.ZipFile(tiny_checkpoint) as z:
        ckpt_meta = json.loads(z.read(checkpoint.META_NAME))
    for changed in (
        deep(100_000),
        json.dumps({**ckpt_meta, "rules": {**ckpt_meta["rules"], "num_players": 600, "jokers_per_deck": 600}}),
        json.dumps({**ckpt_meta, "observation": enlarged(ckpt_meta["observation"], 1 << 40)}),
    ):
        zips.append(
            rewrite_zip(tiny_checkpoint, tmp / "changed.zip", {checkpoint.META_NAME: changed.encode()}).read_bytes()
        )
    zip_paths = write(zips, tmp / "zip", "ckpt", ".zip") + bombs(tiny_checkpoint, tmp, bomb)
    # pickle payloads where the loaders read: never run when loading untrusted
    torch.save({"weights": Payload(marker)}, tmp / "payload.pth")
    zip_paths.append(rewrite_zip(tiny_checkpoint, tmp / "pth.zip", {"policy.pth": (tmp / "payload.pth").read_bytes()}))
    (tmp / "pickled.safetensors").write_bytes((tmp / "payload.pth").read_bytes())
    cases += [("agent", p) for p in zip_paths] + [("metadata", p) for p in zip_paths]
    cases.append(("agent", tmp / "pickled.safetensors"))
    replays = write(replay_mutations(replay_data, rng, n), tmp / "replay", "replay", ".json")
    return cases + [("replay", p) for p in replays]


def json_values():
    scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
        max_leaves=40,
    )


def hypothesis_headers(tmp: Path, examples: int) -> list[tuple[str, Path]]:
    """Play files whose metadata keys (or whole header) Hypothesis draws."""
    data = agents.SHIPPED_MODEL.read_bytes()
    header, body = split_play_file(data)
    meta = json.loads(header["__metadata__"]["yaniv_play"])
    drawn: list[bytes] = []

    @settings(max_examples=examples, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(sorted(meta) + ["__header__"]), json_values())
    def draw(key, value):
        if key == "__header__":
            drawn.append(play_file(json.dumps(value), body))
        else:
            changed = json.dumps({**meta, key: value})
            drawn.append(play_file({**header, "__metadata__": {"yaniv_play": changed}}, body))

    draw()
    return [("agent", p) for p in write(drawn, tmp / "hypothesis", "drawn", ".safetensors")]


@pytest.fixture()
def marker(tmp_path) -> Path:
    return tmp_path / "pwned"


def fuzz(tmp_path, tiny_checkpoint, replay_bytes, marker, *, n: int, bomb: int, examples: int) -> list[dict]:
    cases = fuzz_cases(tmp_path, tiny_checkpoint, replay_bytes, marker, n=n, bomb=bomb)
    cases += hypothesis_headers(tmp_path, examples=examples)
    results = load_capped(cases)
    assert_bounded(cases, results)
    assert not marker.exists(), "a payload ran"
    return results


def test_fuzzed_files_load_or_are_refused(tiny_checkpoint, replay_bytes, tmp_path, marker):
    results = fuzz(tmp_path, tiny_checkpoint, replay_bytes, marker, n=6, bomb=64 << 20, examples=30)
    ends = [r["end"] for r in results]
    assert ends.count("refused") > len(ends) // 2  # the mutations are not all harmless


@pytest.mark.slow
def test_fuzzed_files_load_or_are_refused_long(tiny_checkpoint, replay_bytes, tmp_path, marker):
    fuzz(tmp_path, tiny_checkpoint, replay_bytes, marker, n=150, bomb=1 << 30, examples=1000)
