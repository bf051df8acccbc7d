"""Shared fixtures: the installed package's CLI and whether a GPU and torch are present."""

import json
import os
import subprocess
import tempfile

import pytest

import memhier

# The GEMM tuner's cache for these tests and the commands they run, never the user's own.
os.environ.setdefault("MEMHIER_CACHE_DIR", tempfile.mkdtemp(prefix="memhier-pytest-cache-"))


def cli_json(*args):
    """What the bundled memhier command prints for ``args`` with --json."""
    out = subprocess.run([memhier.cli_path(), *args, "--json"], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


@pytest.fixture
def cli():
    return cli_json
