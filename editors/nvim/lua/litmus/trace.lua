-- The `litmus/trace` request (:LitmusTrace): the trace as lines in a scratch buffer.
-- Adds M.trace_lines and M.trace.

local util = require('litmus.util')
local notify = util.notify
local litmus_client = util.litmus_client
local request = util.request

return function(M)
-- The trace (issue 31) ---------------------------------------------------------------------------

local function pad(s, n)
  local w = vim.fn.strdisplaywidth(s)
  return w >= n and s or (s .. string.rep(' ', n - w))
end

--- What one step does, in its thread's column: the server's text (`cell`: `x = 1 → buffer`,
--- `read y = 0`, `lock m`), shown as it is; a server from before `cell` sent only the sentence.
local function step_cell(r)
  if type(r.cell) == 'string' then
    return r.cell
  end
  return type(r.label) == 'string' and r.label or ''
end

local function pairs_text(list)
  local parts = {}
  for _, p in ipairs(type(list) == 'table' and list or {}) do
    table.insert(parts, tostring(p[1]) .. '=' .. tostring(p[2]))
  end
  return table.concat(parts, ' ')
end

local function buffer_text(snap, t)
  local parts = {}
  local b = type(snap) == 'table' and type(snap.buffers) == 'table' and snap.buffers[t] or {}
  for _, p in ipairs(type(b) == 'table' and b or {}) do
    table.insert(parts, tostring(p.loc) .. '=' .. tostring(p.value))
  end
  return #parts > 0 and table.concat(parts, ',') or '-'
end

--- A `litmus/trace` reply as lines: a heading, one column per thread and one row per step
--- (`init` first), each thread's store buffer and memory after every step, the end and final
--- state, then the graph's edges. Returns the lines and, per line, the step's 0-based source
--- position (or nil).
function M.trace_lines(trace)
  if type(trace) ~= 'table' or type(trace.rows) ~= 'table' or type(trace.threads) ~= 'table' then
    return {}, {}
  end
  local threads = trace.threads
  local buffered = trace.model ~= 'sc'
  local kinds = { assert = 'assertion failure', condition = 'condition violation', error = 'runtime error', deadlock = 'deadlock', witness = 'witness' }
  local lines, where = {}, {}
  local function add(l, pos)
    table.insert(lines, l)
    where[#lines] = pos
  end
  add(string.format('%s: %s under %s (%d steps)', trace.test or '?', kinds[trace.kind] or tostring(trace.kind), tostring(trace.model):upper(), #trace.rows))
  local others = {}
  for _, c in ipairs(type(trace.choices) == 'table' and trace.choices or {}) do
    table.insert(others, string.format('%s %d: %s', tostring(c.model):upper(), c.index + 1, c.title or c.kind or ''))
  end
  if #others > 1 then
    add('counterexamples: ' .. table.concat(others, ' | '))
  end
  add('')
  -- Columns: #, one per thread (the step), one buffer per thread (TSO/PSO), memory.
  local rows = { { '#' } }
  for _, t in ipairs(threads) do
    table.insert(rows[1], t)
  end
  if buffered then
    for _, t in ipairs(threads) do
      table.insert(rows[1], t .. ' buffer')
    end
  end
  table.insert(rows[1], 'memory')
  local positions = { false }
  local function state_row(n, r, snap)
    local row = { n }
    for ti = 1, #threads do
      table.insert(row, (r and r.thread == ti - 1) and step_cell(r) or '')
    end
    if buffered then
      for ti = 1, #threads do
        table.insert(row, buffer_text(snap, ti))
      end
    end
    table.insert(row, pairs_text(type(snap) == 'table' and snap.memory or {}))
    table.insert(rows, row)
    table.insert(positions, r and type(r.range) == 'table' and r.range.start or false)
  end
  state_row('init', nil, trace.initial)
  for i, r in ipairs(trace.rows) do
    state_row(tostring(i), r, r.after)
  end
  local widths = {}
  for _, row in ipairs(rows) do
    for c, cell in ipairs(row) do
      widths[c] = math.max(widths[c] or 0, vim.fn.strdisplaywidth(cell))
    end
  end
  for i, row in ipairs(rows) do
    local cells = {}
    for c, cell in ipairs(row) do
      table.insert(cells, c == #row and cell or pad(cell, widths[c]))
    end
    add((table.concat(cells, ' │ '):gsub('%s+$', '')), positions[i] or nil)
  end
  add('')
  local e = type(trace['end']) == 'table' and trace['end'] or {}
  if e['end'] == 'final' then
    add('final state: ' .. pairs_text(e.state))
  elseif e['end'] == 'violation' then
    add('ends at the ' .. (kinds[e.kind] or 'violation') .. ': ' .. tostring(e.message or ''))
  elseif e['end'] == 'blocked' then
    add('ends blocked (' .. tostring(e.reason) .. ')')
  else
    add('the schedule stops while the execution could go on')
  end
  local g = type(trace.graph) == 'table' and trace.graph or {}
  local nodes = type(g.nodes) == 'table' and g.nodes or {}
  local function name(i)
    local n = nodes[i + 1] or {}
    return (n.name ~= nil and n.name ~= '' and (n.name .. ': ') or '') .. tostring(n.label or '?')
  end
  if type(g.edges) == 'table' and #g.edges > 0 then
    add('')
    add('execution graph (po program order, rf reads-from, co coherence, fr from-read):')
    for _, ed in ipairs(g.edges) do
      add(string.format('  %-3s %s -> %s', ed.kind, name(ed.from), name(ed.to)))
    end
  end
  return lines, where
end

--- Shows a trace in a scratch buffer (`<CR>` on a step jumps to its source line).
local function show_trace_buffer(source_buf, trace)
  local lines, where = M.trace_lines(trace)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'litmustrace'
  pcall(vim.api.nvim_buf_set_name, buf, string.format('litmus-trace://%s/%s/%d', trace.test or 'test', trace.model or '', (trace.index or 0) + 1))
  vim.cmd('botright split')
  vim.api.nvim_win_set_buf(0, buf)
  vim.keymap.set('n', '<CR>', function()
    local pos = where[vim.api.nvim_win_get_cursor(0)[1]]
    if pos and vim.api.nvim_buf_is_valid(source_buf) then
      local win = vim.fn.bufwinid(source_buf)
      if win ~= -1 then
        vim.api.nvim_set_current_win(win)
      else
        vim.cmd('wincmd p')
        vim.api.nvim_win_set_buf(0, source_buf)
      end
      vim.api.nvim_win_set_cursor(0, { pos.line + 1, pos.character })
    end
  end, { buffer = buf, desc = 'litmus: go to the step' })
  M.last_trace = { buf = buf, trace = trace }
  return buf
end

--- Asks for the trace of `model`'s `index`-th (1-based) counterexample, else the one nearest the
--- cursor, and shows it in a scratch buffer.
function M.trace(bufnr, model, index)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = litmus_client(bufnr)
  if not client then
    notify('no litmus language server attached to this buffer', vim.log.levels.WARN)
    return
  end
  local pos = vim.api.nvim_win_get_cursor(0)
  local params = { uri = vim.uri_from_bufnr(bufnr) }
  if model and model ~= '' then
    params.model = model:lower()
  end
  if index then
    params.violation = index - 1
  else
    params.position = { line = pos[1] - 1, character = pos[2] }
  end
  request(client, 'litmus/trace', params, function(err, result)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
    elseif type(result) ~= 'table' then
      notify('no counterexample or witness to trace here')
    else
      show_trace_buffer(bufnr, result)
    end
  end, bufnr)
end

  return {}
end
