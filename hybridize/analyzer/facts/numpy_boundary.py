"""NumPy arrays at a compiled function's boundary, converted inside to another dtype.

Eagerly, a NumPy array reaches the body as it is, and an API that converts its argument to a
requested dtype (`tf.convert_to_tensor(x, dtype=tf.float32)`, `tf.Variable(x, dtype=...)`:
`Framework.dtype_asserting_conversions`) converts a float64 array to float32 as asked. A
traced function converts its NumPy arguments to tensors of their own dtype first, and such an
API refuses a tensor of another dtype: "ValueError: Tensor conversion requested dtype float32
for Tensor with dtype float64" while tracing (measured under TF 2.21,
tests/analyzer/test_hy414_numpy_dtype_conversions.py). A Python number or a list of them is
no hazard: tf.function keeps Python values as they are, and the conversion is the eager one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.safety import SafetyScan
from hybridize.analyzer.facts.values import Atom
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.frameworks.api_info import DtypeAssertingConversion
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.frameworks.shapes import ALIASES, TF_DTYPES, dtype_of
from hybridize.analyzer.summaries.ir import CallSite, Sym

NUMPY_DTYPE_PREFIX = "numpy."
"""NumPy's dtypes name a requested dtype as well (`dtype=np.float32`)."""


def numpy_dtype_conversions(scan: SafetyScan, framework: Framework) -> list[Evidence]:
    """Each dtype-asserting conversion of a parameter that some caller fills with a NumPy
    array of another dtype than the one requested (or of a dtype not known)."""
    conversions = framework.dtype_asserting_conversions
    if not conversions:
        return []
    evidence = scan.facts.param_atoms.get(scan.key, {})
    found: list[Evidence] = []
    for resolved in scan.facts.calls.get(scan.key, []):
        for info in resolved.api:
            conversion = conversions.get(info.name)
            if conversion is None:
                continue
            site = resolved.site
            value = _argument(site, conversion.position, conversion.keyword)
            requested = _requested_dtype(resolved.args, resolved.kwargs, conversion)
            if value is None or requested is None:
                continue
            for name in sorted(_parameters_behind(scan, value)):
                arrays = sorted(_other_dtypes(evidence.get(name, ()), requested))
                if arrays:
                    found.append(
                        Evidence(
                            f"`{written_name(info.name)}` converts `{name}` to {requested}, and "
                            f"a caller passes a NumPy array of {' or '.join(arrays)} for it: "
                            "eagerly the array is converted, but a traced function receives it "
                            f"as a tensor of its own dtype, which `{written_name(info.name)}` "
                            "refuses (ValueError while tracing)",
                            site.span,
                        )
                    )
                    break
    return found


def _argument(site: CallSite, position: int, keyword: str) -> Sym | None:
    """The value a call passes for a parameter, by keyword or position."""
    for name, value in site.kwargs:
        if name == keyword:
            return value
    return site.args[position] if position < len(site.args) else None


def _requested_dtype(
    args: list[frozenset[Atom]],
    kwargs: dict[str, frozenset[Atom]],
    conversion: DtypeAssertingConversion,
) -> str | None:
    """The dtype a conversion asks for, when the call names exactly one (`tf.float32`,
    `"float32"`, `np.float32`)."""
    atoms = kwargs.get(conversion.dtype_keyword)
    if atoms is None and conversion.dtype_position < len(args):
        atoms = args[conversion.dtype_position]
    if not atoms:
        return None
    named = dtype_of(atoms)
    if named is not None:
        return named
    numpy = {
        ALIASES.get(short, short)
        for atom in atoms
        if atom[0] == "ext" and atom[1].startswith(NUMPY_DTYPE_PREFIX)
        for short in [atom[1].removeprefix(NUMPY_DTYPE_PREFIX)]
        if short in TF_DTYPES
    }
    return numpy.pop() if len(numpy) == 1 and len(atoms) == 1 else None


def _other_dtypes(atoms: Iterable[Atom], requested: str) -> Iterator[str]:
    """The dtypes of the NumPy arrays among `atoms` that are not `requested` ("an unknown
    dtype" for an array whose dtype is not known)."""
    seen = set()
    for atom in atoms:
        if atom[0] != "numpy" or atom[1] == requested:
            continue
        dtype = atom[1] or "an unknown dtype"
        if dtype not in seen:
            seen.add(dtype)
            yield dtype


def _parameters_behind(scan: SafetyScan, sym: Sym) -> set[str]:
    """The parameters (not the receiver) a value may be as given: through locals, whatever
    their other values, and conditional expressions; an operation's or a call's result is a
    new value."""
    fn = scan.fn
    found: set[str] = set()
    seen: set[Sym] = set()
    stack = [sym]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        kind = current[0]
        if kind == "param" and current[1] != scan.receiver:
            found.add(current[1])
        elif kind == "local":
            stack.extend(fn.locals.get(current[1], ()))
        elif kind == "cond":
            stack.extend(current[1])
    return found
