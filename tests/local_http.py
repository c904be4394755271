"""A loopback HTTP server for fetch tests: never the internet.

``/archive.zip`` serves the given bytes; ``/stall.zip`` sends the headers and a few bytes,
then nothing; ``/trickle.zip`` sends a byte every 50 ms, forever (until the client leaves).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    archive: bytes = b""

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 (the http.server API)
        try:
            if self.path == "/archive.zip":
                self._headers(len(self.archive))
                self.wfile.write(self.archive)
            elif self.path == "/stall.zip":
                self._headers(1 << 20)
                self.wfile.write(b"PK")
                self.wfile.flush()
                time.sleep(30)
            elif self.path == "/trickle.zip":
                self._headers(1 << 20)
                for _ in range(1 << 20):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.05)
            else:
                self.send_error(404)
        except OSError:  # the client left
            pass

    def _headers(self, size: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/zip")
        self.send_header("Content-Length", str(size))
        self.end_headers()


@contextmanager
def serve(archive: bytes = b"") -> Iterator[str]:
    """Serve on 127.0.0.1 at a free port; yields the base URL."""
    handler = type("Handler", (_Handler,), {"archive": archive})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
