-- `litmus/status` (the status line's verdicts) and the hover text.
-- Adds M.format_status, M.hover_text, M.statusline; returns the handlers for the client.

local util = require('litmus.util')
local MODELS = util.MODELS
local SYMBOL = util.SYMBOL

return function(M)
--- Text for a status line: `SC ✓ · TSO ✗ · PSO ✗`, with `…` while running; '' when unknown.
function M.format_status(s)
  if type(s) ~= 'table' or type(s.verdicts) ~= 'table' then
    return ''
  end
  local parts = {}
  for _, m in ipairs(MODELS) do
    local v = s.verdicts[m]
    if SYMBOL[v] then
      table.insert(parts, m:upper() .. ' ' .. SYMBOL[v])
    end
  end
  -- herd's AArch64 and RISC-V tests: their model's mark and herd's answer to an `exists`
  -- (`aarch64.cat ✓ No`).
  for _, m in ipairs(util.AXIOMATIC) do
    local v = s.verdicts[m]
    if SYMBOL[v] then
      local a = type(s.exists) == 'table' and s.exists[m] or nil
      -- a C test's mark is its answer against its `Result:` header (`C ✓`)
      local answer = m ~= 'c' and (a == 'ok' and ' Ok' or a == 'no' and ' No') or ''
      table.insert(parts, util.model_label(m) .. ' ' .. SYMBOL[v] .. answer)
    end
  end
  local text = table.concat(parts, ' · ')
  if type(s.problem) == 'string' and s.problem ~= '' then
    return 'cannot verify: ' .. s.problem
  end
  if s.state == 'queued' then
    return (text == '' and 'queued' or text) .. ' (queued)'
  end
  if s.state == 'running' then
    text = (text == '' and 'running' or text) .. ' (running)'
  elseif s.state == 'cancelled' then
    text = (text == '' and 'cancelled' or text) .. ' (cancelled)'
  elseif s.limit == 'memory' or s.limit == 'time' then
    -- a check stopped at the memory budget or the timeout (what it found is kept)
    text = text .. ' (' .. s.limit .. ' limit)'
  end
  return text
end

--- The server's hover markdown made readable in Neovim 0.7's float: links to VS Code commands
--- (`[Trace under TSO](command:litmus.showTrace?…)`) become their text with the command that
--- does the same here, and a markdown table (if any) becomes one row a line. Before 0.10 the
--- float's markdown is a Vim syntax that conceals `**` and `_` but shows code spans' backticks,
--- so they are dropped there (outside fenced blocks, which the float shows verbatim) (`plain_code`, default: the running Neovim is older than 0.10; from
--- 0.10 tree-sitter conceals them); runs of blank lines become one.
function M.hover_text(md, plain_code)
  if type(md) ~= 'string' then
    return md
  end
  if plain_code == nil then
    plain_code = vim.fn.has('nvim-0.10') == 0
  end
  md = md:gsub('%[Trace under (%u+)%]%(command:[^%)]*%)', function(m)
    return 'Trace under ' .. m .. ' (`:LitmusTrace ' .. m:lower() .. '`)'
  end)
  md = md:gsub('%[Show the execution graph%]%(command:[^%)]*%)', 'Execution as text: `:LitmusAxiomatic`')
  md = md:gsub('%[Check for every iteration%]%(command:[^%)]*%)', 'Check for every iteration (`:LitmusVerifyUnbounded`)')
  md = md:gsub('%[([^%]]*)%]%(command:[^%)]*%)', '%1')
  local out = {}
  local fenced = false
  for line in (md .. '\n'):gmatch('(.-)\n') do
    if line:match('^```') then
      -- a fenced block (herd's block in an AArch64/RISC-V hover): kept as it is, fences and
      -- all, for the float to show verbatim (`/\` included); only the text outside loses its
      -- backticks
      fenced = not fenced
      table.insert(out, line)
    elseif fenced then
      table.insert(out, line)
    elseif line:match('^|[%s%-:|]+|$') then
      -- the separator row of a table: dropped
    elseif line:match('^|.*|$') then
      local cells = {}
      for c in line:sub(2, -2):gmatch('[^|]+') do
        table.insert(cells, vim.trim(c))
      end
      table.insert(out, '  ' .. table.concat(cells, ' · '))
    else
      table.insert(out, plain_code and (line:gsub('`([^`]*)`', '%1')) or line)
    end
  end
  return (table.concat(out, '\n'):gsub('\n\n\n+', '\n\n'))
end

local function on_hover(err, result, ctx, config)
  if type(result) == 'table' and type(result.contents) == 'table' and type(result.contents.value) == 'string' then
    result.contents.value = M.hover_text(result.contents.value)
  end
  return vim.lsp.handlers.hover(err, result, ctx, config)
end

--- For 'statusline': `%{v:lua.require'litmus'.statusline()}`.
function M.statusline(bufnr)
  return M.format_status(M.status[bufnr or vim.api.nvim_get_current_buf()])
end

local function uri_bufnr(uri)
  local ok, bufnr = pcall(vim.uri_to_bufnr, uri)
  if ok then
    return bufnr
  end
  return nil
end

local function on_status(err, result, ctx)
  if err or type(result) ~= 'table' or type(result.uri) ~= 'string' then
    return
  end
  local bufnr = uri_bufnr(result.uri)
  if not bufnr then
    return
  end
  local old = M.status[bufnr]
  -- An older analysis finishing late never replaces a newer one.
  if old and type(result.version) == 'number' and type(old.version) == 'number' and result.version < old.version then
    return
  end
  M.status[bufnr] = result
  vim.api.nvim_exec_autocmds('User', { pattern = 'LitmusStatus', modeline = false })
  if result.state == 'done' and M.config.codelens and ctx and ctx.client_id then
    util.refresh_lenses()
  end
end

  return { on_hover = on_hover, on_status = on_status }
end
