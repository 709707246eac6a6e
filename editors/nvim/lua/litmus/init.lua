-- Neovim client for the litmus language server (`litmus lsp`).
--
--   require('litmus').setup({
--     cmd = { '/path/to/litmus', 'lsp' },          -- default: { 'litmus', 'lsp' }
--     settings = { models = { 'sc', 'tso' }, loopBound = 8, timeout = 10,
--                  engine = 'auto', verifyOnSave = true, verifyOnChange = false,
--                  unbounded = 'off' },               -- 'onSave': saves check every iteration
--     on_attach = function(client, bufnr) end,     -- optional, e.g. for key maps
--     codelens = true,                              -- refresh code lenses automatically
--   })
--
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client) and uses
-- vim.lsp.start on 0.8 and later. Adds the client side of the protocol: the `litmus/status`
-- notification (see statusline()), the `litmus.showSchedule` command (the schedule goes to the
-- quickfix list, one step an entry, labels as text; the per-model verdict lenses `TSO ✗` pass the
-- model), the `litmus/trace` request (:LitmusTrace: every step with the store buffers and memory
-- after it, the final state and the execution graph's edges in a scratch buffer), and the user
-- commands :LitmusVerify, :LitmusVerifyUnbounded (for every number of loop iterations, the
-- `litmus.verifyUnbounded` command; the lens `check for every iteration` runs it too),
-- :LitmusShowSchedule [model], :LitmusCopySchedule, :LitmusTrace [model
-- [n]], :LitmusStatus, and :LitmusVerifyAll [DIR] (every `.litmus` file under DIR checked by one
-- `litmus check --json` run, problems in the quickfix list), and :LitmusAxiomatic (an AArch64,
-- RISC-V, POWER, ARMv7 or C test's verdict, the check and cycle that forbid its state or a witness,
-- as text), and :LitmusResults (each model's verdict and numbers of the last finished check, from the
-- `litmus/results` notification, and the session's previous runs, in a scratch buffer).

local M = {}

local util = require('litmus.util')
local notify, litmus_client, request, root_dir = util.notify, util.litmus_client, util.request, util.root_dir

M.defaults = {
  cmd = { 'litmus', 'lsp' },
  settings = {
    models = { 'sc', 'tso', 'pso' },
    loopBound = 8,
    timeout = 10,
    engine = 'auto',
    verifyOnSave = true,
    verifyOnChange = false,
    unbounded = 'off',
  },
  codelens = true,
  on_attach = nil,
}

M.config = vim.deepcopy(M.defaults)

--- Latest `litmus/status` per buffer number.
M.status = {}

--- The client id on Neovim 0.7 (one client serves every litmus buffer).
local client_id = nil

-- The parts, by concern: each adds its functions to M (see the top of each file).
local status = require('litmus.status')(M)
local schedule = require('litmus.schedule')(M)
require('litmus.trace')(M)
require('litmus.verify_all')(M)
require('litmus.results')(M)
local on_hover, on_status = status.on_hover, status.on_status
local lens_show_schedule = schedule.lens_show_schedule

--- Asks for the axiomatic verdict of an AArch64 or RISC-V buffer and shows it as text
--- (`lua/litmus/axiomatic.lua`).
function M.axiomatic(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = litmus_client(bufnr)
  if not client then
    notify('no litmus language server attached to this buffer', vim.log.levels.WARN)
    return
  end
  request(client, 'litmus/axiomatic', { uri = vim.uri_from_bufnr(bufnr) }, function(err, result)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
    elseif type(result) ~= 'table' then
      notify('no axiomatic verdict here yet (save an AArch64 or RISC-V test to check it)')
    else
      require('litmus.axiomatic').show(result)
    end
  end, bufnr)
end

--- Runs the server's `command` on the buffer's document.
local function run_on_buffer(bufnr, command)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = litmus_client(bufnr)
  if not client then
    notify('no litmus language server attached to this buffer', vim.log.levels.WARN)
    return
  end
  request(client, 'workspace/executeCommand', { command = command, arguments = { vim.uri_from_bufnr(bufnr) } }, function(err)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
    end
  end, bufnr)
end

--- `litmus/modelChanges` (docs/models.md): the tests whose verdict the saved cat model changed,
--- as the quickfix list.
function M.on_model_changes(_, params)
  if type(params) ~= 'table' then
    return
  end
  if params.error then
    notify('the saved model cannot be checked: ' .. tostring(params.error), vim.log.levels.WARN)
    return
  end
  local items = {}
  M.model_changes = {}
  for _, c in ipairs(params.changed or {}) do
    table.insert(items, { filename = c.file, lnum = 1, col = 1, text = string.format('%s: %s -> %s', c.test, c.before, c.after) })
    M.model_changes[c.file] = c
  end
  vim.fn.setqflist({}, 'r', { title = 'litmus: verdicts the model changed', items = items })
  notify(string.format('%d of %d tests changed verdict (quickfix list)', #items, params.checked or 0))
end

--- The changed test a `:LitmusModelChange` opens: the current buffer's, else the quickfix
--- list's current entry's.
function M.model_change_entry(bufnr)
  local changes = M.model_changes or {}
  local name = vim.api.nvim_buf_get_name(bufnr)
  if changes[name] then
    return changes[name]
  end
  local qf = vim.fn.getqflist({ idx = 0, items = 1 })
  local it = qf.items and qf.items[qf.idx or 0]
  if it and it.bufnr and it.bufnr > 0 then
    return changes[vim.api.nvim_buf_get_name(it.bufnr)]
  end
  return nil
end

--- Opens a changed test's axiomatic view under the model as it was (`old`) or as saved (`new`):
--- the entry's `litmus/axiomaticUnder` request.
function M.model_change(bufnr, which)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local key = (which == 'old' or which == 'before') and 'before' or 'after'
  local c = M.model_change_entry(bufnr)
  local view = c and type(c.views) == 'table' and c.views[key] or nil
  if type(view) ~= 'table' or type(view.params) ~= 'table' then
    notify('no changed test here (save a cat model first, then use this on a test of the list)', vim.log.levels.WARN)
    return
  end
  local client = litmus_client(bufnr) or (vim.lsp.get_clients or vim.lsp.get_active_clients)({ name = 'litmus' })[1]
  if not client then
    notify('no litmus language server running', vim.log.levels.WARN)
    return
  end
  request(client, view.method or 'litmus/axiomaticUnder', view.params, function(err, result)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
    elseif type(result) == 'table' then
      require('litmus.axiomatic').show(result)
    end
  end, bufnr)
end

--- Writes a built-in cat model and the library files it needs into DIR (`litmus.writeModel`).
function M.write_model(bufnr, name, dir)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = litmus_client(bufnr)
  if not client then
    notify('no litmus language server attached to this buffer', vim.log.levels.WARN)
    return
  end
  local args = { name or 'aarch64', vim.fn.fnamemodify(dir or '.', ':p') }
  request(client, 'workspace/executeCommand', { command = 'litmus.writeModel', arguments = args }, function(err, files)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
    elseif type(files) == 'table' and files[1] then
      vim.cmd('edit ' .. vim.fn.fnameescape(files[1]))
    end
  end, bufnr)
end

function M.verify(bufnr)
  run_on_buffer(bufnr, 'litmus.verify')
end

--- Checks the buffer for every number of loop iterations (`litmus check --unbounded`).
function M.verify_unbounded(bufnr)
  run_on_buffer(bufnr, 'litmus.verifyUnbounded')
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

local function client_config(bufnr, cmd)
  return {
    name = 'litmus',
    cmd = cmd,
    root_dir = root_dir(bufnr),
    -- Read by the server from initializationOptions and, through the default
    -- workspace/configuration handler, as the `litmus` section.
    init_options = M.config.settings,
    settings = { litmus = M.config.settings },
    handlers = {
      ['litmus/status'] = on_status,
      ['textDocument/hover'] = on_hover,
      ['litmus/results'] = function(err, params)
        M.on_results(err, params)
      end,
      ['litmus/modelChanges'] = function(err, params)
        M.on_model_changes(err, params)
      end,
    },
    commands = {
      ['litmus.showSchedule'] = lens_show_schedule,
      ['litmus.showAxiomatic'] = function(_, ctx)
        M.axiomatic(ctx.bufnr)
      end,
    },
    on_attach = function(client, b)
      -- the server's completion on <C-x><C-o> (Neovim 0.10+ sets this itself)
      if vim.bo[b].omnifunc == '' then
        vim.bo[b].omnifunc = 'v:lua.vim.lsp.omnifunc'
      end
      if M.config.codelens then
        util.refresh_lenses()
        vim.api.nvim_create_autocmd({ 'BufEnter', 'BufWritePost', 'InsertLeave' }, {
          buffer = b,
          callback = function()
            util.refresh_lenses()
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
    LitmusVerifyUnbounded = { M.verify_unbounded, 'Check the current litmus test for every number of loop iterations' },
    LitmusShowSchedule = { M.show_schedule, 'Schedule of the violation/witness nearest the cursor (of MODEL), in the quickfix list', '?' },
    LitmusTrace = { M.trace, 'Trace of the counterexample nearest the cursor (MODEL [N]): buffers and memory after every step', '*' },
    LitmusAxiomatic = { M.axiomatic, 'The axiomatic verdict of an AArch64, RISC-V, POWER, ARMv7 or C test: the check and cycle that forbid its state, or a witness' },
    LitmusResults = { M.results, 'The verdict, engine, executions, states, time and completeness of each model, and the previous runs, in a scratch buffer' },
    LitmusCopySchedule = { M.copy_schedule, 'Copy the schedule nearest the cursor to the + register' },
    LitmusStatus = {
      function()
        notify(M.statusline() ~= '' and M.statusline() or 'no verdict yet')
      end,
      'Show the verdicts of the current buffer',
    },
  }
  for name, def in pairs(cmds) do
    vim.api.nvim_create_user_command(name, function(o)
      local a = o.fargs or {}
      def[1](0, a[1], tonumber(a[2]))
    end, { desc = def[2], nargs = def[3] or 0 })
  end
  vim.api.nvim_create_user_command('LitmusWriteModel', function(o)
    M.write_model(0, o.fargs[1], o.fargs[2])
  end, { nargs = '+', complete = 'dir', desc = 'Write a built-in cat model (aarch64, riscv, ppc, arm, rc11, sc, x86tso) and its library files into DIR' })
  vim.api.nvim_create_user_command('LitmusModelChange', function(o)
    M.model_change(0, o.fargs[1])
  end, { nargs = '?', complete = function()
    return { 'old', 'new' }
  end, desc = 'Open a test whose verdict the saved cat model changed (this buffer, or the quickfix entry) under the old or the new model' })
  vim.api.nvim_create_user_command('LitmusGotoCheck', function()
    if not require('litmus.axiomatic').goto_check() then
      notify('no check to go to (open an axiomatic verdict of a forbidden state first: :LitmusAxiomatic)', vim.log.levels.WARN)
    end
  end, { desc = "Open the cat model's check that forbids the state of the last axiomatic verdict shown" })
  vim.api.nvim_create_user_command('LitmusVerifyAll', function(a)
    M.verify_all(a.args)
  end, { nargs = '?', complete = 'dir', desc = 'Check every .litmus file under DIR (default: the project), problems in the quickfix list' })
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
    pattern = { 'litmus', 'cat' },
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
    local ft = vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype
    if ft == 'litmus' or ft == 'cat' then
      M.attach(b)
    end
  end
end

return M
