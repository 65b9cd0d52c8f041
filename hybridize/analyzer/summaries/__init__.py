"""The per-file phase: a module's source to its summary (`ir.ModuleSummary`).

`sources` reads a project's files; `parse_guard` parses them within bounds; `summarize` turns a
syntax tree into the symbolic, picklable summary `ir` defines; `file_summaries` does it for a
whole project (in several processes for a large one, through the summary cache); `interface`
is the part of a summary other modules depend on (what makes an edit incremental); `hooks`
is how a check records a syntactic fact of its own in the same walk (`Check.summary_hook`).
Nothing here looks at another module: that is the facts' stage.
"""
