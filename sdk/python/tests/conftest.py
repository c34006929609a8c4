"""Fixtures shared by the SDK's test modules."""

import pathlib

import pytest

from cowboy.local import find_binary

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def cowboy_bin():
    """The `cowboy` CLI binary (`COWBOY`, else the workspace's build)."""
    found = find_binary("cowboy", "COWBOY", REPO)
    if not found:
        pytest.fail("no cowboy binary: set COWBOY=/path/to/cowboy or `cargo build -p cowboy-cli`")
    return found
