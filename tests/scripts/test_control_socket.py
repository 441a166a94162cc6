"""gunicorn's control socket lives in DATA_DIR, as the Procfile runs it: two servers on one
machine (two `make run`s, two test web servers) each keep their own. Its default,
~/.gunicorn/gunicorn.ctl, was shared: the second unlinked the first's and, stopping,
took it away from both."""

import pytest

from tests.servers import WebServer

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_server_has_its_control_socket_in_its_data_dir(tmp_path):
    first_dir, second_dir = tmp_path / "first", tmp_path / "second"
    first_dir.mkdir()
    second_dir.mkdir()
    with WebServer(workers=1, DATA_DIR=str(first_dir)) as first:
        with WebServer(workers=1, DATA_DIR=str(second_dir)) as second:
            for server, data_dir in ((first, first_dir), (second, second_dir)):
                socket = data_dir / "gunicorn.ctl"
                assert socket.is_socket()
                assert f"Control socket listening at {socket}" in server.tail(200)
        assert (first_dir / "gunicorn.ctl").is_socket()  # the other's stop left it alone
    assert not (first_dir / "gunicorn.ctl").exists()
