#!/usr/bin/env bash
# Run the framework-free tests (analysis, refactor, project, LSP, CLI) on other Pythons.
#
# Why: the package promises `requires-python >=3.10,<3.14` so that `pipx install` works wherever
# an editor runs, while development and the full suite stay on 3.11 (.venv). This script keeps
# that promise honest: for each version asked for (default 3.10 3.12 3.13) it finds the
# interpreter (pyenv's ~/.pyenv/versions/X.Y.*, else pythonX.Y on PATH), makes a venv under
# build/py-X.Y with `.[dev]` and no framework, and runs the suites that need no TensorFlow.
#
#   tools/test_pythons.sh [--optional] [X.Y ...]
#
# A missing interpreter fails the run, unless --optional is given: then it prints a note and
# skips that version (CI uses this so that a machine without pyenv's 3.13 still runs `make test`).
set -euo pipefail
cd "$(dirname "$0")/.."

optional=0
if [ "${1:-}" = "--optional" ]; then
    optional=1
    shift
fi
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
    versions=(3.10 3.12 3.13)
fi

# The verify plugin too: it records which functions a test ran with sys.monitoring on 3.12+ and
# a profile hook before (hybridize/verify/pytest_plugin.py), so each path runs somewhere.
SUITES=(tests/analyzer tests/refactor tests/project tests/lsp tests/cli tests/verify/test_pytest_plugin.py)
MARKERS="not tensorflow and not slow"

find_python() {
    local version=$1 root=${PYENV_ROOT:-$HOME/.pyenv} candidate
    for candidate in $(ls -d "$root"/versions/"$version".* 2>/dev/null | sort -V -r); do
        if [ -x "$candidate/bin/python$version" ]; then
            echo "$candidate/bin/python$version"
            return 0
        fi
    done
    command -v "python$version" 2>/dev/null
}

status=0
for version in "${versions[@]}"; do
    if ! python=$(find_python "$version"); then
        if [ $optional = 1 ]; then
            echo "note: Python $version not found (pyenv or PATH); skipping its test run"
            continue
        fi
        echo "error: Python $version not found (pyenv or PATH)" >&2
        status=1
        continue
    fi
    venv=build/py-$version
    # Rebuilt when pyproject.toml changes, like the Makefile's .venv.
    if [ ! -f "$venv/.installed" ] || [ pyproject.toml -nt "$venv/.installed" ]; then
        rm -rf "$venv"
        "$python" -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --upgrade pip
        "$venv/bin/python" -m pip install --quiet -e '.[dev]'
        touch "$venv/.installed"
    fi
    echo "== Python $version ($("$venv/bin/python" -V 2>&1)): ${SUITES[*]} -m '$MARKERS'"
    # The command a user runs first must work too, and the language server must start.
    "$venv/bin/hybridize" --help >/dev/null
    "$venv/bin/hybridize" lsp --help >/dev/null
    if ! "$venv/bin/python" -m pytest -q -p no:cacheprovider -m "$MARKERS" "${SUITES[@]}"; then
        echo "error: tests failed on Python $version" >&2
        status=1
    fi
done
exit $status
