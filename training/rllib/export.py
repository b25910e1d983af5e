"""RLlib policies as play files (``.safetensors``) that ``agents.load`` and ``yaniv eval`` accept.

``yaniv train-rllib`` writes ``agent.safetensors`` beside every checkpoint (and in the run
directory at the end) from the module in memory; :func:`export_checkpoint` (``python -m
training.rllib.export CHECKPOINT OUT``) does the same for a checkpoint directory. The file
(:mod:`agents.play_format`) holds the weights of :class:`training.rllib.module.MaskedActorCritic`,
whose names are those of an SB3 "MlpPolicy", the rules and the observation and action
fingerprints: loading it needs torch and safetensors only, never Ray, and a model used
under other rules or another player count is refused with the usual errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: Metadata that ``yaniv train-rllib`` keeps beside each RLlib checkpoint.
META_NAME = "yaniv_rllib.json"
MODULE_ID = "shared"


def play_metadata(rules, model_config: dict, *, timesteps: int, training: dict) -> dict:
    """The play-file metadata (:func:`agents.play_format.play_metadata`) of a
    :class:`~training.rllib.module.MaskedActorCritic` under ``rules``: an SB3 "MlpPolicy"."""
    from agents.checkpoint import action_fingerprint, observation_fingerprint
    from agents.play_format import play_metadata as metadata

    arch = [int(n) for n in model_config.get("net_arch", [256, 256])]
    network = {
        "policy": "MlpPolicy",
        "observation_size": observation_fingerprint(rules)["size"],
        "num_actions": action_fingerprint(rules)["size"],
        "net_arch": {"pi": arch, "vf": arch},
        "activation": model_config.get("activation", "relu"),
        "share_features_extractor": True,
    }
    return metadata(rules, network, advice=None, timesteps=timesteps, training={"algorithm": "RLlib PPO", **training})


def write_play_file(path: str | Path, state_dict: dict, meta: dict) -> Path:
    """Write the module weights ``state_dict`` (tensors or arrays) with ``meta``, atomically."""
    import torch

    from agents.checkpoint import atomic_write_bytes
    from agents.play_format import play_bytes

    tensors = {k: torch.as_tensor(v) for k, v in state_dict.items()}
    atomic_write_bytes(path, play_bytes(meta, tensors))
    return Path(path)


def export_checkpoint(checkpoint: str | Path, out: str | Path) -> Path:
    """The policy of an RLlib checkpoint written by ``yaniv train-rllib`` as a play file at
    ``out``. Ray's module loader unpickles the checkpoint: export only checkpoints you trust."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from agents.checkpoint import MAX_JSON_BYTES, rules_from_dict
    from yaniv_env.core.limits import read_json_file

    checkpoint = Path(checkpoint)
    meta_path = checkpoint / META_NAME
    if not meta_path.is_file():
        raise ValueError(f"{checkpoint} is not a yaniv train-rllib checkpoint (no {META_NAME})")
    info = read_json_file(meta_path, max_bytes=MAX_JSON_BYTES, limit="agents.checkpoint.MAX_JSON_BYTES")
    module_dir = checkpoint / "learner_group" / "learner" / "rl_module" / MODULE_ID
    if not module_dir.is_dir():
        raise ValueError(f"{checkpoint} holds no module {MODULE_ID!r} (expected {module_dir})")
    module = RLModule.from_checkpoint(module_dir)
    rules = rules_from_dict(info["rules"], info.get("game", "yaniv"))
    meta = play_metadata(rules, info["model_config"], timesteps=info["timesteps"], training=info.get("training", {}))
    return write_play_file(out, module.state_dict(), meta)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m training.rllib.export",
        description="Export the policy of a yaniv train-rllib checkpoint as a .safetensors play file.",
    )
    p.add_argument("checkpoint", help="checkpoint directory (RUN/checkpoints/latest)")
    p.add_argument("out", help="the play file to write (.safetensors)")
    args = p.parse_args(argv)
    try:
        print(f"wrote {export_checkpoint(args.checkpoint, args.out)}")
    except (ValueError, FileNotFoundError) as e:
        print(f"export: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
