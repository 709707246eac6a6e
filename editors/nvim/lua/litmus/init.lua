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
-- `litmus check --json` run, problems in the quickfix list).

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
  end
  return text
end

--- The server's hover markdown made readable in Neovim 0.7's float: links to VS Code commands
--- (`[Trace under TSO](command:litmus.showTrace?…)`) become their text with the command that
--- does the same here, and a markdown table (if any) becomes one row a line. Before 0.10 the
--- float's markdown is a Vim syntax that conceals `**` and `_` but shows code spans' backticks,
--- so they are dropped there (`plain_code`, default: the running Neovim is older than 0.10; from
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
  md = md:gsub('%[Check for every iteration%]%(command:[^%)]*%)', 'Check for every iteration (`:LitmusVerifyUnbounded`)')
  md = md:gsub('%[([^%]]*)%]%(command:[^%)]*%)', '%1')
  local out = {}
  for line in (md .. '\n'):gmatch('(.-)\n') do
    if line:match('^|[%s%-:|]+|$') then
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

function M.verify(bufnr)
  run_on_buffer(bufnr, 'litmus.verify')
end

--- Checks the buffer for every number of loop iterations (`litmus check --unbounded`).
function M.verify_unbounded(bufnr)
  run_on_buffer(bufnr, 'litmus.verifyUnbounded')
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
    handlers = { ['litmus/status'] = on_status, ['textDocument/hover'] = on_hover },
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

--- Every `.litmus` file under `dir` (sorted; build and VCS directories skipped).
function M.find_files(dir)
  local files = {}
  for _, f in ipairs(vim.fn.globpath(dir, '**/*.litmus', false, true)) do
    local p = f:gsub('\\', '/')
    if not (p:find('/target/', 1, true) or p:find('/node_modules/', 1, true) or p:find('/%.git/')) then
      table.insert(files, f)
    end
  end
  table.sort(files)
  return files
end

local function num(v, default)
  return type(v) == 'number' and v or default
end

--- The quickfix items of a `litmus check --json` document (JSON v1): one per violation (model,
--- kind, message, the schedule's length), per error diagnostic, and one warning per model whose
--- exploration was incomplete without a violation. Also returns counts for the title.
function M.check_json_to_qf(doc)
  local items = {}
  local counts = { files = 0, failing = 0, errors = 0, incomplete = 0 }
  if type(doc) ~= 'table' or type(doc.files) ~= 'table' then
    return items, counts
  end
  local kinds = {
    assert = 'assertion violation',
    condition = 'condition violation',
    error = 'runtime error',
    deadlock = 'deadlock',
  }
  for _, f in ipairs(doc.files) do
    counts.files = counts.files + 1
    local path = type(f.path) == 'string' and f.path or '?'
    local bad, err = false, false
    for _, d in ipairs(type(f.diagnostics) == 'table' and f.diagnostics or {}) do
      if d.severity == 'error' then
        err = true
        table.insert(items, {
          filename = path,
          lnum = num(d.line, 1),
          col = num(d.col, 1),
          type = 'E',
          text = 'error: ' .. tostring(d.message),
        })
      end
    end
    local results = type(f.results) == 'table' and f.results or {}
    for _, m in ipairs(MODELS) do
      local r = results[m]
      if type(r) == 'table' then
        local violations = type(r.violations) == 'table' and r.violations or {}
        for _, v in ipairs(violations) do
          bad = true
          local steps = type(v.schedule) == 'table' and #v.schedule or 0
          table.insert(items, {
            filename = path,
            lnum = num(v.line, 1),
            col = num(v.col, 1),
            type = 'E',
            text = string.format('%s %s: %s (schedule: %d steps)', m:upper(), kinds[v.kind] or tostring(v.kind), tostring(v.message), steps),
          })
        end
        if r.complete == false and #violations == 0 then
          counts.incomplete = counts.incomplete + 1
          local why = {}
          for _, w in ipairs(type(r.warnings) == 'table' and r.warnings or {}) do
            table.insert(why, tostring(w.message))
          end
          table.insert(items, {
            filename = path,
            lnum = 1,
            col = 1,
            type = 'W',
            text = string.format('%s: not verified, exploration incomplete%s', m:upper(), #why > 0 and (' (' .. table.concat(why, '; ') .. ')') or ''),
          })
        end
      end
    end
    if bad then
      counts.failing = counts.failing + 1
    end
    if err then
      counts.errors = counts.errors + 1
    end
  end
  return items, counts
end

local function qf_title(counts)
  return string.format(
    'litmus: %d file%s, %d with violations, %d with errors, %d model%s incomplete',
    counts.files,
    counts.files == 1 and '' or 's',
    counts.failing,
    counts.errors,
    counts.incomplete,
    counts.incomplete == 1 and '' or 's'
  )
end

--- Checks every `.litmus` file under `dir` (default: the project root of the current buffer,
--- else the working directory) with one `litmus check --json` run of the configured binary and
--- settings, and puts the problems in the quickfix list (opened when there are any). `on_done`,
--- if given, gets (items, counts) when the run ends. Returns the job id, or nil.
function M.verify_all(dir, on_done)
  if dir == nil or dir == '' then
    local b = vim.api.nvim_get_current_buf()
    dir = vim.api.nvim_buf_get_name(b) ~= '' and root_dir(b) or vim.fn.getcwd()
  end
  dir = vim.fn.fnamemodify(vim.fn.expand(dir), ':p')
  local files = M.find_files(dir)
  if #files == 0 then
    notify('no .litmus files under ' .. dir)
    return nil
  end
  local cmd, err = M.resolve_cmd()
  if not cmd then
    notify(err, vim.log.levels.ERROR)
    return nil
  end
  local s = M.config.settings
  local args = { cmd[1], 'check', '--json', '--model', table.concat(s.models or MODELS, ',') }
  if type(s.loopBound) == 'number' then
    vim.list_extend(args, { '--loop-bound', tostring(s.loopBound) })
  end
  if type(s.timeout) == 'number' and s.timeout > 0 then
    vim.list_extend(args, { '--timeout', tostring(s.timeout) })
  end
  if type(s.engine) == 'string' and s.engine ~= '' then
    vim.list_extend(args, { '--engine', s.engine })
  end
  table.insert(args, '--')
  vim.list_extend(args, files)
  local stdout, stderr = {}, {}
  notify(string.format('verifying %d files under %s', #files, dir))
  local job = vim.fn.jobstart(args, {
    cwd = dir,
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      stdout = data or {}
    end,
    on_stderr = function(_, data)
      stderr = data or {}
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        local ok, doc = pcall(vim.fn.json_decode, table.concat(stdout, '\n'))
        if not ok or type(doc) ~= 'table' then
          notify(string.format('litmus check exited with %d: %s', code, table.concat(stderr, '\n')), vim.log.levels.ERROR)
          if on_done then
            on_done(nil, nil)
          end
          return
        end
        local items, counts = M.check_json_to_qf(doc)
        vim.fn.setqflist({}, ' ', { title = qf_title(counts), items = items })
        if #items > 0 then
          vim.cmd('copen')
        end
        notify(qf_title(counts):gsub('^litmus: ', ''))
        if on_done then
          on_done(items, counts)
        end
      end)
    end,
  })
  if job <= 0 then
    notify('cannot run ' .. cmd[1], vim.log.levels.ERROR)
    return nil
  end
  return job
end

local function define_commands()
  local cmds = {
    LitmusVerify = { M.verify, 'Verify the current litmus test now' },
    LitmusVerifyUnbounded = { M.verify_unbounded, 'Check the current litmus test for every number of loop iterations' },
    LitmusShowSchedule = { M.show_schedule, 'Schedule of the violation/witness nearest the cursor (of MODEL), in the quickfix list', '?' },
    LitmusTrace = { M.trace, 'Trace of the counterexample nearest the cursor (MODEL [N]): buffers and memory after every step', '*' },
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
