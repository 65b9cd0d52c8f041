"""Generated modules stay linear: no walk over a module's code per function of the module.

TensorFlow's `gen_*_ops.py` files hold thousands of near-identical op wrappers, each followed
by module-level code registering it (`Abs = tf_export(...)(_ops.to_raw_op(_abs))`). Work done
per function over the whole module (its module-level calls, the state its helpers read) is
quadratic there: such files took many seconds alone. These tests count the walks rather than
time them (the machine is noisy), and check that the answers are those of the semantics.
"""

from __future__ import annotations

import pytest

from hybridize.analyzer import engine
from hybridize.analyzer.facts import frozen_state
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.model import FunctionVerdict
from hybridize.project import Project, ProjectOptions

HEADER = '''\
"""Python wrappers around TensorFlow ops (generated)."""

from tensorflow.python import pywrap_tfe as pywrap_tfe
from tensorflow.python.eager import context as _context
from tensorflow.python.eager import core as _core
from tensorflow.python.eager import execute as _execute
from tensorflow.python.framework import dtypes as _dtypes
from tensorflow.python.framework import op_def_library as _op_def_library
from tensorflow.python.framework import ops as _ops
from tensorflow.python.util import dispatch as _dispatch
from tensorflow.python.util.tf_export import tf_export
'''

OP = '''

@_dispatch.add_fallback_dispatch_list
@_dispatch.add_type_based_api_dispatcher
@tf_export("math.op_{i}")
def op_{i}(x, name=None):
  """Computes op {i} of `x` element-wise."""
  _ctx = _context._context or _context.context()
  tld = _ctx._thread_local_data
  if tld.is_eager:
    try:
      _result = pywrap_tfe.TFE_Py_FastPathExecute(_ctx, "Op{i}", name, x)
      return _result
    except _core._NotOkStatusException as e:
      _ops.raise_from_not_ok_status(e, name)
    except _core._FallbackException:
      pass
    try:
      return op_{i}_eager_fallback(x, name=name, ctx=_ctx)
    except _core._SymbolicException:
      pass
  _, _, _op, _outputs = _op_def_library._apply_op_helper("Op{i}", x=x, name=name)
  _result = _outputs[:]
  if _execute.must_record_gradient():
    _attrs = ("T", _op._get_attr_type("T"))
    _inputs_flat = _op.inputs
    _execute.record_gradient("Op{i}", _inputs_flat, _attrs, _result)
  _result, = _result
  return _result

Op{i} = tf_export("raw_ops.Op{i}")(_ops.to_raw_op(op_{i}))
_dispatcher_for_op_{i} = op_{i}._tf_type_based_dispatcher.Dispatch


def op_{i}_eager_fallback(x, name, ctx):
  _attr_T, (x,) = _execute.args_to_matching_eager([x], ctx, [_dtypes.float32, _dtypes.int32, ])
  _inputs_flat = [x]
  _attrs = ("T", _attr_T)
  _result = _execute.execute(b"Op{i}", 1, inputs=_inputs_flat, attrs=_attrs, ctx=ctx, name=name)
  if _execute.must_record_gradient():
    _execute.record_gradient("Op{i}", _inputs_flat, _attrs, _result)
  _result, = _result
  return _result
'''


BUILD_CALL_GRAPH = engine.build_call_graph


def generated_module(ops: int) -> str:
    return HEADER + "".join(OP.format(i=i) for i in range(ops))


def analysed(relpath: str, source: str) -> list[FunctionVerdict]:
    """The verdicts of a project of one module, which must parse and cost no verdict."""
    result = Project.from_texts({relpath: source}, ProjectOptions(use_cache=False)).results()
    assert not result.errors, result.errors
    return list(result.functions)


class CountingList(list):
    """A list that counts how often it is walked."""

    walks = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.walks += 1
        return super().__iter__()


def module_call_walks(
    monkeypatch: pytest.MonkeyPatch, ops: int
) -> tuple[int, list[FunctionVerdict]]:
    """How often the verdict phase walks the module-level calls of a generated module."""
    counted: list[CountingList] = []
    original = BUILD_CALL_GRAPH

    def counting_graph(index, facts, keys):  # type: ignore[no-untyped-def]
        # The solution is complete here: count the walks of everything after it.
        module_code = FunctionKey.module_code("gen_demo_ops.py")
        calls = CountingList(facts.calls[module_code])
        facts.calls[module_code] = calls
        counted.append(calls)
        return original(index, facts, keys)

    monkeypatch.setattr(engine, "build_call_graph", counting_graph)
    verdicts = analysed("gen_demo_ops.py", generated_module(ops))
    return counted[0].walks, verdicts


def test_module_code_is_walked_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    small, small_verdicts = module_call_walks(monkeypatch, 10)
    large, large_verdicts = module_call_walks(monkeypatch, 40)
    # Four times the functions, the same handful of walks: nothing walks the module's code
    # once per function (the backend test of every function did, twice).
    assert large <= small + 4, (small, large)
    # The wrappers are analysed, and alike: each op is reported the same way at both sizes.
    assert len(large_verdicts) == 4 * len(small_verdicts) > 0
    kinds = {
        (v.qualname.replace("0", "N"), v.passes) for v in small_verdicts if "op_0" in v.qualname
    }
    kinds_large = {
        (v.qualname.replace("0", "N"), v.passes) for v in large_verdicts if "op_0" in v.qualname
    }
    assert kinds == kinds_large


def test_frozen_state_reads_are_listed_once_per_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    original = frozen_state._reads

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(frozen_state, "_reads", counting)
    ops = 30
    analysed("gen_demo_ops.py", generated_module(ops))
    # Each op and its eager fallback is read once, however many functions call it.
    assert 0 < calls[0] <= 2 * ops + 1


def test_frozen_state_finding_still_follows_helpers() -> None:
    """The memo must not lose a finding reached through a helper: `scaled` reads the global
    `SCALE` through `helper`, and module code reassigns it after a call."""
    source = """\
import tensorflow as tf

SCALE = 2.0


def helper(x):
    return x * SCALE


def scaled(x):
    return helper(x) + 1.0


def other(x):
    return helper(x) - 1.0


for step in range(3):
    scaled(tf.ones([2]))
    other(tf.ones([2]))
    SCALE = SCALE * 0.5
"""
    verdicts = {v.qualname: v for v in analysed("main.py", source)}
    for name in ("scaled", "other"):
        codes = {f.code for f in verdicts[name].findings}
        assert "HY408" in codes, (name, codes)
