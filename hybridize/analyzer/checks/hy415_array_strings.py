"""HY415 reads_array_arguments_as_strings: text from a NumPy argument read as a Python string."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridize.analyzer.checks import TENSORFLOW_ONLY, Check
from hybridize.analyzer.facts.array_strings import array_string_reads
from hybridize.model import Finding

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext


class ReadsArrayArgumentsAsStrings(Check):
    """Reads a NumPy argument's text with string methods or `re`.

    What it detects
    ---------------
    A string method a tensor lacks (`.decode()`, `.split()`, `.strip()`, `.lower()`...)
    called on a parameter, or on an element of one, that some caller fills with a NumPy value
    holding text (or of a dtype not known); or a `re` search (`re.match`, `re.sub`...) of it.
    The analysis counts NumPy values as tensors (tf.function converts them), but this body
    uses the value as a Python string.

    Why it matters in graph mode
    ----------------------------
    Eagerly a NumPy bytes value is a Python `bytes` object, with all of its methods. A traced
    function converts its NumPy arguments to tensors before the body runs, a bytes scalar
    included, and a string tensor has no string methods: `AttributeError: 'SymbolicTensor'
    object has no attribute 'decode'` while tracing (`re` raises TypeError). Measured under
    TF 2.21 (tests/analyzer/test_hy415_array_strings.py measures it again). A NumPy `str`
    scalar is kept as the Python str it subclasses, but the analysis cannot tell it from a
    bytes value.

    Example
    -------
        def encode(line):
            words = line.decode("utf-8").split()
            return tf.constant([vocab.get(w, 0) for w in words])

        for line in np.array([b"a b", b"b a"]):
            encode(line)

    Instead
    -------
    Keep text processing in Python, outside the compiled function (decode and tokenize, then
    pass the ids in), or process the text as a tensor with `tf.strings`
    (`tf.strings.split`, `tf.strings.regex_full_match`).

    Not for torch.compile
    ---------------------
    Dynamo passes NumPy strings through as Python values; it converts no argument to a tensor.
    """

    code = "HY415"
    frameworks = TENSORFLOW_ONLY
    name = "reads_array_arguments_as_strings"
    severity = "error"
    summary = (
        "reads a NumPy argument's text with string methods or `re`: traced, the argument is a "
        "string tensor, which has none (AttributeError while tracing)."
    )
    unblock = "decode and tokenize outside the compiled function, or use tf.strings"
    fact = "reads_array_arguments_as_strings"
    fact_meaning = (
        "a string method (`.decode()`, `.split()`) or a `re` search applied to a parameter, "
        "or an element of one, that some caller fills with a NumPy value holding text "
        "(traced, it is a string tensor, which has neither)"
    )
    decision_order = 66
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Only for a function that is not compiled yet (a compiled one receives tensors
        already)."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(array_string_reads(context.scan))
