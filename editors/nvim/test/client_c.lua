-- herd's C tests against the real litmus binary (part of test.lua): a stand-in kernel tree
-- (linux/tools/memory-model/ with the kernel's model files and litmus-tests/, copied at test
-- time from the shared data, ../shared/conformance/linux/, never committed: they are GPL),
-- opened with no setting. A test whose `Result:` header agrees shows `C ✓` and the judgement;
-- one edited to disagree shows `C ✗` and a warning on its `Result:` line; a save checks again.

local H = ...
local root, tmp, real_bin, check, skip, eq, wait_for, write_file, litmus, stop_all =
  H.root, H.tmp, H.real_bin, H.check, H.skip, H.eq, H.wait_for, H.write_file, H.litmus, H.stop_all

local shared = vim.fn.fnamemodify(root .. '/../../../shared/conformance/linux', ':p')
local test_name = 'MP+pooncerelease+poacquireonce.litmus'

if real_bin == '' then
  skip('C tests in a kernel tree', 'no binary: set LITMUS_BIN or cargo build -p litmus')
elseif vim.fn.filereadable(shared .. 'model/linux-kernel.cfg') == 0 then
  skip('C tests in a kernel tree', 'SKIPPED: ../shared/conformance/linux not found')
else
  local mm = tmp .. '/c-tree/linux/tools/memory-model'
  vim.fn.mkdir(mm .. '/litmus-tests', 'p')
  for _, f in ipairs(vim.fn.readdir(shared .. 'model')) do
    write_file(mm .. '/' .. f, vim.fn.readfile(shared .. 'model/' .. f, 'b'))
  end
  local lines = vim.fn.readfile(shared .. 'tests/catalogue/' .. test_name)
  local agrees = write_file(mm .. '/litmus-tests/' .. test_name, lines)
  local edited, header_line = {}, nil
  for i, l in ipairs(lines) do
    if not header_line and l:find('Result: Never', 1, true) then
      l = l:gsub('Result: Never', 'Result: Sometimes')
      header_line = i - 1
    end
    edited[i] = l
  end
  local disagrees = write_file(mm .. '/litmus-tests/MP-disagrees.litmus', edited)

  local function done(buf)
    wait_for(30000, 'the verdict of ' .. vim.api.nvim_buf_get_name(buf), function()
      local s = litmus.status[buf]
      return s ~= nil and s.state == 'done' and s.verdicts ~= nil and s.verdicts.c ~= nil
    end)
  end
  local function diagnostic(buf, word)
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find(word, 1, true) then
        return d
      end
    end
  end

  check('a C test in a kernel tree agrees with its Result: header, with no setting', function()
    litmus.setup({ cmd = { real_bin, 'lsp' } })
    vim.cmd('edit ' .. agrees)
    local buf = vim.api.nvim_get_current_buf()
    done(buf)
    eq(litmus.statusline(buf), 'C ✓', 'status line')
    wait_for(10000, 'the judgement diagnostic', function()
      return diagnostic(buf, 'agrees with its header “Result: Never”') ~= nil
    end)
    local d = diagnostic(buf, 'agrees with its header')
    eq(d.message:find('^Never 0 3 under .*linux/tools/memory%-model/linux%-kernel%.cfg') ~= nil, true, d.message)
    eq(d.severity, vim.diagnostic.severity.INFO, 'an information')
  end)

  check('a C test whose answer disagrees with its header: C ✗ and a warning on the Result: line', function()
    vim.cmd('edit ' .. disagrees)
    local buf = vim.api.nvim_get_current_buf()
    done(buf)
    eq(litmus.statusline(buf), 'C ✗', 'status line')
    wait_for(10000, 'the disagreement diagnostic', function()
      return diagnostic(buf, 'DISAGREES with its header “Result: Sometimes”') ~= nil
    end)
    local d = diagnostic(buf, 'DISAGREES')
    eq(d.severity, vim.diagnostic.severity.WARN, 'a warning')
    eq(d.lnum, header_line, 'on the Result: line')
  end)

  check('saving the header fixed checks the C test again: C ✓', function()
    local buf = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(buf, header_line, header_line + 1, false, { lines[header_line + 1] })
    litmus.status[buf] = nil
    vim.cmd('silent write')
    done(buf)
    eq(litmus.statusline(buf), 'C ✓', 'status line after the save')
    vim.cmd('bwipe!')
  end)

  stop_all()
end
