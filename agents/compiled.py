"""What the compiled agents (``greedy``, the heuristic family) share: batch checks, the
kernels' row helpers, and the first-use compile notice.

Each of these agents decides in one Numba kernel over a batch of observations; its scalar
``act(observation, mask)`` runs the same kernel on a batch of one row. Numba compiles a
kernel on its first use on a machine (tens of seconds) and caches it on disk
(``cache=True``); :func:`compiled_once` says so on stderr before that first use, as the
batched engine does (:func:`yaniv_env.yaniv.batched.engine.compile_notice`).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from yaniv_env.core.batched_random import row_keys
from yaniv_env.core.batches import as_batch
from yaniv_env.yaniv.batched.engine import cache_is_cold, compile_notice

__all__ = ["as_batch", "compiled_once", "first_legal", "one_row", "row_keys"]


def one_row(layout, num_actions: int, what: str, observation, action_mask) -> tuple[np.ndarray, np.ndarray]:
    """A scalar agent's ``(observation, mask)`` as a batch of one row, checked as the
    decoder checks them: the layout's length, the action count, a legal action, finite
    values (``ValueError`` otherwise; ``what``: the rules and player count)."""
    obs = layout.checked(observation, what)
    mask = np.asarray(action_mask).astype(np.bool_, copy=False)
    if mask.shape != (num_actions,):
        raise ValueError(f"action mask of length {len(mask)} does not match {what} ({num_actions} actions)")
    if not mask.any():
        raise ValueError("the action mask allows no action")
    if not np.isfinite(obs).all():
        raise ValueError("the observation holds a value that is not finite")
    return obs[None], np.ascontiguousarray(mask[None])


_warm: set[str] = set()


def compiled_once(what: str, kernel, warm_up) -> None:
    """Before this process's first use of ``kernel``: when Numba's cache lacks it, run
    ``warm_up()`` (which compiles it) under a notice on stderr rather than stall silently."""
    if what in _warm:
        return
    _warm.add(what)
    if cache_is_cold(kernel):
        with compile_notice(what):
            warm_up()


@intrinsic
def borrowed(typingctx, arr):
    """``arr`` without its reference count (a view whose meminfo is null): Numba's atomic
    increments and decrements of it, one pair per array argument of every helper call even
    inlined, become no-ops. Only for arrays that a caller keeps alive meanwhile."""

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, value=args[0])
        dst = context.make_array(sig.return_type)(context, builder)
        populate_array(dst, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize, meminfo=None)
        return dst._getvalue()

    return arr(arr), codegen


@intrinsic
def eight(typingctx, masks, b, a):
    """The eight bytes ``masks[b, a:a + 8]`` as one unaligned ``uint64`` (nonzero if any is
    set; ``masks``: a C-contiguous 2-D bool array, ``a + 8 <= masks.shape[1]``)."""

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, value=args[0])
        shape = cgutils.unpack_tuple(builder, ary.shape)
        strides = cgutils.unpack_tuple(builder, ary.strides)
        ptr = cgutils.get_item_pointer2(context, builder, ary.data, shape, strides, "C", [args[1], args[2]])
        word = builder.bitcast(ptr, llvm_ir.IntType(64).as_pointer())
        return builder.load(word, align=1)

    if not (
        isinstance(masks, types.Array) and masks.ndim == 2 and masks.layout == "C" and masks.dtype == types.boolean
    ):
        return None
    return types.uint64(masks, types.intp, types.intp), codegen


@numba.njit(cache=True, inline="always")
def first_legal(masks, b):
    """The lowest legal action of row ``b`` (-1 if none)."""
    for a in range(masks.shape[1]):
        if masks[b, a]:
            return a
    return -1


@numba.njit(cache=True, inline="always")
def legal_from(masks, b, lo, ids):
    """The legal actions of row ``b`` from ``lo`` on into ``ids``, in order; returns how many.
    Eight mask bytes are read at a time (most discards are illegal)."""
    A = masks.shape[1]
    count = 0
    for blk in range(lo, A, 8):
        if blk + 8 <= A and eight(masks, b, blk) == 0:
            continue
        for a in range(blk, min(blk + 8, A)):
            if masks[b, a]:
                ids[count] = a
                count += 1
    return count


@numba.njit(cache=True, inline="always")
def decoded_phase(obs, b, phase_start, count):
    """The phase one-hot's arg-max (first of equals), or ``count`` (no phase) when no entry
    is above one half: what the decoder reads (:meth:`yaniv_env.yaniv.observation.ObservationLayout.decode`)."""
    top = 0
    for p in range(1, count):
        if obs[b, phase_start + p] > obs[b, phase_start + top]:
            top = p
    return top if obs[b, phase_start + top] > 0.5 else count
