"""Measurements and the claims catalogue as the records of the JSON output.

All six run in this process. ``claims()`` reads the catalogue; ``probe``, ``bench``, ``tune``,
``report`` and ``explain`` call the run library the ``memhier`` command calls, and return the
records its ``--json`` prints (made by the same functions; only ``meta.command`` differs,
naming the Python call); ``explain`` runs the user's program as a child under Nsight Compute.
A measurement runs with the GIL released, on device 0 in this process's CUDA
context, beside any framework's; a fault that breaks that context (an illegal address) is
met as the command meets it, by resetting the device.

One stage runs as a child process: PyTorch's reference rows (``bench(torch=True)``, and
``report`` unless ``no_torch``) come from memhier.torch_reference's code run by this
interpreter, since the package imports no framework. The report's Nsight Compute stage
profiles ``bin/memhier-profile-target`` from this package.

The ``memhier`` command is installed beside them (``cli_path()``) for the user; the package
never runs it.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any, Dict, List, Optional, Sequence

from . import _ext

NoDeviceError = _ext.NoDeviceError
NoDeviceError.__module__ = "memhier"
NoDeviceError.__doc__ = "A measurement was asked of a machine without a usable GPU."


def cli_path() -> str:
    """The memhier command that ships with this package."""
    return os.path.join(os.path.dirname(__file__), "bin", "memhier")


def _call(name: str, **args: Any) -> str:
    """How a record names the call that made it (its meta.command), as the CLI's names its
    command line: the arguments given, not the defaults."""
    given = ", ".join(f"{k}={v!r}" for k, v in args.items() if v not in (None, False, [], ()))
    return f"memhier.{name}({given})"


def claims(ids: Optional[Sequence[str]] = None) -> List[Dict[str, Any]]:
    """The claims catalogue (``memhier claims --json``'s "claims"): id, source, text,
    checked_by. No GPU needed. ValueError for an unknown id."""
    return list(_ext.claims(list(ids or [])))


def probe(only: Optional[Sequence[str]] = None, quick: bool = False) -> Dict[str, Any]:
    """Measures this card (``memhier probe --json``): latencies in cycles and ns,
    bandwidths in GB/s. A run of every probe saves this card's record for the models, as the
    command does. ValueError for an unknown name (before any GPU); NoDeviceError without a
    usable GPU."""
    text, not_saved = _ext.probe(list(only or []), quick, _call("probe", only=only, quick=quick))
    if not_saved:
        warnings.warn(f"this card's record was not saved: {not_saved}", stacklevel=2)
    return json.loads(text)


def _child() -> str:
    """The wheel's memhier command, which measures the rest of a bench or report in a child
    process after a kernel fault loses the GPU to this one; "" where it is not installed
    (a source tree): the items after the fault then say the GPU was lost."""
    child = os.path.join(os.path.dirname(__file__), "bin", "memhier")
    return child if os.access(child, os.X_OK) else ""


def bench(family: str, variants: Optional[Sequence[str]] = None,
          sizes: Optional[Sequence[str]] = None, quick: bool = False,
          torch: bool = False, sweep: bool = False) -> Dict[str, Any]:
    """Verifies and times a ladder (``memhier bench FAMILY --json``; FAMILY a registered
    ladder or "all"): times in ms, bandwidths in GB/s, ratios to memcpy and the vendor library
    from the same run. ``torch=True`` adds PyTorch's rows (``--torch``); ``sweep=True`` times
    ``best`` against the vendor at the family's sweep of shapes instead (``--sweep``: gemm and
    gemm_bf16). ValueError for an unknown family, variant or shape (before any GPU);
    NoDeviceError without a usable GPU."""
    command = _call("bench", family=family, variants=variants, sizes=sizes, quick=quick,
                    torch=torch, sweep=sweep)
    return json.loads(_ext.bench(family, list(variants or []), list(sizes or []), quick, torch,
                                 sweep, sys.executable, _child(), command))


def tune(family: str, shapes: Sequence[str], retune: bool = False) -> List[Dict[str, Any]]:
    """Chooses ``best``'s configuration at each shape now and keeps it in the tuning cache
    (``memhier tune FAMILY --shapes ...``; FAMILY a ladder whose best is tuned, "gemm",
    "gemm_bf16", "stencil", "transpose" or "reduction"; shapes in its form, such as
    "4096x4096x4096" or "8192x8192:7"). One dict per shape: shape, config, source
    ("cache", "tuned now" or "untuned default"), timed and candidates (how many were timed of
    how many), launches, tuning_ms (the decision's wall time) and gpu_ms (of it, the launches'
    GPU time). ``retune=True`` times again where the cache knows a shape.
    ValueError for a family that is not tuned or a bad shape (before any GPU); NoDeviceError
    without a usable GPU."""
    if isinstance(shapes, str):
        shapes = [shapes]
    command = _call("tune", family=family, shapes=list(shapes), retune=retune)
    doc = json.loads(_ext.tune(family, list(shapes), retune, command))
    table = doc["sections"][0]["tables"][0]
    return [dict(row) for row in table["rows"]]


def report(out: Optional[str] = None, quick: bool = False, no_gpu: bool = False,
           no_profile: bool = False, no_torch: bool = False, full: bool = False,
           no_sweep: bool = False) -> Dict[str, Any]:
    """The whole report (``memhier report --json``); with ``out`` a folder, also its
    index.html, report.md and results.json there (long tables folded, as the CLI writes them;
    ``full=True`` opens every table, as ``--full``; ``no_sweep=True`` skips the sweep of
    shapes, as ``--no-sweep``). ``no_gpu=True`` works on any machine: the models' predictions
    and the claims, unmeasured. Without a GPU the report says so; NoDeviceError when a GPU
    refuses this process a context."""
    command = _call("report", out=out, quick=quick, no_gpu=no_gpu, no_profile=no_profile,
                    no_torch=no_torch, full=full, no_sweep=no_sweep)
    target = os.path.join(os.path.dirname(__file__), "bin", "memhier-profile-target")
    return json.loads(_ext.report(out or "", quick, no_gpu, no_profile, no_torch,
                                  sys.executable, target, _child(), command, full, no_sweep))


def explain(program: Sequence[str], kernel: Optional[str] = None, launch_skip: int = 0,
            launch_count: int = 0, every_launch: bool = False, timeout: int = 0,
            footprint: int = 0, record: Optional[str] = None,
            measure: bool = True) -> Dict[str, Any]:
    """Runs ``program`` (an argv list: ``["python3", "train.py"]`` works) under Nsight Compute
    and diagnoses its kernels against this card's ceilings (``memhier explain --json --
    PROGRAM``): per kernel its standings, roofline point and findings (``kind``, evidence,
    the models' ideal, estimated gain, technique, source, memhier rung), highest gain first.
    By default the first launch of each of the first 20 kernels; ``kernel`` a regex on the
    function name, ``every_launch`` every launch of them, ``launch_skip``/``launch_count`` a
    window. ValueError for bad options (before anything runs); NoDeviceError without ncu,
    readable counters or a GPU."""
    command = _call("explain", program=list(program), kernel=kernel, launch_skip=launch_skip,
                    launch_count=launch_count, every_launch=every_launch, timeout=timeout,
                    footprint=footprint, record=record, measure=None if measure else False)
    return json.loads(_ext.explain([str(a) for a in program], kernel or "", int(launch_skip),
                                   int(launch_count), bool(every_launch), int(timeout),
                                   float(footprint), record or "", bool(measure), command))
