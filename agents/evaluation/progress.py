"""Progress bars that say what they count: every phase of ``yaniv train`` and ``yaniv eval``
shows one (imitation: decisions collected, epochs fitted; PPO: minutes of the budget or
steps; evaluation: games), with the elapsed and remaining time as ``m:ss``.

Bars go to standard error through tqdm (``tqdm.auto``: a widget in notebooks), so that the
tables on standard output stay clean; without tqdm, or with ``enabled=False`` (the commands'
``--no-progress``), there is no bar. When standard error is not a terminal (a log file, a
pipe, a notebook) a bar redraws at most once every :data:`LOG_INTERVAL` seconds: each redraw
is written out, and at a terminal's rate a ten-minute run would log megabytes.
"""

from __future__ import annotations

import sys

#: Counted units: "1,234/60,000 decisions [0:41 elapsed, 1:02 left]".
_COUNT_FORMAT = (
    "{desc}: {percentage:3.0f}%|{bar}| {n:,}/{total:,} {unit} [{elapsed} elapsed, {remaining} left]{postfix}"
)
#: A wall-clock budget in minutes: "4.5/10.0 min of the budget".
_MINUTES_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.1f} min{postfix}"
#: Seconds between redraws when standard error is not a terminal (tqdm's own minimum: 0.1).
LOG_INTERVAL = 1.0


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
        mininterval=0.1 if sys.stderr.isatty() else LOG_INTERVAL,
        bar_format=_MINUTES_FORMAT if minutes else _COUNT_FORMAT,
    )
