"""HY432: NumPy arrays computed from a function's parameters, which torch.compile traces
through torch._numpy.

The check's examples (hybridize/check_examples/HY432) run through test_check_examples; these
tests pin where the verdict stays silent, and measure each claim of the check's docs on the
installed PyTorch (Dynamo's backend "eager": the claims are about what Dynamo traces, not
about Inductor's code).
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import verdict

from hybridize.analyzer.checks import check_of

PROGRAM = """
import numpy as np
import torch
import torch.nn.functional as F

WINDOW = np.hanning(5)


def smooth(x, taps):
    kernel = np.outer(taps, taps)[None, None, ::-1, ::-1]
    return F.conv2d(x, torch.tensor(kernel.copy(), dtype=x.dtype), padding=1)


def scaled(q, k):
    return q @ k.transpose(-2, -1) / np.sqrt(q.shape[-1])


def reversed_index(x):
    index = np.arange(x.shape[-1])[::-1].copy()
    return x[..., torch.from_numpy(index)] * 2.0


def counted(x, n):
    return x * np.sqrt(n)


def windowed(x):
    return x * torch.from_numpy(np.asarray(WINDOW))


def cumulative(x):
    return torch.from_numpy(np.cumsum(x.numpy())) * x


def padded(x, taps):
    return torch.tensor(smooth_taps(taps)) * x


def smooth_taps(taps):
    return np.convolve(taps, [0.5, 0.5])


def padded_shape(x):
    return torch.tensor(smooth_taps([float(x.shape[-1])] * 2)).sum() * x


def windows(series, window):
    starts = range(len(series) - window)
    inputs = np.stack([series[s:s + window] for s in starts])
    targets = np.array([series[s + window] for s in starts])
    return torch.tensor(inputs).unsqueeze(-1), torch.tensor(targets)


def written(series):
    head = series[1:]
    head[0] = 0.0
    return torch.tensor(np.cumsum(series.reshape(2, -1).T, axis=0))


def centred(series):
    return torch.tensor(series - series.mean() // 2 + np.sum(series, axis=0) / 2.0)


def rescaled(series):
    return torch.tensor(series / np.sqrt(2))


def reversed_series(series):
    return torch.tensor(series[None, ::-1].copy())


def flipped(series):
    tail = np.flip(series)
    tail[0] = 0.0
    return torch.tensor(series)


def halves(series):
    return torch.tensor(series / 2)


def by_counts(x):
    return x / np.arange(1, 5)


def divided(series):
    return torch.tensor(np.divide(series, 2))


def total(series):
    return torch.tensor(series), np.linalg.norm(series)


def total_method(series):
    result = series.sum()
    return result


def doubled_halves(series):
    return halves(series) * 2


for _ in range(100):
    x = torch.randn(1, 1, 8, 8)
    smooth(x, [0.25, 0.5, 0.25])
    scaled(x, x)
    reversed_index(x)
    counted(x, 4)
    windowed(torch.randn(5))
    cumulative(torch.randn(5))
    padded(torch.randn(4), [0.25, 0.5, 0.25])
    padded_shape(torch.randn(4))
    series = np.sin(np.arange(64.0))
    for f in (windows, written, centred, rescaled, reversed_series, flipped, halves, divided):
        f(series, 8) if f is windows else f(series)
    total(series)
    by_counts(torch.arange(4))
    total_method(series)
    doubled_halves(series)
"""


def hy432(qualname: str) -> list[str]:
    v = verdict(textwrap.dedent(PROGRAM), qualname)
    return [f.message for f in v.findings if f.code == "HY432"]


def test_numpy_on_a_list_parameter_blocks_the_function_with_hy432() -> None:
    """`taps` is a list of floats: Dynamo specialises on its values; the kernel is also
    reversed after a new axis (one finding for the statement)."""
    v = verdict(textwrap.dedent(PROGRAM), "smooth")
    assert not v.passes
    assert "computes_numpy_arrays" in v.failures
    [finding] = [f for f in v.findings if f.code == "HY432"]
    assert finding.severity == check_of("HY432").severity == "error"
    assert finding.span.start_line == 10  # np.outer(taps, taps)
    assert "`np.outer`" in finding.message and "`taps`" in finding.message
    assert "list of floats" in finding.message


def test_a_helper_computing_numpy_from_what_the_function_passes_is_hy432() -> None:
    """Dynamo inlines `smooth_taps`: its NumPy code (on the list `taps`) is traced with
    `padded`."""
    [message] = hy432("padded")
    assert "`smooth_taps`" in message and "`taps`" in message


@pytest.mark.parametrize(
    ("function", "words"),
    [
        ("reversed_series", "negative-step slice"),  # a new axis before a reversal: raises
        ("flipped", "`np.flip`"),  # a write through the flipped view is lost
        ("halves", "true division (`/`)"),  # of integers: float32 compiled
        ("divided", "true division (`np.divide`)"),
        ("by_counts", "true division (`/`)"),  # an integer tensor by an integer array
        ("total", "returns `np.linalg.norm`"),  # a 0-d ndarray compiled, in the tuple too
        ("total_method", "returns `ndarray.sum`"),  # through a local
        ("doubled_halves", "passes `series` to `halves`"),
    ],
)
def test_operations_torch_numpy_computes_otherwise_are_hy432(function: str, words: str) -> None:
    [message] = hy432(function)
    assert words in message and ("`series`" in message or "`x`" in message)


@pytest.mark.parametrize(
    "safe",
    [
        "scaled",  # np.sqrt of a static shape: Python ints, the same compiled
        "reversed_index",  # an index array from a shape, only read
        "counted",  # NumPy on a Python number (its per-value retrace is HY201's)
        "windowed",  # a module constant: not computed from the parameters
        "padded_shape",  # the helper's NumPy gets a list made of a static shape
        "cumulative",  # a cumulative sum of a tensor's values: the same compiled
        "windows",  # corpus lstm_sequence's make_windows: slices and stacks of an array
        "written",  # a write through a positive slice, an axis-wise reduction, a transpose
        "centred",  # a reduction used inside, floor division, division by a float
        "rescaled",  # division by np.sqrt(2): a float64 scalar
    ],
)
def test_numpy_that_computes_the_same_compiled_is_not_concerned(safe: str) -> None:
    assert hy432(safe) == []


def test_an_already_compiled_function_is_not_concerned() -> None:
    source = textwrap.dedent(PROGRAM).replace(
        "def smooth(x, taps):", "@torch.compile\ndef smooth(x, taps):"
    )
    v = verdict(source, "smooth")
    assert not any(f.code == "HY432" for f in v.findings)


def test_tensorflow_code_is_not_concerned() -> None:
    """tf.function runs NumPy on Python values at trace time with NumPy's semantics; NumPy on a
    symbolic tensor is HY302's."""
    source = textwrap.dedent(
        """
        import numpy as np
        import tensorflow as tf


        def smooth(x, taps):
            kernel = np.outer(taps, taps)[::-1, ::-1, None, None]
            return tf.nn.conv2d(x, tf.constant(kernel.copy(), tf.float32), 1, "SAME")


        for _ in range(100):
            smooth(tf.random.normal([1, 8, 8, 1]), [0.25, 0.5, 0.25])
        """
    )
    v = verdict(source, "smooth")
    assert not any(f.code == "HY432" for f in v.findings)


def _compiled(fn):  # type: ignore[no-untyped-def]
    import torch

    torch._dynamo.reset()
    return torch.compile(fn, backend="eager")


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_negative_step_slices_are_copies_under_torch_numpy() -> None:
    """Measured, torch 2.13 / NumPy 2.4: torch has no negative strides, so `a[::-1]` traced
    is a flip (a copy). A new axis before it raises in aten.flip's meta function (the
    pytorch-wavelets failure, with filter taps given as a list); a write through it is lost;
    an in-place update of it raises. Eagerly all three work on views."""
    import logging

    import numpy as np
    import torch

    logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)
    taps = [0.48, 0.84, 0.22, -0.13]

    def prep(h: list[float]) -> torch.Tensor:
        h_ = np.array(h).ravel()
        return torch.tensor(np.outer(h_, h_)[None, ::-1, ::-1].copy())

    assert tuple(prep(taps).shape) == (1, 4, 4)
    with pytest.raises(Exception, match="Dimension out of range"):
        _compiled(prep)(taps)

    def flip_only(h: list[float]) -> torch.Tensor:  # no new axis: traced alike
        a = np.outer(np.array(h), np.array(h))
        return torch.tensor(a[::-1, ::-1].copy())

    assert torch.equal(_compiled(flip_only)(taps), flip_only(taps))

    def write_through(h: list[float]) -> np.ndarray:
        a = np.array(h, dtype=np.float64)
        b = a[::-1]
        b[0] = 100.0
        return a

    assert write_through([1.0, 2.0, 3.0]).tolist() == [1.0, 2.0, 100.0]
    assert _compiled(write_through)([1.0, 2.0, 3.0]).tolist() == [1.0, 2.0, 3.0]

    def update_reversed(h: list[float]) -> np.ndarray:
        a = np.array(h, dtype=np.float64)
        a[::-1] += np.array([1.0, 0.0, 0.0])
        return a

    assert update_reversed([1.0, 2.0, 3.0]).tolist() == [1.0, 2.0, 4.0]
    with pytest.raises(Exception):  # noqa: B017 - Dynamo wraps the fake-tensor error
        _compiled(update_reversed)([1.0, 2.0, 3.0])


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_torch_numpy_dtypes_and_result_types_differ() -> None:
    """Integer true division gives torch's default float32, not float64; a reduction comes
    back from the compiled function as a 0-d ndarray, not a NumPy scalar."""
    import numpy as np

    def halves(h: list[int]) -> np.ndarray:
        return np.array(h) / 2

    assert halves([1, 3]).dtype == np.float64
    assert _compiled(halves)([1, 3]).dtype == np.float32

    def total(h: list[float]) -> object:
        return np.sum(np.array(h))

    assert isinstance(total([1.0, 2.0]), np.float64)
    compiled = _compiled(total)([1.0, 2.0])
    assert isinstance(compiled, np.ndarray) and compiled.ndim == 0
    assert not isinstance(compiled, float)


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_numpy_on_lists_is_specialised_per_value() -> None:
    """No gain: Dynamo makes the list's values constants of the graph, so each new list is a
    new graph (4 lists, 4 graphs); an ndarray argument is a graph input (one graph)."""
    import numpy as np
    import torch
    from torch._dynamo.utils import counters

    def prep(h: list[float]) -> torch.Tensor:
        a = np.array(h)
        return torch.tensor(np.outer(a, a)[::-1, ::-1].copy())

    counters.clear()
    compiled = _compiled(prep)
    for i in range(4):
        compiled([0.1 * (i + 1), 0.2, 0.3])
    assert counters["stats"]["unique_graphs"] == 4

    def outer(a: np.ndarray) -> np.ndarray:
        return np.outer(a, a)

    counters.clear()
    compiled = _compiled(outer)
    for i in range(4):
        compiled(np.arange(4.0) + i)
    assert counters["stats"]["unique_graphs"] == 1


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_the_near_misses_compute_alike_compiled() -> None:
    """NumPy on a static shape, an index array read from a shape, NumPy on a Python number:
    the same values compiled (what the check leaves quiet)."""
    import numpy as np
    import torch

    x = torch.randn(2, 4, 8)

    def scaled(q: torch.Tensor) -> torch.Tensor:
        return q @ q.transpose(-2, -1) / np.sqrt(q.shape[-1])

    def reversed_index(q: torch.Tensor) -> torch.Tensor:
        index = np.arange(q.shape[-1])[::-1].copy()
        return q[..., torch.from_numpy(index)] * 2.0

    def counted(q: torch.Tensor, n: int) -> torch.Tensor:
        return q * np.sqrt(n)

    for fn, args in ((scaled, (x,)), (reversed_index, (x,)), (counted, (x, 4))):
        eager, compiled = fn(*args), _compiled(fn)(*args)
        assert compiled.dtype == eager.dtype
        assert torch.allclose(compiled, eager)


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_what_the_check_flags_on_an_array_parameter_differs_compiled() -> None:
    """On an ndarray argument (a graph input), measured torch 2.13 / NumPy 2.4: a write
    through a reversed view (`a[::-1]`, `np.flip`) is lost; true division of integers (`/`,
    `np.divide`, and an integer tensor by an integer array) gives float32; a whole-array
    reduction returned (alone, in a tuple, through a method) comes back as a 0-d ndarray."""
    import numpy as np
    import torch

    def reversed_write(a: np.ndarray) -> np.ndarray:
        b = a[::-1]
        b[0] = 100.0
        return a

    def flipped_write(a: np.ndarray) -> np.ndarray:
        b = np.flip(a)
        b[0] = 100.0
        return a

    for fn in (reversed_write, flipped_write):
        assert fn(np.arange(3.0)).tolist() == [0.0, 1.0, 100.0]
        assert _compiled(fn)(np.arange(3.0)).tolist() == [0.0, 1.0, 2.0], fn.__name__

    def halves(a: np.ndarray) -> np.ndarray:
        return a / 2

    def divided(a: np.ndarray) -> np.ndarray:
        return np.divide(a, 2)

    for fn in (halves, divided):
        assert fn(np.arange(4)).dtype == np.float64
        assert _compiled(fn)(np.arange(4)).dtype == np.float32, fn.__name__

    def by_tensor(n: torch.Tensor) -> torch.Tensor:
        return n / np.arange(1, 5)

    assert by_tensor(torch.arange(4)).dtype == torch.float64
    assert _compiled(by_tensor)(torch.arange(4)).dtype == torch.float32

    def norm(a: np.ndarray) -> object:
        return np.linalg.norm(a)

    def total(a: np.ndarray) -> object:
        return a * 2, a.sum()

    assert isinstance(norm(np.arange(3.0)), np.float64)
    assert isinstance(total(np.arange(3.0))[1], np.float64)
    compiled_norm, (_, compiled_total) = (
        _compiled(norm)(np.arange(3.0)),
        _compiled(total)(np.arange(3.0)),
    )
    for value in (compiled_norm, compiled_total):
        assert isinstance(value, np.ndarray) and value.ndim == 0


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_what_the_check_allows_computes_alike_compiled() -> None:
    """What HY432 leaves quiet computes the same values and dtypes compiled (measured torch
    2.13 / NumPy 2.4, on fresh arguments each run): lstm_sequence's `make_windows` (slices
    of an array stacked), writes through a positive slice, a reshape's transpose and a
    `ravel`, floor division of integers, division by a float, reductions along an axis or
    used inside, a cumulative sum of a tensor's values, a reversed copy only read; an
    ndarray argument is a graph input (one graph for four values)."""
    import numpy as np
    import torch
    from torch._dynamo.utils import counters

    def windows(series: np.ndarray, window: int) -> tuple[torch.Tensor, torch.Tensor]:
        starts = range(len(series) - window)
        inputs = np.stack([series[s : s + window] for s in starts])
        targets = np.array([series[s + window] for s in starts])
        return torch.tensor(inputs).unsqueeze(-1), torch.tensor(targets)

    def views_written(a: np.ndarray) -> np.ndarray:
        a[1:][0] = 100.0
        b = a.reshape(2, 3).T
        b[0, 1] = 50.0
        a.ravel()[0] = 10.0
        return a

    def arithmetic(a: np.ndarray, ints: np.ndarray) -> tuple[np.ndarray, ...]:
        centred = a - a.mean()
        sums = np.sum(a.reshape(2, 3), axis=1)
        return ints // 4, ints / 2.0, ints / np.sqrt(2), sums, centred, a[::-1] * 2

    def cumulative(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.cumsum(x.numpy())) * x

    cases = (
        (windows, lambda: (np.sin(np.arange(40.0)).astype(np.float32), 5)),
        (views_written, lambda: (np.arange(6.0),)),
        (arithmetic, lambda: (np.arange(6.0), np.arange(6))),
        (cumulative, lambda: (torch.arange(5.0),)),
    )
    for fn, arguments in cases:
        eager, compiled = fn(*arguments()), _compiled(fn)(*arguments())
        eager_parts = eager if isinstance(eager, tuple) else (eager,)
        compiled_parts = compiled if isinstance(compiled, tuple) else (compiled,)
        for e, c in zip(eager_parts, compiled_parts, strict=True):
            assert type(c) is type(e) and c.dtype == e.dtype, fn.__name__
            assert np.array_equal(np.asarray(c), np.asarray(e)), fn.__name__

    counters.clear()
    compiled_windows = _compiled(windows)
    for i in range(4):
        compiled_windows(np.sin(np.arange(40.0) + i), 5)
    assert counters["stats"]["unique_graphs"] == 1


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_functions_torch_numpy_lacks_break_the_graph_and_compute_alike() -> None:
    """`np.polyfit`, `np.pad(mode="reflect")` and string arrays are not in torch._numpy:
    Dynamo breaks the graph there and NumPy runs them (same values, compiled in pieces);
    `np.outer` is traced without a break."""
    import numpy as np
    from torch._dynamo.utils import counters

    taps = [0.48, 0.84, 0.22, -0.13]

    def fit(h: list[float]) -> np.ndarray:
        return np.polyfit(np.arange(4.0), np.array(h), 1)

    def pad(h: list[float]) -> np.ndarray:
        return np.pad(np.array(h), (1, 1), mode="reflect")

    def names(h: list[float]) -> list[str]:
        return np.array(["a", "bb"])[::-1].tolist()

    def outer(h: list[float]) -> np.ndarray:
        return np.outer(np.array(h), np.array(h))

    for fn, breaks in ((fit, True), (pad, True), (names, True), (outer, False)):
        counters.clear()
        compiled = _compiled(fn)(taps)
        assert np.array_equal(np.asarray(compiled), np.asarray(fn(taps))), fn.__name__
        assert (sum(counters["graph_break"].values()) > 0) == breaks, fn.__name__


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_runs_numpy_on_python_values_with_numpys_semantics() -> None:
    """Measured under TF 2.21: tf.function does not trace NumPy; on Python values it runs at
    trace time, as NumPy: the new-axis flip works, a write through a reversed view is kept,
    integer division gives float64. Not a hazard there (HY432 is PyTorch's only)."""
    import numpy as np
    import tensorflow as tf

    def prep(h: list[float]) -> tuple[tf.Tensor, tf.Tensor]:
        a = np.array(h)
        kernel = np.outer(a, a)[None, ::-1, ::-1].copy()
        b = a[::-1]
        b[0] = 100.0
        return tf.constant(kernel * a.sum()), tf.constant(np.array([1, 3]) / 2)

    taps = [0.48, 0.84, 0.22, -0.13]
    eager_kernel, eager_half = prep(taps)
    traced_kernel, traced_half = tf.function(prep)(taps)
    assert traced_kernel.shape == (1, 4, 4)
    assert np.array_equal(traced_kernel.numpy(), eager_kernel.numpy())
    assert traced_half.dtype == eager_half.dtype == tf.float64
