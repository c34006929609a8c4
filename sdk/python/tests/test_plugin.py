"""The plugin's binary discovery (no node needed)."""

import os
import stat

from cowboy.pytest_plugin import find_cowboyd


def make_exe(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_env_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("COWBOYD", "/opt/cowboyd")
    assert find_cowboyd(tmp_path) == "/opt/cowboyd"


def test_walks_up_to_the_nearest_target_and_prefers_the_newer_build(monkeypatch, tmp_path):
    monkeypatch.delenv("COWBOYD", raising=False)
    monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    debug = make_exe(tmp_path / "target" / "debug" / "cowboyd")
    release = make_exe(tmp_path / "target" / "release" / "cowboyd")
    os.utime(debug, (1, 1))
    deep = tmp_path / "sdk" / "python" / "tests"
    deep.mkdir(parents=True)
    assert find_cowboyd(deep) == str(release)
    os.utime(release, (0, 0))
    assert find_cowboyd(deep) == str(debug)


def test_path_is_the_last_resort(monkeypatch, tmp_path):
    monkeypatch.delenv("COWBOYD", raising=False)
    monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    bindir = tmp_path / "bin"
    exe = make_exe(bindir / "cowboyd")
    monkeypatch.setenv("PATH", str(bindir))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert find_cowboyd(empty) == str(exe)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert find_cowboyd(empty) is None
