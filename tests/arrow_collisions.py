"""Distinct 16-byte strings that Arrow's unseeded string hash sends to one slot.

Arrow hashes a string of 9 to 16 bytes from two overlapping 64-bit loads, without a
seed (``ComputeStringHash`` in ``arrow/util/hashing.h``)::

    hash = length ^ bswap(M0 * last8) ^ bswap(M1 * first8)

The byte swap makes the top four bytes of each product the hash's low four bytes, and
the low four bytes of each product (the hash's high half) depend only on the low four
bytes of the word. With the low halves of both words fixed, the hash's high half is
fixed; and the top four bytes of ``M1 * first8`` depend on the top half of ``first8``
through a multiplication by ``M1`` modulo ``2**32`` (odd, so invertible). So for any top
half of ``last8``, one top half of ``first8`` keeps the hash's low half too. Keeping the
candidates whose every byte is printable (about one in 65) gives as many colliding ids
as wanted (about a million per choice of the low halves), 100,000 in about a second. Every
Arrow hash table (``index_in``, ``is_in``, ``dictionary_encode``, ``unique``, hash joins)
then puts them in one chain, and inserting ``n`` of them takes ``n**2 / 2`` comparisons.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

_M0 = 11400714785074694791  # the multipliers of Arrow's integer and short-string hashing
_M1 = 14029467366897019727
#: Printable ASCII but the space, the bytes a CSV reader or a shell treats specially, and
#: the separators the scorer's hints look for in item ids.
SAFE_BYTES = np.array([b for b in range(0x21, 0x7F) if chr(b) not in "\"',;\\"], dtype=np.uint8)
_IS_SAFE = np.zeros(256, dtype=bool)
_IS_SAFE[SAFE_BYTES] = True
_LOW32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)


@lru_cache(maxsize=4)
def colliding_ids(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct printable 16-character strings sharing all 64 bits of Arrow's hash.

    Examples
    --------
    >>> ids = colliding_ids(3)
    >>> len(set(ids)), {len(i) for i in ids}, all(i.isprintable() and " " not in i for i in ids)
    (3, {16}, True)
    >>> len({arrow_hash(i.encode()) for i in colliding_ids(100)})
    1
    """
    rng = np.random.default_rng(seed)
    inverse = np.uint64(pow(_M1, -1, 2**32))
    # The low halves of both words, fixed: the hash's high 32 bits are then fixed too.
    last_low, first_low = (int(_safe_bytes(rng, (1, 4)).view(np.uint32)[0, 0]) for _ in "ab")
    first_base = np.uint64((_M1 * first_low) % 2**64 >> 32)
    rows = np.zeros(0, dtype="V16")
    while len(rows) < n:
        tops = _safe_bytes(rng, (1 << 20, 4)).view(np.uint32)[:, 0].astype(np.uint64)
        last = np.uint64(last_low) | (tops << _SHIFT32)
        with np.errstate(over="ignore"):
            # The top half of the first word that keeps the hash's low 32 bits at 0x5EED.
            wanted = ((np.uint64(_M0) * last) >> _SHIFT32) ^ np.uint64(0x5EED)
            first_top = (((wanted - first_base) & _LOW32) * inverse) & _LOW32
        first = np.uint64(first_low) | (first_top << _SHIFT32)
        found = np.concatenate(
            [first.view(np.uint8).reshape(-1, 8), last.view(np.uint8).reshape(-1, 8)], axis=1
        )
        found = np.ascontiguousarray(found[_IS_SAFE[found].all(axis=1)]).view("V16")[:, 0]
        rows = np.unique(np.concatenate([rows, found]))
    return [bytes(row).decode("ascii") for row in rng.permutation(rows)[:n]]


def arrow_hash(data: bytes) -> int:
    """Arrow's hash of a string of 9 to 16 bytes (on a little-endian machine)."""
    first, last = (int.from_bytes(data[i : i + 8], "little") for i in (0, len(data) - 8))
    swapped = (_byte_swap(_M0 * last % 2**64), _byte_swap(_M1 * first % 2**64))
    return len(data) ^ swapped[0] ^ swapped[1]


def _byte_swap(word: int) -> int:
    return int.from_bytes(word.to_bytes(8, "big"), "little")


def _safe_bytes(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return SAFE_BYTES[rng.integers(0, len(SAFE_BYTES), shape, dtype=np.uint8)]
