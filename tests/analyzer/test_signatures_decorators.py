"""`tf.function` arguments, supplied input signatures and the P4 reconfiguration.

docs/verdicts.md sections 2-4: `decorator_args` records which `tf.function` parameters a decorator
or wrapper call supplies (deprecated spellings map to their successors), `f = tf.function(g)`
and `tf.function(g)(x)` compile `g`, a supplied `input_signature` is modelled into
`supplied_input_signature` and never overwritten (its relation to the call sites is reported),
and a decorated function lacking a signature gets P4 `reconfigure` when one can be inferred.
"""

from __future__ import annotations

import pytest
from facts_helpers import Files, analyse_with_signatures, case, decorator_args, field_value, verdict

from hybridize.model import FunctionVerdict, TensorSpec

Shape = tuple[int | None, ...] | None


def signature_verdict(files: Files, qualname: str) -> FunctionVerdict:
    verdicts = analyse_with_signatures(files)
    assert qualname in verdicts, f"{qualname} not analysed; got {sorted(verdicts)}"
    return verdicts[qualname]


def dense(dtype: str, shape: Shape) -> TensorSpec:
    return TensorSpec("TensorSpec", dtype, shape)


DECORATOR_ARGS = [
    case(
        "autograph-false",
        """
        import tensorflow as tf

        @tf.function(autograph=False)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(autograph=True),
    ),
    case(
        "reduce-retracing",
        """
        import tensorflow as tf

        @tf.function(reduce_retracing=True)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(reduce_retracing=True),
    ),
    case(
        "experimental-implements",
        """
        import tensorflow as tf

        @tf.function(experimental_implements="google.matmul_low_rank_4")
        def low_rank_matmul(a, b, c):
            return tf.matmul(a, tf.matmul(b, c))
        """,
        "low_rank_matmul",
        decorator_args(experimental_implements=True),
    ),
    case(
        "experimental-autograph-options",
        """
        import tensorflow as tf

        @tf.function(
            experimental_autograph_options=tf.autograph.experimental.Feature.EQUALITY_OPERATORS
        )
        def is_zero(x):
            return x == 0
        """,
        "is_zero",
        decorator_args(experimental_autograph_options=True),
    ),
    case(
        "experimental-follow-type-hints",
        """
        import tensorflow as tf

        @tf.function(experimental_follow_type_hints=True)
        def forward(x: tf.Tensor) -> tf.Tensor:
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(experimental_follow_type_hints=True),
    ),
    case(
        "every-keyword",
        """
        import tensorflow as tf

        @tf.function(
            input_signature=[tf.TensorSpec([None, 4], tf.float32)],
            autograph=True,
            jit_compile=False,
            reduce_retracing=False,
            experimental_implements="embedded_relu",
            experimental_autograph_options=(),
            experimental_follow_type_hints=False,
        )
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(
            input_signature=True,
            autograph=True,
            jit_compile=True,
            reduce_retracing=True,
            experimental_implements=True,
            experimental_autograph_options=True,
            experimental_follow_type_hints=True,
        ),
    ),
    case(
        "positional-up-to-jit-compile",
        """
        import tensorflow as tf

        @tf.function(None, None, True, True)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(func=True, input_signature=True, autograph=True, jit_compile=True),
    ),
    case(
        "experimental-compile-false-maps-to-jit-compile",
        """
        import tensorflow as tf

        @tf.function(experimental_compile=False)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(jit_compile=True),
    ),
    case(
        "from-import-function-alias-with-arguments",
        """
        from tensorflow import function as tf_function
        import tensorflow as tf

        @tf_function(jit_compile=True)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(jit_compile=True),
    ),
    case(
        "unaliased-module-two-keywords",
        """
        import tensorflow

        @tensorflow.function(reduce_retracing=True, jit_compile=True)
        def forward(x):
            return tensorflow.nn.relu(x)
        """,
        "forward",
        decorator_args(jit_compile=True, reduce_retracing=True),
    ),
    case(
        "wrapper-with-positional-signature",
        """
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)

        fast_forward = tf.function(forward, [tf.TensorSpec([None], tf.float32)])
        fast_forward(tf.ones([3]))
        """,
        "forward",
        decorator_args(func=True, input_signature=True),
    ),
    case(
        "wrapper-with-deprecated-relax-shapes",
        """
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)

        fast_forward = tf.function(forward, experimental_relax_shapes=True)
        fast_forward(tf.ones([3]))
        """,
        "forward",
        decorator_args(func=True, reduce_retracing=True),
    ),
    case(
        "immediately-called-wrapper-with-autograph",
        """
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)

        tf.function(forward, autograph=False)(tf.ones([3]))
        """,
        "forward",
        decorator_args(func=True, autograph=True),
    ),
]

IS_HYBRID = [
    case(
        "wrapper-assignment-in-other-module",
        {
            "blocks.py": "import tensorflow as tf\n\n\ndef forward(x):\n    return tf.nn.relu(x)\n",
            "main.py": "import tensorflow as tf\n\nfrom blocks import forward\n\n"
            "fast_forward = tf.function(forward)\nfast_forward(tf.ones([3]))\n",
        },
        "blocks.py::forward",
        True,
    ),
    case(
        "immediate-wrapper-call-in-a-test",
        """
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)

        def test_forward_is_non_negative():
            out = tf.function(forward)(tf.constant([-1.0, 2.0]))
            assert tf.reduce_min(out) >= 0.0
        """,
        "forward",
        True,
    ),
    case(
        "bound-method-wrapped-in-init",
        """
        import tensorflow as tf

        class Trainer:
            def __init__(self, model):
                self.model = model
                self.step = tf.function(self._step)

            def _step(self, x):
                return self.model(x, training=True)

        trainer = Trainer(tf.keras.Sequential([tf.keras.layers.Dense(1)]))
        trainer.step(tf.ones([2, 3]))
        """,
        "Trainer._step",
        True,
    ),
    case(
        "wrapper-through-from-import-function",
        """
        from tensorflow import function
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)

        fast_forward = function(forward)
        fast_forward(tf.ones([3]))
        """,
        "forward",
        True,
    ),
    case(
        "user-wrapper-is-not-tf-function",
        """
        import functools

        import tensorflow as tf

        def logged(fn):
            @functools.wraps(fn)
            def inner(*args):
                return fn(*args)

            return inner

        def forward(x):
            return tf.nn.relu(x)

        fast_forward = logged(forward)
        fast_forward(tf.ones([3]))
        """,
        "forward",
        False,
    ),
]

SUPPLIED = [
    case(
        "keyword-tensor-spec",
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec(shape=[None, 8], dtype=tf.float32)])
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        (dense("float32", (None, 8)),),
    ),
    case(
        "positional-tensor-spec-arguments",
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32)])
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        (dense("float32", (None, 8)),),
    ),
    case(
        "tensor-spec-default-dtype",
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None])])
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        (dense("float32", (None,)),),
    ),
    case(
        "unknown-rank",
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.int64)])
        def bump(ids):
            return ids + 1
        """,
        "bump",
        (dense("int64", None),),
    ),
    case(
        "scalar-string",
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([], tf.string)])
        def shout(text):
            return tf.strings.upper(text)
        """,
        "shout",
        (dense("string", ()),),
    ),
    case(
        "tuple-of-two-specs",
        """
        import tensorflow as tf

        @tf.function(
            input_signature=(
                tf.TensorSpec([None, 3], tf.float32),
                tf.TensorSpec([None], tf.int32),
            )
        )
        def gather_rows(table, ids):
            return tf.gather(table, ids)
        """,
        "gather_rows",
        (dense("float32", (None, 3)), dense("int32", (None,))),
    ),
    case(
        "module-level-name-bound-once",
        """
        import tensorflow as tf

        SIGNATURE = [tf.TensorSpec([None, 8], tf.float32)]

        @tf.function(input_signature=SIGNATURE)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        (dense("float32", (None, 8)),),
    ),
    case(
        "sparse-tensor-spec",
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.SparseTensorSpec(shape=[None, 10], dtype=tf.float32)])
        def densify(st):
            return tf.sparse.to_dense(st)
        """,
        "densify",
        (TensorSpec("SparseTensorSpec", "float32", (None, 10)),),
    ),
    case(
        "ragged-tensor-spec",
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
        def row_lengths(rt):
            return rt.row_lengths()
        """,
        "row_lengths",
        (TensorSpec("RaggedTensorSpec", "int32", (None, None)),),
    ),
    case(
        "nested-list-of-specs",
        """
        import tensorflow as tf

        @tf.function(input_signature=[[tf.TensorSpec([2]), tf.TensorSpec([2])]])
        def total(parts):
            return tf.add_n(parts)
        """,
        "total",
        ((dense("float32", (2,)), dense("float32", (2,))),),
    ),
    case(
        "wrapper-call-signature",
        """
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)

        fast_forward = tf.function(
            forward, input_signature=[tf.TensorSpec([None, 4], tf.float32)]
        )
        fast_forward(tf.ones([2, 4]))
        """,
        "forward",
        (dense("float32", (None, 4)),),
    ),
    case(
        "no-signature-supplied",
        """
        import tensorflow as tf

        @tf.function(jit_compile=True)
        def forward(x):
            return tf.nn.relu(x)

        forward(tf.ones([2, 4]))
        """,
        "forward",
        None,
    ),
]

PREDICT = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(4)])

        @tf.function
        def predict(x):
            return model(x, training=False)

        predict(tf.ones([8, 32]))
        predict(tf.ones([3, 32]))
"""

SUPPLIED_PREDICT = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(4)])

        @tf.function(input_signature=[tf.TensorSpec([None, 32], tf.float32)])
        def predict(x):
            return model(x, training=False)

        predict(tf.ones([8, 32]))
        predict(tf.ones([3, 32]))
"""

RECONFIGURE = [
    case("p4-precondition", PREDICT, "predict", "P4", field="passing_precondition"),
    case("p4-transformation", PREDICT, "predict", "reconfigure", field="transformation"),
    case("p4-passes", PREDICT, "predict", True, field="passes"),
    case(
        "p4-inferred-signature",
        PREDICT,
        "predict",
        (dense("float32", (None, 32)),),
        field="input_signature",
    ),
    case(
        "supplied-signature-not-reconfigured",
        SUPPLIED_PREDICT,
        "predict",
        None,
        field="transformation",
    ),
    case(
        "supplied-signature-kept",
        SUPPLIED_PREDICT,
        "predict",
        (dense("float32", (None, 32)),),
        field="supplied_input_signature",
    ),
    case(
        "side-effect-blocks-p4",
        """
        import tensorflow as tf

        @tf.function
        def predict(x):
            print("tracing predict")
            return tf.nn.softmax(x)

        predict(tf.ones([8, 32]))
        predict(tf.ones([3, 32]))
        """,
        "predict",
        None,
        field="transformation",
    ),
    case(
        "no-inferable-signature-keeps-it",
        """
        import tensorflow as tf

        @tf.function
        def double(x):
            return x * 2

        double(tf.ones([3]))
        double(tf.constant([1, 2, 3]))
        """,
        "double",
        ("has_no_primitive_parameters",),
        field="failures",
    ),
]

SIGNATURE_BATCH = """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec(SHAPE, tf.float32)])
        def embed(x):
            return tf.nn.l2_normalize(x, axis=-1)

"""

COMPARISON = [
    case(
        "supplied-broader-than-call-sites",
        SIGNATURE_BATCH.replace("SHAPE", "[None, 8]")
        + """
        embed(tf.ones([4, 8]))
        embed(tf.zeros([4, 8]))
        """,
        "embed",
        "broader",
    ),
    case(
        "supplied-unknown-rank-broader",
        SIGNATURE_BATCH.replace("SHAPE", "None")
        + """
        embed(tf.ones([3]))
        """,
        "embed",
        "broader",
    ),
    case(
        "supplied-tighter-than-call-sites",
        SIGNATURE_BATCH.replace("SHAPE", "[32, 8]")
        + """
        embed(tf.ones([32, 8]))
        embed(tf.ones([7, 8]))
        """,
        "embed",
        "tighter",
    ),
    case(
        "supplied-equal-to-call-sites",
        SIGNATURE_BATCH.replace("SHAPE", "[None, 8]")
        + """
        embed(tf.ones([2, 8]))
        embed(tf.ones([5, 8]))
        """,
        "embed",
        "equal",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), DECORATOR_ARGS)
def test_decorator_args(files, qualname, expected):
    assert verdict(files, qualname).facts.decorator_args == expected


@pytest.mark.parametrize(("files", "qualname", "expected"), IS_HYBRID)
def test_is_hybrid(files, qualname, expected):
    assert verdict(files, qualname).facts.is_hybrid is expected


@pytest.mark.parametrize(("files", "qualname", "expected"), SUPPLIED)
def test_supplied_input_signature(files, qualname, expected):
    assert signature_verdict(files, qualname).facts.supplied_input_signature == expected


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), RECONFIGURE)
def test_reconfigure(files, qualname, field, expected):
    assert field_value(signature_verdict(files, qualname), field) == expected


@pytest.mark.parametrize(("files", "qualname", "expected"), COMPARISON)
def test_supplied_signature_compared_with_call_sites(files, qualname, expected):
    messages = [f.message for f in signature_verdict(files, qualname).findings]
    assert any(expected in m.lower() for m in messages), messages


def test_no_p4_without_inference():
    """P4 needs `--infer-input-signatures`; otherwise the decorator is already right."""
    v = verdict(PREDICT, "predict")
    assert v.passing_precondition is None
    assert v.failures == ("has_no_primitive_parameters",)
