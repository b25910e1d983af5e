"""What counts as an integer id (an action, a card kind, a count) at the API's edges."""

from __future__ import annotations

import numpy as np


def is_int(x: object) -> bool:
    """Whether ``x`` is an integer: a Python int or a NumPy integer, not a bool (``True``
    is an int to Python and NumPy would index with it, but it is no id) nor a float,
    even an integer-valued one (``1.0``), nor an array."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


__all__ = ["is_int"]
