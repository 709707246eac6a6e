-- What every part of the Neovim tests shares: the environment, the check counters and helpers,
-- the captured notifications, the SB test and the plugin. Loaded once by test.lua.

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

local function summary()
  return passed, failed, skipped
end

return {
  root = root,
  tmp = tmp,
  python = python,
  real_bin = real_bin,
  out = out,
  check = check,
  skip = skip,
  eq = eq,
  wait_for = wait_for,
  write_file = write_file,
  notes = notes,
  SB = SB,
  litmus = litmus,
  buf_clients = buf_clients,
  all_clients = all_clients,
  stop_all = stop_all,
  summary = summary,
}
