"""Progress bars that say what they count: every phase of ``yaniv train`` and ``yaniv eval``
shows one (imitation: decisions collected, epochs fitted; PPO: minutes of the budget or
steps; evaluation: games), with the elapsed and remaining time as ``m:ss``.

Bars go to standard error through tqdm (``tqdm.auto``: a widget in notebooks), so that the
tables on standard output stay clean; without tqdm, or with ``enabled=False``, there is no bar.
"""

from __future__ import annotations

import sys

#: Counted units: "1,234/60,000 decisions [0:41 elapsed, 1:02 left]".
_COUNT_FORMAT = (
    "{desc}: {percentage:3.0f}%|{bar}| {n:,}/{total:,} {unit} [{elapsed} elapsed, {remaining} left]{postfix}"
)
#: A wall-clock budget in minutes: "4.5/10.0 min of the budget".
_MINUTES_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.1f} min{postfix}"


def progress_bar(total: float, enabled: bool, desc: str, unit: str = "games", *, minutes: bool = False):
    """A tqdm bar of ``total`` ``unit`` (or, with ``minutes=True``, of ``total`` minutes), or
    ``None`` when disabled or tqdm is missing. Counts are shown with thousands separators."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency of the train extra
        return None
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        file=sys.stderr,
        dynamic_ncols=True,
        bar_format=_MINUTES_FORMAT if minutes else _COUNT_FORMAT,
    )
