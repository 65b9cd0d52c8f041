"""Discovery of the corpus programs and their labels, shared by the corpus tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def programs() -> list[Path]:
    """Every program folder: corpus/<framework>/<name>/ holding main.py and expected.json."""
    return sorted(p.parent for p in CORPUS.glob("*/*/expected.json"))


def labels(program: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((program / "expected.json").read_text(encoding="utf-8"))
    return data
