"""Hand-curated knowledge about NumPy (and a little SciPy) beyond ``numpy_api.json``.

Every NumPy function returns a NumPy value ("numpy": tensor-like for call-site evidence, but
not a TensorFlow op: applied to a symbolic tensor it fails, see docs/verdicts.md
``has_numpy_calls_on_parameters``). The exceptions:

* ``numpy.random.*`` draws are "random" effects (in a graph they are frozen at trace time);
  constructing a generator (``default_rng``) is not, drawing from it is (see ``methods``);
* saving and loading (``save``, ``savez``, ``savetxt``, ``load``, ``loadtxt``...) are "io";
* ``set_printoptions``/``seterr`` change interpreter-wide state ("trace_time");
* ``copyto``, ``put``, ``place``, ``putmask``, ``fill_diagonal`` mutate argument 0;
* a few return plain Python values (``shape``, ``ndim``, ``isscalar``, ``allclose``...).

SciPy is not installed in the tool's environment, so it has no generated table: every
``scipy.*`` name is a NumPy-returning function, except the I/O and random helpers below.
"""

from __future__ import annotations

from .api_info import (
    IO_NONE,
    NUMPY,
    OBJECT,
    PRINT,
    PYTHON,
    TRACE_TIME,
    UNKNOWN,
    Behaviour,
)

NUMPY_RANDOM = Behaviour("numpy", effect="random")
NUMPY_IO = Behaviour("numpy", effect="io")
RNG = Behaviour("rng")


def _each(names: str, behaviour: Behaviour, prefix: str = "numpy.") -> dict[str, Behaviour]:
    return {prefix + name: behaviour for name in names.split()}


#: name (any spelling) -> behaviour
NUMPY_OVERRIDES: dict[str, Behaviour] = {
    # random: global-state draws are effects; generator constructors are not
    "numpy.random.seed": Behaviour(
        "none", effect="random", note="reseeds NumPy's global generator"
    ),
    "numpy.random.set_state": Behaviour("none", effect="random"),
    "numpy.random.get_state": PYTHON,
    "numpy.random.shuffle": Behaviour("none", effect="random", mutated_args=(0,)),
    **_each(
        "default_rng Generator RandomState SeedSequence BitGenerator PCG64 PCG64DXSM MT19937 "
        "Philox SFC64",
        RNG,
        "numpy.random.",
    ),
    # io
    **_each("save savez savez_compressed savetxt", IO_NONE),
    **_each("load loadtxt genfromtxt fromfile fromregex memmap", NUMPY_IO),
    # print / global state
    **_each("info show_config show_runtime", PRINT),
    **_each("set_printoptions seterr seterrcall setbufsize", TRACE_TIME),
    "numpy.printoptions": OBJECT.with_(note="a context manager"),
    "numpy.errstate": OBJECT.with_(note="a context manager"),
    # plain Python results
    **_each(
        "shape ndim isscalar iscomplexobj isrealobj iterable isfortran may_share_memory "
        "shares_memory array_equal array_equiv allclose issubdtype can_cast get_printoptions "
        "geterr getbufsize geterrcall typename base_repr binary_repr format_float_positional "
        "format_float_scientific array2string array_repr array_str",
        PYTHON,
    ),
    **_each("result_type promote_types min_scalar_type", Behaviour("dtype")),
    # in-place writes into argument 0
    **_each(
        "copyto put place putmask fill_diagonal put_along_axis",
        Behaviour("none", mutated_args=(0,)),
    ),
    "numpy.nditer": OBJECT,
    "numpy.finfo": OBJECT,
    "numpy.iinfo": OBJECT,
}

#: Behaviour of names by enclosing namespace (longest match wins).
NAMESPACE_DEFAULTS: dict[str, Behaviour | None] = {
    "numpy": NUMPY,
    "numpy.random": NUMPY_RANDOM,
    "numpy.testing": PYTHON,
    "numpy.exceptions": OBJECT,
    "numpy.typing": PYTHON,
    "numpy.f2py": PYTHON,
    "numpy.ctypeslib": OBJECT,
    "scipy": NUMPY,
    "scipy.io": NUMPY_IO,
    "scipy.io.wavfile": NUMPY_IO,
    "scipy.misc": NUMPY_IO,
}

#: SciPy names with a precise answer (there is no generated SciPy table).
SCIPY_OVERRIDES: dict[str, Behaviour] = {
    "scipy.io.loadmat": Behaviour("dict", effect="io"),
    "scipy.io.savemat": IO_NONE,
    "scipy.io.wavfile.read": NUMPY_IO,
    "scipy.io.wavfile.write": IO_NONE,
    "scipy.optimize.minimize": OBJECT.with_(callback_args=(0, "fun")),
    "scipy.integrate.quad": NUMPY.with_(callback_args=(0, "func")),
    "scipy.integrate.solve_ivp": OBJECT.with_(callback_args=(0, "fun")),
    "scipy.stats.describe": UNKNOWN,
}

#: Shell patterns on SciPy names.
SCIPY_PATTERNS: tuple[tuple[str, Behaviour], ...] = (
    ("scipy.stats.*.rvs", NUMPY_RANDOM),
    ("scipy.stats.*.random_state", NUMPY_RANDOM),
)

#: What constructing a NumPy class of each role yields.
CLASS_ROLE_BEHAVIOUR: dict[str, Behaviour] = {
    "numpy": NUMPY,
    "dtype": Behaviour("dtype"),
    "rng": RNG,
    "object": OBJECT,
}


def namespace_default(name: str) -> Behaviour | None:
    """Behaviour of a NumPy/SciPy ``name`` by its longest enclosing namespace."""
    end = len(name)
    while (end := name.rfind(".", 0, end)) > 0:
        prefix = name[:end]
        if prefix in NAMESPACE_DEFAULTS:
            return NAMESPACE_DEFAULTS[prefix]
    return None


FLOAT_INFO_CALLS: frozenset[str] = frozenset({"numpy.finfo"})
"""Calls that describe a float type (`np.finfo(np.float32)`), whose small members
(`FLOAT_INFO_SMALL_MEMBERS`) are numbers of that type (a framework adds its own:
`Framework.float_info_calls`)."""

FLOAT_INFO_SMALL_MEMBERS: dict[str, dict[str, float]] = {
    dtype: {
        "eps": 2.0**-mantissa,
        "epsneg": 2.0 ** -(mantissa + 1),
        "resolution": resolution,
        "tiny": 2.0**-lowest,
        "smallest_normal": 2.0**-lowest,
    }
    for dtype, mantissa, lowest, resolution in (
        ("float16", 10, 14, 1e-3),
        ("float32", 23, 126, 1e-6),
        ("float64", 52, 1022, 1e-15),
    )
}
"""The small members of what a float-info call returns, per float type, as NumPy defines
them (`eps` is 2 to the minus the mantissa's bits, `tiny` the smallest normal number); a
type the analysis cannot name is taken as float32."""
