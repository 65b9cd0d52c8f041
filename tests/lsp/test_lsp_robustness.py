"""The server over a raw pipe: malformed bytes, wrong parameters, unknown methods, a client
that disappears. It answers what can be answered, logs the rest and keeps running."""

from __future__ import annotations

import json
import queue
import random
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


def shut_down(client: RawClient, msg_id: int) -> None:
    """The orderly end: `shutdown` answered with null, then `exit` ends the server with 0."""
    client.send({"id": msg_id, "method": "shutdown"})
    assert client.response(msg_id)["result"] is None
    client.send({"method": "exit"})
    assert client.process.wait(timeout=TIMEOUT) == 0


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
        shut_down(client, 5)
    finally:
        client.close()


FUZZ_METHODS = (
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didSave",
    "textDocument/didClose",
    "textDocument/hover",
    "textDocument/codeAction",
    "workspace/didChangeConfiguration",
    "workspace/didChangeWatchedFiles",
    "workspace/executeCommand",
    "$/cancelRequest",
    "hybridize/unknown",
)


REQUEST_METHODS = (
    "textDocument/hover",
    "textDocument/codeAction",
    "workspace/executeCommand",
    "hybridize/unknown",
)
"""The fuzzed methods that are requests (the others are notifications, which get no
answer even when a message gives them an id)."""


def fuzzed_body(rng: random.Random, uri: str, msg_id: int) -> bytes:
    """One message body: bytes that are no JSON, JSON that is no message, or a message of a
    real method whose parameters are any mix of right, wrong and absurd values."""
    kind = rng.random()
    if kind < 0.1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
    if kind < 0.2:
        return json.dumps(rng.choice([[], 5, "text", None, {"jsonrpc": "1.0"}, [1, {}]])).encode()

    def value(depth: int = 0) -> Any:
        choices: list[Any] = [
            None,
            -1,
            2**40,
            "é😀\x00",
            uri,
            "file:///nowhere/x.py",
            "not a uri",
            {"line": rng.randrange(-2, 50), "character": rng.randrange(-2, 200)},
        ]
        if depth < 2:
            choices += [[value(depth + 1)], {"uri": value(depth + 1), "version": value(depth + 1)}]
        return rng.choice(choices)

    position = {"line": rng.randrange(-1, 12), "character": rng.randrange(-1, 40)}
    document = {"uri": rng.choice([uri, uri, value()]), "version": rng.randrange(-1, 10**6)}
    params: Any = rng.choice(
        [
            value(),
            {"textDocument": document, "position": position},
            {
                "textDocument": document,
                "contentChanges": [
                    {
                        "range": {"start": position, "end": value()},
                        "text": rng.choice(["x", "\n", "def (", "é😀", ""]),
                    },
                    {"text": rng.choice(["", "import tensorflow as tf\n", "\udcff"])},
                ][: rng.randrange(0, 3)],
            },
            {"textDocument": {**document, "languageId": "python", "text": value()}},
            {"settings": value(), "changes": [{"uri": value(), "type": rng.randrange(-1, 5)}]},
        ]
    )
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": rng.choice(FUZZ_METHODS)}
    if rng.random() < 0.5:
        message["id"] = msg_id
    if rng.random() < 0.9:
        message["params"] = params
    return json.dumps(message).encode("utf-8", "surrogatepass")


def test_the_server_survives_a_thousand_fuzzed_messages(tmp_path: Path) -> None:
    """1,000 messages of random shapes (seeded, so a failure replays): the server answers or
    ignores each, and then still serves a real request and shuts down cleanly."""
    main_py = tmp_path / "main.py"
    main_py.write_text("import tensorflow as tf\n\n\ndef f(x):\n    return tf.square(x)\n")
    uri = main_py.as_uri()
    client = RawClient(tmp_path)
    try:
        initialize(client, tmp_path)
        client.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "python",
                        "version": 1,
                        "text": main_py.read_text(),
                    }
                },
            }
        )
        rng = random.Random(20261203)
        requests = set()
        for msg_id in range(100, 1100):
            body = fuzzed_body(rng, uri, msg_id)
            client.send_bytes(body)
            if b'"id": %d' % msg_id in body and any(
                f'"method": "{m}"'.encode() in body for m in REQUEST_METHODS
            ):
                requests.add(msg_id)
        assert client.process.poll() is None
        client.send(
            {
                "method": "textDocument/didClose",
                "params": {"textDocument": {"uri": uri}},
            }
        )
        client.send(
            {
                "id": 5000,
                "method": "textDocument/hover",
                "params": {
                    "textDocument": {"uri": uri},
                    "position": {"line": 3, "character": 4},
                },
            }
        )
        answered = set()
        while (message := client.messages.get(timeout=TIMEOUT)).get("id") != 5000:
            if "method" not in message and isinstance(message.get("id"), int):
                answered.add(message["id"])
        hover = message
        assert "error" not in hover, hover
        assert "f" in hover["result"]["contents"]["value"]
        # Every fuzzed request of a request method was answered (a result or an error).
        assert len(requests) > 100 and requests <= answered, requests - answered
        shut_down(client, 5001)
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
