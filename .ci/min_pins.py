"""Print pip constraints that pin every lower bound of pyproject.toml exactly: the
dependencies, and those of the extras named on the command line (with the extras they
include); ``--except NAME`` leaves a package out. Used by .ci/min-deps."""

from __future__ import annotations

import re
import sys

import tomllib

BOUND = re.compile(r"^([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*>=\s*([0-9][^,;\s]*)\s*$")


def pins(pyproject: dict, extras: list[str], leave_out: set[str]) -> list[str]:
    project = pyproject["project"]
    name = project["name"]
    optional = project.get("optional-dependencies", {})
    todo, seen, out = list(project["dependencies"]), set(), {}
    for extra in extras:
        if extra not in optional:
            raise SystemExit(f"no extra {extra!r}; extras: {', '.join(sorted(optional))}")
        todo += optional[extra]
    while todo:
        req = todo.pop(0)
        included = re.fullmatch(rf"{re.escape(name)}\[([^\]]+)\]", req)
        if included:  # an extra that includes others: "yaniv-env[vector]"
            for extra in included.group(1).split(","):
                if extra not in seen:
                    seen.add(extra)
                    todo += optional[extra.strip()]
            continue
        bound = BOUND.match(req)
        if bound and bound.group(1).lower() not in leave_out:
            out[bound.group(1).lower()] = f"{bound.group(1)}=={bound.group(3)}"
    return sorted(out.values())


def main(argv: list[str]) -> None:
    path, *rest = argv
    leave_out = set()
    while "--except" in rest:
        i = rest.index("--except")
        leave_out.add(rest[i + 1].lower())
        del rest[i : i + 2]
    with open(path, "rb") as f:
        print("\n".join(pins(tomllib.load(f), rest, leave_out)))


if __name__ == "__main__":
    main(sys.argv[1:])
