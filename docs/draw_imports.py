"""Draw a package's import graph, one box per module or sub-package directly inside it, as
the contributing page shows it:

    python docs/draw_imports.py training docs/images/imports-training-after.png
    git worktree add /tmp/before 1bbc204
    python docs/draw_imports.py training docs/images/imports-training-before.png --root /tmp/before

The arrows are those the layering tests read (``tests/import_graph.py``: every ``import``,
function-level ones included). A box stands above every box it imports; boxes in an import
circle are orange, and so are the arrows that run upward inside a circle. A box's number is
its lines of code."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from import_graph import circles, graph, modules  # noqa: E402


def part_of(module: str, package: str) -> str:
    """The module or sub-package directly inside ``package`` that holds ``module``."""
    rest = module[len(package) + 1 :]
    return rest.split(".")[0] if rest else "__init__"


def package_graph(package: str, root: Path) -> tuple[dict[str, set[str]], dict[str, int]]:
    """Arrows between the parts of ``package`` (:func:`part_of`) and each part's lines."""
    arrows: dict[str, set[str]] = defaultdict(set)
    lines: dict[str, int] = defaultdict(int)
    for module, path in modules([package], root).items():
        lines[part_of(module, package)] += len(path.read_text(encoding="utf-8").splitlines())
    for module, targets in graph([package], root).items():
        source = part_of(module, package)
        arrows[source] |= {part_of(t, package) for t in targets if t.startswith(package)} - {source}
    return {part: arrows[part] for part in lines}, dict(lines)


def floors(arrows: dict[str, set[str]], circled: list[list[str]]) -> dict[str, int]:
    """Each part's floor: 0 when it imports no other part, else one above the highest part
    it imports (a circle's parts share a floor)."""
    team = {part: i for i, members in enumerate(circled) for part in members}
    leader = {part: circled[team[part]][0] if part in team else part for part in arrows}
    out: dict[str, int] = {}

    def floor(part: str) -> int:
        head = leader[part]
        if head not in out:
            out[head] = 0  # (inside a circle: not walked twice)
            members = [p for p in arrows if leader[p] == head]
            below = {leader[t] for p in members for t in arrows[p]} - {head}
            out[head] = 1 + max((floor(t) for t in below), default=-1)
        return out[head]

    return {part: floor(part) for part in arrows}


def draw(package: str, root: Path, out: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arrows, lines = package_graph(package, root)
    circled = circles(arrows)
    in_circle = {part for members in circled for part in members}
    level = floors(arrows, circled)
    rows: dict[int, list[str]] = defaultdict(list)
    for part in sorted(arrows, key=lambda p: -lines[p]):
        rows[level[part]].append(part)
    width = max(len(r) for r in rows.values())
    fig, ax = plt.subplots(figsize=(max(8.0, 2.0 * width), 1.3 * len(rows) + 1.2))
    where = {}
    for y, row in rows.items():
        for i, part in enumerate(row):
            where[part] = ((i + 0.5) * width / len(row), y)
    for source, targets in arrows.items():
        for target in targets:
            (x0, y0), (x1, y1) = where[source], where[target]
            upward = y1 >= y0
            ax.annotate(
                "",
                xy=(x1, y1 + 0.18),
                xytext=(x0, y0 - 0.18),
                arrowprops={
                    "arrowstyle": "->",
                    "color": "tab:orange" if upward else "0.55",
                    "lw": 0.8,
                    "connectionstyle": "arc3,rad=0.08",
                },
            )
    for part, (x, y) in where.items():
        ax.text(
            x,
            y,
            f"{part}\n{lines[part]:,} lines",
            ha="center",
            va="center",
            fontsize=8,
            bbox={"boxstyle": "round", "fc": "#f6c89f" if part in in_circle else "#dcebd6", "ec": "0.3"},
        )
    ax.set_xlim(-0.2, width + 0.2)
    ax.set_ylim(-0.6, max(rows) + 0.6)
    ax.axis("off")
    found = f"{len(circled)} import circle{'s' if len(circled) != 1 else ''}"
    ax.set_title(f"{title}: {len(arrows)} parts, {sum(map(len, arrows.values()))} arrows, {found}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", help="a top-level package: yaniv_env, agents, training")
    parser.add_argument("out", type=Path, help="the picture to write (.png)")
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout to read (default: this one)")
    parser.add_argument("--title", help="the picture's title (default: the package's name)")
    args = parser.parse_args(argv)
    draw(args.package, args.root.resolve(), args.out, args.title or args.package)


if __name__ == "__main__":
    main()
