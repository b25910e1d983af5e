"""Griffe extension for the API pages: the package's docstrings read as plain text in
``help()`` and are written in a reStructuredText-like style (Sphinx roles, ``::`` literal
blocks, ``.. code-block::``, simple ``====`` tables, ````name``  text`` argument lists).
Markdown renders none of these, so before mkdocstrings renders a docstring this rewrites
them into their Markdown equivalents; the source stays as it is.

Loaded by ``mkdocs.yml`` (``extensions: [docs/griffe_rst.py]``); ``tests/test_docs.py``
checks the conversions.
"""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|mod|func|meth|attr|data|exc|obj|const):`(~?)([^`<]+?)(?:\s*<([^`>]+)>)?`")
CODE_BLOCK = re.compile(r"^(\s*)\.\. (?:code-block|code|sourcecode)::\s*(\S*)\s*$")
TABLE_BORDER = re.compile(r"^(\s*)(=+)((?: +=+)+)\s*$")
DEFINITION = re.compile(r"^(\s*)(``[^`]+``(?: \([^)]*\))?)( {2,})(\S.*)$")
# within a run of definitions, a name as long as the column leaves one space
NEXT_DEFINITION = re.compile(r"^(\s*)(``[^`]+``(?: \([^)]*\))?)( +)(\S.*)$")
PACKAGES = ("yaniv_env", "agents", "training")


def _role(match: re.Match) -> str:
    short, title, target = match.group(1), match.group(2).strip(), match.group(3)
    path = (target or title).strip().rstrip("()")
    shown = title.split(".")[-1] if short else title
    if path.split(".")[0] in PACKAGES:
        # an optional cross-reference: a link where the API pages render the object, else code
        return f'<autoref identifier="{path}" optional><code>{shown}</code></autoref>'
    return f"`{shown}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _indented_block(lines: list[str], start: int, base: int) -> int:
    """The end of the block indented deeper than ``base`` starting after ``start`` (blank
    lines inside it included, trailing ones not)."""
    end = start
    i = start
    while i < len(lines):
        if lines[i].strip():
            if _indent(lines[i]) <= base:
                break
            end = i + 1
        i += 1
    return end


def _fence(block: list[str], language: str, indent: str) -> list[str]:
    body = list(block)
    while body and not body[0].strip():
        body.pop(0)
    cut = min((_indent(line) for line in body if line.strip()), default=0)
    return [f"{indent}```{language}", *[indent + line[cut:] for line in body], f"{indent}```"]


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    cells = []
    for k, (a, _end) in enumerate(spans):
        stop = len(line) if k == len(spans) - 1 else spans[k + 1][0]
        cells.append(line[a:stop].strip())
    return cells


def _table(lines: list[str], start: int) -> tuple[list[str], int] | None:
    """A simple reST table starting at ``lines[start]`` as a Markdown table, and the index
    after it; None if the border does not open a table."""
    border = lines[start]
    spans = [(m.start(), m.end()) for m in re.finditer(r"=+", border)]
    borders = [start]
    i = start + 1
    while i < len(lines) and len(borders) < 3:
        if lines[i].strip() == border.strip() and _indent(lines[i]) == _indent(border):
            borders.append(i)
            # a table with a header has three borders; without one, two and then a blank line
            if len(borders) == 2 and (i + 1 >= len(lines) or not lines[i + 1].strip()):
                break
        elif not lines[i].strip():
            return None
        i += 1
    if len(borders) < 2:
        return None
    rows: list[list[str]] = []
    header: list[str] | None = None
    for a, b in zip(borders, borders[1:], strict=False):
        section: list[list[str]] = []
        for line in lines[a + 1 : b]:
            cells = _cells(line, spans)
            if section and not cells[0]:
                section[-1] = [f"{old} {new}".strip() for old, new in zip(section[-1], cells, strict=True)]
            else:
                section.append(cells)
        if len(borders) == 3 and header is None:
            header = [" ".join(c).strip() for c in zip(*section, strict=True)] if section else None
        else:
            rows.extend(section)
    indent = border[: _indent(border)]

    def row(cells: list[str]) -> str:
        return indent + "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    out = [row(header or [""] * len(spans)), indent + "|" + "---|" * len(spans)]
    out += [row(r) for r in rows]
    return out, borders[-1] + 1


def rst_to_markdown(text: str) -> str:
    """The docstring ``text`` with its reST constructs in Markdown form."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        code = CODE_BLOCK.match(line)
        if code:
            end = _indented_block(lines, i + 1, _indent(line))
            out += _fence(lines[i + 1 : end], code.group(2) or "python", code.group(1))
            i = end
            continue
        if line.rstrip().endswith("::") and i + 1 < len(lines) and not lines[i + 1].strip():
            end = _indented_block(lines, i + 1, _indent(line))
            if end > i + 1:
                head = line.rstrip()[:-2].rstrip()
                if head:
                    out += [head + ":", ""]
                out += _fence(lines[i + 1 : end], "text", line[: _indent(line)])
                i = end
                continue
        if TABLE_BORDER.match(line):
            table = _table(lines, i)
            if table:
                rendered, i = table
                if out and out[-1].strip():
                    out.append("")
                out += rendered
                continue
        in_list = bool(out) and out[-1].lstrip().startswith("* ``")
        definition = (NEXT_DEFINITION if in_list else DEFINITION).match(line)
        if definition:
            indent, name, gap, rest = definition.groups()
            column = len(indent) + len(name) + len(gap)
            item = [rest]
            i += 1
            while i < len(lines) and lines[i].strip() and _indent(lines[i]) >= column:
                item.append(lines[i].strip())
                i += 1
            if out and out[-1].strip() and not out[-1].lstrip().startswith("* "):
                out.append("")
            out.append(f"{indent}* {name}: {' '.join(item)}")
            continue
        out.append(line)
        i += 1
    # roles last: the tables' columns are measured on the text as written
    in_fence = False
    for k, line in enumerate(out):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        elif not in_fence:
            out[k] = ROLE.sub(_role, line)
    return "\n".join(out)


class RstDocstrings(griffe.Extension):
    """Rewrite every docstring's reST constructs into Markdown before it is rendered."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:  # noqa: ARG002
        if obj.docstring is not None:
            obj.docstring.value = rst_to_markdown(obj.docstring.value)
