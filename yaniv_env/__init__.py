"""yaniv-env: exact, fast Yaniv environments for reinforcement learning.

The rules core (``cards``, ``rules``, ``actions``, ``engine``) needs only NumPy; the
PettingZoo and Gymnasium layers are imported on first use of ``env``/``raw_env``.
"""

from __future__ import annotations

from .rules import PRESET_SOURCES, PRESETS, Rules, get_rules

__version__ = "0.1.0"

__all__ = ["PRESETS", "PRESET_SOURCES", "Rules", "get_rules", "env", "raw_env", "__version__"]


def _register() -> None:
    import gymnasium
    from pettingzoo.env_registry.registration import aec_registry, register

    if "yaniv_env/Yaniv-v0" not in gymnasium.registry:
        gymnasium.register(id="yaniv_env/Yaniv-v0", entry_point="yaniv_env.gym_env:YanivGymEnv")
    if "yaniv_env/Yaniv-v0" not in aec_registry:
        register("aec", "yaniv_env/Yaniv-v0", entry_point="yaniv_env.yaniv_aec:env")
    from .pis_yedili import register_envs as register_pis_yedili

    register_pis_yedili()


_register()


def __getattr__(name: str):
    # Keep ``import yaniv_env`` free of RL libraries until the environment is asked for.
    if name in ("env", "raw_env"):
        from . import yaniv_aec

        return getattr(yaniv_aec, name)
    raise AttributeError(f"module 'yaniv_env' has no attribute {name!r}")
