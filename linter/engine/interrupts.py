"""Ctrl-C, SIGTERM and SIGHUP end the run at once: one line on stderr, exit 130 / 143 /
129, every worker process ended (they ignore SIGINT and die with the parent: see
kqlint.engine.parallel), no traceback."""
from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

EXIT_CODES: dict[signal.Signals, int] = {signal.SIGINT: 130, signal.SIGTERM: 143}
if hasattr(signal, "SIGHUP"):
    EXIT_CODES[signal.SIGHUP] = 129


class Terminated(BaseException):
    """SIGINT, SIGTERM or SIGHUP, raised in the main thread (not a KeyboardInterrupt: the
    CLI framework would turn that into a silent exit 130 before kqlint could say why)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise(signum: int, _frame: Any) -> None:
    raise Terminated(signum)


def install() -> Callable[[], None]:
    """In the main process: Ctrl-C, SIGTERM and SIGHUP unwind the run (workers end with it).
    Returns the function that puts the previous handlers back."""
    previous: list[tuple[int, Any]] = []
    for signum in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is not None:
            try:
                previous.append((signum, signal.signal(signum, _raise)))
            except (ValueError, OSError):  # not the main thread (an embedding application)
                pass

    def restore() -> None:
        for signum, handler in previous:
            try:
                signal.signal(signum, handler)
            except (ValueError, OSError, TypeError):
                pass

    return restore


def exit_code_and_message(exc: BaseException) -> tuple[int, str]:
    signum = signal.Signals(exc.signum if isinstance(exc, Terminated) else signal.SIGINT)
    what = "interrupted (Ctrl-C)" if signum == signal.SIGINT else f"terminated by {signum.name}"
    return EXIT_CODES.get(signum, 128 + int(signum)), f"kqlint: {what}; every worker stopped"


def in_worker() -> None:
    """In a forked worker: Ctrl-C goes to the parent only (it stops the workers), SIGTERM
    and SIGHUP kill at once, and the worker dies when the parent does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    _die_with_parent()


def _die_with_parent() -> None:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
