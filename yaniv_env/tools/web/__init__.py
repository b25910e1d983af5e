"""Seeing and playing Yaniv in a browser: the replay viewer (:mod:`yaniv_env.tools.replay`, one
self-contained HTML file per game) and the play page (:mod:`.server`, ``yaniv serve``, a
small Flask app: the ``[web]`` extra).

The pages are drawn from the templates in ``yaniv_env/tools/web/assets`` (package data):
:mod:`.pages` puts one together with the shared card styles and table drawing code and the
page's data; :mod:`.views` turns engine states into that data. The rules core never
imports this package.
"""
