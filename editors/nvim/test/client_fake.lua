-- A missing binary, and the client against the scripted fake server (part of test.lua).

local H = ...
local root, tmp, python, check, skip, eq, wait_for, write_file, notes, SB, litmus, buf_clients, all_clients, stop_all = H.root, H.tmp, H.python, H.check, H.skip, H.eq, H.wait_for, H.write_file, H.notes, H.SB, H.litmus, H.buf_clients, H.all_clients, H.stop_all

-- A missing binary ---------------------------------------------------------------------------

check('a missing binary gives one clear error and no client', function()
  for i = #notes, 1, -1 do notes[i] = nil end -- the shared list, emptied (was `notes = {}`)
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
