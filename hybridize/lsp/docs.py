"""Where a diagnostic's code links to: the text of `hybridize explain CODE`.

The documentation lives in the checks' docstrings, not on a web site, so the link is to a
local Markdown file holding exactly what `hybridize explain CODE` prints, written once per
code into the cache folder (`$HYBRIDIZE_CACHE_DIR`, else `$XDG_CACHE_HOME/hybridize`, else
`~/.cache/hybridize`) under `docs/`, named by code and by a digest of the text: two versions
of hybridize serving at once (two editors, a tool upgrade) share the cache folder, and a file
one of them rewrote under the other's link showed the wrong text. Editors open a `file:` link
in a tab. When that folder
cannot be written, the link is a `data:` URL of the same text (every URI-aware client can
still show it); an unknown code gets no link.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from urllib.parse import quote

from lsprotocol import types

from hybridize.analyzer.cache import default_cache_dir
from hybridize.analyzer.checks import registry


class CodeDocs:
    """Links to each code's documentation, made on first use."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or default_cache_dir() / "docs"
        self._links: dict[str, str | None] = {}

    def href(self, code: str) -> str | None:
        if code not in self._links:
            self._links[code] = self._link(code)
        return self._links[code]

    def description(self, code: str) -> types.CodeDescription | None:
        href = self.href(code)
        return types.CodeDescription(href=href) if href is not None else None

    def _link(self, code: str) -> str | None:
        check = registry().get(code)
        if check is None:
            return None
        text = check.documentation()
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
        path = self.folder / f"{code}-{digest}.md"
        try:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                self.folder.mkdir(parents=True, exist_ok=True)
                temporary = self.folder / f".{code}.{os.getpid()}.tmp"
                temporary.write_text(text, encoding="utf-8")
                temporary.replace(path)
        except OSError:
            return "data:text/markdown;charset=utf-8," + quote(text, safe="")
        return path.resolve().as_uri()
