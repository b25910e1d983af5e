"""The web pages, put together from the templates in ``assets/`` (package data).

A template is an HTML file with two slots: ``<!--{{head.html}}-->`` in its ``<head>`` (the
common head, with the shared card and table styles ``cards.css``) and
``<!--{{scripts.html}}-->`` before its own script (the page's data as JSON in
``<script type="application/json" id="page-data">`` and the shared drawing code
``table.js``). Every piece is inlined: the result is one file that needs no other file and
no network."""

from __future__ import annotations

import json
from importlib import resources

#: The shared fragments every page template includes, by slot.
FRAGMENTS = {"<!--{{head.html}}-->": "head.html", "<!--{{scripts.html}}-->": "scripts.html"}
#: The shared style and code the fragments inline, by slot.
INLINED = {"/*{{cards.css}}*/": "cards.css", "/*{{table.js}}*/": "table.js"}


def asset(name: str) -> str:
    """The text of ``assets/<name>``."""
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def json_for_html(data) -> str:
    """``data`` as JSON that cannot end its ``<script>`` element or open a comment there
    (``<``, ``>`` and ``&`` written as escapes), whatever strings it holds."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(template: str, data=None) -> str:
    """The page ``assets/<template>`` with the shared pieces and ``data`` filled in."""
    html = asset(template)
    for slot, name in FRAGMENTS.items():
        if slot not in html:
            raise ValueError(f"template {template} has no slot {slot}")
        html = html.replace(slot, asset(name))
    for slot, name in INLINED.items():
        html = html.replace(slot, asset(name))
    return html.replace("{{data}}", json_for_html(data))
