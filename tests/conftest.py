import os

import pytest

from agents.base import STRICT_ENV


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    # Rule-based agents raise on an illegal choice instead of replacing it (agents.base,
    # strict mode); set in the environment so that evaluation worker processes inherit it.
    os.environ[STRICT_ENV] = "1"

