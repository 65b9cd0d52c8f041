"""HY407 has_python_value_returns: tf.function cannot return it, or returns it as a tensor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.returns import python_value_returns, returns_changed_by_removal
from hybridize.model import Finding

if TYPE_CHECKING:
    from hybridize.analyzer.facts.evaluator import TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.summaries.keys import FunctionKey

from . import TENSORFLOW_ONLY, Check


class HasPythonValueReturns(Check):
    """Returns something tf.function cannot return, or a Python value a caller needs as such.

    What it detects
    ---------------
    A function that may take tensors and returns, on some path:

    - a value `tf.function` cannot return at all: a Keras layer, model or optimizer, an
      instance of a plain project class, a function or class, a dtype, or what `tf.group`,
      `tf.no_op`, `tf.print` or a `tf.debugging.assert_*` op gives (a `tf.Operation` in a
      graph), or what a Keras metric's `update_state` gives (a `tf.Operation` in a graph
      under Keras 2, tf_keras; None under Keras 3), on a metric object or as
      `super().update_state(...)` in a project metric class; whole or anywhere in a returned
      tuple, list or dict (a list the body appends, extends or concatenates the ops to, or
      one a project function it calls returns: tensorflow-lattice's `assert_constraints`);
    - such an object (of a plain project class, a Keras layer) built by calling the class an
      instance has, `type(self)(...)` or `self.__class__(...)` (zfit's
      `BinnedHolder.with_variances`), whole, in a returned tuple, list or dict, or through
      the locals it is assigned to;
    - a TensorFlow Probability distribution, made in it or returned by a project function
      it calls (a Keras layer's `call` returning `(tfd.Normal(...), state)`), whole or in a
      returned tuple, list or dict: tf.function gives it back rebuilt from its type spec.
      Calling a layer object runs the `call` of its class: of the classes the project
      assigns to what is called (`self._net = QNetwork(...)`), not of every subclass of a
      base whose own `__call__` runs `super().__call__`;
    - an instance of a project class TensorFlow converts to a tensor: one registered with
      `tf.register_tensor_conversion_function(Cls, ...)` anywhere in the project (or a
      subclass of it: edward2's `RandomVariable`), or defining `__tf_tensor__`, made in it or
      returned by a project function it calls, whole or in a returned tuple, list or dict:
      compiled, it comes back as a tensor;
    - an instance of a project mapping class (a `dict`, `OrderedDict` or `Mapping`
      subclass) that `tf.function` cannot rebuild as it was, made in it or returned by a
      project function it calls, whole or in a returned tuple, list or dict: the first
      `__init__` the class or a project base defines requires an argument, takes no
      positional one, does not hand its positional argument (or `*args`) to the base's
      `__init__`, or sets an item or attribute of `self` from its parameters (HY442 owns
      the same classes as arguments, and one returned as a caller gave it);
    - likewise an instance of a project named tuple class (`collections.namedtuple`,
      `typing.NamedTuple`, or a subclass) that `tf.function` cannot rebuild as it was: the
      first `__new__` does not hand its fields to the base's `__new__` unchanged and in
      order, it or the first `__init__` requires a keyword, or that `__init__` sets an
      attribute of `self` from its parameters. Any other named tuple (graph_nets'
      `GraphsTuple`: `__init__(*args, **kwargs)` validating its fields, and methods) is a
      structure `tf.function` returns, not a plain project class;
    - likewise an instance of a project subclass of a TensorFlow Probability distribution or
      bijector whose type spec cannot be built: its first `__init__` takes `*args`/`**kwargs`
      or keeps a parameter under none of the names TFP reads it back by (`self.k`, `self._k`,
      `parameters[k]`; HY442 owns the same classes as receivers and arguments);
    - what a call of an unresolved callee gives (a name a project module makes at run time),
      on every path, when a caller in the project (tests count) reads an attribute of the
      whole result that no tensor has, nor a dict, list or namedtuple (`rv.distribution`):
      the value is then some object, which tf.function returns as a tensor or cannot return
      (a safety net: the analysis would otherwise take the call's result for a tensor);
    - `None` on one path and a tensor on another while the body branches on a tensor;
    - a Python value (a number, string or bool, `x.shape[i]`, `x.shape.as_list()`, a NumPy
      value) or a `tf.Variable`, which `tf.function` returns as a tensor, when a caller uses
      the result where a tensor does not do: to configure a Keras layer
      (`Dense(units=f(x))`), printed, logged or written, through `str`/`repr`/`json`, with a
      method a tensor lacks (`.upper()`, `.assign()`), as a dict key or a set element (`{f(k):
      v for k in keys}`: a tensor is not hashable); in a caller that itself runs as a graph,
      also as a list index, in `bool()` or NumPy. What a method of a Python string gives
      (`name.upper()`, `key.startswith(p)`) is such a Python value too.
    - a sort key (`min`/`max`/`sorted(..., key=f)`) returning a string or a Python value not
      known to be a number (compiled, a string tensor has no order), or any Python value to
      a caller running as a graph (the comparison's `bool()` of symbolic tensors raises).

    - static shape values, also the "static where known, dynamic otherwise" shape list
      (`[s if s is not None else tf.shape(x)[i] for i, s in enumerate(x.shape.as_list())]`),
      when a caller running as a graph (a Keras layer's `call`, which Keras runs on symbolic
      tensors, or a traced function) computes with them: passes them to an op (a
      `tf.reshape` target) or iterates a `range()` over them.
      Also such a shape returned as its caller gave it (a slice or element of a parameter
      every caller fills with shape values, static in some: larq's
      `_get_spatial_shape(input_shape)` returning `input_shape[1:-1]` of `inputs.shape`).

    - a `TensorShape` a caller passes in, returned whole or sliced (a slice of a
      `TensorShape` is one): a tensor's `.shape`, a `tf.TensorShape(...)`, or the shape Keras
      gives a layer's `build`, directly or passed on through the callers' own parameters
      (larq's `build` -> `_get_padding_same_shape` -> `_get_spatial_shape`), whatever the
      caller does with it.

    An eager tensor stands in for a Python number in most uses (a list index, `range(n)`,
    an `if` comparison, `"%d" % n`, `int(n)`): those callers are fine. When no caller is
    known, the verdict states the assumption that none needs the Python value.

    Why it matters in graph mode
    ----------------------------
    `tf.function` converts every returned leaf with `tf.nest`: Python numbers, strings,
    NumPy values and static shapes become tensors (a `TensorShape` with every dimension
    known an int32 tensor; one with an unknown dimension, as Keras' `build` gets, raises
    "found return value of type TensorShape"), a variable its current value, and other
    objects raise `TypeError: To be compatible with tf.function, Python functions must
    return zero or more Tensors or ExtensionTypes or None values`. A distribution is a
    composite tensor: it comes back as a new object rebuilt from its type spec, whose
    `parameters` hold tensors where the body passed None or a Python number (measured with
    TF 2.21 and TensorFlow Probability 0.25: `Normal(x, 1.0)` comes back with `scale` a
    tensor, `Deterministic(loc=x)` with `atol` and `rtol`, left None, tensors; tf-agents' PPO
    policy puts them in its policy info, which then no longer matches its spec). An object of a
    class with a tensor conversion (registered, or `__tf_tensor__`) is converted like a
    number: the caller gets an `EagerTensor`, and reading the object's attributes
    (`rv.distribution`) raises `AttributeError` (measured with TF 2.21). A returned
    mapping is rebuilt by calling its class: `type(x)()` filled item by item
    (`nest.sequence_like`) and `type(x)(pairs)` (`default_types.Dict.from_tensors`), so
    tf-pwa's `SU2M.__init__(self, x)` fails (TypeError) and `EulerAngle(alpha=0, beta=0,
    gamma=0)` comes back with `alpha` a generator of the pairs and `beta`, `gamma` 0,
    silently (measured on TF 2.21, tests/analyzer/test_rebuilt_mappings_measured.py); a
    class forwarding `*args, **kwargs` to `dict`, a `dict` and an `OrderedDict` come back
    equal. A returned named tuple is rebuilt as `type(x)(*fields)`: a `__new__` computing a
    field (`b + 1`) applies it again (silently), one making two fields of one argument or
    needing a keyword raises TypeError, an attribute `__init__` kept of another argument
    comes back None; one validating its fields in `__init__(*args, **kwargs)` comes back
    equal (tests/analyzer/test_rebuilt_namedtuples_measured.py). A returned distribution
    whose class's `__init__` keeps a parameter under no name TFP reads back fails the trace
    ("ValueError: Could not determine an appropriate value for field `centre`",
    tests/analyzer/test_hy442_composite_specs_measured.py). A branch on
    a tensor becomes `tf.cond`, whose branches must return the same structure, so `None` against a
    tensor raises `ValueError`. A caller that needed the Python value then fails (Keras:
    "Received an invalid value for `units`") or silently prints `tf.Tensor(4, shape=(),
    dtype=int32)` instead of `4`. In a caller running as a graph the compiled function is a
    call whose results are tensors of unknown value: a shape computed from them loses its
    static dims (measured under TF 2.21: `tf.reshape(x, [b, t, 2, d // 2])` is `(None, None,
    2, None)` instead of `(2, 3, 2, 4)`, and a Keras `Dense` built on it fails with "Shapes
    used to initialize variables must be fully-defined"; `range(t)` raises).

    Example
    -------
        def hidden_width(x):
            return x.shape[-1] * 2

        head = tf.keras.layers.Dense(hidden_width(features))

    Instead
    -------
    Leave functions that compute configuration or Python values eager, and compile the
    function that does the tensor work. Return tensors (or None on every path) from a
    compiled function, and keep Keras objects and operations inside it:

        @tf.function
        def step(x):
            v.assign_add(tf.reduce_sum(x))
            return v.read_value()

    Not for torch.compile
    ---------------------
    tf.function returns Python values as tensors; Dynamo returns them as the eager code
    does.
    """

    code = "HY407"
    unblock = "return tensors (or None on every path), and leave Python-value functions eager"
    frameworks = TENSORFLOW_ONLY
    name = "has_python_value_returns"
    severity = "error"
    summary = (
        "Returns what tf.function cannot return (a Keras object, a tf.Operation, None or a "
        "tensor), or a Python value that a caller needs as such."
    )
    EXAMPLE_FUNCTION = "f"
    fact = "has_python_value_returns"
    fact_meaning = (
        "a return a compiled function cannot give back as the eager code did, or a Python "
        "value a caller needs as such"
    )
    report_order = 80
    decision_order = 80

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Only for a function that may be compiled (a model factory taking no tensor is not); with
        no caller known, the verdict states the assumption that none needs a Python value."""
        if not context.compilable:
            return []
        project = context.project
        evidence, assumptions = python_value_returns(
            context.index, context.facts, context.key, project.compiled, project.traced
        )
        for assumption in assumptions:
            context.assume(assumption)
        return cls.findings(evidence)

    @classmethod
    def keeps_decorator(
        cls, index: ProjectIndex, facts: TensorFacts, key: FunctionKey
    ) -> str | None:
        """The same fact seen from the other side: a compiled function returning Python
        values as tensors to a caller that reads them keeps its decorator (HY005)."""
        return returns_changed_by_removal(index, facts, key)
