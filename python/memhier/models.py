"""The CPU models: what one warp's accesses cost, and occupancy. No GPU needed.

The fields are those of ``memhier analyze ... --json`` and ``memhier occupancy --json``;
``as_dict()`` gives that record whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

from . import _ext

InputError = _ext.InputError
InputError.__module__ = "memhier"
InputError.__doc__ = ("A value that does not read as what it is for (a block shape, a size, a "
                      "variant): the sentence the memhier command gives for it. A ValueError.")

Block = Union[int, str, Sequence[int]]
Size = Union[int, str]


def _text(value: Any, name: str) -> str:
    """``value`` as the text the command line would carry, for the C++ reader the command
    uses (memhier/model/input.hpp): a string as given ("32x8", "48K"), an integer in
    decimal, a sequence of integers joined by 'x'. Nothing is read here, so a value reads
    the same in Python as on the command line."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, (tuple, list)) and name == "block":
        return "x".join(_text(v, name) for v in value)
    raise TypeError(f"{name} must be an int or a string{' or (x, y, z)' if name == 'block' else ''}"
                    f", not {type(value).__name__}.")


@dataclass(frozen=True)
class SharedFix:
    """A padding or XOR-swizzle rewrite of a conflicted access, re-analyzed."""

    kind: str          #: "padding" or "xor-swizzle"
    declaration: str   #: the rewritten declaration, e.g. "float tile[32][33]"
    access: str        #: the rewritten access expression
    note: str          #: what else must change
    wavefronts: int    #: shared-memory wavefronts (passes) per warp access after the fix
    conflicts: int     #: extra wavefronts over the ideal after the fix


@dataclass(frozen=True)
class SharedAnalysis:
    """Shared-memory cost of one warp's access (counts per warp-level instruction)."""

    wavefronts: int    #: shared-memory wavefronts (passes), summed over instructions
    ideal: int         #: the fewest wavefronts the bytes need
    conflicts: int     #: wavefronts - ideal (bank conflicts)
    degree: int        #: worst number of distinct 4-byte words one bank serves in one phase
    fixes: Tuple[SharedFix, ...]  #: rewrites that remove the conflicts (empty when none)
    record: Dict[str, Any] = field(repr=False, compare=False)

    def as_dict(self) -> Dict[str, Any]:
        """The record as ``memhier analyze shared --json`` prints it (without the header)."""
        return dict(self.record)


@dataclass(frozen=True)
class GlobalAnalysis:
    """Global-memory cost of one warp's access: requests, 32-byte sectors, 128-byte lines."""

    requests: int              #: memory requests (one per instruction with an active lane)
    sectors: int               #: 32-byte sectors moved
    ideal_sectors: int         #: the fewest sectors that hold the bytes needed
    lines: int                 #: 128-byte cache lines touched
    bytes_needed: int          #: bytes the active lanes ask for
    sectors_per_request: float
    caching_utilization: float     #: bytes needed / bytes moved with 128-byte lines, 0..1
    noncaching_utilization: float  #: bytes needed / bytes moved with 32-byte sectors, 0..1
    record: Dict[str, Any] = field(repr=False, compare=False)

    def as_dict(self) -> Dict[str, Any]:
        """The record as ``memhier analyze global --json`` prints it (without the header)."""
        return dict(self.record)


@dataclass(frozen=True)
class Occupancy:
    """Blocks per SM for a kernel's resources, the limiting resource and what would help."""

    blocks_per_sm: int
    active_warps: int     #: blocks_per_sm * warps per block
    max_warps: int        #: the SM's warp limit
    occupancy: float      #: active_warps / max_warps, 0..1
    limiter: str          #: "registers", "shared_memory", "warps", "blocks", "barriers"; "none" at 100%
    advice: str           #: the smallest single change that raises occupancy ("" at 100%)
    bounds: Dict[str, int]  #: blocks per SM each resource allows on its own
    record: Dict[str, Any] = field(repr=False, compare=False)

    def as_dict(self) -> Dict[str, Any]:
        """The record as ``memhier occupancy --json`` prints it (without the header)."""
        return dict(self.record)


def analyze_shared(decl: str, expr: str, block: Block = (32, 1, 1), warp: int = 0,
                   store: bool = False, *, offset_bytes: int = 0, active: int = 0xFFFFFFFF,
                   vars: Optional[Mapping[str, int]] = None) -> SharedAnalysis:
    """Bank conflicts of one warp's shared-memory access, e.g.
    ``analyze_shared("float tile[32][32]", "tile[lane][0]")`` (32 wavefronts, 31 conflicts).

    ``block`` defines tx, ty, tz (32, "32x8" or (32, 8)); ``warp`` picks the warp; ``vars``
    gives free variables. ValueError for a malformed declaration or expression (with a caret
    under the column); memhier.InputError (a ValueError) for a block, warp, offset or mask
    that does not read, with the sentence ``memhier analyze`` gives.
    """
    r = _ext.analyze_shared(decl, expr, _text(block, "block"), _text(warp, "warp"), bool(store),
                            _text(offset_bytes, "offset_bytes"), _text(active, "active"),
                            dict(vars or {}))
    fixes = tuple(SharedFix(f["kind"], f["declaration"], f["access"], f["note"],
                            f["wavefronts"], f["conflicts"]) for f in r["fixes"])
    return SharedAnalysis(r["wavefronts"], r["ideal_wavefronts"], r["conflicts"], r["degree"],
                          fixes, r)


def analyze_global(decl: str, expr: str, block: Block = (32, 1, 1), warp: int = 0,
                   store: bool = False, *, offset_bytes: int = 0, active: int = 0xFFFFFFFF,
                   vars: Optional[Mapping[str, int]] = None) -> GlobalAnalysis:
    """Coalescing of one warp's global-memory access, e.g.
    ``analyze_global("float a[]", "a[lane*32]")`` (32 sectors where 4 would do).

    ``offset_bytes`` shifts the array's base address (bytes).
    """
    r = _ext.analyze_global(decl, expr, _text(block, "block"), _text(warp, "warp"), bool(store),
                            _text(offset_bytes, "offset_bytes"), _text(active, "active"),
                            dict(vars or {}))
    return GlobalAnalysis(r["requests"], r["sectors"], r["ideal_sectors"], r["lines"],
                          r["bytes_needed"], r["sectors_per_request"], r["caching_utilization"],
                          r["noncaching_utilization"], r)


def occupancy(cc: str = "9.0", block: Block = 256, regs: Union[int, str] = 32, smem: Size = 0,
              *, static_smem: Size = 0, carveout: Optional[Union[int, str]] = None) -> Occupancy:
    """Occupancy of a kernel: ``block`` threads or a shape (256, "32x8", (32, 8)), ``regs``
    registers per thread, ``smem`` bytes of dynamic and ``static_smem`` bytes of static
    shared memory per block (an int, or "48K", "1M" as ``memhier occupancy --smem`` takes),
    ``carveout`` the preferred shared-memory carveout in percent (None: the driver's).
    Every value is read by the command's own reader; memhier.InputError (a ValueError) with
    the command's sentence when one does not read.
    """
    r = _ext.occupancy(_text(cc, "cc"), _text(block, "block"), _text(regs, "regs"),
                       _text(smem, "smem"), _text(static_smem, "static_smem"),
                       None if carveout is None else _text(carveout, "carveout"))
    return Occupancy(r["blocks_per_sm"], r["active_warps"], r["max_warps"], r["occupancy"],
                     r["limiter"], r["advice"], dict(r["bounds"]), r)
