import importlib.util
import os
import shutil

import pytest

from agents.base import STRICT_ENV

# The suite runs as two xdist workers on two cores: with torch's default of one thread per
# core in each worker (and in the processes they start, which inherit this), small forward
# passes wait on each other's threads and run about ten times slower.
os.environ.setdefault("OMP_NUM_THREADS", "1")


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


#: The browser the browser tests drive (Debian's chromium package).
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def browser_available() -> bool:
    """Chromium and Playwright for Python are installed (.ci/install-browser)."""
    return os.path.exists(CHROMIUM) and importlib.util.find_spec("playwright") is not None


def pytest_collection_modifyitems(config, items):
    if importlib.util.find_spec("ray") is None:
        no_ray = pytest.mark.skip(reason="rllib: Ray is not installed (pip install -e '.[rllib]')")
        for item in items:
            if "rllib" in item.keywords:
                item.add_marker(no_ray)
    if not browser_available():
        no_browser = pytest.mark.skip(reason="browser: needs chromium and playwright (.ci/install-browser)")
        for item in items:
            if "browser" in item.keywords:
                item.add_marker(no_browser)
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    # `pytest -n 2` (xdist's default, --dist load) deals the tests out round robin and queues
    # them ahead on each worker: both workers run every file (each importing its libraries,
    # loading its kernels and building its module fixtures), and at the end one worker can
    # idle while the other works through its queue. Work stealing gives each worker half the
    # files in order and lets an idle worker take half of the other's remaining tests.
    if config.getvalue("dist") == "load":
        from xdist.scheduler import WorkStealingScheduling

        return WorkStealingScheduling(config, log)
    return None


def pytest_configure(config):
    # Rule-based agents raise on an illegal choice instead of replacing it (agents.base,
    # strict mode); set in the environment so that evaluation worker processes inherit it.
    os.environ[STRICT_ENV] = "1"


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory):
    """A Yaniv training checkpoint (``standard``, 2 players) of an untrained 16-unit
    MaskablePPO, as ``yaniv train`` writes them (a Stable-Baselines3 zip plus metadata)."""
    pytest.importorskip("sb3_contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO

    import yaniv_env
    from training.checkpoint import build_metadata, save_checkpoint

    env = gymnasium.make("yaniv_env/Yaniv-v0", disable_env_checker=True)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, policy_kwargs={"net_arch": [16]}, seed=0)
    path = tmp_path_factory.mktemp("checkpoint") / "tiny.zip"
    return save_checkpoint(model, path, build_metadata(yaniv_env.get_rules("standard"), timesteps=0))


@pytest.fixture
def headless_window(monkeypatch):
    """``render_mode="human"`` without a screen and without waiting: SDL's dummy video
    driver, and windows that do not hold each frame for 1/render_fps s."""
    pytest.importorskip("pygame")
    from yaniv_env import pis_yedili, raw_env

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    for env_class in (raw_env, pis_yedili.raw_env):
        monkeypatch.setitem(env_class.metadata, "render_fps", 10_000)
