"""The batched Yaniv engine: B games stepped together in compiled code (Numba).

``import yaniv_env`` and ``import yaniv_env.yaniv.engine`` never import Numba; this package does.

API::

    from yaniv_env.yaniv.batched import BatchedYaniv
    eng = BatchedYaniv("standard", num_envs=1024, seed=0, num_players=2, autoreset=True)
    eng.current        # int64 [B]   seat to act in each game
    eng.phase          # int64 [B]   engine.DISCARD .. engine.GAME_OVER
    eng.scores         # int64 [B, n] cumulative scores
    eng.done           # bool  [B]   game over (only without autoreset, or before reset_games)
    eng.game_seeds     # int64 [B]   the seed of the game each slot plays
    eng.legal_masks()  # bool [B, A] the acting seats' legal actions (A = table.num_actions)
    eng.observations() # float32 [B, S] acting seats (``seats=`` any seat per game)
    res = eng.step(actions)   # int [B], one decision per game (ignored for finished games; -1: wait)
    eng.ranking()      # int64 [B, n] places (0 = first), as engine.ranking
    eng.reset(seed)    # every game anew;  eng.reset_games(mask) some of them

Meaning: every id, mask and observation means exactly what it means in the scalar engine and
the AEC environment. The action ids are those of :func:`yaniv_env.yaniv.actions.action_table`
(its discard table is turned into arrays, never re-derived), observations follow
:class:`yaniv_env.yaniv.observation.ObservationLayout` (offsets read from the layout object) and
are equal to ``layout.build(state, seat)`` bit for bit.

Seeding: the game in a slot seeded ``s`` is the game ``engine.new_game(rules, seed=s)``
(same key, same deals, lots and reshuffles; see :mod:`yaniv_env.core.seeding`), dealt by
the rules core's per-round contract (fixed seat blocks of each round's shuffled deck).
``reset(seed)`` gives slot ``i`` the seed ``seed + i``; the games started later by
``autoreset`` or ``reset_games`` take the next seeds in order (``seed + B``, ``seed + B + 1``,
... by slot index at each step), so a run is the same whatever the timing.

``step(actions)`` applies one decision per unfinished game whose action is not ``-1`` (a
game given ``-1`` waits: the vector environments step only the games whose opponents act;
all actions are checked first:
an illegal one raises ``ValueError`` naming the game index, the action id and name and the
legal ones, and no game changes) and returns a :class:`StepResult` of arrays over the batch:

=====================  ===========  ===================================================
field                  shape        meaning
=====================  ===========  ===================================================
acted                  bool [B]     the game took a decision in this step
seat                   int64 [B]    who acted (-1 where nothing acted)
round_over             bool [B]     a round ended in this step (fields below filled)
game_over              bool [B]     the game ended in this step
score_delta            int64 [B,n]  change of each total this round (after milestones)
points                 int64 [B,n]  points each seat added this round (before milestones)
hand_totals            int64 [B,n]  hands at the round end (-1: seat already out)
winners                bool [B,n]   the round's winners
eliminated             bool [B,n]   seats that went out this round
scores                 int64 [B,n]  totals after the round
reason                 int64 [B]    0 yaniv, 1 empty_hand, 2 draw (``REASONS``)
caller, challenger     int64 [B]    -1 when none
caller_beaten          bool [B]
truncated              bool [B]     the round hit the turn limit
game_truncated         bool [B]     the game hit the round limit
first_player, turns    int64 [B]    of the finished round (``RoundResult`` fields)
places                 int64 [B,n]  ``engine.ranking`` after the round (final if game_over)
reset                  bool [B]     the slot started a new game (autoreset)
=====================  ===========  ===================================================

A finished round starts the next one inside ``step`` (after its result is recorded), so
``current``/``phase`` always show the next decision. :func:`round_rewards` turns a result
into the AEC environment's per-seat rewards (``score``, ``outcome``, ``round_win``,
``score_outcome``; ``game`` or ``round`` episodes); rewards earned on other seats' moves
are in the same arrays, for the vector environment to accumulate.

Needs Numba (the ``[vector]`` extra, included in ``[train]``): importing this package
without it raises ``ModuleNotFoundError`` naming the extra.

Compilation: kernels are compiled by Numba with ``cache=True`` (paid once per machine, and
again after an edit of the kernels or a Numba upgrade, then read from ``__pycache__``). When
the cache is cold, the first engine of a process compiles them at once and says so on
stderr ("compiling the batched engine (first run, ...)" then "compiled in N s");
:func:`compile_seconds` tells how long the first use took.
"""

from __future__ import annotations

from yaniv_env.core.imports import needs_extra

with needs_extra("the batched engine (yaniv_env.yaniv.batched)"):
    from .engine import REASONS, BatchedYaniv, StepResult, compile_seconds, round_rewards

__all__ = ["BatchedYaniv", "StepResult", "REASONS", "round_rewards", "compile_seconds"]
