"""`make run`'s banner: the play page's address, printed once the web process answers
(printed before, the worker's and beat's start-up logs scrolled it out of sight)."""

import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from scripts.stack import announce_when_up


class _Healthy(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/healthz" else 404)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def test_the_banner_comes_once_the_server_answers(capsys):
    server = HTTPServer(("127.0.0.1", 0), _Healthy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert announce_when_up(server.server_port, "  Play     http://127.0.0.1/\n", 5)
    finally:
        server.shutdown()
        server.server_close()
    assert capsys.readouterr().out == "  Play     http://127.0.0.1/\n"


def test_without_an_answer_the_banner_still_comes_and_says_so(capsys):
    server = HTTPServer(("127.0.0.1", 0), _Healthy)
    port = server.server_port
    server.server_close()  # nobody listens there now
    assert not announce_when_up(port, "  Play\n", 0.6)
    assert capsys.readouterr().out.startswith("  Play\n  (the web process has not answered yet")
