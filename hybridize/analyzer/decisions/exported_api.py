"""A library's exported functions: rated by the work of its users' calls, not by how the
project's own code calls them.

A package names the functions it offers its users in its `__init__.py` or in a module's
`__all__` (`facts/exports.exported_functions`: e3nn's `o3.angles_to_quaternion`,
tensorflow-graphics' `geometry.transformation.quaternion.multiply`). How often the project's
own code calls such a function (only its tests; a notebook's loop; an example's compiled
step; a caller nobody calls) says nothing of how often its users do: they call it from
programs the analysis never sees, as often as those run, eagerly or inside graphs of their
own (where a decorator of its own costs nothing: a `tf.function` called while another traces
is traced into it, and Dynamo inlines a compiled function's frame into its caller's). So the
benefit model rates it by its work per call only (`BenefitModel.estimate`'s work/overhead
rule), as it rates an exported layer's call (`exported_layer`), and no graph of the project
that calls it (`inside_proposed_graphs`) takes the users' eager calls away.

Measured by the benefit oracle on held-out libraries (docs/oracle.md, "Benefit on held-out
libraries, ninth session"): of 13 paying changes outside the default sets, 13 were such
functions, `low` or `none` from the project's own call sites ("only tests call it", "its
callers are entry points no code of the project calls", "runs about 6 times per run of the
program", "its callers run as graphs once the proposed changes are made (`render_grad`)": a
`tf.function` of a notebook).

A public function of a public module reached by its module's path (rule "public_function":
`exports.imported_functions`, `from astroNN.nn.losses import nll` in a test) is API in the
same way, with one difference: no name the package chose says so, only the import. So it is
rated by its users' calls only where the project's own code does not count its calls (only
tests call it, no code calls it, or its callers are entry points no code calls: the
frequency is unknown either way); where the project's own code runs it a known number of
times, that count stands. Measured by the benefit oracle on astroNN (docs/oracle.md,
"Benefit on held-out libraries, eleventh session"): nine loss functions of
`astroNN.nn.losses`, imported by its tests by that path and by `astroNN/nn/metrics.py`,
measured 1.3-2.6x faster on the tests' direct calls, all `low` "only tests call it".

Test code is never exported. Methods are left to the layer rules: a method runs on an object
a user builds, and what calling the object runs is the framework's (`exported_layer`).
"""

from __future__ import annotations

from collections.abc import Callable

from hybridize.analyzer.facts.exports import exported_functions, imported_functions
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.keys import FunctionKey

EXPORTED_FUNCTION_CALLS = (
    "its users outside the project call it as often as their programs do, which the "
    "project's own calls (its tests, examples, notebooks) do not show: it pays when called "
    "eagerly, and inside a graph of theirs it is traced into that graph and costs nothing"
)
"""Why an exported function is rated by its work per call (the reason names the function
first)."""

EXPORTED_FUNCTION_ASSUMPTION = (
    "assumes the library's users call this function eagerly, where it pays; inside a graph "
    "of theirs it costs nothing"
)
"""What the rewrite's comment says a decorator added by that rule (or "public_function")
assumes."""

PUBLIC_FUNCTION_CALLS = (
    "no package name or `__all__` exports it, but it is a public function of a public module "
    "that the project imports by that path, as its users would, and no code of the project "
    "counts its calls: its users call it as often as their programs do; it pays when called "
    "eagerly, and inside a graph of theirs it is traced into that graph and costs nothing"
)
"""Why a public function reached by its module's path is rated by its work per call."""


class ExportedFunctions:
    """The project's exported functions (`exports.exported_functions`), worked out once, when
    first asked."""

    def __init__(self, index: ProjectIndex, is_test_code: Callable[[FunctionKey], bool]) -> None:
        self.index = index
        self.is_test_code = is_test_code
        self._names: dict[FunctionKey, str] | None = None
        self._imported: dict[FunctionKey, tuple[str, str]] | None = None

    def reason(self, key: FunctionKey) -> str | None:
        """Why the function is rated by its users' calls (naming the public name it is
        exported under), or None where it is not exported."""
        name = self.names().get(key)
        if name is None:
            return None
        return f"a function the package exports as its public API (`{name}`): {EXPORTED_FUNCTION_CALLS}"

    def imported_reason(self, key: FunctionKey) -> str | None:
        """Why a public function reached by its module's path (`exports.imported_functions`)
        is rated by its users' calls, naming the path and the first importer; None where no
        module imports it so. The caller asks only where the project's own code does not
        count its calls."""
        if self._imported is None:
            self._imported = imported_functions(
                self.index, lambda relpath: self.is_test_code(FunctionKey.module_code(relpath))
            )
        found = self._imported.get(key)
        if found is None:
            return None
        dotted, importer = found
        return f"a public function imported by its path (`{dotted}`, in {importer}): {PUBLIC_FUNCTION_CALLS}"

    def names(self) -> dict[FunctionKey, str]:
        """Exported function -> its public dotted name."""
        if self._names is None:
            self._names = exported_functions(
                self.index, lambda relpath: self.is_test_code(FunctionKey.module_code(relpath))
            )
        return self._names
