-- `litmus/results` (one notification per finished check of a document) and :LitmusResults:
-- the last run's verdict and numbers per model, then the previous runs of the session, newest
-- first, in a scratch buffer. The same table as VS Code's results view (`logic/results.ts`).
-- Adds M.on_results, M.results_record, M.results_lines (pure), M.results (the command).

local util = require('litmus.util')
local notify = util.notify

--- Runs a buffer keeps (the newest first; older ones are dropped).
local CAP = 20

return function(M)
--- Runs per document uri, newest first.
M.results_history = {}

--- Records a run; false when it is for an older version than the newest kept (a late check).
--- A run that repeats the newest (same version, state and rows) replaces it.
function M.results_record(params, at)
  if type(params) ~= 'table' or type(params.uri) ~= 'string' or type(params.models) ~= 'table' then
    return false
  end
  local runs = M.results_history[params.uri] or {}
  if runs[1] and (params.version or 0) < runs[1].version then
    return false
  end
  -- the same answer again (from the server's cache): one run, its time the latest
  local r1 = runs[1]
  if r1 and r1.version == (params.version or 0) and r1.state == params.state and vim.deep_equal(r1.models, params.models) then
    table.remove(runs, 1)
  end
  table.insert(runs, 1, { at = at or os.time(), version = params.version or 0, state = params.state, models = params.models })
  while #runs > CAP do
    table.remove(runs)
  end
  M.results_history[params.uri] = runs
  return true
end

function M.on_results(_, params)
  if M.results_record(params, os.time()) then
    -- an open :LitmusResults buffer of that document follows
    local b = M._results_buf
    if b and vim.api.nvim_buf_is_valid(b) and vim.b[b].litmus_results_uri == params.uri then
      vim.schedule(function()
        M.results_show(params.uri, b)
      end)
    end
  end
end

local function count(n)
  if type(n) ~= 'number' then
    return '–'
  end
  local s = tostring(math.floor(n + 0.5))
  local out = s:reverse():gsub('(%d%d%d)', '%1,'):reverse()
  return (out:gsub('^,', ''))
end

local function duration(ms)
  if type(ms) ~= 'number' then
    return '–'
  end
  if ms < 10 then
    return string.format('%.1f ms', math.floor(ms * 10 + 0.5) / 10)
  elseif ms < 1000 then
    return string.format('%d ms', math.floor(ms + 0.5))
  end
  return string.format('%.2f s', ms / 1000)
end

local function completeness(r)
  if r.completeness == 'complete' then
    return 'complete'
  elseif r.completeness == 'bounded' then
    return 'complete up to the loop bound'
  elseif r.completeness == 'stopped' then
    return 'stopped' .. (type(r.why) == 'string' and (': ' .. r.why) or '')
  end
  return '–'
end

local COLUMNS = { 'model', 'verdict', 'engine', 'executions', 'states', 'time', 'completeness' }

--- One model's cells, in COLUMNS order.
function M.results_cells(r)
  local verdict = tostring(r.mark or '?')
  if type(r.exists) == 'string' and r.exists ~= r.mark then
    verdict = verdict .. ' ' .. r.exists
  end
  if type(r.implied_by) == 'string' then
    verdict = verdict .. ' (implied by ' .. r.implied_by:upper() .. ')'
  end
  if r.undecided == true then
    verdict = verdict .. ' (condition not decided)'
  end
  return {
    tostring(r.label or r.model or '?'),
    verdict,
    type(r.engine) == 'string' and r.engine or '–',
    count(r.executions),
    count(r.states),
    duration(r.time_ms),
    completeness(r),
  }
end

local function summary(run)
  local parts = {}
  for _, m in ipairs(run.models) do
    local a = (type(m.exists) == 'string' and m.exists ~= m.mark) and (' ' .. m.exists) or ''
    table.insert(parts, tostring(m.label or m.model) .. ' ' .. tostring(m.mark or '?') .. a)
  end
  local s = #parts > 0 and table.concat(parts, ' · ') or 'no model checked'
  return s .. (run.state == 'cancelled' and ' (cancelled)' or '')
end

--- The runs as lines: the last run's heading and table, then `Previous runs`, each the same.
function M.results_lines(runs)
  local out = {}
  for i, run in ipairs(runs or {}) do
    if i == 2 then
      table.insert(out, '')
      table.insert(out, 'Previous runs')
    end
    table.insert(out, string.format('%s %s · version %d · %s', i == 1 and 'Last run' or '-', os.date('%H:%M:%S', run.at), run.version, summary(run)))
    local rows = { COLUMNS }
    for _, m in ipairs(run.models) do
      table.insert(rows, M.results_cells(m))
    end
    local widths = {}
    for c = 1, #COLUMNS do
      widths[c] = 0
      for _, r in ipairs(rows) do
        widths[c] = math.max(widths[c], vim.fn.strdisplaywidth(r[c]))
      end
    end
    for _, r in ipairs(rows) do
      local cells = {}
      for c, cell in ipairs(r) do
        cells[c] = cell .. string.rep(' ', widths[c] - vim.fn.strdisplaywidth(cell))
      end
      table.insert(out, (('  ' .. table.concat(cells, '  ')):gsub('%s+$', '')))
    end
  end
  return out
end

--- Fills the scratch buffer `b` with the results of `uri`.
function M.results_show(uri, b)
  local runs = M.results_history[uri] or {}
  local lines = M.results_lines(runs)
  if #lines == 0 then
    lines = { 'No finished check of ' .. vim.uri_to_fname(uri) .. ' yet in this session: save it or run :LitmusVerify.' }
  end
  table.insert(lines, 1, 'Results of ' .. vim.fn.fnamemodify(vim.uri_to_fname(uri), ':~:.'))
  table.insert(lines, 2, '')
  vim.bo[b].modifiable = true
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].modifiable = false
end

--- :LitmusResults: the current buffer's results in a scratch buffer (reused), in a split.
function M.results(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local uri = vim.b[bufnr].litmus_results_uri or vim.uri_from_bufnr(bufnr)
  if vim.bo[bufnr].filetype ~= 'litmus' and not vim.b[bufnr].litmus_results_uri then
    notify('open a .litmus file first', vim.log.levels.WARN)
    return
  end
  local b = M._results_buf
  if not (b and vim.api.nvim_buf_is_valid(b)) then
    b = vim.api.nvim_create_buf(false, true)
    vim.bo[b].bufhidden = 'hide'
    vim.bo[b].filetype = 'litmusresults'
    pcall(vim.api.nvim_buf_set_name, b, 'litmus-results://')
    M._results_buf = b
  end
  vim.b[b].litmus_results_uri = uri
  M.results_show(uri, b)
  local win = vim.fn.bufwinid(b)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, b)
  else
    vim.api.nvim_set_current_win(win)
  end
end
end
