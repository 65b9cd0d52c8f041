"""Reading a `report.json` written earlier (`refactor --from-bench`): the one place a report
of an older version is brought up to the current one, so that every reader after it (the
decisions, the renderers) reads each field as the bench writes it now.

Fields are only ever added to the report, never renamed (`report.ADDED_FIELDS`, optional in
the schema so that older reports still validate). Of those, only `framework` says something
a reader needs: reports written before the PyTorch bench have none, and every function they
measured was a TensorFlow function (the bench measured TensorFlow alone then).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FRAMEWORK_BEFORE_TORCH_BENCH = "tensorflow"
"""The framework of every function of a report written before the PyTorch bench, which has
no `framework` field: the only framework the bench measured then."""


def read_report(path: Path | str) -> dict[str, Any]:
    """The report in `path`, a report written before the PyTorch bench migrated: its functions
    get the framework they were measured with (`FRAMEWORK_BEFORE_TORCH_BENCH`)."""
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    for function in data.get("functions", []):
        function.setdefault("framework", FRAMEWORK_BEFORE_TORCH_BENCH)
    return data
