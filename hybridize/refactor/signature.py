"""Writing an inferred input signature as source: `[tf.TensorSpec(shape=(None, 32), dtype=tf.float32)]`.

The spec classes and dtype names are those of the report (docs/report-format.md); a nested tuple is
a parameter that takes a list of tensors and becomes a nested list. A spec that cannot be
written exactly (no dtype: TensorSpec would silently default to float32; an unknown class or
dtype) is refused rather than guessed.
"""

from __future__ import annotations

from hybridize.model import SpecTree, TensorSpec

SPEC_CLASSES = frozenset({"TensorSpec", "SparseTensorSpec", "RaggedTensorSpec"})

DTYPES = frozenset(
    {
        "bfloat16",
        "bool",
        "complex64",
        "complex128",
        "double",
        "float16",
        "float32",
        "float64",
        "half",
        "int8",
        "int16",
        "int32",
        "int64",
        "qint8",
        "qint16",
        "qint32",
        "quint8",
        "quint16",
        "resource",
        "string",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "variant",
    }
)
"""TensorFlow's public dtype names (`tf.<name>`)."""


class SignatureError(ValueError):
    """The signature cannot be written as source without changing its meaning."""


def render_shape(shape: tuple[int | None, ...] | None) -> str:
    """`None` (unknown rank), `()`, `(None,)`, `(2, None)`."""
    if shape is None:
        return "None"
    axes = ["None" if axis is None else str(int(axis)) for axis in shape]
    if len(axes) == 1:
        return f"({axes[0]},)"
    return f"({', '.join(axes)})"


def render_spec(spec: SpecTree, module: str) -> str:
    """One parameter's spec, or a nested list of them, with `module` for the TF module name."""
    if isinstance(spec, tuple):
        return "[" + ", ".join(render_spec(s, module) for s in spec) + "]"
    if not isinstance(spec, TensorSpec):
        raise SignatureError(f"not a tensor spec: {spec!r}")
    if spec.spec not in SPEC_CLASSES:
        raise SignatureError(f"unknown spec class {spec.spec!r}")
    if spec.dtype is None:
        raise SignatureError("a spec without dtype (TensorSpec would assume float32)")
    if spec.dtype not in DTYPES:
        raise SignatureError(f"unknown dtype {spec.dtype!r}")
    if spec.shape is not None and any(
        axis is not None and (isinstance(axis, bool) or not isinstance(axis, int) or axis < 0)
        for axis in spec.shape
    ):
        raise SignatureError(f"invalid shape {spec.shape!r}")
    return f"{module}.{spec.spec}(shape={render_shape(spec.shape)}, dtype={module}.{spec.dtype})"


def render_signature(signature: tuple[SpecTree, ...], module: str) -> str:
    """The value of `input_signature=`: a list with one entry per parameter."""
    return "[" + ", ".join(render_spec(spec, module) for spec in signature) + "]"
