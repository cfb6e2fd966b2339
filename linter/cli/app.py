"""The typer application (root options, version) and what every command shares to talk
to the user: :class:`Exit`, one line on stderr (:func:`err`), a report to stdout or a file
(:func:`emit`)."""
from __future__ import annotations

import sys

import typer
from kqlint import __version__

STDOUT = "-"
BUG_HINT = ("this is a bug in kqlint: please report it at https://github.com/kqlint/kqlint/issues "
            "with the file that triggers it")

app = typer.Typer(add_completion=True, no_args_is_help=True, rich_markup_mode=None,
                  help="Lint Kubernetes manifests for Kueue and gang-scheduling mistakes.",
                  pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]})


class Exit(Exception):
    """Leave with ``code`` after printing ``message`` (one line) to stderr."""

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kqlint {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True,
                                       help="Show the version and exit.")) -> None:
    """Lint Kubernetes manifests for Kueue and gang-scheduling mistakes.

    Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or configuration
    error, 3 internal error, 130/143/129 Ctrl-C/SIGTERM/SIGHUP.
    """


def emit(text: str, target: str | None) -> None:
    """stdout (None or ``-``) or a file, through the one safe writer (OutputError: exit 2)."""
    from kqlint.project.writer import write_file, write_stdout

    if target is None or target == STDOUT:
        write_stdout(text)
    else:
        write_file(target, text)


def err(message: str) -> None:
    from kqlint.sanitize import error_line

    try:
        sys.stderr.write(error_line(message.replace("\n", " ")) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
