"""Generate ``tensorflow_api.json``: every public name of TensorFlow and Keras, as data.

Run by hand whenever the pinned TensorFlow or Keras version changes::

    .venv/bin/python -m tools.api_tables.generate_tensorflow_api

This is the only place that imports TensorFlow: the analyzer reads the JSON it writes.

What is recorded:

* ``entries``: canonical dotted name -> ``[kind, role]``. ``kind`` is "function", "class",
  "module" or "constant". ``role`` is what the object *is* in hybridize's vocabulary, derived
  from the real class hierarchy: for classes "layer", "model", "optimizer", "loss", "metric",
  "dataset", "dataset_iterator", "variable", "tensor_type", "spec", "dtype", "tape",
  "strategy", "checkpoint", "random_generator", "summary_writer", "file", "keras_symbolic",
  "python" (plain value types such as TensorShape) or "object"; for constants "dtype",
  "python" (int, str, None, ...) or "object"; for functions the role of the class they are a
  static/class method of (``tensorflow.data.Dataset.range`` -> "dataset"), else "".
* ``aliases``: every other spelling of the same object -> its canonical name
  (``tensorflow.add`` -> ``tensorflow.math.add``). A module alias stands for every name below
  it, which keeps the file small (``tensorflow.compat.v1.raw_ops.*`` is not repeated).
* ``role_members``: public members of the classes that stand for receiver roles
  (``"dataset": {"map": "method", "element_spec": "attribute", ...}``), used for methods that
  the curated tables do not name.
* ``parameters``: canonical name of a function or class -> the names of its parameters that
  can be passed positionally, in order (a class: its constructor, without ``self``), with
  ``"*"`` last when it also takes ``*args`` (``tensorflow.math.sqrt`` -> ``["x","name"]``,
  ``tensorflow.print`` -> ``["*"]``). Names without an inspectable signature are absent.
  ``tensorflow.raw_ops.*`` take keyword arguments only (TF's ``kwarg_only`` wrapper raises on
  positional ones), so they are recorded as ``[]`` although their signature names ``x, y``.

Spelling: ``tensorflow.keras.X`` is walked as ``keras.X`` (Keras 3 is tf.keras), so every Keras
name is canonical under ``keras.``. ``tensorflow.compat.v2`` is not walked: it mirrors
``tensorflow`` and the query API rewrites the prefix.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path
from typing import Any

from ._apiwalk import (
    Walk,
    choose_canonical,
    member_kinds,
    object_key,
    positional_parameters,
    walk_modules,
)
from ._apiwalk import (
    write_api_json as write_json,
)

OUTPUT = (
    Path(__file__).resolve().parents[2]
    / "hybridize"
    / "analyzer"
    / "frameworks"
    / "tensorflow_api.json"
)

#: Dotted names never walked (nor anything below them).
SKIPPED = (
    "tensorflow.keras",  # walked as keras
    "tensorflow.compat.v2",  # mirrors tensorflow; lookup() rewrites the prefix
    "tensorflow.compat.v1.compat",
    "tensorflow.compat.v1.keras",  # lookup() rewrites to keras
    "keras.src",  # Keras' private implementation package
    "keras.api",
)

#: Static/class methods that nearly every class has; recording them per class is noise
#: (lookup() answers them from the owning class's role).
NOISY_MEMBERS = frozenset(
    {"from_config", "with_name_scope", "experimental_from_proto", "experimental_type_proto"}
)


def _skip(name: str) -> bool:
    return any(name == s or name.startswith(s + ".") for s in SKIPPED)


def _recurse_into(module: types.ModuleType) -> bool:
    # Only the generated API packages: tf.compat.v1.flags is absl's flags module, not API.
    try:
        name = str(module.__name__)
    except AttributeError:  # tf's KerasLazyLoader refuses __name__ under Keras 3
        return False
    if name in ("tensorflow", "tensorflow.experimental") or name.startswith("tensorflow._api."):
        return True
    return (name == "keras" or name.startswith("keras.")) and not name.startswith("keras.src")


def _rank(name: str) -> tuple[int, int, int, int, str]:
    """Canonical preference when the framework does not say: v2 over compat.v1, stable over
    experimental, shallow over deep, short over long."""
    return (
        int(".compat.v1." in name),
        int("experimental" in name),
        name.count("."),
        len(name),
        name,
    )


def _preferred_names(obj: object) -> list[str]:
    """The framework's own export names of ``obj``, canonical first."""
    from tensorflow.python.util import tf_decorator

    out: list[str] = []
    own = vars(obj) if isinstance(obj, type) else {}
    keras_path: Any = own.get("_api_export_path") if isinstance(obj, type) else None
    if keras_path is None and not isinstance(obj, type):
        keras_path = getattr(obj, "_api_export_path", None)
    if isinstance(keras_path, str):
        out.append(keras_path)
    elif isinstance(keras_path, list | tuple):
        out.extend(str(p) for p in keras_path)
    try:
        target = tf_decorator.unwrap(obj)[1]
    except Exception:
        target = obj
    if isinstance(target, type):
        names: Any = vars(target).get("_tf_api_names", ())
        names_v1: Any = vars(target).get("_tf_api_names_v1", ())
    else:
        names = getattr(target, "_tf_api_names", ())
        names_v1 = getattr(target, "_tf_api_names_v1", ())
    out.extend(f"tensorflow.{n}" for n in names)
    out.extend(f"tensorflow.compat.v1.{n}" for n in names_v1)
    return out


class _Roles:
    """Role of a class from the real class hierarchy (first matching base wins)."""

    def __init__(self) -> None:
        import keras
        import tensorflow as tf
        from keras.src.backend.common.variables import Variable as KerasVariable
        from keras.src.optimizers.base_optimizer import BaseOptimizer

        self.dtype_type: type = tf.DType
        self.table: list[tuple[type, str]] = [
            (keras.Model, "model"),
            (keras.layers.Layer, "layer"),
            (BaseOptimizer, "optimizer"),
            (tf.compat.v1.train.Optimizer, "optimizer"),
            (keras.losses.Loss, "loss"),
            (keras.metrics.Metric, "metric"),
            (KerasVariable, "variable"),
            (keras.KerasTensor, "keras_symbolic"),
            (tf.data.Dataset, "dataset"),
            (tf.data.Iterator, "dataset_iterator"),
            (tf.Variable, "variable"),
            (tf.Tensor, "tensor_type"),
            (tf.RaggedTensor, "tensor_type"),
            (tf.SparseTensor, "tensor_type"),
            (tf.IndexedSlices, "tensor_type"),
            (tf.TypeSpec, "spec"),
            (tf.DType, "dtype"),
            (tf.TensorShape, "python"),
            (tf.GradientTape, "tape"),
            (tf.distribute.Strategy, "strategy"),
            (tf.compat.v1.distribute.Strategy, "strategy"),
            (tf.train.Checkpoint, "checkpoint"),
            (tf.train.CheckpointManager, "checkpoint"),
            (tf.compat.v1.train.Saver, "checkpoint"),
            (tf.random.Generator, "random_generator"),
            (tf.summary.SummaryWriter, "summary_writer"),
            (tf.io.gfile.GFile, "file"),
            (tf.io.TFRecordWriter, "file"),
        ]

    def of_class(self, cls: type) -> str:
        for base, role in self.table:
            try:
                if issubclass(cls, base):
                    return role
            except TypeError:
                continue
        return "object"

    def of_constant(self, value: object) -> str:
        if isinstance(value, self.dtype_type):
            return "dtype"
        if isinstance(value, int | float | complex | str | bytes | bool | type(None) | tuple):
            return "python"
        return "object"


def _role_classes() -> dict[str, list[type]]:
    """The classes whose public members describe each receiver role."""
    import keras
    import tensorflow as tf

    eager_tensor = type(tf.constant(0.0))
    variable = type(tf.Variable(0.0))
    return {
        "tensor": [tf.Tensor, eager_tensor],
        "variable": [tf.Variable, variable],
        "dataset": [tf.data.Dataset],
        "dataset_iterator": [tf.data.Iterator],
        "tape": [tf.GradientTape],
        "layer": [keras.layers.Layer],
        "model": [keras.Model],
        "optimizer": [keras.optimizers.Optimizer],
        "loss": [keras.losses.Loss],
        "metric": [keras.metrics.Metric],
        "strategy": [tf.distribute.Strategy],
        "checkpoint": [tf.train.Checkpoint, tf.train.CheckpointManager],
        "random_generator": [tf.random.Generator],
        "summary_writer": [tf.summary.SummaryWriter],
        "keras_symbolic": [keras.KerasTensor],
        "spec": [tf.TypeSpec],
    }


def _tf_unwrap(obj: object) -> object:
    """The function or class under TF's decorators (``tf_decorator.unwrap``)."""
    from tensorflow.python.util import tf_decorator

    return tf_decorator.unwrap(obj)[1]


def _keyword_only(obj: object) -> bool:
    """True when TF's ``kwarg_only`` wrapper (every ``tf.raw_ops`` op) rejects positional
    arguments: ``inspect.signature`` follows ``__wrapped__`` to the op's own parameters."""
    from tensorflow.python.util import tf_decorator

    try:
        decorators = tf_decorator.unwrap(obj)[0]
    except Exception:
        return False
    return any(getattr(d, "decorator_name", None) == "kwarg_only" for d in decorators)


def _positional_parameters(obj: object) -> list[str] | None:
    if _keyword_only(obj):
        return []
    return positional_parameters(obj, unwrap=_tf_unwrap)


def build() -> tuple[dict[str, object], dict[str, dict[str, Any]]]:
    """Walk TensorFlow and Keras; return (header, sections) of the JSON file."""
    import keras
    import tensorflow as tf

    roles = _Roles()
    walk = Walk()
    # Keras first, then tf.keras (keras._tf_keras.keras) under the same "keras" prefix: it adds
    # the legacy names Keras 3 keeps for tf.keras users (keras.backend.* ops, ...).
    walk_modules(
        [("keras", keras)],
        skip=_skip,
        recurse_into=_recurse_into,
        class_members=lambda _n, _c: True,
        skip_members=NOISY_MEMBERS,
        walk=walk,
    )
    walk_modules(
        [("keras", tf.keras)],
        skip=_skip,
        recurse_into=_recurse_into,
        class_members=lambda _n, _c: True,
        skip_members=NOISY_MEMBERS,
        walk=walk,
    )
    walk_modules(
        [("tensorflow", tf)],
        skip=_skip,
        recurse_into=_recurse_into,
        class_members=lambda _n, _c: True,
        skip_members=NOISY_MEMBERS,
        walk=walk,
    )

    canonical_of: dict[str, str] = {}
    for names in walk.names_of.values():
        obj = walk.objects[names[0]]
        canonical = choose_canonical(names, _preferred_names(obj), _rank)
        for name in names:
            canonical_of[name] = canonical

    def canonical_name(name: str) -> str:
        # A static/class method lives under its class's canonical name, whatever spelling of
        # the class it was reached through.
        owner = walk.members.get(name)
        if owner is not None:
            return canonical_of.get(owner, owner) + name[len(owner) :]
        return canonical_of.get(name, name)

    entries: dict[str, list[str]] = {}
    aliases: dict[str, str] = {}
    parameters: dict[str, list[str]] = {}
    for name, obj in walk.objects.items():
        canonical = canonical_name(name)
        if canonical != name:
            aliases[name] = canonical
            continue
        kind = walk.kinds[name]
        if kind in ("function", "class"):
            positional = _positional_parameters(obj)
            if positional is not None:
                parameters[name] = positional
        if kind == "class":
            assert isinstance(obj, type)
            role = roles.of_class(obj)
        elif kind == "constant":
            role = roles.of_constant(obj)
        elif kind == "function" and name in walk.members:
            owner = walk.objects[walk.members[name]]
            assert isinstance(owner, type)
            role = roles.of_class(owner)
        else:
            role = ""
        entries[name] = [kind, role]
    dangling = sorted(alias for alias, target in aliases.items() if target not in entries)
    assert not dangling, f"aliases without a canonical entry: {dangling[:10]}"

    role_members: dict[str, dict[str, str]] = {}
    for role, classes in _role_classes().items():
        members: dict[str, str] = {}
        for cls in classes:
            for member, member_kind in member_kinds(cls).items():
                members.setdefault(member, member_kind)
        role_members[role] = members

    assert object_key(None) is None
    header: dict[str, object] = {
        "format": 1,
        "generated_by": "python -m tools.api_tables.generate_tensorflow_api",
        "versions": {"tensorflow": tf.__version__, "keras": keras.__version__},
    }
    sections: dict[str, dict[str, Any]] = {
        "entries": entries,
        "aliases": aliases,
        "role_members": role_members,
        "parameters": parameters,
    }
    return header, sections


def main() -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    header, sections = build()
    write_json(OUTPUT, header, sections)
    entries = sections["entries"]
    print(
        f"wrote {OUTPUT}: {len(entries)} canonical names, {len(sections['aliases'])} aliases, "
        f"{len(sections['parameters'])} signatures",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
