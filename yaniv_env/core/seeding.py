"""Seeding: one generator per game, and the counter-based streams that every draw uses.

A game is seeded once. ``new_game(rules, seed=...)`` (or the environment's
``reset(seed=...)``) makes one ``numpy.random.Generator``, and that generator draws the
game's 63-bit *key* (:func:`game_key`). Every random choice of the game is then a pure
function of the key and of *where* it is made, never of what the players did before:

========================  ====================================  ==========================
draw                      stream                                index
========================  ====================================  ==========================
the deal of round ``r``   ``DEAL``                              0
lots of round ``r``       ``LOTS``                              0: the first player
                                                                (round 0); 1: lots among
                                                                the round's tied winners
stock reshuffles          ``RESHUFFLE``                         the reshuffle's number in
                                                                the round (0, 1, ...)
========================  ====================================  ==========================

so that two games with the same key deal the same cards to the same seats in every round
(the duplicate format holds for the whole game), and a reshuffle in one game does not
shift the next round's deal.

A stream is SplitMix64 (Steele, Lea and Flood, *Fast splittable pseudorandom number
generators*, OOPSLA 2014) over a key made by hashing the game key with the round, the
stream and the index. Its words are counter-based (word ``i`` is ``mix64(key + (i + 1) *
GOLDEN)``), so a shuffle takes its words in one vectorised step. A word becomes a number
below ``n`` by the multiply-shift of its high 32 bits (bias below ``n / 2**32``).

The functions use only integer arithmetic on Python ints and ``uint64`` arrays, so the
batched engine compiles the same formulas and deals exactly the same cards.

The players' seeds are streams of their own: :func:`agent_seed` (the agents of an
evaluation, ``yaniv play`` and ``yaniv serve``) and :func:`opponent_seed` (the opponents of
an environment reset with a seed), each a ``numpy.random.SeedSequence`` of the seed, the
seat and a tag of its own.
"""

from __future__ import annotations

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15  # 2**64 / golden ratio, SplitMix64's increment

#: Stream numbers (see the table above).
DEAL, LOTS, RESHUFFLE = 0, 1, 2


def generator(seed: int | None = None, rng: np.random.Generator | None = None) -> np.random.Generator:
    """``rng`` itself when given (so a caller's stream is shared, never copied), else a new
    generator seeded with ``seed``; anything else than a ``numpy.random.Generator`` is a
    ``ValueError``."""
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return rng
    return np.random.default_rng(seed)


def game_key(rng: np.random.Generator) -> int:
    """A game's key, drawn from its generator (one draw)."""
    return int(rng.integers(1 << 63))


def rekeyed(key: int, rng: np.random.Generator | None = None, new_key: int | None = None) -> int:
    """The key of a state's copy (for search): ``key`` itself, ``new_key`` (checked to be
    an int in ``[0, 2**63)``), or a new key drawn from ``rng``; passing both is a
    ``ValueError``."""
    if rng is not None and new_key is not None:
        raise ValueError("copy: pass rng= or key=, not both")
    if rng is not None:
        return game_key(generator(rng=rng))
    if new_key is None:
        return key
    if (
        isinstance(new_key, (bool, np.bool_))
        or not isinstance(new_key, (int, np.integer))
        or not 0 <= new_key < 1 << 63
    ):
        raise ValueError(f"key: a game key is an int in [0, 2**63), got {new_key!r}")
    return int(new_key)


def seeded_key(seed: int | None) -> int:
    """The 63-bit key of anything seeded with ``seed`` (one draw of ``default_rng(seed)``;
    ``None``: fresh entropy), e.g. an agent's."""
    return game_key(np.random.default_rng(seed))


def mix64(z: int) -> int:
    """SplitMix64's output function: a bijection of 64-bit words that mixes every bit."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_key(key: int, round_index: int, stream: int, index: int = 0) -> int:
    """The key of one stream of a game: the game key hashed with the round, the stream
    and the index, one SplitMix64 step each."""
    z = mix64((key + GOLDEN * (round_index + 1)) & MASK64)
    z = mix64((z + GOLDEN * (stream + 1)) & MASK64)
    return mix64((z + GOLDEN * (index + 1)) & MASK64)


_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(GOLDEN)


def mix64_words(z: np.ndarray) -> np.ndarray:
    """:func:`mix64` of every word of a ``uint64`` array (its products wrap mod 2**64)."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def words(key: int, count: int) -> np.ndarray:
    """The first ``count`` 64-bit words of the stream with key ``key`` (``uint64``)."""
    return mix64_words(np.uint64(key) + _GOLDEN * np.arange(1, count + 1, dtype=np.uint64))  # wraps mod 2**64


def below(word, n):
    """A number in ``[0, n)`` from a 64-bit word (``n`` < 2**32): ``(high32 · n) >> 32``.
    Works on ints and on ``uint64`` arrays alike."""
    return ((word >> 32) * n) >> 32


def shuffled(cards: list[int], key: int) -> list[int]:
    """``cards`` in the order of a Fisher–Yates shuffle driven by the stream ``key``: for
    ``i`` from the last position down to 1, swap position ``i`` with ``below(w, i + 1)``,
    ``w`` the stream's next word."""
    out = list(cards)
    m = len(out)
    if m < 2:
        return out
    sizes = np.arange(m, 1, -1, dtype=np.uint64)  # i + 1 for i = m-1 .. 1
    picks = below(words(key, m - 1), sizes).tolist()
    for i, j in zip(range(m - 1, 0, -1), picks, strict=True):
        out[i], out[j] = out[j], out[i]
    return out


def seat_blocks(cards: list[int], seats: int, size: int) -> tuple[list[list[int]], list[int]]:
    """Deal ``cards`` (a shuffled deck, drawn from its end) in fixed blocks: seat ``p``
    gets the slice ``cards[M - (p + 1)·size : M - p·size]`` (``M = len(cards)``), the
    ``size`` cards at positions ``p·size … p·size + size - 1`` from the drawing end, in list
    order, whoever starts and whoever plays; the rest, ``cards[: M - seats·size]``, keeps
    its order (its last card is drawn next)."""
    m = len(cards)
    blocks = [list(cards[m - (p + 1) * size : m - p * size]) for p in range(seats)]
    return blocks, list(cards[: m - seats * size])


def lot(n: int, key: int) -> int:
    """A number in ``[0, n)`` drawn by the stream ``key`` (its first word)."""
    return below(mix64((key + GOLDEN) & MASK64), n)


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent sitting at ``seat`` in the game played with ``game_seed``: every
    evaluation, ``yaniv play`` and ``yaniv serve`` seat their agents with it."""
    return _seat_seed(game_seed, seat, 0xA6E7)


def opponent_seed(seed: int, seat_index: int) -> int:
    """The seed of the opponent in the ``seat_index``-th other seat (0-based, in seat order)
    of an environment's episode reset with ``seed`` (the Gymnasium environments and the
    batched learner games, :mod:`yaniv_env.core.opponents`): a stream of its own, as
    :func:`agent_seed`'s, apart from it."""
    return _seat_seed(seed, seat_index, 0x0990)


def _seat_seed(seed: int, seat: int, tag: int) -> int:
    """A 63-bit seed drawn by ``numpy.random.SeedSequence([seed, seat, tag])``: one stream per
    ``tag``."""
    state = np.random.SeedSequence([int(seed), int(seat), tag]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))
