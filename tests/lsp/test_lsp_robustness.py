"""The server over a raw pipe: malformed bytes, wrong parameters, unknown methods, a client
that disappears. It answers what can be answered, logs the rest and keeps running."""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from hybridize.cli import main

TIMEOUT = 20.0


class RawClient:
    """A language client that writes bytes by hand and reads framed messages back."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hybridize", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        stream = self.process.stdout
        while True:
            length = 0
            while True:
                header = stream.readline()
                if not header:
                    return
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
                if header in (b"\r\n", b"\n"):
                    break
            self.messages.put(json.loads(stream.read(length)))

    def close(self) -> None:
        """Stop the server if it still runs, and close the pipes."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None and not stream.closed:
                stream.close()

    def send_bytes(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def response(self, msg_id: int) -> dict[str, Any]:
        """The response to request `msg_id` (notifications on the way are skipped)."""
        while True:
            message = self.messages.get(timeout=TIMEOUT)
            if message.get("id") == msg_id and "method" not in message:
                return message


def initialize(client: RawClient, root: Path) -> None:
    client.send(
        {
            "id": 1,
            "method": "initialize",
            "params": {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": {"hybridize": 5},  # not settings: ignored
            },
        }
    )
    assert "capabilities" in client.response(1)["result"]
    client.send({"method": "initialized", "params": {}})


def test_malformed_messages_get_errors_or_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("import tensorflow as tf\n\n\ndef f(x):\n    return x\n")
    client = RawClient(tmp_path)
    try:
        initialize(client, tmp_path)
        client.send_bytes(b"{this is not json")
        client.send_bytes(b'{"jsonrpc": "2.0", "id": 7, "method": "\xff\xfe"}')
        client.send_bytes(b"[1, 2, 3]")
        client.send({"id": 2, "method": "textDocument/hover", "params": {"nonsense": 1}})
        assert client.response(2)["error"]["code"] == -32602  # InvalidParams
        client.send({"id": 3, "method": "hybridize/noSuchMethod", "params": {}})
        assert client.response(3)["error"]["code"] == -32601  # MethodNotFound
        # A notification with wrong parameters, then a document that is not Python.
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": 5}})
        client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": (tmp_path / "notes.txt").as_uri(),
                        "languageId": "plaintext",
                        "version": 1,
                        "text": "\x00\udcff",
                    }
                },
            }
        )
        # Still serving: a real request is answered.
        client.send(
            {
                "id": 4,
                "method": "textDocument/hover",
                "params": {
                    "textDocument": {"uri": (tmp_path / "main.py").as_uri()},
                    "position": {"line": 3, "character": 4},
                },
            }
        )
        hover = client.response(4)
        assert "error" not in hover
        assert "f" in hover["result"]["contents"]["value"]
        client.send({"id": 5, "method": "shutdown"})
        assert client.response(5)["result"] is None
        client.send({"method": "exit"})
        assert client.process.wait(timeout=TIMEOUT) == 0
    finally:
        client.close()


def test_the_server_exits_when_the_client_disappears(tmp_path: Path) -> None:
    client = RawClient(tmp_path)
    try:
        initialize(client, tmp_path)
        assert client.process.stdin is not None
        client.process.stdin.close()
        try:
            client.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail("the server kept running after its client went away")
    finally:
        client.close()


def test_tcp_option_is_validated() -> None:
    outcome = CliRunner().invoke(main, ["lsp", "--tcp", "localhost"])
    assert outcome.exit_code == 2
    assert "HOST:PORT" in outcome.output


def test_serves_over_tcp(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "hybridize", "lsp", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.2)
        with connection:
            body = json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
            ).encode()
            connection.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            stream = connection.makefile("rb")
            length = 0
            while (header := stream.readline()) not in (b"\r\n", b""):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            answer = json.loads(stream.read(length))
            assert answer["id"] == 1 and "capabilities" in answer["result"]
            assert answer["result"]["serverInfo"]["name"] == "hybridize"
    finally:
        process.kill()
        process.wait(timeout=TIMEOUT)
