"""Loading a model file never runs code from it: crafted files with a payload in each place
a loader reads are refused, and the payload's side effect (a file it would create) never
appears; hostile sizes are refused before anything is allocated; corrupt and truncated
files get clear errors; pickled files load only when the caller says they are trusted."""

from __future__ import annotations

import base64
import json
import pickle
import re
import struct
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

import torch  # noqa: E402

import agents  # noqa: E402
from agents import checkpoint, play_format  # noqa: E402
from agents.checkpoint import UntrustedFileError  # noqa: E402
from agents.trained import export_for_play, load  # noqa: E402


class Payload:
    """Unpickling it creates ``marker``: the proof that a loader ran code from a file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').write('pwned')",)


def rewrite_zip(src: Path, dst: Path, changes: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(src) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    entries.update(changes)
    with zipfile.ZipFile(dst, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return dst


def refused_without_running(path: Path, marker: Path, error=ValueError, match: str | None = None) -> None:
    """Every way to load ``path`` without trusting it is refused, and the payload never ran."""
    for attempt in (
        lambda: agents.load(str(path)),
        lambda: agents.make(str(path)) if path.suffix in agents.MODEL_SUFFIXES else agents.load(str(path)),
        lambda: export_for_play(path, path.parent / "out.safetensors"),
    ):
        with pytest.raises(error, match=match):
            attempt()
    assert not marker.exists(), "the payload ran"


@pytest.fixture()
def marker(tmp_path) -> Path:
    return tmp_path / "pwned"


@pytest.fixture()
def data_payload(tiny_checkpoint, tmp_path, marker) -> Path:
    """The checkpoint with its ``data`` entry's pickled policy class replaced by the payload."""
    with zipfile.ZipFile(tiny_checkpoint) as z:
        data = json.loads(z.read("data"))
    data["policy_class"][":serialized:"] = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    return rewrite_zip(tiny_checkpoint, tmp_path / "evil.zip", {"data": json.dumps(data).encode()})


def test_payload_in_the_zip_data_entry_is_refused(data_payload, marker):
    refused_without_running(data_payload, marker, UntrustedFileError, "unpickles.*trusted=True.*--trust")
    with pytest.raises(UntrustedFileError):
        checkpoint.load_model(data_payload)
    # the payload is real: trusting the file runs it (this is why trust must be explicit)
    with pytest.raises(ValueError):
        agents.load(str(data_payload), trusted=True)
    assert marker.exists()


def test_payload_in_a_pth_entry_is_refused(tiny_checkpoint, tmp_path, marker):
    buf = tmp_path / "policy.pth"
    torch.save({"weights": Payload(marker)}, buf)
    evil = rewrite_zip(tiny_checkpoint, tmp_path / "evil.zip", {"policy.pth": buf.read_bytes()})
    refused_without_running(evil, marker, UntrustedFileError)


def test_untrusted_error_says_why_and_how(tiny_checkpoint):
    with pytest.raises(UntrustedFileError) as e:
        agents.load(tiny_checkpoint)
    text = str(e.value)
    for words in ("unpickles", "can run any code", "trusted=True", "--trust", "export_for_play", ".safetensors"):
        assert words in text
    assert load(tiny_checkpoint, trusted=True).timesteps == 0


def test_payload_in_the_metadata_is_refused(tiny_checkpoint, data_payload, tmp_path, marker):
    # an advised model: its advisor is a name the loader reads
    good = agents.ADVISED_MODEL.read_bytes()
    meta, weights = play_format.read_play_file(agents.ADVISED_MODEL)

    def crafted(name: str, **changes) -> Path:
        path = tmp_path / name
        path.write_bytes(play_format.play_bytes({**meta, **changes}, weights))
        return path

    # an advisor that is a path: it would load (and unpickle) another file
    path = crafted("advice.safetensors", advice=str(data_payload))
    refused_without_running(path, marker, ValueError, "not a registered agent")
    # a network class or activation named by a Python path
    for network in (
        {**meta["network"], "policy": "builtins.exec"},
        {**meta["network"], "activation": "os.system"},
        {**meta["network"], "features_extractor_class": "builtins.exec"},
    ):
        path = crafted("network.safetensors", network=network)
        refused_without_running(path, marker, ValueError, "unknown")
    # a pickle where JSON is expected: it is never unpickled, only refused as not JSON
    payload = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    path = crafted("rules.safetensors", rules=payload)
    refused_without_running(path, marker, ValueError, "malformed")
    # the checkpoint's own metadata entry: JSON only; a pickle there is refused as corrupt
    evil = rewrite_zip(tiny_checkpoint, tmp_path / "meta.zip", {checkpoint.META_NAME: pickle.dumps(Payload(marker))})
    refused_without_running(evil, marker, ValueError, "not a valid yaniv checkpoint")
    assert agents.ADVISED_MODEL.read_bytes() == good


def test_file_claiming_the_safe_format_is_refused(data_payload, tmp_path, marker):
    pickled = tmp_path / "model.safetensors"
    torch.save(Payload(marker), pickled)  # a torch/pickle file under the safe name
    refused_without_running(pickled, marker, ValueError, "not a valid yaniv play file")
    raw = tmp_path / "raw.safetensors"
    raw.write_bytes(pickle.dumps(Payload(marker)))
    refused_without_running(raw, marker, ValueError, "not a valid yaniv play file")
    renamed = tmp_path / "renamed.safetensors"  # a checkpoint with a payload, renamed
    renamed.write_bytes(data_payload.read_bytes())
    refused_without_running(renamed, marker, ValueError, "zip archive")
    # trusting does not change how a .safetensors name is read
    with pytest.raises(ValueError, match="zip archive"):
        agents.load(str(renamed), trusted=True)
    assert not marker.exists()
    # a plain safetensors file without the model metadata
    from safetensors.torch import save_file

    plain = tmp_path / "plain.safetensors"
    save_file({"w": torch.zeros(3)}, plain)
    with pytest.raises(ValueError, match="not a yaniv model"):
        agents.load(str(plain))


def safetensors_file(path: Path, header: dict, body: bytes = b"") -> Path:
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + body)
    return path


@pytest.mark.parametrize(
    ("header", "body", "match"),
    [
        ({"w": {"dtype": "F32", "shape": [100_000, 100_000], "data_offsets": [0, 40_000_000_000]}}, b"", "asks for"),
        ({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8, "do not match|cover"),
        ({"w": {"dtype": "F64", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 8, "only F32"),
        ({f"w{i}": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]} for i in range(100)}, b"", "tensors"),
        ({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4, "bad shape"),
        ({"w": {"dtype": "F32", "shape": [1], "data_offsets": "x"}}, b"\0" * 4, "data_offsets"),
        ({"__metadata__": {"yaniv_play": "x" * (2 << 20)}}, b"", "header claims"),
    ],
)
def test_hostile_sizes_are_refused_before_reading(tmp_path, header, body, match):
    path = safetensors_file(tmp_path / "hostile.safetensors", header, body)
    with pytest.raises(ValueError, match=match):
        agents.load(str(path))


def test_header_length_beyond_the_limit_is_refused(tmp_path):
    path = tmp_path / "huge_header.safetensors"
    path.write_bytes(struct.pack("<Q", 1 << 40) + b"{}")
    with pytest.raises(ValueError, match="header claims"):
        agents.load(str(path))


def test_oversized_zip_entries_are_refused(tiny_checkpoint, tmp_path):
    # a metadata entry of 2 MB (compressed to a few KB): refused by its declared size
    big = json.dumps({"format": "yaniv-checkpoint", "pad": " " * (2 << 20)}).encode()
    path = tmp_path / "big_meta.zip"
    with zipfile.ZipFile(tiny_checkpoint) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, big if name == checkpoint.META_NAME else src.read(name))
    assert zipfile.ZipFile(path).getinfo(checkpoint.META_NAME).compress_size < 10_000
    with pytest.raises(ValueError, match=r"yaniv_checkpoint\.json' declares 2,097,\d+ bytes.*max_ratio = 100"):
        agents.load(str(path), trusted=True)
    # an entry whose central directory claims 3.75 GB (a zip bomb's header)
    data = bytearray(tiny_checkpoint.read_bytes())
    entry = data.find(b"PK\x01\x02")
    while entry >= 0:
        name_len = struct.unpack("<H", data[entry + 28 : entry + 30])[0]
        if data[entry + 46 : entry + 46 + name_len] == b"data":
            data[entry + 24 : entry + 28] = struct.pack("<I", 0xF0000000)
            break
        entry = data.find(b"PK\x01\x02", entry + 4)
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"entry 'data' declares 4,026,531,840 bytes, more than .*max_entry_bytes"):
        agents.load(str(bomb), trusted=True)


def test_corrupt_and_truncated_play_files_are_refused(tmp_path):
    data = agents.SHIPPED_MODEL.read_bytes()
    cases = {
        "truncated": data[: len(data) // 2],
        "header_only": data[:100],
        "empty": b"",
        "garbage": b"this is not a model" * 100,
    }
    flipped = bytearray(data)
    flipped[-1000] ^= 0xFF  # one byte of the weights
    cases["flipped"] = bytes(flipped)
    for name, content in cases.items():
        path = tmp_path / f"{name}.safetensors"
        path.write_bytes(content)
        with pytest.raises(ValueError, match="not a valid yaniv play file") as e:
            agents.load(str(path))
        assert "Traceback" not in str(e.value)
    with pytest.raises(ValueError, match="SHA-256"):
        agents.load(str(tmp_path / "flipped.safetensors"))
    with pytest.raises(FileNotFoundError):
        agents.load(str(tmp_path / "missing.safetensors"))


def test_weights_that_do_not_fit_the_network_are_refused(tmp_path):
    meta, weights = play_format.read_play_file(agents.SHIPPED_MODEL)
    path = tmp_path / "wrong.safetensors"
    path.write_bytes(play_format.play_bytes(meta, {**weights, "value_net.bias": torch.zeros(2)}))
    with pytest.raises(ValueError, match="do not fit the described network"):
        agents.load(str(path))
    network = {**meta["network"], "net_arch": {"pi": [10**9], "vf": [8]}}
    path.write_bytes(play_format.play_bytes({**meta, "network": network}, weights))
    with pytest.raises(ValueError, match="bad network sizes"):
        agents.load(str(path))
    path.write_bytes(play_format.play_bytes({**meta, "format_version": 99}, weights))
    with pytest.raises(ValueError, match="play format 99, newer"):
        agents.load(str(path))


def test_command_line_trust_flag(tiny_checkpoint, capsys):
    """``yaniv eval`` and ``yaniv play`` refuse a .zip checkpoint with a message naming
    --trust, and load it when given --trust."""
    from training.cli import main as yaniv

    path = str(tiny_checkpoint)
    assert yaniv(["eval", "--agents", f"{path},random", "--games", "2", "--quiet"]) == 2
    assert "--trust" in capsys.readouterr().err
    assert yaniv(["eval", "--agents", f"{path},random", "--games", "2", "--quiet", "--trust"]) == 0
    assert Path(path).stem in capsys.readouterr().out

    from yaniv_env.tools.play import main as play

    out: list[str] = []
    assert play(["--opponents", path, "--seed", "1"], input_fn=lambda _: "q", print_fn=out.append) == 2
    err = capsys.readouterr().err
    assert "--trust" in err and err.count("\n") == 1 and not out
    assert play(["--opponents", path, "--seed", "1", "--trust"], input_fn=lambda _: "q", print_fn=out.append) == 0
    assert out[-1] == "You left the game."


# -- the attacks of issue 33: each refused with a ValueError naming its limit, in a process
# whose memory is capped 1.5 GiB above what it uses after its imports ---------------------
def _play_file(path: Path, meta: dict, weights: dict) -> Path:
    path.write_bytes(play_format.play_bytes(meta, weights))
    return path


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture(scope="module")
def shipped():
    return play_format.read_play_file(agents.SHIPPED_MODEL)


def _zip_with(src: Path, dst: Path, name: str, data: bytes) -> Path:
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as out:
        for info in z.infolist():
            out.writestr(info.filename, z.read(info))
        out.writestr(name, data)
    return dst


def test_issue_attacks_are_refused_naming_their_limit(shipped, tiny_checkpoint, tmp_path, marker):
    from capped_loading import load_capped

    from yaniv_env.tools import replay

    meta, weights = shipped
    huge_rules = {**meta["rules"], "hand_size": 1, "jokers_per_deck": 600}
    record = replay.record_game("standard", 2, seed=1, policies=[agents.make("random", seed=s) for s in range(2)])
    cases: list[tuple[str, Path, str]] = []

    def case(kind: str, path: Path, match: str) -> None:
        cases.append((kind, path, match))

    for players in (600, 2000):
        rules = {**huge_rules, "num_players": players}
        case(
            "agent",
            _play_file(tmp_path / f"p{players}.safetensors", {**meta, "rules": rules}, weights),
            f"num_players = {players:,}, more than Yaniv's file limit of 32",
        )
        path = tmp_path / f"p{players}.json"
        path.write_text(json.dumps({**record, "rules": rules, "num_players": players}))
        case("replay", path, f"num_players = {players:,}, more than Yaniv's file limit")
        ckpt = tmp_path / f"p{players}.zip"
        ckpt_meta = json.loads(zipfile.ZipFile(tiny_checkpoint).read(checkpoint.META_NAME))
        rewrite_zip(tiny_checkpoint, ckpt, {checkpoint.META_NAME: json.dumps({**ckpt_meta, "rules": rules}).encode()})
        case("agent", ckpt, f"num_players = {players:,}, more than Yaniv's file limit")
    # a header describing a network over the parameter budget, and one within it that the
    # weights do not fill: both refused before anything is built
    big = {**meta["network"], "net_arch": {"pi": [4096] * 8, "vf": [64]}}
    case("agent", _play_file(tmp_path / "big.safetensors", {**meta, "network": big}, weights), "MAX_PARAMETERS")
    wide = {**meta["network"], "net_arch": {"pi": [2048, 2048], "vf": [64]}}
    case("agent", _play_file(tmp_path / "wide.safetensors", {**meta, "network": wide}, weights), "parameters described")
    # a zip bomb: 256 MiB of zeros in one entry, about 250 kB compressed
    bomb = _zip_with(tiny_checkpoint, tmp_path / "bomb.zip", "bomb", bytes(256 << 20))
    case("agent", bomb, r"'bomb' declares 268,435,456 bytes.*ZIP_LIMITS\.max_ratio")
    # deep JSON in every reader: metadata of a play file, of a checkpoint, a replay
    raw_meta = json.dumps(meta)[:-1] + ', "deep": ' + _deep(100_000) + "}"
    header = {"__metadata__": {"yaniv_play": raw_meta}}
    case("agent", safetensors_file(tmp_path / "deep.safetensors", header), "MAX_JSON_DEPTH")
    header_deep = ('{"__metadata__": {"a": ' + _deep(100_000) + "}}").encode()
    path = tmp_path / "deep_header.safetensors"
    path.write_bytes(struct.pack("<Q", len(header_deep)) + header_deep)
    case("agent", path, "MAX_JSON_DEPTH")
    deep_zip = rewrite_zip(tiny_checkpoint, tmp_path / "deep.zip", {checkpoint.META_NAME: _deep(100_000).encode()})
    case("metadata", deep_zip, "MAX_JSON_DEPTH")
    path = tmp_path / "deep.json"
    path.write_text(_deep(100_000))
    case("replay", path, "MAX_JSON_DEPTH")
    # NaN and infinite weights, with their SHA-256 right
    for bad in (float("nan"), float("inf")):
        name = next(iter(weights))
        poisoned = {**weights, name: torch.full_like(weights[name], bad)}
        case("agent", _play_file(tmp_path / f"{bad}.safetensors", meta, poisoned), f"tensor {name!r} holds NaN")
    results = load_capped([(kind, path) for kind, path, _ in cases])
    for (_, path, match), result in zip(cases, results, strict=True):
        assert result["end"] == "refused", (path.name, result)
        assert re.search(match, result["message"]), (path.name, match, result["message"])
        assert str(path) in result["message"] or path.name in result["message"], result["message"]
    assert not marker.exists()


def test_commands_report_unreadable_files_on_one_line(tmp_path, capsys):
    """A missing, unreadable or refused file ends every command with one line on stderr
    and exit code 2, never a traceback."""
    from training.cli import main as yaniv

    missing = tmp_path / "x.safetensors"
    garbage = tmp_path / "garbage.safetensors"
    garbage.write_bytes(b"not a model" * 10)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    folder = tmp_path / "folder.safetensors"
    folder.mkdir()
    cases = [
        (["eval", "--agents", f"{missing},random", "--games", "2", "--quiet"], f"cannot read {missing}: No such file"),
        (["eval", "--agents", f"{folder},random", "--games", "2", "--quiet"], f"cannot read {folder}: Is a directory"),
        (["eval", "--agents", f"{garbage},random", "--games", "2", "--quiet"], "not a valid yaniv play file"),
        (["play", "--opponents", str(missing)], f"cannot read {missing}: No such file"),
        (["play", "--opponents", str(garbage)], "not a valid yaniv play file"),
        (["replay", str(tmp_path / "r.json")], f"cannot read {tmp_path / 'r.json'}: No such file"),
        (["replay", str(deep)], "MAX_JSON_DEPTH"),
        (["train", "--resume", str(tmp_path / "run")], "no checkpoint"),
    ]
    for argv, message in cases:
        assert yaniv(argv) == 2, argv
        captured = capsys.readouterr()
        assert captured.err.startswith(f"yaniv {argv[0]}: ") and captured.err.count("\n") == 1, captured.err
        assert message in captured.err and "Traceback" not in captured.err + captured.out, captured.err


def test_demonstrations_are_bounded_before_their_arrays_are_read(tmp_path):
    import numpy as np

    from training.args import ConfigError
    from training.imitation import load_demonstrations, save_demonstrations

    rng = np.random.default_rng(0)
    data = {
        "obs": rng.random((20, 7), dtype=np.float32),
        "mask": rng.random((20, 11)) < 0.5,
        "act": rng.integers(0, 11, 20),
        "ret": rng.random(20, dtype=np.float32),
        "episode": np.arange(20),
        "episodes": 20,
        "cand_act": None,
        "cand_value": None,
    }
    key = {"teacher": "greedy", "rules": {"name": "standard"}}
    path = tmp_path / "demos.npz"
    save_demonstrations(path, data, key)
    loaded = load_demonstrations(path, key)
    for name in ("obs", "mask", "act", "ret", "episode"):
        assert np.array_equal(loaded[name], data[name])
    with pytest.raises(ConfigError, match="other settings"):
        load_demonstrations(path, {**key, "teacher": "heuristic"})
    # an array whose header declares far more than its entry holds
    with zipfile.ZipFile(path) as z:
        entries = {name: z.read(name) for name in z.namelist()}
    header = entries["obs.npy"]
    entries["obs.npy"] = header.replace(b"(20, 7)", b"(2000000000, 7)")
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(bad, "w") as z:
        for name, content in entries.items():
            z.writestr(name, content)
    with pytest.raises(ConfigError, match=r"'obs\.npy' declares float32 \(2000000000, 7\)"):
        load_demonstrations(bad, key)
    bad.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ConfigError, match="not a demonstration file"):
        load_demonstrations(bad, key)
