"""Atomic writes: all or nothing, permissions kept, stale files refused, interruptions survived."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hybridize.refactor import writer
from hybridize.refactor.writer import TEMP_SUFFIX, interrupts_held, write_atomically

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions and signals")


def leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_replaces_the_content(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")
    assert write_atomically(path, b"old\n", b"new\n") is None
    assert path.read_bytes() == b"new\n"
    assert leftovers(tmp_path) == []


def test_a_file_name_near_the_length_limit(tmp_path: Path) -> None:
    """The temporary file's name must fit too (found by benchmarks/mutation_fuzz.py)."""
    path = tmp_path / ("m" * 250 + ".py")
    path.write_bytes(b"old\n")
    assert write_atomically(path, b"old\n", b"new\n") is None
    assert path.read_bytes() == b"new\n"
    assert leftovers(tmp_path) == []


@posix_only
def test_keeps_permission_bits(tmp_path: Path) -> None:
    path = tmp_path / "script.py"
    path.write_bytes(b"old\n")
    path.chmod(0o751)
    assert write_atomically(path, b"old\n", b"new\n") is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o751


def test_refuses_a_file_that_changed_since_it_was_read(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"edited meanwhile\n")
    problem = write_atomically(path, b"old\n", b"new\n")
    assert problem is not None and "changed on disk" in problem
    assert path.read_bytes() == b"edited meanwhile\n"


def test_refuses_a_change_during_the_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")
    real_chmod = os.chmod

    def chmod_and_edit(target: object, mode: int) -> None:
        real_chmod(target, mode)  # type: ignore[arg-type]
        path.write_bytes(b"edited by someone else\n")

    monkeypatch.setattr(writer.os, "chmod", chmod_and_edit)
    problem = write_atomically(path, b"old\n", b"new\n")
    assert problem is not None and "while it was being written" in problem
    assert path.read_bytes() == b"edited by someone else\n"
    assert leftovers(tmp_path) == []


@posix_only
def test_refuses_a_read_only_file(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write anything")
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")
    path.chmod(0o444)
    problem = write_atomically(path, b"old\n", b"new\n")
    assert problem is not None and "read-only" in problem
    assert path.read_bytes() == b"old\n"


def test_missing_file(tmp_path: Path) -> None:
    problem = write_atomically(tmp_path / "gone.py", b"old\n", b"new\n")
    assert problem is not None and "cannot read" in problem


@posix_only
def test_writes_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    assert write_atomically(link, b"old\n", b"new\n") is None
    assert link.is_symlink()
    assert real.read_bytes() == b"new\n"


def test_an_exception_mid_write_leaves_the_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")

    def broken_fsync(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(writer.os, "fsync", broken_fsync)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, b"old\n", b"new\n")
    assert path.read_bytes() == b"old\n"
    assert leftovers(tmp_path) == []


def test_an_os_error_mid_write_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")

    def full_disk(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer.os, "replace", full_disk)
    problem = write_atomically(path, b"old\n", b"new\n")
    assert problem is not None and "No space left" in problem
    assert path.read_bytes() == b"old\n"
    assert leftovers(tmp_path) == []


SIGINT_DURING_WRITE = """
import os, signal, sys, threading, time
from pathlib import Path
from hybridize.refactor import writer

real_replace = os.replace

def replace_after_ctrl_c(src, dst):
    # To the main thread itself: `os.kill` of the process lets the kernel pick any thread,
    # and on a loaded machine one that imports started may only run its C handler after the
    # write is over (the test then saw the signal too late, not a held one).
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
    time.sleep(0.05)  # the signal arrives here, and is held
    real_replace(src, dst)

writer.os.replace = replace_after_ctrl_c
# Python's own handler, whatever this process inherited: a shell that starts a command in the
# background (`cmd &`, as CI runners may) makes SIGINT ignored, Python then keeps it ignored,
# and the held signal is rightly delivered to "ignore" (the test saw "not interrupted").
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    writer.write_atomically(Path(sys.argv[1]), b"old\\n", b"new\\n")
except KeyboardInterrupt:
    print("interrupted after the write")
else:
    print("not interrupted")
"""


@posix_only
def test_sigint_during_a_write_is_delivered_after_it(tmp_path: Path) -> None:
    """In a process of its own: the only thread is the main one and Python's own SIGINT
    handler is installed (in a long test run, threads and handlers left by other tests made
    the delivery depend on the machine's load)."""
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")
    done = subprocess.run(
        [sys.executable, "-c", SIGINT_DURING_WRITE, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.strip() == "interrupted after the write", done.stderr
    assert path.read_bytes() == b"new\n"
    assert leftovers(tmp_path) == []


@posix_only
def test_handlers_are_restored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with interrupts_held():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before


@posix_only
def test_killed_process_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    """A real interruption: SIGTERM to a process writing many large files."""
    folder = tmp_path / "files"
    folder.mkdir()
    old, new = b"o" * 2_000_000, b"n" * 2_000_000
    for i in range(60):
        (folder / f"f{i}.py").write_bytes(old)
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from hybridize.refactor.writer import write_atomically
        folder = Path({str(folder)!r})
        old, new = b"o" * 2_000_000, b"n" * 2_000_000
        for i in range(60):
            write_atomically(folder / f"f{{i}}.py", old, new)
            if i == 2:
                print("started", flush=True)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None
    process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    contents = [(folder / f"f{i}.py").read_bytes() for i in range(60)]
    assert all(c in (old, new) for c in contents)
    assert contents[0] == new
    assert leftovers(folder) == []
