"""The refactoring engine: from verdicts to minimal, exact, atomically written edits.

Modules, one concept each:

- `document`: a file's exact bytes, encoding, BOM and line endings;
- `locate`: finding a verdict's function in the file's syntax tree by qualname (and `def`
  line), its decorators' lines, and the `# hybridize: ignore` comment;
- `decorators`: the codemods that add, remove and reconfigure the compile decorator
  (`@tf.function`; which one is the verdict's `Framework`'s to say), and the assumption
  comment of a speculative verdict;
- `signature`: an inferred input signature written as `tf.TensorSpec(...)` source;
- `names`: the names a module binds (scope by scope) and reads;
- `imports`: the module's spelling of its framework, a new import when there is none,
  dropping one that a removal leaves unused;
- `edits`: line edits on the original text, and their unified diff;
- `planned`: what a plan says (changes, notices, a file's new text), without the planner;
- `file_plan`: one file's plan, put together from the above and checked to parse (imported
  only when a file is planned, not when its plan comes from the cache);
- `plan`: the project's plan (snapshot, cache, several processes) and writing it;
- `plan_cache`: plans of unchanged files and verdicts, reused;
- `writer`: atomic writes that survive interruption;
- `selection`: `--select` / `--ignore` by function glob or finding code;
- `ignore_comment`: writing `# hybridize: ignore` above a function (the editor's action).
"""

from hybridize.refactor.plan import (
    ApplyReport,
    RefactorPlan,
    apply_plan,
    plan_refactorings,
    read_snapshot,
)
from hybridize.refactor.plan_cache import PlanCache
from hybridize.refactor.planned import FilePlan, Notice, PlannedChange
from hybridize.refactor.selection import Selection

__all__ = [
    "ApplyReport",
    "FilePlan",
    "Notice",
    "PlanCache",
    "PlannedChange",
    "RefactorPlan",
    "Selection",
    "apply_plan",
    "plan_refactorings",
    "read_snapshot",
]
