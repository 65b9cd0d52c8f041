"""Small projects with their own pytest tests, and a stand-in for TensorFlow, on which
`hybridize refactor --verify` (tests/verify/test_verify.py) and the real-code oracle's blame
(tests/verify/test_oracle_blame.py) are run end to end without a framework."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

STAND_IN = '''\
"""A stand-in for TensorFlow: inside a `function`, a tensor is symbolic (no `.numpy()`), and
every argument must hash."""

import functools
import inspect

_graph = []


class Tensor:
    def __init__(self, value):
        self.value = value

    def numpy(self):
        if _graph:
            raise AttributeError("'SymbolicTensor' object has no attribute 'numpy'")
        return self.value

    def __mul__(self, factor):
        return Tensor([v * factor for v in self.value])

    def __add__(self, other):
        return Tensor(self.value + other.value)


def constant(value):
    return Tensor(value)


def reduce_sum(x):
    return Tensor(sum(x.value))


class Operation:
    """What `group` gives: a compiled function may not return it."""


def group(*inputs):
    return Operation()


def function(func=None, **options):
    if func is None:
        return lambda f: function(f, **options)

    parameters = inspect.signature(func).parameters

    @functools.wraps(func)
    def traced(*args, **kwargs):
        for argument in (*args, *kwargs.values()):
            hash(argument)  # TensorFlow keys its traces on the arguments, before the body runs
        if _graph and len(args) + len(kwargs) < len(parameters):
            # as torch.compile's wrapper of a method called in a compiled caller's graph (after
            # a graph break) fails binding its arguments, before its body runs; each compiled
            # alone is fine
            raise TypeError(f"{func.__qualname__}() missing 1 required positional argument")
        _graph.append(func)
        try:
            result = func(*args, **kwargs)
        finally:
            _graph.pop()
        if isinstance(result, Operation):  # as TensorFlow checks a trace's outputs
            raise TypeError("found return value of type Operation, which is not a Tensor")
        return result

    return traced


def script(func):
    """As `torch.jit.script` compiles a function from its source without running it, and
    cannot compile a compiled one (it reads the wrapped function's source but looks its
    global names up in the wrapper's module): "undefined value"."""
    if hasattr(func, "__wrapped__"):
        raise RuntimeError("undefined value in the scripted source")
    return func
'''

PROJECT = {
    "mylib/__init__.py": "",
    "mylib/ops.py": """\
        import tensorflow as tf


        def scale(x):
            return tf.reduce_sum(x * 2.0)


        def total(x):
            return tf.reduce_sum(x * 3.0) + checked(x)


        def checked(x):
            y = tf.reduce_sum(x)
            if y.numpy() < 0:
                raise ValueError("negative")
            return y
        """,
    "tests/test_ops.py": """\
        import tensorflow as tf

        from mylib.ops import checked, scale, total


        def test_scale():
            assert scale(tf.constant([1.0, 2.0])).numpy() == 6.0


        def test_total():
            assert total(tf.constant([1.0, 2.0])).numpy() == 12.0


        def test_checked():
            assert checked(tf.constant([1.0, 2.0])).numpy() == 3.0
        """,
    "run.py": """\
        import tensorflow as tf

        from mylib.ops import scale, total

        x = tf.constant([1.0, 2.0])
        assert scale(x).numpy() == 6.0 and total(x).numpy() == 12.0
        """,
}

TESTS = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"


def write_stand_in(tmp_path: Path) -> Path:
    """Write the stand-in `tensorflow` package; the folder to put on `PYTHONPATH`."""
    stub = tmp_path / "stand-in" / "tensorflow" / "__init__.py"
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text(STAND_IN, encoding="utf-8")
    return stub.parent.parent


def make_project(tmp_path: Path, files: dict[str, str] = PROJECT, name: str = "proj") -> Path:
    """Write `files` (dedented) into the folder `name` of `tmp_path`."""
    project = tmp_path / name
    for name, text in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return project


def refactor_command(
    tmp_path: Path,
    project: Path,
    *args: str,
    stand_in: bool = True,
    switched_off: bool = True,
    codes: str = "HY301",
) -> tuple[list[str], dict[str, str]]:
    """`hybridize refactor --include-low-benefit PROJECT ARGS` and its environment: this
    repository first on the path, then the stand-in for TensorFlow (`stand_in`), the checks
    `codes` switched off (`switched_off`), a cache folder of the test's own."""
    paths = [str(ROOT)]
    if stand_in:
        paths.append(str(write_stand_in(tmp_path)))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "HYBRIDIZE_CACHE_DIR": str(tmp_path / "cache"),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "HYBRIDIZE_DISABLE_CHECKS": codes if switched_off else "",
    }
    command = [sys.executable, "-m", "hybridize", "refactor", str(project), "--no-config"]
    return [*command, "--include-low-benefit", *args], env


def refactor(
    tmp_path: Path, project: Path, *args: str, **options: Any
) -> subprocess.CompletedProcess[str]:
    """Run `refactor_command` (same arguments) to its end."""
    command, env = refactor_command(tmp_path, project, *args, **options)
    return subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=900, check=False
    )


def decorated(source: str) -> list[str]:
    lines = source.splitlines()
    return [
        line.split("(")[0].removeprefix("def ")
        for previous, line in itertools.pairwise(lines)
        if previous == "@tf.function"
    ]


REFUSED_OUTPUT = {
    "mylib/__init__.py": "",
    "mylib/metrics.py": """\
        import tensorflow as tf


        def update(x):
            total = tf.reduce_sum(x * 2.0)
            return tf.group(total)


        def step(x):
            update(x)
            return tf.reduce_sum(x * 4.0)
        """,
    "tests/test_metrics.py": """\
        import tensorflow as tf

        from mylib.metrics import step


        def test_step():
            assert step(tf.constant([1.0, 2.0])).numpy() == 12.0
        """,
}
"""With HY407 off, `update` (returning an Operation, refused once its trace is done) and its
caller `step` are proposed. The failing test's traceback holds `step`'s frame (the line calling
`update`) but not `update`'s, whose trace had finished: the change it names is innocent."""


UNHASHABLE_ARGUMENT = {
    "mylib/__init__.py": "",
    "mylib/boxes.py": """\
        import tensorflow as tf


        class Scale:
            \"\"\"Compares by value: its instances do not hash.\"\"\"

            def __init__(self, factor):
                self.factor = factor

            def __eq__(self, other):
                return isinstance(other, Scale) and other.factor == self.factor


        def scaled(x, scale):
            return tf.reduce_sum(x * scale.factor)


        def doubled(x):
            return tf.reduce_sum(x * 2.0)
        """,
    "tests/test_boxes.py": """\
        import tensorflow as tf

        from mylib.boxes import Scale, doubled, scaled


        def test_scaled_by_two():
            assert scaled(tf.constant([1.0, 2.0]), Scale(2.0)).numpy() == 6.0


        def test_scaled_by_three():
            assert scaled(tf.constant([1.0, 2.0]), Scale(3.0)).numpy() == 9.0


        def test_doubled():
            assert doubled(tf.constant([1.0, 2.0])).numpy() == 6.0
        """,
}
"""With HY409 off, `scaled` is proposed: compiled, it fails on hashing its `Scale` argument
before its body runs (as `tf.function` does when it binds the arguments to a trace), so the
two tests calling it fail with neither a frame of it in their traceback nor a call of it the
profile hook sees: nothing names it."""


NESTED_DEFAULTS = {
    "mylib/__init__.py": "",
    "mylib/densities.py": """\
        import tensorflow as tf


        def log_density(x, offset=None):
            return tf.reduce_sum(x * 2.0)


        def pair_density(x):
            return log_density(x) + tf.reduce_sum(x * 3.0)
        """,
    "tests/test_densities.py": """\
        import tensorflow as tf

        from mylib.densities import log_density, pair_density


        def test_pair_density():
            assert pair_density(tf.constant([1.0, 2.0])).numpy() == 15.0


        def test_log_density():
            assert log_density(tf.constant([1.0, 2.0])).numpy() == 6.0
        """,
}
"""Both functions are proposed; each compiled alone passes, and compiled together
`pair_density`'s graph fails calling the compiled `log_density` without all its arguments,
binding them, before `log_density`'s body runs (as torch.compile's wrapper of a method called
in a compiled caller's graph fails: torchkbnufft's `ToepNufft.toep_batch_loop() missing 1
required positional argument: 'self'`): the traceback's frames name the caller only, the error
line names the callee. The caller passes without its own change, but its compiled graph would
run the callee inlined: the callee is the change to drop (and it comes first in the plan, so a
bisection in plan order would not find it)."""


SCRIPTED_UNRUN = {
    "mylib/__init__.py": "",
    "mylib/filters.py": """\
        import tensorflow as tf


        def window(x):
            return tf.reduce_sum(x * 2.0)


        def kernel(x):
            return tf.reduce_sum(x * 3.0)
        """,
    "tests/test_filters.py": """\
        import tensorflow as tf

        from mylib.filters import kernel, window


        def test_scripted_kernel():
            assert window(tf.constant([1.0, 2.0])).numpy() == 6.0
            tf.script(kernel)


        def test_scripted_kernel_twice():
            assert window(tf.constant([2.0, 1.0])).numpy() == 6.0
            tf.script(kernel)
            tf.script(kernel)


        def test_kernel():
            assert kernel(tf.constant([1.0, 2.0])).numpy() == 9.0
        """,
}
"""Both functions are proposed. `test_scripted_kernel` runs `window` (its body, the only
rewritten one it enters) and then scripts `kernel` without running it: compiled, scripting
fails (as julius' `torch.jit.script` of a module whose helper is compiled; the error is raised
in the stand-in, not in a rewritten frame). Nothing names `kernel`; the one rewritten function
the test ran, `window`, is innocent: the test still fails without it. So does
`test_scripted_kernel_twice` (julius: three `test_torchscript` tests each ran only `sinc`)."""
