"""The project-wide facts: what every value may be, what every function does.

`resolve` indexes the project's summaries (names, imports, classes); `solver` runs the fixed
point over call sites with `evaluator` (one function's values, as `values` atoms); the other
modules compute one fact each from the solved values (effects, the call graph, retracing,
returns, safety, candidacy...). The checks read these facts; the decisions combine them.
"""
