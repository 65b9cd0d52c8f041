"""HY414 converts_numpy_arguments_to_other_dtypes: a NumPy argument converted to another dtype."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridize.analyzer.checks import TENSORFLOW_ONLY, Check
from hybridize.analyzer.facts.numpy_boundary import numpy_dtype_conversions
from hybridize.model import Finding

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext


class ConvertsNumpyArgumentsToOtherDtypes(Check):
    """Converts a NumPy argument to another dtype with an API that refuses tensors of it.

    What it detects
    ---------------
    A parameter that some caller fills with a NumPy value (an array or a scalar, of a dtype
    other than the one requested, or not known) and that the function passes to an API
    converting it to another dtype without a cast: `tf.convert_to_tensor(x, dtype=tf.float32)`,
    `tf.Variable(x, dtype=...)`; itself, or through project helpers it passes the parameter to
    (they are traced with it). Any pair of dtypes counts: NumPy's default int64 converted to
    int32 as float64 to float32, int32 to int64. The value may be the parameter as it is, or
    read out of it: an element of a list or tuple (iterated or subscripted), a value of a dict
    (subscripted, `.values()`, the value of `.items()`), nested (a list of dicts: graph_nets'
    `for d in data_dicts: for k, v in d.items(): tf.convert_to_tensor(v, tf.int32 if k in
    INDEX_FIELDS else None)`); a dtype requested on some paths (None on the others) counts.

    When no caller shows the value's type (no caller is known in the project, or one passes
    a value of unknown type: a library's public function, data read from a file), the
    conversion blocks the function too. Safe is a promise: an explicit dtype on the
    conversion of an argument is the idiom of a function meant to take non-tensors (graph_nets
    documents "python lists, numpy arrays, or Tensors"), and NumPy's defaults (float64, int64)
    are not the dtypes usually requested (float32, int32). It stays silent where every caller
    shows what it passes: Python values, lists, tensors, or NumPy values of the requested
    dtype (`x.astype(np.float32)`, `np.asarray(x, dtype=np.float32)`, `np.zeros(3,
    np.float32)`, `np.float32(2.0)`). A caller's argument is what reaches the call: a local
    rebound before it (`lower = znp.array(lower)[0, 0]; simpson(lower)`) passes the last
    assignment's value, not also the one the name held before; and a module is judged by
    what its functions return, not by its name (`tf.experimental.numpy`, and zfit's
    `zfit.z.numpy` that re-exports it, build tensors).

        def to_ids(senders):                          # INVALID: no caller shows `senders`
            return tf.convert_to_tensor(senders, tf.int32)

        def scale(x):                                 # VALID: every caller shows its value
            return tf.convert_to_tensor(x, tf.float32) * 2.0

        scale(np.ones(3).astype(np.float32))
        scale([1.0, 2.0])
        scale(tf.ones([3]))

    Op arguments of the same kind count too (`Framework.numpy_refusing_arguments`, measured):
    an op input of the one dtype int32 (`tf.dynamic_partition`'s `partitions`, `tf.one_hot`'s
    `depth`) a caller fills with a NumPy value of another dtype (NumPy's default int64), and
    an op attribute, a value the op needs as a Python int (`tf.dynamic_partition`'s
    `num_partitions`, `tf.unstack`'s `num`, the `axis` of `tf.stack`, `tf.unstack` and
    `tf.squeeze`), a caller fills with a NumPy scalar or with a value of unknown type
    (tf-agents' `selective_sum(values, actions, self.num_actions)`: the count is a spec's
    NumPy bounds subtracted). Where no caller is known they stay silent (an int argument is
    no sign of a function meant to take NumPy values), as where every caller passes a Python
    int, an int32 array for an int32 input, or a tensor; an input taking int64 as well
    (`tf.gather`'s indices) is not in the table.

        def selective_sum(values, partitions, n):     # INVALID: a NumPy scalar for `n`
            return tf.dynamic_partition(values, partitions, n)

        selective_sum(tf.ones([4]), tf.constant([0, 1, 0, 1]), np.int64(2))

    Why it matters in graph mode
    ----------------------------
    Eagerly the API receives the array and converts it to the dtype it is asked for. A traced
    function converts its NumPy arguments to tensors of their own dtype before the body runs,
    so the API receives a float64 tensor, and it converts tensors only to their own dtype:
    `ValueError: Tensor conversion requested dtype float32 for Tensor with dtype float64`
    while tracing (measured under TF 2.21; tests/analyzer/test_hy414_numpy_dtype_conversions.py
    and test_hy414_conversions_measured.py measure it again, for every pair of int16, int32,
    int64, float32, float64 and bool, arrays and NumPy scalars). tf.function converts every
    NumPy leaf of a list, tuple or dict argument the same way, so an element read out of one
    is refused alike. An op input of one dtype refuses the int64 tensor as the conversion does
    ("TypeError: Input 'partitions' of 'DynamicPartition' Op has type int64 that does not
    match expected type of int32"), and an attribute refuses any tensor ("TypeError: Expected
    int for argument 'num_partitions'"; tests/analyzer/test_hy414_op_arguments_measured.py). Python numbers and lists are no hazard: tf.function passes Python values
    as they are, and a list converted as a whole is packed and cast, even a list of NumPy
    values.

    Example
    -------
        def predict(x):
            x = tf.convert_to_tensor(x, dtype=tf.float32)
            return tf.matmul(x, w)

        predict(np.random.rand(4, 3))                 # a float64 array

    Instead
    -------
    Cast rather than assert the dtype (`tf.cast(x, tf.float32)` works on the array and on a
    tensor of any dtype), or convert the data where it enters the program
    (`x.astype(np.float32)`).

    Not for torch.compile
    ---------------------
    Dynamo passes NumPy arrays through as they are; PyTorch's conversions (`torch.as_tensor(x,
    dtype=...)`) cast.
    """

    code = "HY414"
    frameworks = TENSORFLOW_ONLY
    name = "converts_numpy_arguments_to_other_dtypes"
    severity = "error"
    summary = (
        "converts a NumPy argument to another dtype with an API that refuses a tensor of its "
        "own dtype: traced, the argument is already a tensor and the conversion raises."
    )
    unblock = (
        "cast with tf.cast (an op attribute: pass int(n)), or convert the NumPy data to the "
        "dtype where it enters"
    )
    fact = "converts_numpy_arguments_to_other_dtypes"
    fact_meaning = (
        "a parameter some caller fills with a NumPy array, or whose value no caller shows, "
        "converted to another dtype by an API that refuses a tensor of its own dtype "
        "(`tf.convert_to_tensor(x, dtype=tf.float32)` of a float64 array: traced, the array "
        "is a float64 tensor and the conversion raises)"
    )
    decision_order = 65
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Only for a function that is not compiled yet: a compiled one receives tensors
        already, and its callers see what they see now."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(
            numpy_dtype_conversions(context.index, context.facts, context.key, context.framework)
        )
