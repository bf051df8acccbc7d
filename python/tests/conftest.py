"""Shared fixtures: the installed package's CLI and whether a GPU and torch are present."""

import json
import subprocess

import pytest

import memhier


def cli_json(*args):
    """What the bundled memhier command prints for ``args`` with --json."""
    out = subprocess.run([memhier.cli_path(), *args, "--json"], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


@pytest.fixture
def cli():
    return cli_json
