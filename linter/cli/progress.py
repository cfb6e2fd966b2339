"""A progress bar on stderr for long runs (``kqlint check`` on many files).

Shown only when stderr is a terminal and the run reads more than ``THRESHOLD`` files
(roughly a second of work), so it never reaches a pipe, a CI log or a machine-readable
report on stdout. ``kqlint.engine.inputs.load_paths`` calls it as ``progress(done, total)`` after each
file; the bar appears on the first call of a large run and disappears when loading ends.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from kqlint.engine.pipeline import Pipeline
    from kqlint.model import Report

THRESHOLD = 500


class LoadProgress:
    def __init__(self, stream: TextIO | None = None, threshold: int = THRESHOLD) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.threshold = threshold
        self.bar: Any = None
        self.task: Any = None
        self.decided = False

    def enabled_for(self, total: int) -> bool:
        try:
            tty = bool(self.stream.isatty())
        except (AttributeError, ValueError, OSError):
            tty = False
        return tty and total > self.threshold

    def __call__(self, done: int, total: int) -> None:
        if not self.decided:
            self.decided = True
            if self.enabled_for(total):
                self._start(total)
        if self.bar is not None:
            self.bar.update(self.task, completed=done)
            if done >= total:
                self.close()

    def _start(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(file=self.stream, force_terminal=True, highlight=False)
        self.bar = Progress(TextColumn("kqlint: loading"), BarColumn(), MofNCompleteColumn(),
                            TimeRemainingColumn(), console=console, transient=True)
        self.bar.start()
        self.task = self.bar.add_task("load", total=total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __enter__(self) -> LoadProgress:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


def guarded_lint(pipeline: Pipeline, paths: list[str], context: tuple[str, ...], inline: bool,
                 progress: bool = False, jobs: int = 1) -> Report:
    """``pipeline.lint``, with a progress bar on a terminal; a crash is an internal error (exit 3)."""
    from kqlint.cli.app import Exit
    from kqlint.errors import InternalError, KqlintError

    try:
        with LoadProgress() as bar:  # shown only on a terminal, for runs of many files
            return pipeline.lint(paths, context=context, inline=inline, progress=bar if progress else None,
                                 jobs=jobs)
    except (KqlintError, Exit):
        raise
    except Exception as exc:
        raise InternalError(", ".join(paths), exc) from exc
