-- Driven by tests/nvim.rs: the README's Neovim snippet ($SNIPPET, run as written) with a
-- site, a sysctl file and a PHP-FPM pool of one stack open in three windows. Checks that
-- each gets its filetype and joins the one client, that one server process runs, that the
-- site's cross-file finding (STK003: its fastcgi_pass reaches no pool) is shown once, and
-- that an unsaved edit of the pool's listen clears it. Writes "ok" or "fail\n<why>" to $OUT.

local function finish(ok, msg)
  local f = assert(io.open(os.getenv("OUT"), "w"))
  f:write((ok and "ok" or "fail") .. "\n" .. (msg or ""))
  f:close()
  vim.cmd("qall!")
end

local function count(buf, code)
  local n = 0
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == code then
      n = n + 1
    end
  end
  return n
end

-- The language servers this Neovim started: its children running `lemplint server`.
local function servers()
  local n = 0
  local ps = io.popen("pgrep -P " .. vim.fn.getpid() .. " -a")
  for line in ps:lines() do
    if line:find("lemplint", 1, true) and line:find("server", 1, true) then
      n = n + 1
    end
  end
  ps:close()
  return n
end

local ok, err = pcall(function()
  vim.cmd("filetype on")
  dofile(os.getenv("SNIPPET"))
  local bufs, want = {}, { SITE = "nginx", SYSCTL = "sysctl", POOL = "dosini" }
  for i, name in ipairs({ "SITE", "SYSCTL", "POOL" }) do
    vim.cmd((i == 1 and "edit " or "split ") .. vim.fn.fnameescape(os.getenv(name)))
    bufs[name] = vim.api.nvim_get_current_buf()
    assert(vim.bo[bufs[name]].filetype == want[name],
      name .. " has filetype '" .. vim.bo[bufs[name]].filetype .. "', not " .. want[name])
  end
  local site, pool = bufs.SITE, bufs.POOL
  assert(vim.wait(20000, function() return count(site, "STK003") > 0 end, 50),
    "no STK003 on the site")
  local clients = vim.lsp.get_active_clients()
  assert(#clients == 1, #clients .. " clients run, not one")
  for name, buf in pairs(bufs) do
    assert(vim.lsp.buf_is_attached(buf, clients[1].id), name .. " did not join the client")
  end
  assert(servers() == 1, servers() .. " server processes run, not one")
  -- Every buffer's findings are in; a second server would have added its own by now.
  vim.wait(1500, function() return false end, 50)
  assert(count(site, "STK003") == 1, "STK003 is shown " .. count(site, "STK003") .. " times")
  -- The pool listens where the site passes PHP, in the buffer only.
  local lines = vim.api.nvim_buf_get_lines(pool, 0, -1, false)
  local edited = false
  for i, l in ipairs(lines) do
    if l:match("^listen%s*=") then
      vim.api.nvim_buf_set_lines(pool, i - 1, i, false, { "listen = /run/php/app.sock" })
      edited = true
    end
  end
  assert(edited, "the pool has no listen line")
  assert(vim.wait(20000, function() return count(site, "STK003") == 0 end, 50),
    "the unsaved pool edit did not clear STK003 on the site")
  assert(servers() == 1, "after the edit, " .. servers() .. " server processes run")
end)
finish(ok, err and tostring(err))
