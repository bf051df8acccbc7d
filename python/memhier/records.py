"""Measurements and the claims catalogue as the records of the JSON output.

``claims()`` reads the catalogue in process. ``probe``, ``bench`` and ``report`` run the
memhier command installed inside the package with ``--json`` and return what it prints,
so they are the same records as the command line's, not a second implementation.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any, Dict, List, Optional, Sequence

from . import _ext


class NoDeviceError(RuntimeError):
    """A measurement was asked of a machine without a usable GPU."""


def cli_path() -> str:
    """The memhier command that ships with this package."""
    return os.path.join(os.path.dirname(__file__), "bin", "memhier")


def _run(args: List[str]) -> Any:
    proc = subprocess.run([cli_path(), *args, "--json"], capture_output=True, text=True)
    # The command's one sentence (a malformed expression adds its caret lines).
    message = proc.stderr.strip().removeprefix("memhier: ")
    if proc.returncode == 2:
        raise ValueError(message)
    if proc.returncode == 3:
        raise NoDeviceError(message)
    if proc.returncode != 0:
        raise RuntimeError(message or f"memhier {' '.join(args)} exited {proc.returncode}.")
    return json.loads(proc.stdout)


def claims(ids: Optional[Sequence[str]] = None) -> List[Dict[str, Any]]:
    """The claims catalogue (``memhier claims --json``'s "claims"): id, source, text,
    checked_by. No GPU needed. ValueError for an unknown id."""
    return list(_ext.claims(list(ids or [])))


def probe(only: Optional[Sequence[str]] = None, quick: bool = False) -> Dict[str, Any]:
    """Measures this card (``memhier probe --json``): latencies in cycles and ns,
    bandwidths in GB/s. NoDeviceError without a GPU; ValueError for an unknown name."""
    args = ["probe"] + (["--quick"] if quick else [])
    for name in only or []:
        args += ["--only", name]
    return _run(args)


def bench(family: str, variants: Optional[Sequence[str]] = None,
          sizes: Optional[Sequence[str]] = None, quick: bool = False) -> Dict[str, Any]:
    """Verifies and times a ladder (``memhier bench FAMILY --json``): times in ms,
    bandwidths in GB/s, ratios to memcpy and the vendor library from the same run."""
    args = ["bench", family] + (["--quick"] if quick else [])
    for v in variants or []:
        args += ["--variant", v]
    for s in sizes or []:
        args += ["--size", s]
    return _run(args)


def report(out: Optional[str] = None, quick: bool = False, no_gpu: bool = False,
           no_profile: bool = False) -> Dict[str, Any]:
    """The whole report (``memhier report --json``); with ``out`` a folder, also its
    index.html, report.md and results.json there. ``no_gpu=True`` works on any machine:
    the models' predictions and the claims, unmeasured."""
    args = ["report", "--out", out or ""]
    args += [flag for flag, on in (("--quick", quick), ("--no-gpu", no_gpu),
                                   ("--no-profile", no_profile)) if on]
    return _run(args)
