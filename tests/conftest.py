import importlib.util

import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


def pytest_collection_modifyitems(config, items):
    if importlib.util.find_spec("ray") is None:
        no_ray = pytest.mark.skip(reason="rllib: Ray is not installed (pip install -e '.[rllib]')")
        for item in items:
            if "rllib" in item.keywords:
                item.add_marker(no_ray)
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
