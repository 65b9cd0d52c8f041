"""Which files are Jupyter notebooks: by their name alone.

Apart from the notebook reader (`hybridize/notebooks.py`: its patterns and classes take a few
milliseconds to import) so that listing a project's files, which every run does, does not
load it: a run whose report the cache keeps never reads a notebook.
"""

from __future__ import annotations

NOTEBOOK_SUFFIX = ".ipynb"


def is_notebook(name: str) -> bool:
    """Whether a file name is a Jupyter notebook's."""
    return name.endswith(NOTEBOOK_SUFFIX)
