"""Shared fixtures: the installed package's CLI, to compare the package's records with."""

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


def cli_error(*args):
    """The bundled command's exit status and one sentence for ``args`` with --json."""
    p = subprocess.run([memhier.cli_path(), *args, "--json"], capture_output=True, text=True)
    return p.returncode, p.stderr.strip().removeprefix("memhier: ")


@pytest.fixture
def cli():
    return cli_json


@pytest.fixture
def cli_fails():
    return cli_error
