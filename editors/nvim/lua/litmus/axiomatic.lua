-- herd's AArch64 and RISC-V tests in Neovim (issue 43): the server's `litmus/axiomatic` reply
-- (docs/design/lsp.md#axiomatic-tests) as text in a scratch buffer — the verdict (herd's Ok/No,
-- allowed/forbidden, the model), the failed check and its cycle for a forbidden state, the
-- events of the execution (the witness of an allowed state), its edges, and herd's block.
-- `:LitmusAxiomatic` and the lens on the condition (`litmus.showAxiomatic`) open it.

local A = {}

--- The place of the check that forbids the state (`execution.check.location`): file name
--- and 1-based line and column, or nil.
function A.check_place(v)
  local x = type(v) == 'table' and type(v.execution) == 'table' and v.execution or nil
  local c = x and type(x.check) == 'table' and x.check or nil
  local l = c and type(c.location) == 'table' and c.location or nil
  if not l or type(l.uri) ~= 'string' or type(l.range) ~= 'table' or type(l.range.start) ~= 'table' then
    return nil
  end
  local ok, fname = pcall(vim.uri_to_fname, l.uri)
  if not ok then
    return nil
  end
  return { filename = fname, lnum = (l.range.start.line or 0) + 1, col = (l.range.start.character or 0) + 1, check = tostring(c.kind) .. ' ' .. tostring(c.name) }
end

--- Opens the check of the last shown reply (`:LitmusGotoCheck`); false when there is none.
function A.goto_check(v)
  local p = A.check_place(v or (A.last and A.last.view))
  if not p then
    return false
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(p.filename))
  pcall(vim.api.nvim_win_set_cursor, 0, { p.lnum, p.col - 1 })
  return true
end

--- The reply as lines.
function A.lines(v)
  local lines = {}
  local function add(s)
    table.insert(lines, s)
  end
  add(string.format('%s (%s): %s', tostring(v.test or '?'), tostring(v.arch or '?'), tostring(v.condition or '')))
  for _, l in ipairs(type(v.text) == 'table' and v.text or {}) do
    add(l)
  end
  local p = A.check_place(v)
  if p then
    add(string.format('the check %s: %s:%d (:LitmusGotoCheck)', p.check, vim.fn.fnamemodify(p.filename, ':t'), p.lnum))
  end
  local x = type(v.execution) == 'table' and v.execution or nil
  if x and type(x.edges) == 'table' and #x.edges > 0 then
    local nodes = {}
    for _, n in ipairs(x.nodes or {}) do
      nodes[n.id] = n
    end
    local function name(i)
      local n = nodes[i] or {}
      return 'e' .. tostring(i) .. ': ' .. tostring(n.label or '?')
    end
    add('')
    add('edges (po program order, rf reads-from, co coherence, fr from-read, addr/data/ctrl dependencies; * on the cycle):')
    for _, ed in ipairs(x.edges) do
      add(string.format('  %s %-4s %s -> %s', ed.cycle and '*' or ' ', ed.kind, name(ed.from), name(ed.to)))
    end
  end
  if type(v.block) == 'table' and #v.block > 0 then
    add('')
    for _, l in ipairs(v.block) do
      add(l)
    end
  end
  return lines
end

--- Shows a reply in a scratch buffer; returns the buffer.
function A.show(v)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, A.lines(v))
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  pcall(vim.api.nvim_buf_set_name, buf, 'litmus-axiomatic://' .. tostring(v.test or 'test'))
  vim.cmd('botright split')
  vim.api.nvim_win_set_buf(0, buf)
  A.last = { buf = buf, view = v }
  return buf
end

return A
