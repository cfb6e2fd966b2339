"""Run `mypy --strict` on kqlint as it is installed (package `kqlint`, rules under `kqlint.rules`).

The source tree maps `linter/` to `kqlint` and `rules/` to `kqlint.rules` (pyproject's
package-dir), which mypy cannot follow through an editable install. This builds that layout
from symlinks in a temporary folder, runs mypy there with the `[tool.mypy]` settings, and
prints the errors with the repository's own paths.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_layout(target: Path) -> Path:
    package = target / "kqlint"
    package.mkdir()
    for entry in sorted((ROOT / "linter").iterdir()):
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "rules").symlink_to(ROOT / "rules")
    (package / "schemas").symlink_to(ROOT / "schemas")
    return package


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="kqlint-mypy-") as tmp:
        package = build_layout(Path(tmp))
        command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                   "--cache-dir", str(ROOT / ".mypy_cache"), "-p", "kqlint"]
        result = subprocess.run(command, cwd=tmp, capture_output=True, text=True, check=False)
        output = result.stdout + result.stderr
        output = output.replace("kqlint/rules/", "rules/").replace("kqlint/", "linter/")
        sys.stdout.write(output)
        del package
        return result.returncode


if __name__ == "__main__":
    raise SystemExit(main())
