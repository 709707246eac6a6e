-- Headless tests of editors/nvim, run by test/run.sh:
--   nvim --headless -u NONE -c 'luafile test/test.lua'
-- Environment: LITMUS_NVIM_DIR (editors/nvim), LITMUS_TEST_TMP (scratch dir), PYTHON (for the
-- scripted fake server), LITMUS_BIN (the real binary; its checks are skipped when unset).

local root = assert(os.getenv('LITMUS_NVIM_DIR'), 'LITMUS_NVIM_DIR not set')
local tmp = assert(os.getenv('LITMUS_TEST_TMP'), 'LITMUS_TEST_TMP not set')
local python = os.getenv('PYTHON') or ''
local real_bin = os.getenv('LITMUS_BIN') or ''

vim.opt.runtimepath:prepend(root)
vim.cmd('filetype plugin indent on')
vim.cmd('syntax on')
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. 'F'

local passed, failed, skipped = 0, 0, 0
local function out(s)
  io.stdout:write(s .. '\n')
end

local function check(name, fn)
  local ok, err = pcall(fn)
  if ok then
    passed = passed + 1
    out('ok   ' .. name)
  else
    failed = failed + 1
    out('FAIL ' .. name .. '\n     ' .. tostring(err))
  end
end

local function skip(name, why)
  skipped = skipped + 1
  out('skip ' .. name .. ' (' .. why .. ')')
end

local function eq(a, b, what)
  if not vim.deep_equal(a, b) then
    error(string.format('%s: expected %s, got %s', what or 'value', vim.inspect(b), vim.inspect(a)), 2)
  end
end

local function wait_for(ms, what, cond)
  if not vim.wait(ms, cond, 20) then
    error('timed out waiting for ' .. what, 2)
  end
end

local function write_file(path, lines)
  vim.fn.writefile(lines, path)
  return path
end

-- Captured notifications (the plugin reports problems through vim.notify).
local notes = {}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
end

local SB = {
  'litmus SB "store buffering"',
  'shared x = 0, y = 0;',
  'thread P0 {',
  '  x = 1;',
  '  r0 = y;',
  '}',
  'thread P1 {',
  '  y = 1;',
  '  r1 = x;',
  '}',
  '~exists (P0:r0 == 0 && P1:r1 == 0)',
}

local litmus = require('litmus')

-- Client lists across versions (get_clients is 0.10+, the others are deprecated there).
local function buf_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr })
  end
  return vim.lsp.buf_get_clients(bufnr)
end
local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients()
  end
  return vim.lsp.get_active_clients()
end

-- Filetype, ftplugin and syntax --------------------------------------------------------------

check('*.litmus files get filetype litmus', function()
  vim.cmd('edit ' .. write_file(tmp .. '/sb.litmus', SB))
  eq(vim.bo.filetype, 'litmus', 'filetype')
  vim.cmd('edit ' .. write_file(tmp .. '/other.txt', { 'litmus SB' }))
  eq(vim.bo.filetype ~= 'litmus', true, 'a .txt file is not litmus')
  vim.cmd('bwipeout!')
end)

check('x86 dialect files are detected too', function()
  vim.cmd('edit ' .. write_file(tmp .. '/SB+mfences.litmus', { 'X86 SB+mfences', '{ x=0; y=0; }' }))
  eq(vim.bo.filetype, 'litmus', 'filetype')
  vim.cmd('bwipeout!')
end)

check('ftplugin sets // comments', function()
  vim.cmd('edit ' .. tmp .. '/sb.litmus')
  eq(vim.bo.commentstring, '// %s', 'commentstring')
  eq(vim.bo.shiftwidth, 2, 'shiftwidth')
end)

check('the regex syntax highlights both dialects', function()
  vim.cmd('edit ' .. tmp .. '/sb.litmus')
  eq(vim.b.current_syntax, 'litmus', 'b:current_syntax')
  local function group(l, c)
    return vim.fn.synIDattr(vim.fn.synID(l, c, 1), 'name')
  end
  eq(group(1, 1), 'litmusHeader', 'litmus keyword')
  eq(group(2, 1), 'litmusStorage', 'shared')
  eq(group(11, 10), 'litmusThreadReg', 'P0:r0')
  vim.cmd('edit ' .. write_file(tmp .. '/x86.litmus', { 'X86 SB', ' P0 ;', ' mov [x],$1 ;', ' MFENCE ;' }))
  eq(group(1, 1), 'litmusX86Header', 'X86')
  eq(group(3, 2), 'litmusInstruction', 'lower-case mov')
  eq(group(3, 10), 'litmusImmediate', '$1')
  eq(group(4, 2), 'litmusFence', 'MFENCE')
  vim.cmd('bwipeout!')
end)

check('the tree-sitter queries are copies of grammar/queries', function()
  local grammar_queries = root .. '/../../grammar/queries'
  for _, name in ipairs({ 'highlights.scm', 'locals.scm' }) do
    local ours = vim.fn.readfile(root .. '/queries/litmus/' .. name)
    local theirs = vim.fn.readfile(grammar_queries .. '/' .. name)
    eq(#theirs > 0, true, 'grammar/queries/' .. name .. ' exists')
    eq(ours, theirs, 'editors/nvim/queries/litmus/' .. name .. ' (run: cp grammar/queries/*.scm editors/nvim/queries/litmus/)')
  end
end)

local ts_site = os.getenv('LITMUS_TS_SITE') or ''
if ts_site == '' then
  skip('tree-sitter highlighting', 'no parser: grammar/src/parser.c or cc missing')
elseif not (vim.treesitter.language and vim.treesitter.language.add and vim.treesitter.get_captures_at_pos) then
  skip('tree-sitter highlighting', (vim.fn.execute('version'):match('NVIM v[%w.-]+') or 'this Neovim') .. ' cannot load an ABI 15 parser (needs 0.11+)')
else
  check('the copied highlight queries compile against the parser and highlight both dialects', function()
    vim.opt.runtimepath:append(ts_site)
    eq(vim.treesitter.language.add('litmus'), true, 'parser/litmus.so loads')
    local q = vim.treesitter.query.get('litmus', 'highlights')
    eq(q ~= nil, true, 'highlights query found on the runtimepath')
    vim.cmd('edit ' .. tmp .. '/sb.litmus')
    eq(vim.treesitter.highlighter.active[vim.api.nvim_get_current_buf()] ~= nil, true, 'ftplugin started tree-sitter')
    local function caps(row, col)
      vim.treesitter.get_parser(0, 'litmus'):parse(true) -- parsing may be asynchronous (0.12)
      local names = {}
      for _, c in ipairs(vim.treesitter.get_captures_at_pos(0, row, col)) do
        table.insert(names, c.capture)
      end
      return table.concat(names, ' ')
    end
    eq(caps(0, 0), 'keyword', '`litmus`')
    eq(caps(1, 0), 'keyword', '`shared`')
    eq(caps(10, 9):match('type') ~= nil, true, '`P0` in P0:r0: ' .. caps(10, 9))
    vim.cmd('edit ' .. write_file(tmp .. '/x86-ts.litmus', { 'X86 SB', '{ x=0; }', ' P0 ;', ' MOV [x],$1 ;', 'exists (x=1)' }))
    eq(caps(0, 0), 'keyword', '`X86`')
    eq(caps(3, 1), 'function.builtin', '`MOV`')
    vim.cmd('bwipeout!')
  end)
end

-- Pure helpers ---------------------------------------------------------------------------------

check('format_status uses the code lens wording and ignores unknown verdicts', function()
  eq(litmus.format_status({ state = 'done', verdicts = { pso = 'fails', sc = 'holds', tso = 'fails', arm = 'holds' } }), 'SC ✓ · TSO ✗ · PSO ✗')
  eq(litmus.format_status({ state = 'running', verdicts = { sc = 'holds', tso = 'running' } }), 'SC ✓ · TSO … (running)')
  eq(litmus.format_status({ state = 'cancelled', verdicts = {} }), 'cancelled (cancelled)')
  eq(litmus.format_status({ state = 'done', verdicts = { tso = 'incomplete' } }), 'TSO ?')
  eq(litmus.format_status(nil), '')
  eq(litmus.format_status({ state = 'queued', verdicts = {} }), 'queued (queued)')
  eq(litmus.format_status({ state = 'done', verdicts = {}, problem = 'line 2: expected `;`' }), 'cannot verify: line 2: expected `;`')
end)

check('hover_text turns command links into commands and tables into lines', function()
  local md = 'SC ✓\n\n[Trace under TSO](command:litmus.showTrace?%5B%22f%22%5D) · [Other](command:x)\n| a | b |\n|---|---|\n| 1 | 2 |\n'
  local t = litmus.hover_text(md, false)
  eq(t:find('command:', 1, true), nil, 'no command link left: ' .. t)
  eq(t:find('Trace under TSO (`:LitmusTrace tso`)', 1, true) ~= nil, true, t)
  eq(t:find('|', 1, true), nil, 'no table left: ' .. t)
  eq(t:find('  1 · 2', 1, true) ~= nil, true, t)
  local u = litmus.hover_text('[Check for every iteration](command:litmus.verifyUnbounded?%5B%22f%22%5D)', false)
  eq(u, 'Check for every iteration (`:LitmusVerifyUnbounded`)', 'the check for every iteration link')
  -- the float's Vim syntax before 0.10 shows code spans' backticks (tree-sitter conceals them)
  eq(litmus.hover_text('`x = 1;` is delayed\n\n\n\nend', true), 'x = 1; is delayed\n\nend')
  eq(litmus.hover_text('`x = 1;` is delayed', false), '`x = 1;` is delayed')
end)

check('schedule_to_qf makes one numbered item per usable step, 1-based', function()
  local uri = vim.uri_from_fname(tmp .. '/sb.litmus')
  local items = litmus.schedule_to_qf({
    steps = {
      { label = 'P0: store x = 1', location = { uri = uri, range = { start = { line = 3, character = 2 }, ['end'] = { line = 3, character = 8 } } } },
      { label = 'broken' },
      { label = 'P0: assert fails', location = { uri = uri, range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 1 } } } },
    },
  })
  eq(#items, 2, 'items')
  eq({ items[1].filename, items[1].lnum, items[1].col, items[1].text }, { tmp .. '/sb.litmus', 4, 3, '1. P0: store x = 1' }, 'first')
  eq(items[2].text, '3. P0: assert fails', 'numbering follows the schedule')
  eq(litmus.schedule_to_qf(vim.NIL), {}, 'null reply')
end)

check('trace_lines: thread columns, buffers and memory per step, the end, the graph', function()
  local snap = function(x, b0)
    return { memory = { { 'x', x } }, buffers = { b0 or {}, {} }, registers = { {}, {} } }
  end
  local lines, where = litmus.trace_lines({
    test = 'T', model = 'tso', kind = 'witness', index = 0, threads = { 'P0', 'P1' },
    choices = { { model = 'tso', index = 0, kind = 'witness', title = 'TSO witness' } },
    initial = snap(0),
    rows = {
      { thread = 0, action = 'store', loc = 'x', value = 1, buffered = true, cell = 'x = 1 → buffer', text = 'x = 1;', range = { start = { line = 3, character = 2 } }, after = snap(0, { { loc = 'x', value = 1 } }) },
      { thread = 1, action = 'load', loc = 'x', value = 0, buffered = false, cell = 'read x = 0', text = 'r = x;', range = { start = { line = 7, character = 2 } }, after = snap(0, { { loc = 'x', value = 1 } }) },
      { thread = 0, action = 'flush', loc = 'x', value = 1, buffered = false, cell = 'flush x = 1', text = 'x = 1;', range = { start = { line = 3, character = 2 } }, after = snap(1) },
      -- The server's words, whatever the step: a lock, an unlock (the plugin once had none for
      -- them), and words no client would write for a load; a server before `cell`: the sentence.
      { thread = 1, action = 'lock', loc = 'm', cell = 'lock m', text = 'lock(m);', after = snap(1) },
      { thread = 1, action = 'unlock', loc = 'm', cell = 'unlock m', text = 'unlock(m);', after = snap(1) },
      { thread = 0, action = 'load', loc = 'x', value = 1, cell = 'as the server says', text = 'r = x;', after = snap(1) },
      { thread = 0, action = 'fence', label = 'P0 executes a fence', text = 'fence;', after = snap(1) },
    },
    ['end'] = { ['end'] = 'final', state = { { 'P1:r', 0 }, { 'x', 1 } } },
    graph = { nodes = { { name = '', label = 'Wx=0' }, { name = 'a', label = 'Wx=1' }, { name = 'b', label = 'Rx=0' } },
              edges = { { from = 0, to = 2, kind = 'rf' }, { from = 2, to = 1, kind = 'fr' } } },
  })
  eq(lines, {
    'T: witness under TSO (7 steps)',
    '',
    '#    │ P0                  │ P1         │ P0 buffer │ P1 buffer │ memory',
    'init │                     │            │ -         │ -         │ x=0',
    '1    │ x = 1 → buffer      │            │ x=1       │ -         │ x=0',
    '2    │                     │ read x = 0 │ x=1       │ -         │ x=0',
    '3    │ flush x = 1         │            │ -         │ -         │ x=1',
    '4    │                     │ lock m     │ -         │ -         │ x=1',
    '5    │                     │ unlock m   │ -         │ -         │ x=1',
    '6    │ as the server says  │            │ -         │ -         │ x=1',
    '7    │ P0 executes a fence │            │ -         │ -         │ x=1',
    '',
    'final state: P1:r=0 x=1',
    '',
    'execution graph (po program order, rf reads-from, co coherence, fr from-read):',
    '  rf  Wx=0 -> b: Rx=0',
    '  fr  b: Rx=0 -> a: Wx=1',
  }, 'lines')
  eq(where[5], { line = 3, character = 2 }, 'step 1 points at its source')
  eq(where[4], nil, 'the initial row points nowhere')
  eq(litmus.trace_lines(nil), {}, 'nothing to show')
end)

check('schedule_title names model, kind and title', function()
  eq(litmus.schedule_title({ model = 'tso', kind = 'assert', title = 'x' }), 'TSO assertion violation: x')
  eq(litmus.schedule_title({ model = 'sc', kind = 'witness', title = '' }), 'SC witness')
end)

check('check_json_to_qf lists violations, errors and incomplete models, 1-based', function()
  local doc = {
    version = 1,
    files = {
      { path = 'a.litmus', diagnostics = {}, results = {
        sc = { complete = true, violations = {}, warnings = {} },
        tso = { complete = true, warnings = {}, violations = {
          { kind = 'assert', message = 'assertion failed: r0 == 0', line = 12, col = 3, schedule = { {}, {}, {} } },
        } },
        pso = { complete = false, violations = {}, warnings = { { message = 'timeout after 1 s' } } },
      } },
      { path = 'b.litmus', diagnostics = { { severity = 'error', message = 'expected `;`', line = 2, col = 7 } }, results = {} },
      { path = 'c.litmus', diagnostics = {}, results = { sc = { complete = true, violations = {}, warnings = {} } } },
    },
  }
  local items, counts = litmus.check_json_to_qf(doc)
  eq(vim.tbl_map(function(i)
    return { i.filename, i.lnum, i.col, i.type, i.text }
  end, items), {
    { 'a.litmus', 12, 3, 'E', 'TSO assertion violation: assertion failed: r0 == 0 (schedule: 3 steps)' },
    { 'a.litmus', 1, 1, 'W', 'PSO: not verified, exploration incomplete (timeout after 1 s)' },
    { 'b.litmus', 2, 7, 'E', 'error: expected `;`' },
  }, 'items')
  eq(counts, { files = 3, failing = 1, errors = 1, incomplete = 1 }, 'counts')
  eq(#litmus.check_json_to_qf(vim.NIL), 0, 'not a document')
end)

check('find_files finds .litmus files recursively, sorted, skipping target/ and .git/', function()
  local d = tmp .. '/tree'
  for _, sub in ipairs({ '/sub', '/target', '/.git' }) do
    vim.fn.mkdir(d .. sub, 'p')
  end
  for _, f in ipairs({ '/b.litmus', '/sub/a.litmus', '/target/c.litmus', '/.git/d.litmus', '/e.txt' }) do
    write_file(d .. f, { 'litmus T' })
  end
  eq(vim.tbl_map(function(f)
    return f:sub(#d + 1)
  end, litmus.find_files(d)), { '/b.litmus', '/sub/a.litmus' }, 'files')
end)

-- A missing binary ---------------------------------------------------------------------------

check('a missing binary gives one clear error and no client', function()
  notes = {}
  litmus.setup({ cmd = { tmp .. '/no-such-litmus', 'lsp' } })
  vim.cmd('edit ' .. tmp .. '/sb.litmus')
  local id = litmus.attach(0)
  eq(id, nil, 'client id')
  eq(#buf_clients(0), 0, 'attached clients')
  eq(#notes >= 1, true, 'a notification')
  local msg = notes[1].msg
  eq(msg:find('cannot find the language server binary', 1, true) ~= nil, true, 'message: ' .. msg)
  eq(msg:find('cargo build --release -p litmus', 1, true) ~= nil, true, 'fix in message: ' .. msg)
  eq(notes[1].level, vim.log.levels.ERROR, 'level')
  vim.cmd('bwipeout!')
end)

-- The client against the scripted fake server ------------------------------------------------

local function stop_all()
  for _, c in pairs(all_clients()) do
    if vim.fn.has('nvim-0.11') == 1 then
      c:stop(true)
    else
      c.stop(true)
    end
  end
  vim.wait(2000, function()
    return #all_clients() == 0
  end, 20)
  -- let scheduled callbacks (code lens replies) run before buffers are wiped
  vim.wait(300)
end

if python == '' then
  skip('client against the fake server', 'python3 not found')
else
  local fake = root .. '/test/fake_server.py'
  local buf
  check('the client starts and attaches on FileType', function()
    litmus.setup({ cmd = { python, fake }, settings = { models = { 'tso' }, loopBound = 3 } })
    vim.cmd('edit ' .. tmp .. '/sb.litmus')
    buf = vim.api.nvim_get_current_buf()
    wait_for(5000, 'the client to initialize', function()
      local c = buf_clients(buf)
      for _, cl in pairs(c) do
        if cl.name == 'litmus' and cl.initialized then
          return true
        end
      end
      return false
    end)
  end)

  check('initializationOptions and workspace/configuration carry the settings', function()
    wait_for(5000, 'two diagnostics', function()
      return #vim.diagnostic.get(buf) == 2
    end)
    local msgs = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      msgs[d.message:sub(1, 6)] = d.message
    end
    local want = '{"engine": "auto", "loopBound": 3, "models": ["tso"], "timeout": 10, "unbounded": "off", "verifyOnChange": false, "verifyOnSave": true}'
    eq(msgs['init {'], 'init ' .. want, 'initializationOptions')
    eq(msgs['config'], 'config [' .. want .. ']', 'workspace/configuration answer')
  end)

  check('litmus/status feeds the status line, and a stale status is ignored', function()
    wait_for(5000, 'the status', function()
      return litmus.statusline(buf) == 'SC ✓ · TSO ✗ · PSO ✗'
    end)
    vim.wait(200)
    eq(litmus.statusline(buf), 'SC ✓ · TSO ✗ · PSO ✗', 'after the stale notification')
  end)

  check(':LitmusShowSchedule fills the quickfix list from the cursor position', function()
    vim.fn.setqflist({}, 'r')
    vim.api.nvim_win_set_cursor(0, { 4, 0 })
    vim.cmd('LitmusShowSchedule')
    wait_for(5000, 'the quickfix list', function()
      return #vim.fn.getqflist() == 3
    end)
    local qf = vim.fn.getqflist({ title = 1, items = 1 })
    eq(qf.title, 'litmus: TSO assertion violation: asked at line 3', 'title')
    eq({ qf.items[1].lnum, qf.items[1].col, qf.items[1].text }, { 2, 3, '1. P0: store x = 1 (buffered)' }, 'first step')
    eq(vim.api.nvim_buf_get_name(qf.items[3].bufnr), tmp .. '/sb.litmus', 'file')
    vim.cmd('cclose')
    vim.cmd('buffer ' .. buf)
  end)

  check('the Show schedule code lens runs the client-side command with its arguments', function()
    wait_for(5000, 'code lenses', function()
      return #vim.lsp.codelens.get(buf) == 2
    end)
    vim.fn.setqflist({}, 'r')
    local offered
    local orig = vim.ui.select
    vim.ui.select = function(items, opts, on_choice)
      offered = {}
      for _, it in ipairs(items) do
        table.insert(offered, opts.format_item(it))
      end
      for _, it in ipairs(items) do
        if opts.format_item(it) == 'Show schedule' then
          return on_choice(it)
        end
      end
    end
    vim.api.nvim_win_set_cursor(0, { 3, 0 })
    vim.lsp.codelens.run()
    vim.ui.select = orig
    -- 0.7 offers both lenses of the line; newer versions skip the informational one (empty
    -- command) and run the other directly.
    if offered ~= nil then
      eq(offered, { 'SC ✓ · TSO ✗ · PSO ✗', 'Show schedule' }, 'lenses offered')
    end
    wait_for(5000, 'the quickfix list', function()
      return #vim.fn.getqflist() == 3
    end)
    eq(vim.fn.getqflist({ title = 1 }).title, 'litmus: TSO assertion violation: asked at line 2', 'lens arguments used')
    vim.cmd('cclose')
    vim.cmd('buffer ' .. buf)
  end)

  check(':LitmusCopySchedule puts the schedule text in a register', function()
    vim.fn.setreg('"', '')
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.cmd('LitmusCopySchedule')
    wait_for(5000, 'the register', function()
      return vim.fn.getreg('"') ~= ''
    end)
    eq(vim.split(vim.fn.getreg('"'), '\n'), {
      'TSO assertion violation: asked at line 0',
      '  1. P0: store x = 1 (buffered)  sb.litmus:2:3',
      '  2. P0: load y = 0  sb.litmus:3:3',
      '  3. P0: assert fails  sb.litmus:4:5',
      '',
    }, 'text')
  end)

  check(':LitmusVerify asks the server and the new status replaces the old', function()
    vim.cmd('LitmusVerify')
    local ok = vim.wait(5000, function()
      return litmus.statusline(buf) == 'SC ✓ · TSO ✓ · PSO ?'
    end, 20)
    eq(ok and litmus.statusline(buf), 'SC ✓ · TSO ✓ · PSO ?', 'status line (status ' .. vim.inspect(litmus.status[buf]) .. ')')
  end)

  check(':LitmusVerifyUnbounded sends litmus.verifyUnbounded for the buffer', function()
    vim.cmd('LitmusVerifyUnbounded')
    local ok = vim.wait(5000, function()
      return litmus.statusline(buf) == 'SC ✓ · TSO ✓ · PSO ✓'
    end, 20)
    eq(ok and litmus.statusline(buf), 'SC ✓ · TSO ✓ · PSO ✓', 'status line (status ' .. vim.inspect(litmus.status[buf]) .. ')')
  end)

  check('one client serves several litmus buffers', function()
    vim.cmd('edit ' .. write_file(tmp .. '/mp.litmus', SB))
    local b2 = vim.api.nvim_get_current_buf()
    wait_for(5000, 'attach', function()
      return #buf_clients(b2) == 1
    end)
    eq(#all_clients(), 1, 'active clients')
  end)
  stop_all()
  vim.cmd('silent! %bwipeout!')
end

-- The real binary ------------------------------------------------------------------------------

if real_bin == '' then
  skip('client against the real litmus binary', 'no binary: set LITMUS_BIN or cargo build -p litmus')
else
  local buf
  check('the real server starts, initializes and advertises the contract commands', function()
    litmus.setup({ cmd = { real_bin, 'lsp' } })
    vim.cmd('edit ' .. write_file(tmp .. '/real-sb.litmus', SB))
    buf = vim.api.nvim_get_current_buf()
    local client
    wait_for(15000, 'the real server to initialize', function()
      for _, cl in pairs(buf_clients(buf)) do
        if cl.name == 'litmus' and cl.initialized then
          client = cl
          return true
        end
      end
      return false
    end)
    local ecp = client.server_capabilities.executeCommandProvider
    eq(type(ecp) == 'table' and vim.tbl_contains(ecp.commands or {}, 'litmus.showSchedule'), true, 'litmus.showSchedule advertised')
    eq(vim.tbl_contains(ecp.commands or {}, 'litmus.verify'), true, 'litmus.verify advertised')
    eq(vim.tbl_contains(ecp.commands or {}, 'litmus.verifyUnbounded'), true, 'litmus.verifyUnbounded advertised')
  end)

  check('the real server verifies SB: TSO and PSO fail, SC holds', function()
    vim.cmd('LitmusVerify')
    wait_for(60000, 'a finished status', function()
      local s = litmus.status[buf]
      return s ~= nil and s.state == 'done'
    end)
    eq(litmus.statusline(buf), 'SC ✓ · TSO ✗ · PSO ✗', 'verdicts')
  end)

  check('the real server returns the TSO schedule as quickfix steps', function()
    vim.fn.setqflist({}, 'r')
    vim.api.nvim_win_set_cursor(0, { 11, 0 })
    vim.cmd('LitmusShowSchedule')
    wait_for(15000, 'the quickfix list', function()
      return #vim.fn.getqflist() > 0
    end)
    local items = vim.fn.getqflist()
    eq(#items >= 4, true, 'at least the four accesses of SB, got ' .. #items)
    eq(items[1].text:match('^1%. ') ~= nil, true, 'numbered: ' .. items[1].text)
  end)

  check(":LitmusShowSchedule pso gives PSO's schedule (the per-model lens's argument)", function()
    vim.cmd('cclose')
    vim.api.nvim_set_current_buf(buf)
    vim.fn.setqflist({}, 'r')
    vim.api.nvim_win_set_cursor(0, { 11, 0 })
    vim.cmd('LitmusShowSchedule pso')
    wait_for(15000, 'the quickfix list', function()
      return #vim.fn.getqflist() > 0
    end)
    local title = vim.fn.getqflist({ title = 1 }).title
    eq(title:match('^litmus: PSO ') ~= nil, true, 'title ' .. title)
    local lenses = vim.lsp.buf_request_sync(buf, 'textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 10000)
    local args
    for _, r in pairs(lenses or {}) do
      for _, l in ipairs(r.result or {}) do
        if l.command.title == 'PSO ✗' and l.range.start.line == 10 then args = l.command.arguments end
      end
    end
    eq(args and args[4], 'pso', 'the PSO ✗ lens carries its model')
  end)

  check(':LitmusTrace pso shows every step with buffers and memory, the final state and the graph', function()
    vim.cmd('cclose')
    vim.api.nvim_set_current_buf(buf)
    vim.api.nvim_win_set_cursor(0, { 11, 0 })
    litmus.last_trace = nil
    vim.cmd('LitmusTrace pso')
    wait_for(15000, 'the trace buffer', function()
      return litmus.last_trace ~= nil
    end)
    local tb = litmus.last_trace.buf
    local lines = vim.api.nvim_buf_get_lines(tb, 0, -1, false)
    eq(lines[1]:match('^SB: condition violation under PSO %(%d+ steps%)$') ~= nil, true, lines[1])
    local text = table.concat(lines, '\n')
    eq(text:find('# *│ P0 *│ P1 *│ P0 buffer *│ P1 buffer *│ memory') ~= nil, true, 'header\n' .. text)
    eq(text:find('x = 1 → buffer', 1, true) ~= nil, true, 'a buffered store\n' .. text)
    eq(text:find('final state: P0:r0=0 P1:r1=0 x=1 y=1', 1, true) ~= nil, true, 'final state\n' .. text)
    eq(text:find('fr  [a-z]: Rx=0 %-> [a-z]: Wx=1') ~= nil, true, 'an fr edge\n' .. text)
    -- <CR> on a step row jumps to its source line.
    local row
    for i, l in ipairs(lines) do
      if l:find('x = 1 → buffer', 1, true) then row = i end
    end
    vim.api.nvim_win_set_cursor(0, { row, 0 })
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
    eq(vim.api.nvim_get_current_buf(), buf, 'back in the source')
    eq(vim.api.nvim_win_get_cursor(0)[1], 4, 'on the store x = 1')
  end)

  check("the real server's hover renders as readable text in the float (no links, no tables)", function()
    vim.cmd('cclose')
    vim.api.nvim_set_current_buf(buf)
    vim.api.nvim_win_set_cursor(0, { 11, 2 })
    vim.lsp.buf.hover()
    local lines
    wait_for(15000, 'the hover float', function()
      for _, w in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_win_get_config(w).relative ~= '' then
          lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false)
          return #lines > 0
        end
      end
      return false
    end)
    local text = table.concat(lines, '\n')
    -- What the float shows before 0.10 (a Vim syntax; from 0.10 tree-sitter conceals, which
    -- synconcealed() does not see): its lines with the characters the syntax conceals
    -- replaced as Neovim draws them. No markdown markup is left for the reader.
    local win
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= '' then win = w end
    end
    local shown = vim.api.nvim_win_call(win, function()
      local out = {}
      for lnum, l in ipairs(lines) do
        local vis, c = {}, 1
        while c <= #l do
          local n = vim.str_utf_end(l, c) + 1
          local cc = vim.wo.conceallevel > 0 and vim.fn.synconcealed(lnum, c) or { 0 }
          table.insert(vis, cc[1] == 1 and cc[2] or l:sub(c, c + n - 1))
          c = c + n
        end
        table.insert(out, table.concat(vis))
      end
      return table.concat(out, '\n')
    end)
    if vim.fn.has('nvim-0.10') == 1 then shown = text:gsub('`', ''):gsub('%*%*', ''):gsub('\n_', '\n') end
    eq(shown:find('**', 1, true), nil, 'no bold markers shown\n' .. shown)
    eq(shown:find('`', 1, true), nil, 'no backticks shown\n' .. shown)
    eq(shown:find('_✓ holds', 1, true), nil, 'no italic markers shown\n' .. shown)
    eq(shown:find('\n\n\n', 1, true), nil, 'no run of blank lines\n' .. shown)
    eq(shown:find('Trace under TSO (:LitmusTrace tso)', 1, true) ~= nil, true, 'the trace command as shown\n' .. shown)
    eq(text:find('command:', 1, true), nil, 'no command link\n' .. text)
    eq(text:find('|---', 1, true), nil, 'no raw table\n' .. text)
    eq(text:find(':LitmusTrace tso', 1, true) ~= nil, true, 'the trace command\n' .. text)
    eq(text:find('SC ✓ · TSO ✗ · PSO ✗', 1, true) ~= nil, true, 'the verdicts\n' .. text)
    eq(text:find('engine ', 1, true) ~= nil, true, 'which engine answered\n' .. text)
    eq(#lines <= 20, true, 'a short hover, got ' .. #lines .. ' lines\n' .. text)
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= '' then vim.api.nvim_win_close(w, true) end
    end
  end)

  check('a syntax error becomes a diagnostic from the real server', function()
    vim.cmd('edit ' .. write_file(tmp .. '/broken.litmus', { 'litmus B', 'thread P0 { x = ; }' }))
    local b = vim.api.nvim_get_current_buf()
    wait_for(15000, 'an error diagnostic', function()
      for _, d in ipairs(vim.diagnostic.get(b)) do
        if d.severity == vim.diagnostic.severity.ERROR then
          return true
        end
      end
      return false
    end)
  end)
  check(":LitmusTrace shows the real server's text for locks, unlocks, flushes and atomics", function()
    vim.cmd('edit ' .. write_file(tmp .. '/steps.litmus', {
      'litmus Steps', 'shared x = 0, y = 0, f = 0;', 'mutex m;',
      'thread P0 {', '  x = 1;', '  lock(m);', '  r0 = fetch_add(y, 2);', '  unlock(m);', '  f = 1;', '}',
      'thread P1 {', '  await(f == 1);', '  r1 = y;', '}', 'exists (P1:r1 == 2)',
    }))
    local b = vim.api.nvim_get_current_buf()
    wait_for(60000, 'a finished status', function()
      local s = litmus.status[b]
      return s ~= nil and s.state == 'done'
    end)
    vim.api.nvim_win_set_cursor(0, { 15, 0 })
    litmus.last_trace = nil
    vim.cmd('LitmusTrace tso')
    wait_for(15000, 'the trace buffer', function()
      return litmus.last_trace ~= nil
    end)
    local text = table.concat(vim.api.nvim_buf_get_lines(litmus.last_trace.buf, 0, -1, false), '\n')
    for _, want in ipairs({ '│ lock m ', '│ unlock m ', '│ flush x = 1 ', '│ r0 = fetch_add(y, 2); (old 0) ', '│ x = 1 → buffer ' }) do
      eq(text:find(want, 1, true) ~= nil, true, want .. ' in P0\'s column\n' .. text)
    end
  end)

  check(':LitmusVerifyAll checks every example with one CLI run and fills the quickfix list', function()
    litmus.setup({ cmd = { real_bin, 'lsp' }, settings = { timeout = 60 } })
    local examples = vim.fn.fnamemodify(root .. '/../../examples', ':p')
    local n_files = #litmus.find_files(examples)
    local done, items, counts = false, nil, nil
    vim.fn.setqflist({}, 'r')
    eq(litmus.verify_all(examples, function(i, c)
      done, items, counts = true, i, c
    end) ~= nil, true, 'a job')
    wait_for(120000, 'the catalogue run', function()
      return done
    end)
    eq(counts.files, n_files, 'every example checked')
    eq(counts.errors, 0, 'no example has an error')
    local qf = vim.fn.getqflist({ items = 0, title = 0 })
    eq(#qf.items, #items, 'quickfix items')
    eq(qf.title:match('^litmus: ' .. n_files .. ' files') ~= nil, true, 'title: ' .. qf.title)
    local seen = {}
    for _, it in ipairs(qf.items) do
      local name = vim.fn.fnamemodify(vim.fn.bufname(it.bufnr), ':t')
      seen[name .. ' ' .. it.text:match('^(%u+ [%w ]-):')] = it.lnum
    end
    -- what the examples' header comments promise
    eq(seen['dekker.litmus TSO assertion violation'] ~= nil, true, 'Dekker fails under TSO: ' .. vim.inspect(seen))
    eq(seen['dekker.litmus SC assertion violation'], nil, 'Dekker holds under SC')
    eq(seen['dekker-fenced.litmus TSO assertion violation'], nil, 'fenced Dekker holds under TSO')
    eq(seen['racy-counter.litmus SC condition violation'] ~= nil, true, 'the racy counter fails under SC')
    eq(seen['lock-order.litmus SC deadlock'] ~= nil, true, 'lock order deadlocks')
    eq(seen['sb.litmus TSO condition violation'], nil, 'an exists is an answer, not a failure')
  end)

  check(':LitmusVerifyAll reports a file with an error and still checks the others', function()
    local d = tmp .. '/mixed'
    vim.fn.mkdir(d, 'p')
    write_file(d .. '/bad.litmus', { 'litmus B', 'thread P0 { x = ; }' })
    write_file(d .. '/sb.litmus', SB)
    vim.cmd('LitmusVerifyAll ' .. d)
    wait_for(60000, 'the run', function()
      local qf = vim.fn.getqflist({ title = 0 })
      return qf.title:match('^litmus: 2 files') ~= nil
    end)
    local items = vim.fn.getqflist()
    local texts = {}
    for _, it in ipairs(items) do
      table.insert(texts, vim.fn.fnamemodify(vim.fn.bufname(it.bufnr), ':t') .. ':' .. it.lnum .. ' ' .. it.text)
    end
    eq(#items >= 2, true, 'items: ' .. vim.inspect(texts))
    eq(texts[1]:match('^bad%.litmus:2 error: ') ~= nil, true, 'the error first: ' .. vim.inspect(texts))
    -- SB's `~exists` fails under TSO and PSO, not SC
    local tso = vim.tbl_filter(function(t)
      return t:match('^sb%.litmus:11 TSO condition violation') ~= nil
    end, texts)
    eq(#tso, 1, 'SB fails under TSO: ' .. vim.inspect(texts))
    eq(#vim.tbl_filter(function(t)
      return t:match('^sb%.litmus:%d+ SC ') ~= nil
    end, texts), 0, 'SB holds under SC')
  end)

  stop_all()
end

out(string.format('%d passed, %d failed, %d skipped', passed, failed, skipped))
vim.cmd(failed == 0 and 'qall!' or 'cquit!')
