"""`hybridize refactor --verify`: the user's own tests (or program) judge the planned changes.

Modules, one concept each:

- `verification`: the rounds on the project's copy, the attribution of newly failing tests to
  rewritten functions, and the bisection of the changes when that is ambiguous;
- `workspace`: the temporary copy of the project, holding one subset of the changes at a time;
- `command_run`: one run of the verify command, its limits and its environment;
- `pytest_plugin`: loaded into the user's test run (standard library and pytest only): each
  test's outcome, its error's frames, and the rewritten functions it ran;
- `outcomes`: test outcomes before and after, newly failing tests, and blame;
- `rewritten`: where each rewritten function's code lives in the rewritten copy;
- `report`: the JSON verify report the language server reads;
- `cli_support`: the command line's side (progress on stderr, exit status 3);
- `benefit_plugin`: the benefit oracle's plugin (standard library and pytest only): a probe in
  place of each rewritten function records its calls' signatures and traces and times them
  compiled and eager;
- `benefit`: the benefit oracle's verdicts from those records, per change and per library.

The real-code oracle (benchmarks/realcode_oracle.py) judges real libraries with the same
plugin, outcomes and blame; the benefit oracle (benchmarks/benefit_oracle.py) asks on the same
test runs whether each change pays.
"""
