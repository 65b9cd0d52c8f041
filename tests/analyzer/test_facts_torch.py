"""The facts and verdicts of PyTorch code under torch.compile's semantics.

Each case is decided from what Dynamo does with the code, by the labelling policy of
corpus/README.md ("Labelling policy for torch.compile"): graph breaks and skipped frames are
eager-only, Python state changed outside the function is a side effect, NumPy on tensors is
traced, Python numbers that vary recompile. Where the same code means something else under
tf.function, the TensorFlow twin is checked too: the difference comes from the framework's
rules, not from the code.
"""

from __future__ import annotations

import pytest
from facts_helpers import analyse, verdict

HEADER = """
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

"""

CALL = """
f(torch.ones(4, 3))
"""


def torch_program(body: str, call: str = CALL) -> str:
    return HEADER + body + call


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("def f(x):\n    print(x.shape)\n    return x * 2\n", "HY101"),
        ("import logging\n\ndef f(x):\n    logging.info('x')\n    return x * 2\n", "HY102"),
        ("def f(x):\n    torch.save(x, 'x.pt')\n    return x * 2\n", "HY103"),
        ("STEPS = [0]\n\ndef f(x):\n    STEPS.append(1)\n    return x * 2\n", "HY107"),
    ],
)
def test_python_side_effects_fail_under_torch_compile(body, code):
    v = verdict(torch_program(body), "f")
    assert v.framework == "torch"
    assert v.facts.has_python_side_effects is True
    assert code in {f.code for f in v.findings}
    assert "has_python_side_effects" in v.failures


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("def f(x):\n    return x * x.sum().item()\n", "HY301"),
        ("def f(x):\n    y = (x * 2).sum()\n    y.backward()\n    return y\n", "HY301"),
        ("def f(x):\n    if x.sum() > 0:\n        return x\n    return -x\n", "HY303"),
        ("def f(x):\n    while x.sum() > 1:\n        x = x / 2\n    return x\n", "HY303"),
        ("def f(x):\n    return x[x > 0].mean()\n", "HY303"),
        ("def f(x):\n    return x * float(x.sum())\n", "HY303"),
        ("def f(x):\n    return torch.bincount(x.long().flatten())\n", "HY301"),
    ],
)
def test_graph_breaks_are_eager_only_under_torch_compile(body, code):
    v = verdict(torch_program(body), "f")
    assert v.fact("has_eager_only_calls") is True
    assert code in {f.code for f in v.findings}
    assert v.passes is False


@pytest.mark.parametrize(
    "body",
    [
        "def f(x):\n    if tf.reduce_sum(x) > 0:\n        return x\n    return -x\n",
        "def f(x):\n    return x * float(tf.reduce_sum(x))\n",
    ],
)
def test_a_branch_on_a_tensor_or_a_cast_is_fine_for_tf_function(body):
    """AutoGraph converts the `if` and the `float()` for tf.function: no hazard there."""
    v = verdict("import tensorflow as tf\n\n" + body + "\nf(tf.ones((4, 3)))\n", "f")
    assert v.framework == "tensorflow"
    assert v.fact("has_eager_only_calls") is False


def test_a_branch_on_a_shape_is_no_hazard():
    body = "def f(x):\n    if x.shape[0] == 1:\n        return x\n    return x * 2\n"
    v = verdict(torch_program(body), "f")
    assert v.fact("has_eager_only_calls") is False
    assert v.transformation == "convert_to_hybrid"


def test_numpy_on_a_tensor_parameter_is_traced_not_eager_only():
    """Dynamo traces the NumPy call through torch._numpy: not tf.function's hazard (a
    symbolic tensor NumPy cannot read). A cumulative sum computes the same compiled; a true
    division that may be of integers does not (float32: HY432)."""
    body = "def f(x):\n    return torch.from_numpy(np.cumsum(x.numpy()))\n"
    v = verdict(torch_program(body), "f")
    assert v.fact("has_numpy_calls_on_parameters") is False
    assert v.fact("has_eager_only_calls") is False
    assert v.fact("computes_numpy_arrays") is False
    body = "def f(x):\n    return torch.from_numpy(x.numpy() / 2)\n"
    v = verdict(torch_program(body), "f")
    assert v.fact("computes_numpy_arrays") is True
    assert v.failures == ("computes_numpy_arrays",)


def test_varying_python_numbers_recompile():
    body = "def f(x, scale):\n    return x * scale\n"
    call = "\nf(torch.ones(3), 0.5)\nf(torch.ones(3), 2.0)\n"
    v = verdict(torch_program(body, call), "f")
    assert v.facts.has_primitive_parameters is True
    assert v.failures == ("has_primitive_parameters",)


def test_a_module_call_reaches_forward():
    body = (
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(3, 2)\n\n"
        "    def forward(self, x):\n"
        "        return torch.relu(self.fc(x))\n\n"
        "def f(x):\n    return Net()(x)\n"
    )
    v = verdict(torch_program(body), "Net.forward")
    assert v.facts.has_tensor_parameter is True
    assert v.facts.has_python_side_effects is False
    assert v.transformation == "convert_to_hybrid"
    init = verdict(torch_program(body), "Net.__init__")
    assert init.facts.has_python_side_effects is True  # stores sub-modules on self
    assert init.facts.has_tensor_computation is True  # nn.Linear initialises its parameters


def test_sequential_calls_each_module_on_the_previous_output():
    body = (
        "class Block(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x * 2\n\n"
        "def f(x):\n    return nn.Sequential(nn.Linear(3, 3), Block())(x)\n"
    )
    v = verdict(torch_program(body), "Block.forward")
    assert v.facts.has_tensor_parameter is True
    assert v.transformation == "convert_to_hybrid"


MODULE_CONTAINERS = (
    "class Block(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(3, 3)\n\n"
    "    def forward(self, x):\n"
    "        return torch.relu(self.fc(x))\n\n"
    "class Logged(nn.Module):\n"
    "    def forward(self, x):\n"
    "        print(x.shape)\n"
    "        return x\n\n"
    "class Net(nn.Module):\n"
    "    def __init__(self, depth):\n"
    "        super().__init__()\n"
    "        self.blocks = nn.ModuleList([Block() for _ in range(depth)])\n"
    "        self.extra = nn.ModuleList()\n"
    "        self.extra.append(Block())\n"
    "        self.heads = nn.ModuleDict({'main': nn.Linear(3, 2), 'debug': Logged()})\n\n"
    "    def forward(self, x):\n"
    "        for block in self.blocks:\n"
    "            x = block(x)\n"
    "        return self.extra[0](x)\n\n"
    "    def debug(self, x):\n"
    "        return self.heads['debug'](self.forward(x))\n\n"
    "net = Net(3)\n"
    "net(torch.ones(2, 3))\n"
    "net.debug(torch.ones(2, 3))\n"
)


@pytest.mark.parametrize(
    ("qualname", "tensor_parameter", "effects", "passes"),
    [
        # Iterated out of a ModuleList (a comprehension, and one appended to): calls forward.
        ("Block.forward", True, False, True),
        ("Net.forward", True, False, True),
        # Indexed out of a ModuleDict: Logged.forward prints, so `debug` has its effect.
        ("Logged.forward", True, True, False),
        ("Net.debug", True, True, False),
    ],
)
def test_module_lists_and_dicts_hold_the_modules_they_are_given(
    qualname: str, tensor_parameter: bool, effects: bool, passes: bool
) -> None:
    v = verdict(torch_program(MODULE_CONTAINERS), qualname)
    assert v.facts.has_tensor_parameter is tensor_parameter, v
    assert v.facts.has_python_side_effects is effects, v
    assert v.passes is passes, v


def test_calling_an_rnn_module_is_eager_only():
    body = "def f(x):\n    out, _ = nn.LSTM(3, 4, batch_first=True)(x)\n    return out\n"
    call = "\nf(torch.ones(2, 5, 3))\n"
    v = verdict(torch_program(body, call), "f")
    assert v.fact("has_eager_only_calls") is True


def test_a_loop_over_a_dataloader_is_eager_only_and_its_batches_are_tensors():
    body = (
        "def step(model, xb):\n    return model(xb).sum()\n\n"
        "def f(x):\n"
        "    model = nn.Linear(3, 1)\n"
        "    loader = DataLoader(TensorDataset(x), batch_size=2)\n"
        "    total = 0.0\n"
        "    for (xb,) in loader:\n"
        "        total = total + step(model, xb)\n"
        "    return total\n"
    )
    program = torch_program(body)
    assert verdict(program, "f").fact("has_eager_only_calls") is True
    step = verdict(program, "step")
    assert dict((p.name, p.is_tensor) for p in step.facts.params) == {"model": False, "xb": True}


def test_no_grad_blocks_and_in_place_updates_are_fine():
    body = (
        "def f(x):\n    with torch.no_grad():\n        y = x * 2\n        y.add_(1)\n    return y\n"
    )
    v = verdict(torch_program(body), "f")
    assert v.facts.has_python_side_effects is False
    assert v.fact("has_eager_only_calls") is False
    assert v.transformation == "convert_to_hybrid"


def test_a_generator_argument_advanced_by_a_draw_is_a_side_effect():
    body = "def f(n, generator):\n    return torch.randn(n, 2, generator=generator)\n"
    call = "\nf(4, torch.Generator().manual_seed(0))\n"
    v = verdict(torch_program(body, call), "f")
    assert v.facts.has_python_side_effects is True
    assert dict((p.name, p.is_tensor) for p in v.facts.params) == {"n": False, "generator": False}


def test_a_function_whose_result_is_differentiated_twice_is_hy422_not_eager_only():
    """AOTAutograd has no double backward: compiled, `score`'s graph cannot be differentiated
    by the `create_graph=True` gradient and then again (measured in corpus/torch/gan): its
    own code (HY422), not an eager-only call."""
    body = (
        "def score(x):\n    return (x * x).sum()\n\n"
        "def penalty(x):\n"
        "    x = x.requires_grad_(True)\n"
        "    (g,) = torch.autograd.grad(score(x), x, create_graph=True)\n"
        "    return g.norm()\n\n"
        "def plain(x):\n"
        "    x = x.requires_grad_(True)\n"
        "    (g,) = torch.autograd.grad(score(x), x)\n"
        "    return g.norm()\n\n"
        "def f(x):\n    return penalty(x) + plain(x)\n"
    )
    program = torch_program(body)
    score = verdict(program, "score")
    assert score.fact("has_eager_only_calls") is False
    assert "differentiated_twice" in score.failures
    assert {f.code for f in score.findings} >= {"HY422"}
    assert verdict(program, "penalty").fact("has_eager_only_calls") is True  # autograd.grad breaks


def test_a_single_backward_leaves_the_function_compilable():
    body = (
        "def score(x):\n    return (x * x).sum()\n\n"
        "def plain(x):\n"
        "    x = x.requires_grad_(True)\n"
        "    (g,) = torch.autograd.grad(score(x), x)\n"
        "    return g.norm()\n\n"
        "def f(x):\n    return plain(x)\n"
    )
    v = verdict(torch_program(body), "score")
    assert v.fact("has_eager_only_calls") is False
    assert v.transformation == "convert_to_hybrid"


LIBRARY_CALL = """
from sklearn.neighbors import NearestNeighbors
import einops
import math
import functools


def f(x):
    nn = NearestNeighbors(n_neighbors=2).fit(x.cpu().numpy())
    return torch.tensor(nn.kneighbors(x.cpu().numpy())[1]) * 2


def g(x):
    return einops.rearrange(x, "a b -> b a") * 2


def h(x):
    scale = math.sqrt(x.shape[-1])
    return functools.reduce(lambda a, b: a + b, [x, x]) / scale


f(torch.ones(4, 3))
g(torch.ones(4, 3))
h(torch.ones(4, 3))
"""


@pytest.mark.parametrize("name", ["f", "g"])
def test_a_call_into_an_untabled_library_is_not_known_to_compile(name):
    """torch.compile traces third-party Python code (measured on gpytorch: scikit-learn's
    input checks raised InternalTorchDynamoError); the standard library is no such code."""
    v = verdict(HEADER + LIBRARY_CALL, name)
    assert v.passes is False
    assert "has_eager_only_calls" in v.failures
    messages = [x.message for x in v.findings if x.code == "HY301"]
    assert any("no table for" in m for m in messages), messages


def test_the_standard_library_is_not_an_untabled_library():
    v = verdict(HEADER + LIBRARY_CALL, "h")
    assert not any("no table for" in x.message for x in v.findings)


def test_tf_function_runs_an_untabled_library_once_while_tracing():
    """Under tf.function the same call runs as Python at trace time: the eager-only rules
    (here `.numpy()` on a symbolic tensor) judge it, not the library's name."""
    program = "import tensorflow as tf\n" + LIBRARY_CALL.replace("torch.ones", "tf.ones").replace(
        "torch.tensor", "tf.constant"
    ).replace("x.cpu().numpy()", "x")
    v = verdict(program, "g")
    assert not any("no table for" in x.message for x in v.findings)


def test_the_benefit_names_the_functions_framework():
    program = HEADER + "def f(x):\n    return x * 2\n\nfor _ in range(100):\n    f(torch.ones(3))\n"
    v = verdict(program, "f")
    reasons = " ".join(v.benefit_reasons)
    assert "PyTorch work" in reasons and "TensorFlow" not in reasons, reasons


KEPT_LIBRARY_OBJECT = """
class Neighbours(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.index = None

    def fit(self, x):
        from sklearn.neighbors import NearestNeighbors

        self.index = [NearestNeighbors(n_neighbors=self.k).fit(x[i].numpy()) for i in range(2)]

    def query(self, x):
        found = self.index[0].kneighbors(x.cpu().numpy())[1]
        return torch.from_numpy(found) * 2


def nearest(model, x):
    return model.query(x) + 1


m = Neighbours(2)
m.fit(torch.ones(2, 5, 3))
m.query(torch.ones(4, 3))
nearest(m, torch.ones(4, 3))
"""


def test_a_method_of_an_object_a_library_made_is_a_call_into_that_library():
    """`self.index` holds what scikit-learn's `fit` returned (set in another method): calling
    its `kneighbors` runs scikit-learn, which torch.compile traces (measured on gpytorch's
    `NNUtil.find_nn_idx`: InternalTorchDynamoError inside scikit-learn's input checks)."""
    v = verdict(HEADER + KEPT_LIBRARY_OBJECT, "Neighbours.query")
    messages = [x.message for x in v.findings if x.code == "HY301"]
    assert any("sklearn.neighbors.NearestNeighbors().kneighbors" in m for m in messages), messages
    assert v.passes is False


def test_a_helper_calling_an_untabled_library_fails_its_caller_too():
    """The helper is traced inside its compiled caller, library call and all."""
    v = verdict(HEADER + KEPT_LIBRARY_OBJECT, "nearest")
    assert v.fact("has_eager_only_calls") is True
    messages = [x.message for x in v.findings if x.code == "HY301"]
    assert any("Neighbours.query" in m and "no table for" in m for m in messages), messages


def test_a_library_object_under_tf_function_stays_unknown():
    """tf.function runs the library as Python while tracing: no foreign-object rule, and the
    same method is judged by the eager-only rules alone (here it has none)."""
    program = "import tensorflow as tf\n" + KEPT_LIBRARY_OBJECT.replace("nn.Module", "object")
    program = program.replace("        super().__init__()\n", "").replace("torch.ones", "tf.ones")
    program = program.replace("torch.from_numpy(found)", "tf.constant(found)")
    program = program.replace("x.cpu().numpy()", "x").replace("x[i].numpy()", "x[i]")
    v = verdict(program, "Neighbours.query")
    assert v.framework == "tensorflow"
    assert not any("no table for" in x.message for x in v.findings)


DATA_ASSIGNMENT = """
import copy


class Kernel(nn.Module):
    def __init__(self):
        super().__init__()
        self.raw = nn.Parameter(torch.zeros(1, 3))

    def expand_batch(self, *sizes):
        new = copy.deepcopy(self)
        for name, param in self.named_parameters(recurse=False):
            new.__getattr__(name).data = param.expand(torch.Size([*sizes, *param.shape]))
        return new

    def widened(self, x):
        return self.expand_batch(2).raw * x


def reset(p, x):
    p.data = torch.zeros_like(x)
    return p * x


def scaled(p, x):
    return p.data * x


k = Kernel()
for _ in range(100):
    k.expand_batch(2)
    k.widened(torch.ones(1, 3))
    reset(nn.Parameter(torch.ones(3)), torch.ones(3))
    scaled(torch.ones(3), torch.ones(3))
"""


@pytest.mark.parametrize("name", ["Kernel.expand_batch", "reset"])
def test_assigning_a_tensors_data_is_not_known_to_compile(name):
    """Dynamo lowers `t.data = v` to `Tensor.set_` (not eager's shallow copy) and Inductor
    asserts when the shape changes (measured on gpytorch's `Kernel.expand_batch`: "wrong
    number of dimensions")."""
    v = verdict(HEADER + DATA_ASSIGNMENT, name)
    messages = [x.message for x in v.findings if x.code == "HY301"]
    assert any("`.data`" in m for m in messages), messages
    assert v.fact("has_eager_only_calls") is True


def test_a_caller_of_a_data_assigning_helper_fails_too():
    v = verdict(HEADER + DATA_ASSIGNMENT, "Kernel.widened")
    messages = [x.message for x in v.findings if x.code == "HY301"]
    assert any("Kernel.expand_batch" in m and "`.data`" in m for m in messages), messages


def test_reading_a_tensors_data_is_no_assignment():
    v = verdict(HEADER + DATA_ASSIGNMENT, "scaled")
    assert not any("`.data`" in x.message for x in v.findings)


def test_tf_function_has_no_data_assignment_rule():
    program = "import tensorflow as tf\n\nclass Box:\n    pass\n\n"
    program += "def reset(p, x):\n    p.data = x * 2\n    return x * 3\n\n"
    program += "reset(Box(), tf.ones(3))\n"
    v = verdict(program, "reset")
    assert not any("`.data`" in x.message for x in v.findings)


DENSITY = """
def density(x, scale):
    return torch.exp(-x * x / scale).sum() * torch.sin(x).mean()


def logged(x):
    print(x)
    return x * 2


for _ in range(100):
    density(torch.ones(64, 64), 1.0)
    logged(torch.ones(3))
"""

VALIDATION = "torch.distributions rejecting invalid arguments"


@pytest.mark.parametrize(
    "uses",
    [
        "from torch.distributions import Normal\n",
        "import torch.distributions as D\n",
        "from torch import distributions\n",
        "def prior(mu):\n    return torch.distributions.Normal(mu, 1.0)\n\nprior(torch.zeros(3))\n",
    ],
)
def test_an_addition_states_that_torch_compile_turns_distribution_validation_off(uses):
    """The first torch.compile (Dynamo's TorchPatcher) calls
    `Distribution.set_default_validate_args(False)` for the whole process (measured: a
    gpytorch prior's `log_prob` stopped raising the ValueError its test expects)."""
    verdicts = analyse({"model.py": HEADER + DENSITY, "priors.py": HEADER + uses})
    added = verdicts["model.py::density"]
    assert added.transformation == "convert_to_hybrid"
    assert any(VALIDATION in a for a in added.assumptions), added.assumptions
    blocked = verdicts["model.py::logged"]
    assert blocked.passes is False
    assert not any(VALIDATION in a for a in blocked.assumptions)


def test_a_project_without_torch_distributions_states_no_such_assumption():
    v = verdict(HEADER + DENSITY, "density")
    assert v.transformation == "convert_to_hybrid"
    assert v.assumptions == ()


def test_the_assumption_is_written_above_the_added_decorator():
    from pathlib import Path

    from hybridize.refactor.file_plan import plan_file

    text = HEADER + "from torch.distributions import Normal\n" + DENSITY
    verdicts = list(analyse({"model.py": text}).values())
    plan, _ = plan_file("model.py", Path("model.py"), text.encode(), verdicts)
    assert plan is not None
    new = plan.new_bytes().decode()
    assert f"# hybridize: assumes no code relies on {VALIDATION}" in new
    assert "@torch.compile\ndef density(x, scale):" in new


def test_a_foreign_librarys_value_is_still_of_unknown_kind():
    """What a third-party call gave is kept as that library's object, and is as unknown as
    before: passed for a parameter with values that differ between calls, it may be a Python
    number that recompiles (HY202), as an unknown value is."""
    program = HEADER + (
        "import somelib\n\n"
        "def scale(x, n):\n    return x * n\n\n"
        "for step in range(10):\n    scale(torch.ones(3), somelib.count(step))\n"
    )
    v = verdict(program, "scale")
    assert "undeterminable_primitive_parameter" in v.failures, v.failures
    assert "HY202" in {f.code for f in v.findings}


SHAPE_DERIVED = """
import math


def power(r, j, q):
    return torch.clamp(1 - r, min=0.0).pow(j + q)


class Piecewise(nn.Module):
    def __init__(self, q=2):
        super().__init__()
        self.q = q

    def forward(self, x1, x2):
        j = math.floor(x1.shape[-1] / 2.0) + self.q + 1
        return power(torch.cdist(x1, x2), j, self.q)


def widen(x, n):
    return x.unsqueeze(0).expand(n, *x.shape) * 2


def batch(x):
    return widen(x, x.size(0))


k = Piecewise()
for _ in range(100):
    k(torch.ones(5, 3), torch.ones(5, 3))
    batch(torch.ones(4, 3))
"""


@pytest.mark.parametrize(("name", "tensor"), [("power", "x1"), ("widen", "x")])
def test_a_number_computed_from_a_received_shape_varies_under_torch_compile(name, tensor):
    """Dynamo guards on an int argument's value and makes it a symbolic int once shapes
    change (measured on gpytorch's piecewise-polynomial `_fmax`: "NYI SymInt equality");
    `x.shape[-1]`, `x.size(0)` and `math.floor` of them are Python ints."""
    v = verdict(HEADER + SHAPE_DERIVED, name)
    assert "has_primitive_parameters" in v.failures, v.failures
    messages = [f.message for f in v.findings if f.code == "HY201"]
    assert any(f"the shape of `{tensor}`" in m for m in messages), messages


def test_under_tf_function_a_shape_of_the_trace_is_a_constant():
    """Each new input shape is a new trace, in which the number is a constant."""
    program = "import math\nimport tensorflow as tf\n\n"
    program += "def power(r, j):\n    return tf.pow(tf.maximum(1 - r, 0.0), float(j))\n\n"
    program += "def kernel(x):\n    return power(x, math.floor(x.shape[-1] / 2) + 1)\n\n"
    program += "for _ in range(100):\n    kernel(tf.ones((5, 3)))\n"
    v = verdict(program, "power")
    assert "has_primitive_parameters" not in v.failures
    assert not any("the shape of" in f.message for f in v.findings)


def test_a_tensors_sizes_are_python_ints():
    """`size()`, `dim()`, `numel()` are PyTorch's methods (not TensorFlow's NumPy-behaviour
    `size` attribute): a parameter filled only with them holds no tensor."""
    program = HEADER + (
        "def count(n, m, k):\n    return torch.zeros(n, m) + k\n\n"
        "def caller(x):\n    return count(x.size(0), x.dim(), x.numel())\n\n"
        "caller(torch.ones(4, 3))\n"
    )
    v = verdict(program, "count")
    assert {p.name: p.is_tensor for p in v.facts.params} == {"n": False, "m": False, "k": False}


def test_the_values_of_a_reduction_along_a_dim_are_a_tensor():
    program = HEADER + (
        "def top(x):\n    return x.max(dim=-1).values.mean().item()\n\ntop(torch.ones(4, 3))\n"
    )
    v = verdict(program, "top")
    assert any("`.item()`" in f.message for f in v.findings if f.code == "HY301")


def test_a_method_that_may_be_the_librarys_is_a_call_into_it():
    """`m.size()` where `m` may be a tensor or the library's object: the library's code may
    run, whatever the tensor's method of that name is."""
    program = HEADER + (
        "import somelib\n\n"
        "def sizes(x):\n"
        "    m = somelib.wrap(x) if x.dim() > 1 else x\n"
        "    return torch.zeros(m.size()) + x\n\n"
        "for _ in range(100):\n    sizes(torch.ones(4, 3))\n"
    )
    v = verdict(program, "sizes")
    messages = [f.message for f in v.findings if f.code == "HY301"]
    assert any("somelib.wrap().size" in m for m in messages), messages


VARYING_SHAPES = """
def score(x):
    for _ in range(8):
        x = torch.sin(x * 2) + torch.cos(x).abs() - x.exp() * x
    return x.sum() + x.mean() + x.std() + x.max()


def same(x):
    return torch.tanh(x) * 3 + x.relu() - x.sigmoid() + x.abs().log1p()


while True:  # unbounded: the compile is repaid (`CallCosts.trace`)
    score(torch.ones(8, 32))
    score(torch.randn((16, 32)))
    same(torch.zeros(4, 4))
    same(torch.full((4, 4), 2.0))
"""


def test_call_sites_of_different_shapes_recommend_dynamic_shapes():
    """Dynamo recompiles at the first new shape and then goes dynamic (measured: 4 batch
    sizes, 2 frames); `dynamic=True` is dynamic from the first call."""
    v = verdict(HEADER + VARYING_SHAPES, "score")
    shapes = {tuple(t.shape) for p in v.facts.params for t in p.tensor_types if t.shape is not None}
    assert shapes == {(8, 32), (16, 32)}
    reasons = " ".join(v.benefit_reasons)
    assert "`x` (call sites pass shapes (16, 32) and (8, 32))" in reasons, reasons
    assert "written with `dynamic=True`" in reasons, reasons
    assert "reduce_retracing" not in reasons


def test_call_sites_of_one_shape_recommend_nothing():
    v = verdict(HEADER + VARYING_SHAPES, "same")
    assert {tuple(t.shape) for p in v.facts.params for t in p.tensor_types if t.shape} == {(4, 4)}
    assert not any("change from call to call" in r for r in v.benefit_reasons)


STATE_READ = """
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)
        self.steps = 0
        self.temperature = 1.0

    def forward(self, x):
        for _ in range(8):
            x = torch.softmax(self.lin(x) / (1 + self.steps), dim=-1) * torch.sigmoid(x) + x.tanh()
        return x

    def smooth(self, x):
        for _ in range(8):
            x = torch.softmax(self.lin(x) / self.temperature, dim=-1) * torch.sigmoid(x) + x.tanh()
        return x


model = Scaled()
while True:  # unbounded: the compile is repaid (`CallCosts.trace`)
    for step in range(1000):
        model.steps = step
        model.temperature = 1.0 / (1 + step)
        model(torch.ones(4, 16))
        model.smooth(torch.ones(4, 16))
"""


def test_an_int_attribute_changed_between_calls_wastes_the_compilation():
    """Dynamo guards on the int and recompiles at every new value (measured: 6 frames over
    6 calls), then runs eagerly: the result is right, the benefit is gone."""
    v = verdict(HEADER + STATE_READ, "Scaled.forward")
    assert v.transformation == "convert_to_hybrid"
    assert v.benefit == "low"
    assert "reads `self.steps`" in v.benefit_reasons[0], v.benefit_reasons


def test_a_float_attribute_changed_between_calls_recompiles_once():
    v = verdict(HEADER + STATE_READ, "Scaled.smooth")
    assert v.benefit == "high", v.benefit_reasons


def test_a_shape_read_from_a_parameter_of_unknown_kind_varies_too():
    """gpytorch's kernels: `forward` has no call site in the project (its `x1` is of unknown
    kind), yet `x1.shape` makes it an array or a tensor, whose shape may change."""
    program = HEADER + (
        "import math\n\n"
        "def power(r, j):\n    return torch.clamp(1 - r, min=0.0).pow(j)\n\n"
        "class Kernel(nn.Module):\n"
        "    def forward(self, x1, x2):\n"
        "        j = math.floor(x1.shape[-1] / 2.0) + 1\n"
        "        return power(torch.cdist(x1, x2), j)\n"
    )
    v = verdict(program, "power")
    messages = [f.message for f in v.findings if f.code == "HY201"]
    assert any("the shape of `x1`" in m for m in messages), (v.failures, messages)


def test_a_library_the_tables_describe_is_judged_by_its_table():
    """matplotlib is a third-party library with a table (it plots: a side effect), so it is
    no call into a library without one."""
    program = HEADER + (
        "import matplotlib.pyplot as plt\n\n"
        "def show(x):\n    plt.plot(x.detach().numpy())\n    return x * 2\n\n"
        "show(torch.ones(3))\n"
    )
    v = verdict(program, "show")
    assert not any("no table for" in f.message for f in v.findings), v.findings
    assert v.facts.has_python_side_effects is True


MIXED = """
import tensorflow as tf
import torch
from torch import nn


def tf_score(x):
    return tf.reduce_sum(tf.sin(x) * tf.cos(x)) + tf.reduce_mean(tf.exp(x)) + tf.reduce_max(x)


def torch_score(x):
    return (torch.sin(x) * torch.cos(x)).sum() + torch.exp(x).mean() + x.max() + x.item()


def torch_clean(x):
    def inner(y):
        return y.tanh()

    return (torch.sin(x) * torch.cos(x)).sum() + torch.exp(x).mean() + inner(x).sum()


class Block(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


def both(x):
    return tf.ones(3), torch.ones(3) * x


for _ in range(100):
    tf_score(tf.ones((4, 4)))
    torch_score(torch.ones(4, 4))
    torch_clean(torch.ones(4, 4))
    Block()(torch.ones(4))
    both(torch.ones(3))
"""


@pytest.mark.parametrize(
    ("name", "framework"),
    [
        ("tf_score", "tensorflow"),
        ("torch_score", "torch"),
        ("torch_clean", "torch"),
        ("torch_clean.inner", "torch"),
        ("Block.forward", "torch"),
        ("both", "tensorflow"),
    ],
)
def test_a_module_importing_both_frameworks_is_judged_per_function(name, framework):
    """Each function by the framework whose names it uses (a nested function by its
    enclosing one's); one naming both keeps the module's default, TensorFlow."""
    assert verdict(MIXED, name).framework == framework


def test_each_function_of_a_mixed_module_gets_its_frameworks_rules():
    verdicts = analyse(MIXED)
    assert (
        verdicts["torch_score"].fact("has_eager_only_calls") is True
    )  # `.item()` breaks the graph
    assert verdicts["torch_clean"].transformation == "convert_to_hybrid"
    assert verdicts["tf_score"].transformation == "convert_to_hybrid"
