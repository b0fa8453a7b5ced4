"""Serve an ASGI app with uvicorn on 127.0.0.1 (a port the OS picks) in a thread, for one test."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn


class UvicornThread:
    def __init__(self, app: Any) -> None:
        # Bound here, handed to uvicorn: the port is known before the server starts, with no race.
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit it: without it, delayed ACKs add ~40 ms to each request
        # on a kept-alive connection (uvicorn's own bind path sets it, a handed socket does not).
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        # The strict server's stall fault really waits over a network (in-process it raises).
        server = getattr(getattr(app, "state", None), "server", None)
        if server is not None and hasattr(server, "over_network"):
            server.over_network = True
        self.url = f"http://127.0.0.1:{self.port}"
        # log_level critical: the dropped answers of the fault mode are exceptions by design.
        config = uvicorn.Config(app, log_level="critical", lifespan="off", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )

    def __enter__(self) -> UvicornThread:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:  # poll the flag uvicorn sets once it serves
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.005)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()
