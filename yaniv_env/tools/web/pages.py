"""The web pages, put together from the templates in ``assets/`` (package data).

A template is an HTML file with three slots: ``/*{{cards.css}}*/`` (the shared card and
table styles), ``/*{{table.js}}*/`` (the shared drawing code) and ``{{data}}`` (the page's
data as JSON, inside ``<script type="application/json">``). The result needs no other
file and no network."""

from __future__ import annotations

import json
from importlib import resources

#: The shared pieces every page inlines, by slot.
SHARED = {"/*{{cards.css}}*/": "cards.css", "/*{{table.js}}*/": "table.js"}


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
    for slot, name in SHARED.items():
        if slot not in html:
            raise ValueError(f"template {template} has no slot {slot}")
        html = html.replace(slot, asset(name))
    return html.replace("{{data}}", json_for_html(data))
