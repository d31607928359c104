"""Shared paths and helpers of the Python suite: the repository's fixtures, the corpus beside
it (tests that need it skip with a message when it is absent) and the command line built
beside the wheel (``IOSCOUT_BIN``), whose ``--json`` the package must equal."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TESTDATA = ROOT / "testdata"
CORPUS = ROOT.parent / "shared" / "corpus"


def binary() -> str:
    path = os.environ.get("IOSCOUT_BIN", str(ROOT / "target" / "debug" / "ioscout"))
    if not Path(path).exists():
        pytest.skip(f"the ioscout binary is not at {path} (set IOSCOUT_BIN)")
    return path


def cli_json(*arguments: str) -> dict:
    """The command line's ``--json`` for the same call."""
    done = subprocess.run([binary(), *arguments, "--json"], capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def corpus(*parts: str) -> Path:
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"the corpus is not at {path}")
    return path
