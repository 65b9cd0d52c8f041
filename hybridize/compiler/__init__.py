"""The compile-and-benchmark stage (`hybridize bench`): measure what compiling would give.

Only the worker subprocess imports TensorFlow or PyTorch (`worker.py` loads the backend of each
framework its candidates use); every other module is importable in the CLI process. One concept
per module:

- `instrument`: input capture, the candidate functions instrumented while the program runs;
- `inputs`: the other sources of example inputs (a user file, inferred signatures);
- `protocol`: the worker subprocess protocol, time and memory limits, restarts;
- `worker`: the subprocess: eager and compiled runs of each candidate;
- `backends`: the `Backend` protocol; `backends.tensorflow` (eager / `tf.function` / XLA) and
  `backends.torch` (eager / `torch.compile`), each importing its framework when loaded;
- `errors`: the user's exceptions as short report text;
- `timing`: steady-state timing, interleaved, medians and spread;
- `equivalence`: outputs and variables compared with stated tolerances;
- `graphstats`: graph ops, HLO instructions before/after optimisation, fusions;
- `decisions`: keep eager, graph or XLA; `load_applied_changes` for `refactor --from-bench`;
- `report`: the report model, its JSON schema and summary; `outcomes`: each function's
  outcome (apply, kept: slower, ...) that the table shows and every count counts;
  `headline`: what every format leads with (what would be applied, the command that applies
  it, the failed runs); `render_md`, `render_html` and `chart` (SVG) render it;
- `refactored_copy` and `whole_program`: the refactored temporary copy (written by refactor's
  planner), whole-program runs compared;
- `bench`: the orchestration; `cli_support` and `terminal`: the command's terminal side.
"""
