"""Compiled methods and functions of TensorFlow Probability composite tensors (HY442), measured.

TFP 0.25's concrete distributions and bijectors are auto-composite tensors: `tf.function`
flattens such a receiver or argument by its type spec, which TFP builds from the `__init__`
parameters of the object's class, each read back as `obj.k`, `obj._k` or `obj.parameters[k]`.
A project subclass whose `__init__` keeps a parameter under none of those names (tf-agents'
`PenalizedPlackettLuce(features, num_slots, logits)` passing `logits` on as `scores`) fails
the compiled call; eagerly no spec is built. The abstract `tfd.Distribution` and
`tfb.Bijector`, `tf.Module`, Keras layers and a plain object holding a distribution are no
composite tensors; an `ExtensionType` declares its fields. Measured here, in one program, on
the installed TensorFlow and TFP; `test_hy442_arguments_replaced_by_tracing.py` holds the
rule to the same classes.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

CLASSES = """
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
tfb = tfp.bijectors


class Lost(tfd.PlackettLuce):  # `logits` handed on as `scores`, kept under no such name
    def __init__(self, features, num_slots, logits):
        self._features = features
        self._num_slots = num_slots
        super().__init__(scores=logits)

    def pen(self, x):
        return x - tf.reduce_sum(self._features)


class LostChild(Lost):  # the hierarchy: the first `__init__` decides
    def pen(self, x):
        return x * 2.0


class Stored(tfd.PlackettLuce):  # `self._logits` kept
    def __init__(self, features, num_slots, logits):
        self._features = features
        self._num_slots = num_slots
        self._logits = logits
        super().__init__(scores=logits)

    def pen(self, x):
        return x - tf.reduce_sum(self._features)


class Locals(tfd.PlackettLuce):  # the TFP idiom: parameters = dict(locals())
    def __init__(self, features, logits):
        parameters = dict(locals())
        self._features = features
        super().__init__(scores=logits)
        self._parameters = parameters

    def pen(self, x):
        return x - tf.reduce_sum(self._features)


class SameName(tfd.PlackettLuce):  # handed on under its own name: the base keeps it
    def __init__(self, scores, features):
        self._features = features
        super().__init__(scores=scores)

    def pen(self, x):
        return x * 2.0


class Property(tfd.PlackettLuce):  # read back through a property of that name
    def __init__(self, features, logits):
        self._feats = features
        super().__init__(scores=logits)

    @property
    def features(self):
        return self._feats

    @property
    def logits(self):
        return self.scores

    def pen(self, x):
        return x * 2.0


class Starred(tfd.PlackettLuce):
    def __init__(self, logits, **kwargs):
        self._logits = logits
        super().__init__(scores=logits)

    def pen(self, x):
        return x * 2.0


class LostNormal(tfd.Normal):
    def __init__(self, mean, sd):
        super().__init__(loc=mean, scale=sd)

    def pen(self, x):
        return self.log_prob(x)


class LostShift(tfb.Shift):
    def __init__(self, amount):
        super().__init__(shift=amount)

    def pen(self, x):
        return self.forward(x)


class AbstractDistribution(tfd.Distribution):  # no composite tensor
    def __init__(self, mean):
        super().__init__(
            dtype=tf.float32,
            reparameterization_type=tfd.FULLY_REPARAMETERIZED,
            validate_args=False,
            allow_nan_stats=True,
        )

    def pen(self, x):
        return x * 2.0


class AbstractBijector(tfb.Bijector):  # no composite tensor
    def __init__(self, amount):
        super().__init__(forward_min_event_ndims=0)

    def pen(self, x):
        return x * 2.0


class Module(tf.Module):  # no composite tensor
    def __init__(self, weight):
        super().__init__()
        self.w = tf.Variable(weight)

    def pen(self, x):
        return x * self.w


class Masked(tf.experimental.ExtensionType):  # declares its fields
    values: tf.Tensor

    def pen(self, x):
        return x + tf.reduce_sum(self.values)


class Holder:  # a plain object holding a distribution: not flattened
    def __init__(self, dist):
        self.dist = dist

    def pen(self, x):
        return self.dist.log_prob(x)


def free(dist, x):
    return x * 2.0
"""

PROBE = (
    CLASSES
    + """
import os
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
logits = tf.constant([1.0, 2.0, 3.0])
features = tf.ones([3, 2])
x = tf.constant([0.1, 0.2, 0.3])

CASES = (
    ("lost", lambda: Lost(features, 2, logits)),
    ("lost_python_values", lambda: Lost(features, 2, [1.0, 2.0, 3.0])),
    ("lost_child", lambda: LostChild(features, 2, logits)),
    ("stored", lambda: Stored(features, 2, logits)),
    ("stored_python_values", lambda: Stored([[1.0]], 2, [1.0, 2.0, 3.0])),
    ("locals", lambda: Locals(features, logits)),
    ("same_name", lambda: SameName(logits, features)),
    ("property", lambda: Property(features, logits)),
    ("starred", lambda: Starred(logits, a=1)),
    ("lost_normal", lambda: LostNormal(0.0, 1.0)),
    ("lost_shift", lambda: LostShift(1.0)),
    ("abstract_distribution", lambda: AbstractDistribution(1.0)),
    ("abstract_bijector", lambda: AbstractBijector(1.0)),
    ("module", lambda: Module(2.0)),
    ("extension_type", lambda: Masked(x)),
    ("holder", lambda: Holder(LostNormal(0.0, 1.0))),
)


def run(call):
    try:
        call()
        return "ok"
    except Exception as error:
        return type(error).__name__


for label, make in CASES:
    obj = make()  # kept: a compiled method holds its instance weakly
    eager = run(lambda: obj.pen(x))
    method = run(lambda: tf.function(type(obj).pen)(obj, x))
    argument = run(lambda: tf.function(free)(obj, x))
    returned = run(lambda: tf.function(make)())
    print(label, eager, method, argument, returned)
"""
)

FAILING = ("lost", "lost_python_values", "lost_child", "starred", "lost_normal", "lost_shift")
COMPOSITE = ("stored", "stored_python_values", "locals", "same_name", "property", "extension_type")
WORKING = (
    "stored",
    "stored_python_values",
    "locals",
    "same_name",
    "property",
    "abstract_distribution",
    "abstract_bijector",
    "module",
    "extension_type",
    "holder",
)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow_probability") is None, reason="TFP absent")
def test_tf_function_fails_on_a_composite_whose_init_parameters_are_not_kept() -> None:
    measured = run_probe(PROBE, TF_USE_LEGACY_KERAS="1")
    for label in FAILING:
        # eagerly the method runs; compiled, as the receiver, as an argument or returned,
        # the type spec cannot be built (ValueError), whatever the parameters hold
        assert measured[label] == "ok ValueError ValueError ValueError", (label, measured)
    for label in WORKING:
        # passed in: as eagerly; returned: a composite comes back rebuilt, a plain object
        # (a module, an abstract distribution, a holder) cannot be returned (HY407's)
        eager, method, argument, returned = measured[label].split()
        assert (eager, method, argument) == ("ok", "ok", "ok"), (label, measured)
        assert (returned == "ok") == (label in COMPOSITE), (label, measured)


def test_the_rule_flags_the_classes_measured_failing_and_only_those() -> None:
    """The analyzer (no framework import) on the same classes: a compiled method of each is
    flagged by HY442 exactly where the measurement fails."""
    calls = """

x = tf.constant([0.1, 0.2, 0.3])
logits = tf.constant([1.0, 2.0, 3.0])
features = tf.ones([3, 2])
Lost(features, 2, logits).pen(x)
LostChild(features, 2, logits).pen(x)
Stored(features, 2, logits).pen(x)
Locals(features, logits).pen(x)
SameName(logits, features).pen(x)
Property(features, logits).pen(x)
Starred(logits, a=1).pen(x)
LostNormal(0.0, 1.0).pen(x)
LostShift(1.0).pen(x)
AbstractDistribution(1.0).pen(x)
AbstractBijector(1.0).pen(x)
Module(2.0).pen(x)
Masked(x).pen(x)
Holder(LostNormal(0.0, 1.0)).pen(x)
free(Lost(features, 2, logits), x)


def make_lost(x):
    return Lost(x, 2, x * 2.0)


def make_stored(x):
    return Stored(x, 2, x * 2.0)


make_lost(x)
make_stored(x)
"""
    verdicts = analyse(CLASSES + calls)
    names = {
        "lost": "Lost",
        "lost_child": "LostChild",
        "stored": "Stored",
        "locals": "Locals",
        "same_name": "SameName",
        "property": "Property",
        "starred": "Starred",
        "lost_normal": "LostNormal",
        "lost_shift": "LostShift",
        "abstract_distribution": "AbstractDistribution",
        "abstract_bijector": "AbstractBijector",
        "module": "Module",
        "extension_type": "Masked",
        "holder": "Holder",
    }
    for label, cls in names.items():
        flagged = any(f.code == "HY442" for f in verdicts[f"{cls}.pen"].findings)
        assert flagged == (label in FAILING), (label, verdicts[f"{cls}.pen"].findings)
    # a free function receiving such an object: the same spec, the same failure
    assert any(f.code == "HY442" for f in verdicts["free"].findings), verdicts["free"].findings
    # returned: HY407 (the spec of what tf.function returns is built the same way)
    assert any(f.code == "HY407" for f in verdicts["make_lost"].findings), verdicts["make_lost"]
    assert verdicts["make_stored"].passes, verdicts["make_stored"].findings
