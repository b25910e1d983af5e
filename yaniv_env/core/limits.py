"""Bounded reading: what every file format of the package may ask of a reader, checked
before anything is built from it.

The formats (play files, :mod:`agents.play_format`; training checkpoints,
:mod:`agents.checkpoint`; game records, :mod:`yaniv_env.yaniv.records`; demonstrations,
:mod:`training.imitation`) keep their own size limits as named constants; the readers they
share live here, one implementation each:

* :func:`read_file` reads at most a given number of bytes from a file (its size is checked
  before the read, and the read stops one byte past the limit should the file grow);
* :func:`loads` parses JSON after checking its byte size and its nesting depth
  (:data:`MAX_JSON_DEPTH`), so deep nesting is a ``ValueError``, never a ``RecursionError``;
* :func:`open_zip` checks an archive's end record (entry count, central directory size)
  before :mod:`zipfile` reads the directory, then every entry's declared size, the total
  and the compression ratio (:class:`ZipLimits`); :func:`read_member` reads one entry with
  a cap on the bytes it yields, whatever its header declared;
* :func:`check_rule_values` bounds the numbers of a rules dict read from a file (players,
  hand size, jokers, ...) before any table is built for them (the limits of each game:
  ``Game.rule_limits``, :mod:`yaniv_env.games`).

Every refusal is a ``ValueError`` naming the file, the limit and its value.
"""

from __future__ import annotations

import dataclasses
import json
import lzma
import os
import re
import struct
import zipfile
import zlib
from collections.abc import Mapping
from typing import Any, BinaryIO

import numpy as np

#: Deepest nesting of arrays and objects in any JSON a file holds (the formats need 5).
MAX_JSON_DEPTH = 32

#: Most entries of a list-valued rules option read from a file (``milestone_table``).
MAX_RULE_ENTRIES = 64

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_OPEN = np.zeros(256, dtype=np.int8)
_OPEN[[ord("["), ord("{")]] = 1
_OPEN[[ord("]"), ord("}")]] = -1


def _refuse(what: str, why: str) -> ValueError:
    return ValueError(f"{what}: {why}")


def json_depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects in the JSON text ``data`` (its strings
    left out), without parsing it: linear time, no recursion."""
    bare = _STRING.sub(b'""', data)
    if not bare:
        return 0
    steps = _OPEN[np.frombuffer(bare, dtype=np.uint8)]
    return int(np.cumsum(steps, dtype=np.int64).max(initial=0))


def loads(data: bytes | str, *, what: str, max_bytes: int, limit: str) -> Any:
    """The JSON value in ``data`` (UTF-8), read from ``what`` (a file, an entry); refused
    with ``ValueError`` when it is larger than ``max_bytes`` (the format's constant
    ``limit``), nested deeper than :data:`MAX_JSON_DEPTH`, or not JSON."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if len(raw) > max_bytes:
        raise _refuse(what, f"{len(raw):,} bytes of JSON, more than {limit} = {max_bytes:,}")
    depth = json_depth(raw)
    if depth > MAX_JSON_DEPTH:
        raise _refuse(what, f"JSON nested {depth} levels deep, more than MAX_JSON_DEPTH = {MAX_JSON_DEPTH}")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise _refuse(what, f"not UTF-8 text ({e})") from None
    except RecursionError:  # the scan is exact for valid JSON; this is the last guard
        raise _refuse(what, f"JSON nested more than MAX_JSON_DEPTH = {MAX_JSON_DEPTH} levels") from None
    except ValueError as e:  # json.JSONDecodeError, or an integer of too many digits
        raise _refuse(what, f"invalid JSON ({e})") from None


def read_file(path: str | os.PathLike, *, max_bytes: int, limit: str, what: str = "") -> bytes:
    """The bytes of the file at ``path``, refused with ``ValueError`` (naming the file and
    the format's constant ``limit``) when it has more than ``max_bytes``; ``OSError`` as
    ``open`` gives it for a missing or unreadable file."""
    what = what or repr(str(path))
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > max_bytes:
            raise _refuse(what, f"{size:,} bytes, more than {limit} = {max_bytes:,}")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise _refuse(what, f"more than {limit} = {max_bytes:,} bytes")
    return data


def read_json_file(path: str | os.PathLike, *, max_bytes: int, limit: str, what: str = "") -> Any:
    """The JSON value in the file at ``path``: :func:`read_file` then :func:`loads`."""
    what = what or repr(str(path))
    return loads(
        read_file(path, max_bytes=max_bytes, limit=limit, what=what), what=what, max_bytes=max_bytes, limit=limit
    )


# -- zip archives ------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class ZipLimits:
    """What an archive may declare: entries, central directory bytes, bytes per entry and
    in all, and the compression ratio of an entry larger than ``ratio_from`` bytes (a zip
    bomb compresses a GiB of zeros a thousand times). ``name``: how messages name these
    limits (``agents.checkpoint.ZIP_LIMITS``)."""

    max_entries: int
    max_directory_bytes: int
    max_entry_bytes: int
    max_total_bytes: int
    max_ratio: int
    ratio_from: int
    name: str


#: What :mod:`zipfile` raises for a corrupt archive or entry: bad headers, data or CRC, a
#: compression method or an encryption it cannot read.
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    EOFError,
    OSError,
    KeyError,
    struct.error,
    zlib.error,
    lzma.LZMAError,
    NotImplementedError,
    RuntimeError,
)

_EOCD = b"PK\x05\x06"
_EOCD_SIZE = 22


def _end_record(f: BinaryIO) -> tuple[int, int]:
    """The entry count and central directory size of the end record (as :mod:`zipfile`
    finds it: at the very end, else the last one in the trailing 64 KiB comment)."""
    f.seek(0, os.SEEK_END)
    size = f.tell()
    tail_size = min(size, _EOCD_SIZE + 0xFFFF)
    f.seek(size - tail_size)
    tail = f.read(tail_size)
    at = tail_size - _EOCD_SIZE if tail[-_EOCD_SIZE : -_EOCD_SIZE + 4] == _EOCD else tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < _EOCD_SIZE:
        raise zipfile.BadZipFile("File is not a zip file")
    _, _, _, _, entries, directory, _, _ = struct.unpack("<4s4H2LH", tail[at : at + _EOCD_SIZE])
    return entries, directory


def open_zip(file: BinaryIO, limits: ZipLimits, what: str) -> zipfile.ZipFile:
    """The archive in ``file`` (opened for binary reading) as a :class:`zipfile.ZipFile`,
    once its end record, every entry's declared size, their total and their compression
    ratios are within ``limits`` (``ValueError`` naming ``what`` and the limit otherwise;
    :mod:`zipfile`'s own errors for a file that is not a zip archive)."""
    p = limits.name
    entries, directory = _end_record(file)
    # zip64 archives mark their counts 0xFFFF / 0xFFFFFFFF: beyond every limit here too
    if entries > limits.max_entries:
        raise _refuse(what, f"{entries:,} entries, more than {p}.max_entries = {limits.max_entries}")
    if directory > limits.max_directory_bytes:
        raise _refuse(
            what,
            f"a central directory of {directory:,} bytes, more than {p}.max_directory_bytes = "
            f"{limits.max_directory_bytes:,}",
        )
    file.seek(0)
    z = zipfile.ZipFile(file)
    try:
        infos = z.infolist()
        if len(infos) > limits.max_entries:
            raise _refuse(what, f"{len(infos):,} entries, more than {p}.max_entries = {limits.max_entries}")
        total = 0
        for info in infos:
            check_member(info, limits.max_entry_bytes, f"{p}.max_entry_bytes", what)
            if info.file_size > limits.ratio_from and info.file_size > limits.max_ratio * max(1, info.compress_size):
                raise _refuse(
                    what,
                    f"entry {info.filename!r} declares {info.file_size:,} bytes compressed into "
                    f"{info.compress_size:,}, a ratio above {p}.max_ratio = {limits.max_ratio} "
                    "(a zip bomb?)",
                )
            total += info.file_size
        if total > limits.max_total_bytes:
            raise _refuse(
                what, f"its entries declare {total:,} bytes, more than {p}.max_total_bytes = {limits.max_total_bytes:,}"
            )
    except BaseException:
        z.close()
        raise
    return z


def check_member(info: zipfile.ZipInfo, max_bytes: int, limit: str, what: str) -> None:
    """``ValueError`` when the entry ``info`` declares more than ``max_bytes`` (``limit``)."""
    if info.file_size > max_bytes:
        raise _refuse(
            what, f"entry {info.filename!r} declares {info.file_size:,} bytes, more than {limit} = {max_bytes:,}"
        )


def read_member(z: zipfile.ZipFile, name: str, max_bytes: int, limit: str, what: str) -> bytes:
    """The bytes of entry ``name``, read in chunks that stop past ``max_bytes`` (``limit``)
    whatever the entry declared; :mod:`zipfile` checks its CRC at the end."""
    info = z.getinfo(name)
    check_member(info, max_bytes, limit, what)
    chunks, size = [], 0
    with z.open(info) as f:
        while chunk := f.read(min(1 << 20, max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise _refuse(what, f"entry {name!r} holds more than {limit} = {max_bytes:,} bytes")
    return b"".join(chunks)


# -- rules -------------------------------------------------------------------------------
def check_rule_values(values: Mapping, limits: Mapping[str, int], what: str, game: str) -> None:
    """``ValueError`` when a number of the rules dict ``values`` (read from a file) is above
    its entry in ``limits`` (the ``rule_limits`` of ``game``, a title) or a list option
    has more than :data:`MAX_RULE_ENTRIES` entries: checked before any table is built."""
    for option, bound in limits.items():  # in the limits' order, whatever the file's
        value = values.get(option)
        if isinstance(value, int) and not isinstance(value, bool) and value > bound:
            raise _refuse(what, f"{option} = {value:,}, more than {game}'s file limit of {bound:,} (rule_limits)")
    for option, value in values.items():
        if isinstance(value, list | tuple) and len(value) > MAX_RULE_ENTRIES:
            raise _refuse(what, f"{option} has {len(value):,} entries, more than MAX_RULE_ENTRIES = {MAX_RULE_ENTRIES}")


# -- messages ----------------------------------------------------------------------------
def file_error(error: BaseException) -> str:
    """One line for a file that cannot be read or is refused: ``cannot read PATH: REASON``
    for an ``OSError`` naming its file, the error's own message otherwise."""
    if isinstance(error, OSError) and error.filename is not None:
        return f"cannot read {os.fsdecode(error.filename)}: {error.strerror or error}"
    return str(error)


__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_RULE_ENTRIES",
    "ZIP_ERRORS",
    "ZipLimits",
    "check_member",
    "check_rule_values",
    "file_error",
    "json_depth",
    "loads",
    "open_zip",
    "read_file",
    "read_json_file",
    "read_member",
]
