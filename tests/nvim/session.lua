-- Driven by tests/nvim.rs: Neovim's own LSP client (0.7+) against `lemplint server`.
-- Opens $FILE, waits for lemplint's NGX022 diagnostic, applies the preferred code action
-- through Neovim's workspace-edit machinery, and waits for the diagnostic to clear.
-- Writes "ok" or "fail\n<why>" to $OUT, then quits.

local function finish(ok, msg)
  local f = assert(io.open(os.getenv("OUT"), "w"))
  f:write((ok and "ok" or "fail") .. "\n" .. (msg or ""))
  f:close()
  vim.cmd("qall!")
end

local function has(buf, code)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == code then
      return d
    end
  end
  return nil
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("FILE")))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = "lemplint",
    cmd = { os.getenv("LEMPLINT_BIN"), "server" },
    root_dir = os.getenv("ROOT"),
  })
  assert(id, "the client did not start")
  vim.lsp.buf_attach_client(buf, id)
  assert(vim.wait(20000, function() return has(buf, "NGX022") ~= nil end, 50),
    "no NGX022 diagnostic arrived")
  local d = has(buf, "NGX022")
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(buf),
    range = {
      start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum, character = d.end_col },
    },
    context = { diagnostics = {} },
  }
  local replies = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 10000)
  local action
  for _, r in pairs(replies or {}) do
    for _, a in ipairs(r.result or {}) do
      if a.isPreferred then
        action = a
      end
    end
  end
  assert(action, "no preferred code action")
  vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  assert(text:find("server_tokens off;", 1, true), "the edit was not applied:\n" .. text)
  assert(vim.wait(20000, function() return has(buf, "NGX022") == nil end, 50),
    "NGX022 was not cleared after the edit")
end)
finish(ok, err and tostring(err))
