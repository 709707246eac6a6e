-- Neovim client for the litmus language server (`litmus lsp`).
--
--   require('litmus').setup({
--     cmd = { '/path/to/litmus', 'lsp' },          -- default: { 'litmus', 'lsp' }
--     settings = { models = { 'sc', 'tso' }, loopBound = 8, timeout = 10,
--                  engine = 'auto', verifyOnSave = true, verifyOnChange = false },
--     on_attach = function(client, bufnr) end,     -- optional, e.g. for key maps
--     codelens = true,                              -- refresh code lenses automatically
--   })
--
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client) and uses
-- vim.lsp.start on 0.8 and later. Adds the client side of the protocol: the `litmus/status`
-- notification (see statusline()), the `litmus.showSchedule` command (the schedule goes to the
-- quickfix list, one step an entry, labels as text), and the user commands :LitmusVerify,
-- :LitmusShowSchedule, :LitmusCopySchedule, :LitmusStatus.

local M = {}

local MODELS = { 'sc', 'tso', 'pso' }
local SYMBOL = { holds = '✓', fails = '✗', incomplete = '?', running = '…' }

M.defaults = {
  cmd = { 'litmus', 'lsp' },
  settings = {
    models = { 'sc', 'tso', 'pso' },
    loopBound = 8,
    timeout = 10,
    engine = 'auto',
    verifyOnSave = true,
    verifyOnChange = false,
  },
  codelens = true,
  on_attach = nil,
}

M.config = vim.deepcopy(M.defaults)

--- Latest `litmus/status` per buffer number.
M.status = {}

--- The client id on Neovim 0.7 (one client serves every litmus buffer).
local client_id = nil

local function notify(msg, level)
  vim.notify('litmus: ' .. msg, level or vim.log.levels.INFO)
end

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
  local text = table.concat(parts, ' · ')
  if s.state == 'running' then
    text = (text == '' and 'running' or text) .. ' (running)'
  elseif s.state == 'cancelled' then
    text = (text == '' and 'cancelled' or text) .. ' (cancelled)'
  end
  return text
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
    pcall(vim.lsp.codelens.refresh)
  end
end

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

local function litmus_client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  -- vim.lsp.get_clients is 0.10+; buf_get_clients is deprecated there.
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr, name = 'litmus' })
    or vim.lsp.buf_get_clients(bufnr)
  for _, c in pairs(clients) do
    if c.name == 'litmus' then
      return c
    end
  end
  return nil
end

--- client:request on 0.11+ (method call), client.request before.
local function request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
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

function M.verify(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = litmus_client(bufnr)
  if not client then
    notify('no litmus language server attached to this buffer', vim.log.levels.WARN)
    return
  end
  request(client, 'workspace/executeCommand', { command = 'litmus.verify', arguments = { vim.uri_from_bufnr(bufnr) } }, function(err)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
    end
  end, bufnr)
end

function M.show_schedule(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  show_schedule(bufnr, cursor_args(bufnr))
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

--- The server command line, with `cmd[1]` checked; nil and a message when it is missing.
function M.resolve_cmd(cmd)
  cmd = cmd or M.config.cmd
  if type(cmd) == 'string' then
    cmd = { cmd, 'lsp' }
  end
  local exe = vim.fn.expand(cmd[1])
  if vim.fn.executable(exe) ~= 1 then
    return nil,
      string.format(
        'cannot find the language server binary `%s`. Build it with `cargo build --release -p litmus` '
          .. 'and pass its path: require("litmus").setup({ cmd = { "/path/to/target/release/litmus", "lsp" } })',
        exe
      )
  end
  local out = vim.deepcopy(cmd)
  out[1] = exe
  return out, nil
end

local function root_dir(bufnr)
  local fname = vim.api.nvim_buf_get_name(bufnr)
  local dir = fname ~= '' and vim.fn.fnamemodify(fname, ':p:h') or vim.fn.getcwd()
  local found = vim.fn.finddir('.git', dir .. ';')
  if found ~= '' then
    return vim.fn.fnamemodify(found, ':p:h:h')
  end
  return dir
end

local function client_config(bufnr, cmd)
  return {
    name = 'litmus',
    cmd = cmd,
    root_dir = root_dir(bufnr),
    -- Read by the server from initializationOptions and, through the default
    -- workspace/configuration handler, as the `litmus` section.
    init_options = M.config.settings,
    settings = { litmus = M.config.settings },
    handlers = { ['litmus/status'] = on_status },
    commands = { ['litmus.showSchedule'] = lens_show_schedule },
    on_attach = function(client, b)
      if M.config.codelens then
        pcall(vim.lsp.codelens.refresh)
        vim.api.nvim_create_autocmd({ 'BufEnter', 'BufWritePost', 'InsertLeave' }, {
          buffer = b,
          callback = function()
            pcall(vim.lsp.codelens.refresh)
          end,
        })
      end
      if M.config.on_attach then
        M.config.on_attach(client, b)
      end
    end,
    on_exit = function(code)
      client_id = nil
      if code ~= 0 then
        vim.schedule(function()
          notify(string.format('the language server exited with code %d (cmd: %s)', code, table.concat(cmd, ' ')), vim.log.levels.WARN)
        end)
      end
    end,
  }
end

--- Starts (or reuses) the server for `bufnr` and attaches it. Returns the client id or nil.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local cmd, err = M.resolve_cmd()
  if not cmd then
    if not M._warned then
      M._warned = true
      notify(err, vim.log.levels.ERROR)
    end
    return nil
  end
  if vim.lsp.start then
    -- Neovim 0.8+: reuses a running client with the same name and root_dir.
    return vim.lsp.start(client_config(bufnr, cmd), { bufnr = bufnr })
  end
  if not client_id or not vim.lsp.get_client_by_id(client_id) then
    client_id = vim.lsp.start_client(client_config(bufnr, cmd))
  end
  if client_id then
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  return client_id
end

local function define_commands()
  local cmds = {
    LitmusVerify = { M.verify, 'Verify the current litmus test now' },
    LitmusShowSchedule = { M.show_schedule, 'Schedule of the violation/witness nearest the cursor, in the quickfix list' },
    LitmusCopySchedule = { M.copy_schedule, 'Copy the schedule nearest the cursor to the + register' },
    LitmusStatus = {
      function()
        notify(M.statusline() ~= '' and M.statusline() or 'no verdict yet')
      end,
      'Show the verdicts of the current buffer',
    },
  }
  for name, def in pairs(cmds) do
    vim.api.nvim_create_user_command(name, function()
      def[1](0)
    end, { desc = def[2] })
  end
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  if opts and opts.settings and opts.settings.models then
    M.config.settings.models = opts.settings.models -- lists are replaced, not merged
  end
  M._warned = false
  define_commands()
  local group = vim.api.nvim_create_augroup('litmus_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'litmus',
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    callback = function(args)
      M.status[args.buf] = nil
    end,
  })
  -- Buffers opened before setup() ran.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == 'litmus' then
      M.attach(b)
    end
  end
end

return M
