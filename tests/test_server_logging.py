"""config.server's log writing: the event loop's lines go through a thread of their own."""

import io
import logging
import time

from config.server import write_logs_off_the_loop


class BrokenStream(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_the_log_thread_survives_a_failed_write_and_keeps_writing():
    root = logging.getLogger()
    saved, saved_raise = root.handlers[:], logging.raiseExceptions
    stream = BrokenStream()
    root.handlers = [logging.StreamHandler(stream)]
    logging.raiseExceptions = False  # handleError stays quiet, as in production
    listener = write_logs_off_the_loop()  # this thread stands for the loop's
    try:
        assert listener is not None
        logging.getLogger("liarsdice.test").warning("lost to a broken pipe")
        time.sleep(0.3)
        assert listener._thread is not None and listener._thread.is_alive()
        written = io.StringIO()
        stream.write = written.write  # the pipe works again
        logging.getLogger("liarsdice.test").warning("written")
        deadline = time.monotonic() + 5
        while "written" not in written.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "written" in written.getvalue()
    finally:
        listener.stop()
        root.handlers = saved
        logging.raiseExceptions = saved_raise
