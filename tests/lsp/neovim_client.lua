-- Drives `hybridize lsp` from a real editor: Neovim 0.7 or later, headless, its built-in LSP
-- client (tests/lsp/test_lsp_neovim.py runs it). Only APIs Neovim 0.7 has are used, the
-- version Debian bookworm ships.
--
-- Opens the file HYBRIDIZE_NVIM_FILE of the project HYBRIDIZE_NVIM_ROOT, waits for an HY010
-- diagnostic, asks for the code actions on that function's line as `vim.lsp.buf.code_action`
-- does (the line's diagnostics as the context), applies the quick fix that adds the decorator
-- through Neovim's own workspace-edit code, writes the buffer and writes what happened as JSON
-- to HYBRIDIZE_NVIM_RESULT. The server command is HYBRIDIZE_NVIM_CMD (a JSON list). Every wait
-- is bounded by HYBRIDIZE_NVIM_TIMEOUT_MS, and Neovim always quits: a headless Neovim whose
-- script failed would otherwise wait for input forever.

local result = { ok = false, log = {} }
local result_path = os.getenv("HYBRIDIZE_NVIM_RESULT")
local timeout = tonumber(os.getenv("HYBRIDIZE_NVIM_TIMEOUT_MS") or "30000")
local published_version = -1 -- the newest document version the server published for

local function finish(code)
  local out = assert(io.open(result_path, "w"))
  out:write(vim.json.encode(result))
  out:close()
  vim.cmd((code == 0 and "qall!") or ("cquit " .. code))
end

local function wait_for(what, predicate)
  if not vim.wait(timeout, predicate, 50) then
    error("timed out waiting for " .. what, 0)
  end
end

local function hy010(bufnr)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == "HY010" then
      return d
    end
  end
  return nil
end

local function main()
  local root = os.getenv("HYBRIDIZE_NVIM_ROOT")
  local file = os.getenv("HYBRIDIZE_NVIM_FILE")
  local cmd = vim.json.decode(os.getenv("HYBRIDIZE_NVIM_CMD"))

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].filetype = "python" -- sent as the document's languageId

  local client_id = vim.lsp.start_client({
    name = "hybridize",
    cmd = cmd,
    root_dir = root,
    handlers = {
      ["textDocument/publishDiagnostics"] = function(err, params, ctx, config)
        if params.version ~= nil and params.version > published_version then
          published_version = params.version
        end
        return vim.lsp.handlers["textDocument/publishDiagnostics"](err, params, ctx, config)
      end,
    },
    on_exit = function(code, signal)
      table.insert(result.log, ("server exited: code %s, signal %s"):format(code, signal))
    end,
  })
  if client_id == nil then
    error("vim.lsp.start_client could not start " .. table.concat(cmd, " "), 0)
  end
  vim.lsp.buf_attach_client(bufnr, client_id)

  wait_for("an HY010 diagnostic", function()
    return hy010(bufnr) ~= nil
  end)
  local client = vim.lsp.get_client_by_id(client_id)
  result.offset_encoding = client.offset_encoding
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(result.diagnostics, {
      code = d.code,
      lnum = d.lnum,
      col = d.col,
      end_col = d.end_col,
      severity = d.severity,
      message = d.message,
    })
  end
  local target = hy010(bufnr)
  result.function_name = vim.api.nvim_buf_get_text(
    bufnr, target.lnum, target.col, target.end_lnum, target.end_col, {}
  )[1]

  -- What `vim.lsp.buf.code_action()` sends with the cursor on the function's name.
  vim.api.nvim_win_set_cursor(0, { target.lnum + 1, target.col })
  local params = vim.lsp.util.make_range_params()
  params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(bufnr) }
  local responses, err = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, timeout)
  if responses == nil then
    error("textDocument/codeAction: " .. tostring(err), 0)
  end
  local response = responses[client_id]
  if response == nil or response.error ~= nil then
    error("textDocument/codeAction failed: " .. vim.inspect(response), 0)
  end
  local chosen = nil
  result.actions = {}
  for _, action in ipairs(response.result or {}) do
    table.insert(result.actions, { title = action.title, kind = action.kind or "" })
    if chosen == nil and action.kind == "quickfix" and action.title:find(" add ", 1, true) then
      chosen = action
    end
  end
  if chosen == nil or chosen.edit == nil then
    error("no quick fix that adds the decorator: " .. vim.inspect(result.actions), 0)
  end
  result.applied = chosen.title
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  vim.cmd("write")

  -- The applied edit reaches the server as Neovim's own incremental didChange: once the
  -- diagnostics of the buffer's current version arrive, the fixed function has no HY010.
  local version = vim.lsp.util.buf_versions[bufnr]
  wait_for("the diagnostics of version " .. tostring(version), function()
    return published_version >= version
  end)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local text = vim.api.nvim_buf_get_text(bufnr, d.lnum, d.col, d.end_lnum, d.end_col, {})[1]
    if d.code == "HY010" and text == result.function_name then
      error("the fixed function still has its HY010: " .. vim.inspect(d), 0)
    end
  end
  result.after = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(result.after, { code = d.code, lnum = d.lnum })
  end

  client.stop()
  wait_for("the server to exit", function()
    return client.is_stopped()
  end)
  result.ok = true
end

local ok, message = xpcall(main, debug.traceback)
if not ok then
  result.error = message
  finish(1)
else
  finish(0)
end
