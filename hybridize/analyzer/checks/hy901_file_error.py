"""HY901 file_error: a file that cannot be read, decoded or parsed."""

from __future__ import annotations

from . import ALL_FRAMEWORKS, Check


class FileErrorCheck(Check):
    """A file could not be analysed.

    What it detects
    ---------------
    A Python file the analysis could not read (permissions, a broken link, a file that
    vanished), decode (not UTF-8 and no valid PEP 263 encoding declaration) or parse (a
    syntax error, nesting too deep for the parser). It appears in the `errors` list of the
    report, not as a finding on a function; the rest of the project is still analysed.

    Why it matters in graph mode
    ----------------------------
    Functions in the file get no verdict, and everything the file contributes to the rest of
    the project is missing: call sites that pass tensors to functions elsewhere, functions
    called from elsewhere, side effects of helpers it defines. Verdicts of other files can
    therefore be more cautious (for example HY002, undeterminable) than they would be with
    the file analysed.

    Example
    -------
    A file with a syntax error:

        def loss(x, y)
            return tf.reduce_mean(tf.square(x - y))

    reported as `SyntaxError: ... (line 1)` for that file.

    Instead
    -------
    Fix the file so that Python can import it (run `python -m py_compile FILE`), save it as
    UTF-8 or declare its encoding on the first line, or exclude generated and vendored files
    from the analysed paths:

        # -*- coding: latin-1 -*-
    """

    code = "HY901"
    unblock = "fix the file so that Python can import it, or exclude it from the analysed paths"
    name = "file_error"
    severity = "error"
    frameworks = ALL_FRAMEWORKS
    summary = "A file cannot be read, decoded or parsed; it is listed in the report's errors."
    EXAMPLE_FUNCTION = "f"
    # No embedded examples: a file error is not a finding on a function (it is a FileError
    # in the report's `errors`); this check documents the code for `hybridize explain`.
    VALID = ()
    INVALID = ()
