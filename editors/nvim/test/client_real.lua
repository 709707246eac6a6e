-- The client against the real litmus binary (part of test.lua).

local H = ...
local root, tmp, real_bin, out, check, skip, eq, wait_for, write_file, SB, litmus, buf_clients, stop_all = H.root, H.tmp, H.real_bin, H.out, H.check, H.skip, H.eq, H.wait_for, H.write_file, H.SB, H.litmus, H.buf_clients, H.stop_all

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

  check(':LitmusResults shows each model\'s verdict and numbers, then the previous runs', function()
    local uri = vim.uri_from_bufnr(buf)
    -- (litmus/results follows the done status)
    wait_for(15000, 'a run recorded from litmus/results', function()
      return #(litmus.results_history[uri] or {}) >= 1
    end)
    local before = #litmus.results_history[uri]
    vim.cmd('LitmusVerify')
    wait_for(60000, 'another finished check', function()
      return #(litmus.results_history[uri] or {}) > before
    end)
    vim.cmd('LitmusResults')
    local rb = vim.api.nvim_get_current_buf()
    eq(rb ~= buf, true, 'a scratch buffer')
    eq(vim.bo[rb].buftype, 'nofile', 'scratch')
    local lines = vim.api.nvim_buf_get_lines(rb, 0, -1, false)
    local text = table.concat(lines, '\n')
    eq(lines[3]:match('^Last run %d%d:%d%d:%d%d · version %d+ · SC ✓ · TSO ✗ · PSO ✗$') ~= nil, true, text)
    eq(lines[4]:match('^  model +verdict +engine +executions +states +time +completeness$') ~= nil, true, text)
    -- one row per model: the verdict, the engine that answered, the numbers, complete
    for i, want in ipairs({ '^  SC +✓ +%a+ +[%d,]+ +%d+ +[%d.]+ m?s +complete$', '^  TSO +✗ +%a+ +[%d,]+ +%d+ +[%d.]+ m?s +complete$', '^  PSO +✗ +%a+ +[%d,]+ +%d+ +[%d.]+ m?s +complete$' }) do
      eq(lines[4 + i]:match(want) ~= nil, true, lines[4 + i])
    end
    eq(text:find('\nPrevious runs\n%- %d%d:%d%d:%d%d · version %d+ · SC ✓ · TSO ✗ · PSO ✗') ~= nil, true, text)
    vim.cmd('close')
    vim.api.nvim_set_current_buf(buf)
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

  check(':LitmusAxiomatic shows the AArch64 verdict, the failed check and the cycle as text', function()
    litmus.setup({ cmd = { real_bin, 'lsp' } })
    vim.cmd('edit ' .. write_file(tmp .. '/mp-dmb.litmus', {
      'AArch64 MP+dmb.sy+ldar',
      '{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }',
      ' P0          | P1           ;',
      ' MOV W0,#1   | LDAR W0,[X1] ;',
      ' STR W0,[X1] | LDR W2,[X3]  ;',
      ' DMB SY      |              ;',
      ' STR W0,[X3] |              ;',
      'exists (1:X0=1 /\\ 1:X2=0)',
    }))
    local ab = vim.api.nvim_get_current_buf()
    wait_for(30000, 'the axiomatic verdict diagnostic', function()
      for _, d in ipairs(vim.diagnostic.get(ab)) do
        if d.message:find('forbidden', 1, true) then
          return true
        end
      end
      return false
    end)
    local ax = require('litmus.axiomatic')
    ax.last = nil
    vim.cmd('LitmusAxiomatic')
    wait_for(15000, 'the axiomatic buffer', function()
      return ax.last ~= nil
    end)
    local lines = vim.api.nvim_buf_get_lines(ax.last.buf, 0, -1, false)
    local text = table.concat(lines, '\n')
    eq(lines[2], "No: the condition's state is forbidden under aarch64.cat (litmus)", text)
    eq(text:match('forbidden by acyclic %S+: e%d+ %-%S+%-> ') ~= nil, true, 'the check and cycle\n' .. text)
    -- program-order steps named as herd names what orders them (the barrier, the acquire)
    eq(text:find(' -dmb.sy-> ', 1, true) ~= nil and text:find('-po->', 1, true) == nil, true, 'herd names\n' .. text)
    -- :LitmusStatus and the status line: the model's own verdict and herd's answer
    wait_for(15000, 'the AArch64 status', function()
      return litmus.statusline(ab) == 'aarch64.cat ✓ No'
    end)
    -- the hover on the condition, as Neovim 0.7 shows it: no stray backticks, `/\` kept
    local hover = vim.lsp.buf_request_sync(ab, 'textDocument/hover', {
      textDocument = { uri = vim.uri_from_bufnr(ab) },
      position = { line = 7, character = 2 },
    }, 15000)
    local md
    for _, r in pairs(hover or {}) do
      if r.result and r.result.contents then
        md = r.result.contents.value
      end
    end
    eq(type(md), 'string', 'a hover on the condition')
    local shown = litmus.hover_text(md, true)
    eq(shown:find('Condition exists (1:X0=1 /\\ 1:X2=0)', 1, true) ~= nil, true, shown)
    eq(shown:find('`acyclic', 1, true), nil, shown)
    eq(select(2, shown:gsub('\n```', '')), 2, 'fences only: ' .. shown)
    eq(text:find('  * rf ', 1, true) ~= nil, true, 'an rf edge on the cycle\n' .. text)
    eq(text:find('Observation MP+dmb.sy+ldar Never 0', 1, true) ~= nil, true, "herd's block\n" .. text)
    vim.cmd('bwipe!')
  end)

  check(':LitmusAxiomatic and the hover answer a POWER and an ARMv7 test under their own models', function()
    litmus.setup({ cmd = { real_bin, 'lsp' } })
    local cases = {
      {
        file = 'mp-lwsync-addr.litmus',
        want = "No: the condition's state is forbidden under ppc.cat (litmus)",
        word = 'forbidden',
        herd = 'Observation MP+lwsync+addr Never 0',
        lines = {
          'PPC MP+lwsync+addr',
          '{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }',
          ' P0           | P1            ;',
          ' li r1,1      | lwz r1,0(r2)  ;',
          ' stw r1,0(r2) | xor r3,r1,r1  ;',
          ' lwsync       | lwzx r5,r3,r4 ;',
          ' stw r1,0(r4) |               ;',
          'exists (1:r1=1 /\\ 1:r5=0)',
        },
      },
      {
        file = 'mp-dmb-ctrl.litmus',
        want = "Ok: the condition's state is allowed under arm.cat (litmus)",
        word = 'allowed',
        herd = 'Observation MP+dmb+ctrl Sometimes 1',
        lines = {
          'ARM MP+dmb+ctrl',
          '{ %x0=x; %y0=y; %y1=y; %x1=x; }',
          ' P0           | P1           ;',
          ' MOV R0,#1    | LDR R1,[%y1] ;',
          ' STR R0,[%x0] | CMP R1,R1    ;',
          ' DMB          | BNE L0       ;',
          ' STR R0,[%y0] | L0:          ;',
          '              | LDR R5,[%x1] ;',
          'exists (1:R1=1 /\\ 1:R5=0)',
        },
      },
    }
    for _, c in ipairs(cases) do
      vim.cmd('edit ' .. write_file(tmp .. '/' .. c.file, c.lines))
      local b = vim.api.nvim_get_current_buf()
      wait_for(30000, 'the axiomatic verdict diagnostic of ' .. c.file, function()
        for _, d in ipairs(vim.diagnostic.get(b)) do
          if d.message:find(c.word, 1, true) then
            return true
          end
        end
        return false
      end)
      -- the hover on the condition (the last line) answers under the model, with herd's block
      local res = vim.lsp.buf_request_sync(b, 'textDocument/hover', {
        textDocument = { uri = vim.uri_from_bufnr(b) },
        position = { line = #c.lines - 1, character = 2 },
      }, 15000)
      local md
      for _, r in pairs(res or {}) do
        if r.result and r.result.contents then
          md = r.result.contents.value
        end
      end
      eq(type(md), 'string', 'a hover on the condition of ' .. c.file)
      local shown = litmus.hover_text(md, true)
      eq(shown:find(c.word .. ' under ' .. (c.file:match('lwsync') and 'ppc' or 'arm') .. '.cat', 1, true) ~= nil, true, 'the answer in\n' .. shown)
      eq(shown:find(c.herd, 1, true) ~= nil, true, "herd's block in\n" .. shown)
      local ax = require('litmus.axiomatic')
      ax.last = nil
      vim.cmd('LitmusAxiomatic')
      wait_for(15000, 'the axiomatic buffer of ' .. c.file, function()
        return ax.last ~= nil
      end)
      local lines = vim.api.nvim_buf_get_lines(ax.last.buf, 0, -1, false)
      local text = table.concat(lines, '\n')
      eq(lines[2], c.want, text)
      eq(text:find(c.herd, 1, true) ~= nil, true, "herd's block\n" .. text)
      vim.cmd('bwipe!')
    end
  end)

  check("completion and rename through Neovim's client: P0's registers in its body, `P0:r0` in the condition, r0 renamed in P0 and the condition", function()
    vim.cmd('edit ' .. write_file(tmp .. '/real-edit.litmus', SB))
    local b = vim.api.nvim_get_current_buf()
    wait_for(15000, 'the server on the new buffer', function()
      for _, cl in pairs(buf_clients(b)) do
        if cl.name == 'litmus' and cl.initialized then return true end
      end
      return false
    end)
    eq(vim.bo[b].omnifunc, 'v:lua.vim.lsp.omnifunc', 'omnifunc set by the plugin')
    local function labels(line, character)
      local res = vim.lsp.buf_request_sync(b, 'textDocument/completion', {
        textDocument = { uri = vim.uri_from_bufnr(b) },
        position = { line = line, character = character },
      }, 15000)
      local out = {}
      for _, r in pairs(res or {}) do
        for _, i in ipairs(r.result or {}) do out[i.label] = true end
      end
      return out
    end
    local body = labels(4, 2) -- `  r0 = y;` in P0
    eq(body.r0 and body.x and body.fence and not body.r1, true, 'P0 body: ' .. vim.inspect(vim.tbl_keys(body)))
    local cond = labels(10, 10) -- inside the condition
    eq(cond['P0:r0'] and cond['P1:r1'] and cond['&&'], true, 'condition: ' .. vim.inspect(vim.tbl_keys(cond)))
    vim.api.nvim_win_set_cursor(0, { 5, 2 })
    vim.lsp.buf.rename('seen')
    wait_for(15000, 'the rename applied', function()
      local l = vim.api.nvim_buf_get_lines(b, 0, -1, false)
      return l[5] == '  seen = y;'
    end)
    local l = vim.api.nvim_buf_get_lines(b, 0, -1, false)
    eq(l[11], '~exists (P0:seen == 0 && P1:r1 == 0)', 'the condition follows')
    eq(l[9], '  r1 = x;', "P1's register untouched")
    vim.cmd('bwipe!')
  end)

  stop_all()
end
