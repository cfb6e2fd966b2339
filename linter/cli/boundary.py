"""The one error boundary of the ``kqlint`` command: every exception becomes an exit status
and at most one line on stderr. Usage and configuration errors exit 2, internal errors
print one line naming the file and exit 3, Ctrl-C/SIGTERM/SIGHUP 130/143/129; never a
traceback."""
from __future__ import annotations

import gc
import sys
from typing import Any

from kqlint.cli.app import BUG_HINT, Exit, app, err

# One run keeps what it loads to the end and makes little cyclic garbage: collect young objects
# every 200,000 allocations, not 700 (as mypy does); the Python API keeps the caller's settings.
RUN_GC_THRESHOLD = (200_000, 30, 30)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return the exit status (0/1/2/3). Never raises, never prints a traceback."""
    from kqlint.cli.argv import with_files_as_paths

    args = with_files_as_paths(list(sys.argv[1:] if argv is None else argv))  # a file named `--x.yaml`
    from kqlint.engine.interrupts import install

    restore_signals, unraisable = install(), sys.unraisablehook
    sys.unraisablehook = _ignore_unraisable
    collections = gc.get_threshold()
    gc.set_threshold(*RUN_GC_THRESHOLD)
    try:
        app(args=args, prog_name="kqlint", standalone_mode=True)
        return 0
    except SystemExit as exc:  # typer/click finish with sys.exit (usage errors: 2)
        return _system_exit_code(exc.code)
    except BaseException as exc:
        return _handle(exc)
    finally:
        gc.set_threshold(*collections)
        restore_signals()
        sys.unraisablehook = unraisable


def _handle(exc: BaseException) -> int:
    from kqlint.errors import InternalError, UserError
    from kqlint.project.writer import OutputError

    if isinstance(exc, Exit):
        if exc.message:
            err(exc.message)
        return exc.code
    if isinstance(exc, (UserError, OutputError)):
        err(f"kqlint: {exc}")
        return 2
    from kqlint.engine.interrupts import Terminated

    if isinstance(exc, (KeyboardInterrupt, Terminated)):
        from kqlint.engine.interrupts import exit_code_and_message

        code, message = exit_code_and_message(exc)
        err(message)
        return code
    if _out_of_memory(exc):
        where = getattr(exc, "file", None) or getattr(exc, "where", None)
        err(f"kqlint: out of memory{f' while processing {where}' if where else ''}: raise the memory "
             "limit, lower `max-file-size` or lint fewer files at once")
        return 2
    if isinstance(exc, BrokenPipeError):
        return 0
    if isinstance(exc, InternalError):
        err(f"kqlint: internal error while processing {exc.file}: {exc}; {BUG_HINT}")
        return 3
    if not isinstance(exc, Exception):
        raise exc
    err(f"kqlint: internal error: {type(exc).__name__}: {exc}; {BUG_HINT}")
    return 3


def _ignore_unraisable(_: Any) -> None:
    """Errors in finalizers (out of memory while unwinding) are not the user's business."""


def _out_of_memory(exc: BaseException) -> bool:
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 10:
        if isinstance(current, MemoryError):
            return True
        current, seen = current.__cause__ or current.__context__, seen + 1
    return False


def _system_exit_code(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    err(str(code))
    return 2


def entry() -> None:
    """The ``kqlint`` command: ``main`` with what runs load kept until the process exits
    without freeing it (kqlint.engine.lifetime)."""
    from kqlint.engine import lifetime

    lifetime.keep_until_exit()
    status = main()
    sys.unraisablehook = _ignore_unraisable  # finalizers at shutdown print nothing either
    lifetime.exit_now(status)
