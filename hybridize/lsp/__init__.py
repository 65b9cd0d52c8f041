"""The language server (`hybridize lsp`): a thin pygls layer over `hybridize.project.Project`.

Modules, one concept each: `server` (the handlers and the server's state), `positions`
(code-point columns to the negotiated encoding, text changes as whole-line edits),
`diagnostics`, `actions` (quick fixes, the file's source action, "ignore this function"),
`hover`, `settings` (`[tool.hybridize]` and the editor's settings), `docs` (where a code links).
"""
