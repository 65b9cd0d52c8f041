"""The summary hooks of checks registered from outside the package (`checks.registered`: a
plugin's, a test's), by what their code hashes to (`hooks.hook_tag`): the summary cache's key
includes them, so a summary cached before such a hook was added or changed is not read after.
A module of its own, without imports: the cache asks it on every run, the cached ones too.
"""

from __future__ import annotations

_ADDED: dict[str, str] = {}
"""The tag of each added hook, by check code."""


def hook_added(code: str, tag: str | None) -> None:
    """Note the tag of the hook of a check registered from outside the package (None: the
    check is no longer registered)."""
    if tag is None:
        _ADDED.pop(code, None)
    else:
        _ADDED[code] = tag


def added_hooks_tag() -> str:
    """What the cache's key adds for the added hooks ("" for none): each code with its tag."""
    return ",".join(f"{code}:{tag}" for code, tag in sorted(_ADDED.items()))
