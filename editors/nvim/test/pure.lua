-- The plugin's pure helpers (part of test.lua).

local H = ...
local tmp, check, eq, write_file, litmus = H.tmp, H.check, H.eq, H.write_file, H.litmus

-- Pure helpers ---------------------------------------------------------------------------------

check('format_status uses the code lens wording and ignores unknown verdicts', function()
  eq(litmus.format_status({ state = 'done', verdicts = { pso = 'fails', sc = 'holds', tso = 'fails', armv9 = 'holds' } }), 'SC ✓ · TSO ✗ · PSO ✗')
  eq(litmus.format_status({ state = 'running', verdicts = { sc = 'holds', tso = 'running' } }), 'SC ✓ · TSO … (running)')
  eq(litmus.format_status({ state = 'cancelled', verdicts = {} }), 'cancelled (cancelled)')
  eq(litmus.format_status({ state = 'done', verdicts = { tso = 'incomplete' } }), 'TSO ?')
  -- a check stopped at a limit says which, and keeps its failure
  eq(litmus.format_status({ state = 'done', verdicts = { sc = 'fails' }, limit = 'memory' }), 'SC ✗ (memory limit)')
  eq(litmus.format_status({ state = 'done', verdicts = { sc = 'incomplete' }, limit = 'time' }), 'SC ? (time limit)')
  eq(litmus.format_status({ state = 'done', verdicts = { sc = 'holds' }, limit = 'disk' }), 'SC ✓')
  eq(litmus.format_status(nil), '')
  eq(litmus.format_status({ state = 'done', verdicts = { aarch64 = 'holds' }, exists = { aarch64 = 'no' } }), 'aarch64.cat ✓ No')
  eq(litmus.format_status({ state = 'done', verdicts = { riscv = 'fails' } }), 'riscv.cat ✗')
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
  -- an AArch64 hover on Neovim 0.7: no stray backticks, herd's block verbatim (`/\` kept)
  local ax = litmus.hover_text('**No: forbidden**\n\nForbidden by `acyclic ob: e2 -dmb.sy-> e4`\n\n```\nCondition exists (1:X0=1 /\\ 1:X2=0)\n```\n', true)
  eq(ax:find('`acyclic', 1, true), nil, ax)
  eq(ax:find('\n```\nCondition exists (1:X0=1 /\\ 1:X2=0)\n```', 1, true) ~= nil, true, ax)
  eq(select(2, ax:gsub('`', '')), 6, 'only the fences keep backticks: ' .. ax)
end)

check('axiomatic lines: the verdict, the check and cycle, the edges with the cycle marked, the block', function()
  local ax = require('litmus.axiomatic')
  local lines = ax.lines({
    test = 'MP+dmb.sy+ldar', arch = 'AArch64', condition = 'exists (1:X0=1 /\\ 1:X2=0)',
    text = { "No: the condition's state is forbidden under aarch64.cat (litmus)", 'forbidden by acyclic external: e2 -po-> e4 -rf-> e5 -po-> e6 -fr-> e2' },
    block = { 'Test MP+dmb.sy+ldar Allowed', 'No' },
    execution = {
      role = 'forbidden',
      nodes = { { id = 4, label = 'W y=1' }, { id = 5, label = 'R[A] y=1' }, { id = 0, label = 'W x=0' }, { id = 6, label = 'R x=0' } },
      edges = { { from = 4, to = 5, kind = 'rf', cycle = true }, { from = 0, to = 6, kind = 'rf', cycle = false } },
    },
  })
  local text = table.concat(lines, '\n')
  eq(lines[1], 'MP+dmb.sy+ldar (AArch64): exists (1:X0=1 /\\ 1:X2=0)')
  eq(lines[2], "No: the condition's state is forbidden under aarch64.cat (litmus)")
  eq(text:find('forbidden by acyclic external: e2 -po-> e4', 1, true) ~= nil, true, text)
  eq(text:find('  * rf   e4: W y=1 -> e5: R[A] y=1', 1, true) ~= nil, true, 'the cycle edge starred\n' .. text)
  eq(text:find('    rf   e0: W x=0 -> e6: R x=0', 1, true) ~= nil, true, 'another edge\n' .. text)
  eq(lines[#lines], 'No')
end)

check('axiomatic lines name the check that forbids the state, which :LitmusGotoCheck opens', function()
  local ax = require('litmus.axiomatic')
  local model = tmp .. '/aarch64.cat'
  write_file(model, { '"AArch64"', 'let obs = rfe', 'acyclic obs | po as external' })
  local v = {
    test = 'MP', arch = 'AArch64', text = { 'No' },
    execution = { role = 'forbidden', nodes = {}, edges = {}, check = { kind = 'acyclic', name = 'external', cycle = {},
      location = { uri = vim.uri_from_fname(model), range = { start = { line = 2, character = 0 }, ['end'] = { line = 2, character = 28 } } } } },
  }
  local text = table.concat(ax.lines(v), '\n')
  eq(text:find('the check acyclic external: aarch64.cat:3 (:LitmusGotoCheck)', 1, true) ~= nil, true, text)
  eq(ax.goto_check(v), true)
  eq(vim.api.nvim_buf_get_name(0), model)
  eq(vim.api.nvim_win_get_cursor(0), { 3, 0 })
  eq(vim.api.nvim_get_current_line(), 'acyclic obs | po as external')
  vim.cmd('bwipeout!')
  -- no location (a witness, an older server): no line, nothing to open
  v.execution.check.location = nil
  eq(table.concat(ax.lines(v), '\n'):find('LitmusGotoCheck', 1, true), nil)
  eq(ax.goto_check(v), false)
end)

check('a changed test of the model changes list is found from its buffer or the quickfix entry', function()
  local test = tmp .. '/MP.litmus'
  write_file(test, { 'AArch64 MP' })
  local under = function(which)
    return { method = 'litmus/axiomaticUnder', params = { uri = vim.uri_from_fname(test), model = 'file:///m.cat', which = which } }
  end
  litmus.on_model_changes(nil, { model = 'file:///m.cat', checked = 2, changed = {
    { uri = vim.uri_from_fname(test), file = test, test = 'MP', before = 'No', after = 'Ok', views = { before = under('before'), after = under('after') } },
  } })
  local qf = vim.fn.getqflist()
  eq(#qf, 1)
  eq(qf[1].text, 'MP: No -> Ok')
  -- from the quickfix list's current entry (another buffer is current)
  local c = litmus.model_change_entry(vim.api.nvim_get_current_buf())
  eq(c and c.views.after.params.which, 'after')
  -- from the test's own buffer
  vim.cmd('edit ' .. vim.fn.fnameescape(test))
  eq(litmus.model_change_entry(0).test, 'MP')
  vim.cmd('bwipeout!')
  litmus.on_model_changes(nil, { model = 'file:///m.cat', checked = 2, changed = {} })
  eq(litmus.model_change_entry(vim.api.nvim_get_current_buf()), nil)
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
  -- JSON version 2: AArch64 and RISC-V results under their model's key
  local v2 = {
    version = 2,
    files = {
      { path = 'sb-arm.litmus', diagnostics = {}, results = {
        aarch64 = { complete = true, warnings = {}, violations = {
          { kind = 'condition', message = '~exists condition does not hold', line = 7, col = 1, schedule = {} },
        } },
      } },
      { path = 'big-rv.litmus', diagnostics = {}, results = {
        riscv = { complete = false, violations = {}, warnings = { { message = 'stopped (timeout)' } } },
      } },
    },
  }
  local it2, c2 = litmus.check_json_to_qf(v2)
  eq(vim.tbl_map(function(i)
    return { i.filename, i.lnum, i.type, i.text }
  end, it2), {
    { 'sb-arm.litmus', 7, 'E', 'aarch64.cat condition violation: ~exists condition does not hold (schedule: 0 steps)' },
    { 'big-rv.litmus', 1, 'W', 'riscv.cat: not verified, exploration incomplete (stopped (timeout))' },
  }, 'v2 items')
  eq(c2, { files = 2, failing = 1, errors = 0, incomplete = 1 }, 'v2 counts')
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

check('results_lines: the last run, then the previous ones newest first, aligned; a late run is dropped', function()
  litmus.results_history = {}
  local row = function(model, mark, extra)
    local r = { model = model, label = model:upper(), verdict = 'holds', mark = mark, engine = 'dpor', executions = 1234, states = 3, time_ms = 2.25, completeness = 'complete' }
    for k, v in pairs(extra or {}) do r[k] = v end
    return r
  end
  eq(litmus.results_record({ uri = 'u', version = 1, state = 'done', models = { row('sc', '✓'), row('tso', '✗') } }, 0), true)
  eq(litmus.results_record({ uri = 'u', version = 2, state = 'cancelled', models = { row('sc', '✓'), row('tso', '✗', { completeness = 'stopped', why = 'cancelled before the end', undecided = true }) } }, 60), true)
  eq(litmus.results_record({ uri = 'u', version = 1, state = 'done', models = {} }, 90), false, 'an older version after a newer one')
  -- the same answer again (from the server's cache) replaces the newest run
  eq(litmus.results_record({ uri = 'u', version = 2, state = 'cancelled', models = { row('sc', '✓'), row('tso', '✗', { completeness = 'stopped', why = 'cancelled before the end', undecided = true }) } }, 61), true)
  eq(#litmus.results_history.u, 2, 'one run for the repeated answer')
  eq(litmus.results_history.u[1].at, 61, 'its time the latest')
  local lines = litmus.results_lines(litmus.results_history.u)
  eq(lines[1]:match('^Last run %d%d:%d%d:%d%d · version 2 · SC ✓ · TSO ✗ %(cancelled%)$') ~= nil, true, lines[1])
  eq(lines[2], '  model  verdict                    engine  executions  states  time    completeness')
  eq(lines[3], '  SC     ✓                          dpor    1,234       3       2.3 ms  complete')
  eq(lines[4], '  TSO    ✗ (condition not decided)  dpor    1,234       3       2.3 ms  stopped: cancelled before the end')
  eq(lines[5], '')
  eq(lines[6], 'Previous runs')
  eq(lines[7]:match('^%- %d%d:%d%d:%d%d · version 1 · SC ✓ · TSO ✗$') ~= nil, true, lines[7])
  eq(#lines, 10)
  -- an axiomatic model: herd's answer beside its mark, no time
  local cells = litmus.results_cells({ model = 'aarch64', label = 'aarch64.cat (litmus)', mark = '✓', exists = 'No', engine = 'axiomatic', executions = 3, completeness = 'complete' })
  eq(table.concat(cells, '|'), 'aarch64.cat (litmus)|✓ No|axiomatic|3|–|–|complete')
  for i = 1, 25 do litmus.results_record({ uri = 'v', version = i, state = 'done', models = {} }, i) end
  eq(#litmus.results_history.v, 20, 'capped')
  eq(litmus.results_history.v[1].version, 25, 'newest first')
  litmus.results_history = {}
end)
