-- The `litmus.showSchedule` schedule: the quickfix list, its title and text, :LitmusShowSchedule,
-- :LitmusCopySchedule and the code lens's client-side command. Adds M.schedule_to_qf,
-- M.schedule_title, M.schedule_text, M.show_schedule, M.copy_schedule; returns the lens command.

local util = require('litmus.util')
local notify = util.notify
local litmus_client = util.litmus_client
local request = util.request

return function(M)
--- The schedule as quickfix items: one per step, the label as text, 1-based positions.
function M.schedule_to_qf(schedule)
  local items = {}
  if type(schedule) ~= 'table' or type(schedule.steps) ~= 'table' then
    return items
  end
  for i, step in ipairs(schedule.steps) do
    local loc = type(step) == 'table' and step.location or nil
    if type(loc) == 'table' and type(loc.uri) == 'string' and type(loc.range) == 'table' then
      local start = loc.range.start or {}
      table.insert(items, {
        filename = vim.uri_to_fname(loc.uri),
        lnum = (start.line or 0) + 1,
        -- LSP characters are UTF-16 units; litmus sources are ASCII in practice.
        col = (start.character or 0) + 1,
        text = string.format('%d. %s', i, step.label or ''),
      })
    end
  end
  return items
end

function M.schedule_title(schedule)
  local kinds = {
    assert = 'assertion violation',
    condition = 'condition violation',
    error = 'runtime error',
    deadlock = 'deadlock',
    witness = 'witness',
  }
  local head = ((schedule.model or '') ~= '' and (schedule.model:upper() .. ' ') or '')
    .. (kinds[schedule.kind] or 'schedule')
  if (schedule.title or '') ~= '' then
    head = head .. ': ' .. schedule.title
  end
  return head
end

--- Plain text of a schedule, for registers: heading then one numbered step a line.
function M.schedule_text(schedule)
  local lines = { M.schedule_title(schedule) }
  for _, item in ipairs(M.schedule_to_qf(schedule)) do
    table.insert(lines, string.format('  %s  %s:%d:%d', item.text, vim.fn.fnamemodify(item.filename, ':t'), item.lnum, item.col))
  end
  return table.concat(lines, '\n') .. '\n'
end

--- Asks the server for the schedule at (uri, line, character) and calls `cb(schedule|nil, err)`.
local function request_schedule(bufnr, args, cb)
  local client = litmus_client(bufnr)
  if not client then
    cb(nil, 'no litmus language server attached to this buffer')
    return
  end
  request(client, 'workspace/executeCommand', { command = 'litmus.showSchedule', arguments = args }, function(err, result)
    if err then
      cb(nil, err.message or vim.inspect(err))
    else
      cb(result, nil)
    end
  end, bufnr)
end

local function cursor_args(bufnr)
  local pos = vim.api.nvim_win_get_cursor(0)
  return { vim.uri_from_bufnr(bufnr), pos[1] - 1, pos[2] }
end

local function show_schedule(bufnr, args)
  request_schedule(bufnr, args, function(schedule, err)
    if err then
      notify(err, vim.log.levels.ERROR)
      return
    end
    local items = M.schedule_to_qf(schedule)
    if #items == 0 then
      notify('no violation or witness to show here')
      return
    end
    vim.fn.setqflist({}, ' ', { title = 'litmus: ' .. M.schedule_title(schedule), items = items })
    vim.cmd('copen')
  end)
end

--- Client-side `litmus.showSchedule`, run by the "Show schedule" code lens.
local function lens_show_schedule(command, ctx)
  show_schedule(ctx.bufnr, command.arguments or cursor_args(ctx.bufnr))
end

--- The schedule nearest the cursor; `model` ('sc', 'tso', 'pso') picks that model's.
function M.show_schedule(bufnr, model)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local args = cursor_args(bufnr)
  if model and model ~= '' then
    table.insert(args, model:lower())
  end
  show_schedule(bufnr, args)
end

function M.copy_schedule(bufnr, register)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  request_schedule(bufnr, cursor_args(bufnr), function(schedule, err)
    if err then
      notify(err, vim.log.levels.ERROR)
    elseif #M.schedule_to_qf(schedule) == 0 then
      notify('no violation or witness to copy here')
    else
      local text = M.schedule_text(schedule)
      -- '+' only where a clipboard provider exists (none in headless or plain terminals).
      if register or vim.fn.has('clipboard') == 1 then
        vim.fn.setreg(register or '+', text)
      end
      vim.fn.setreg('"', text)
      notify('copied the ' .. M.schedule_title(schedule) .. ' schedule')
    end
  end)
end

  return { lens_show_schedule = lens_show_schedule }
end
