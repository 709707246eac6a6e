-- End-to-end: the real `litmus lsp` binary driven by Neovim's built-in LSP client (0.7 API:
-- vim.lsp.start_client + vim.lsp.buf_attach_client). Run by ../run-nvim.sh:
--   nvim --headless -u NONE -c 'luafile tests/e2e/nvim/test.lua'
-- Prints one line per test and a closing `N passed, N failed`; exits non-zero on failure.

local bin = os.getenv('LITMUS_BIN')
local root = os.getenv('LITMUS_ROOT') or vim.fn.getcwd()
local passed, failed = 0, 0
local statuses = {}

local function check(cond, msg)
  if not cond then error(msg or 'check failed', 2) end
end

local function wait(ms, pred, what)
  local ok = vim.wait(ms, pred, 20)
  check(ok, 'timed out waiting for ' .. what)
end

local function run(name, f)
  local ok, err = pcall(f)
  if ok then
    passed = passed + 1
    print('ok - ' .. name)
  else
    failed = failed + 1
    print('not ok - ' .. name .. ': ' .. tostring(err))
  end
end

local function finish()
  print(string.format('%d passed, %d failed', passed, failed))
  vim.cmd((failed > 0 or passed == 0) and 'cquit 1' or 'qall!')
end

if not bin or bin == '' then
  print('LITMUS_BIN is not set')
  failed = 1
  finish()
end

vim.cmd('filetype on')
vim.filetype = vim.filetype or {}
vim.cmd('autocmd BufRead,BufNewFile *.litmus setfiletype litmus')

local client_id = vim.lsp.start_client({
  name = 'litmus',
  cmd = { bin, 'lsp' },
  root_dir = root,
  settings = { litmus = { models = { 'sc', 'tso', 'pso' }, loopBound = 8 } },
  init_options = { litmus = { timeout = 20 } },
  handlers = {
    ['litmus/status'] = function(_, result)
      table.insert(statuses, result)
    end,
  },
})

local function client()
  return vim.lsp.get_client_by_id(client_id)
end

local function status_done(uri, from)
  for i = from + 1, #statuses do
    local s = statuses[i]
    if s.uri == uri and s.state == 'done' then return s end
  end
  return nil
end

local tmp = vim.fn.tempname()
vim.fn.mkdir(tmp, 'p')

local function open(name, text)
  local path = tmp .. '/' .. name
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
  vim.cmd('edit ' .. path)
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'litmus'
  local from = #statuses
  vim.lsp.buf_attach_client(buf, client_id)
  return buf, vim.uri_from_fname(path), from
end

local MP = table.concat({
  'litmus MP "message passing"',
  '',
  'shared data = 0, flag = 0;',
  '',
  'thread P0 {',
  '  data = 1;',
  '  flag = 1;',
  '}',
  '',
  'thread P1 {',
  '  r0 = flag;',
  '  if (r0 == 1) {',
  '    r1 = data;',
  '    assert(r1 == 1); // é😀',
  '  }',
  '}',
  '',
}, '\n')

run('server initializes', function()
  wait(10000, function() return client() ~= nil and client().initialized end, 'initialize')
  local caps = client().server_capabilities or client().resolved_capabilities
  check(caps ~= nil, 'no capabilities')
end)

local mp_buf, mp_uri
run('assertion diagnostic names the models', function()
  local from
  mp_buf, mp_uri, from = open('mp.litmus', MP)
  wait(30000, function() return status_done(mp_uri, from) ~= nil end, 'verification')
  local s = status_done(mp_uri, from)
  check(s.verdicts.pso == 'fails' and s.verdicts.sc == 'holds' and s.verdicts.tso == 'holds', vim.inspect(s))
  wait(5000, function() return #vim.diagnostic.get(mp_buf, { severity = vim.diagnostic.severity.ERROR }) > 0 end, 'diagnostics')
  local d = vim.diagnostic.get(mp_buf, { severity = vim.diagnostic.severity.ERROR })[1]
  check(d.message:find('^assertion fails under PSO; holds under SC and TSO') ~= nil, d.message)
  check(d.lnum == 13 and d.col == 4, 'at ' .. d.lnum .. ':' .. d.col)
end)

run('hover shows the counterexample and a link to its trace', function()
  local params = { textDocument = { uri = mp_uri }, position = { line = 13, character = 6 } }
  local res = client().request_sync('textDocument/hover', params, 10000, mp_buf)
  check(res and res.result, 'no hover: ' .. vim.inspect(res))
  local md = res.result.contents.value
  check(md:find('Counterexample under PSO', 1, true) ~= nil, md)
  check(md:find('[Trace under PSO](command:litmus.showTrace', 1, true) ~= nil, md)
  check(md:find('| # |', 1, true) == nil, 'no schedule table in the short hover: ' .. md)
end)

run('code lenses and showSchedule', function()
  local res = client().request_sync('textDocument/codeLens', { textDocument = { uri = mp_uri } }, 10000, mp_buf)
  local titles = {}
  local show
  for _, l in ipairs(res.result) do
    table.insert(titles, l.command.title)
    if l.command.command == 'litmus.showSchedule' and l.range.start.line == 13 then show = l.command end
  end
  check(table.concat(titles, ' | '):find('SC ✓ | TSO ✓ | PSO ✗', 1, true) ~= nil, table.concat(titles, ' | '))
  check(show ~= nil, 'no Show schedule lens on the assertion')
  local r = client().request_sync('workspace/executeCommand', { command = show.command, arguments = show.arguments }, 10000, mp_buf)
  check(r.result.kind == 'assert' and r.result.model == 'pso', vim.inspect(r.result))
  check(#r.result.steps >= 4, 'steps')
end)

run('inlay hints carry the values read', function()
  local params = { textDocument = { uri = mp_uri }, range = { start = { line = 0, character = 0 }, ['end'] = { line = 20, character = 0 } } }
  local r = client().request_sync('textDocument/inlayHint', params, 10000, mp_buf)
  local found = false
  for _, h in ipairs(r.result) do
    if h.position.line == 12 and h.label == ' ⇐ data=0 (PSO)' then found = true end
  end
  check(found, vim.inspect(r.result))
end)

run('definition and references of a shared variable', function()
  local params = { textDocument = { uri = mp_uri }, position = { line = 12, character = 10 } }
  local r = client().request_sync('textDocument/definition', params, 10000, mp_buf)
  local loc = r.result[1] or r.result
  check(loc.range.start.line == 2 and loc.range.start.character == 7, vim.inspect(loc))
  params.context = { includeDeclaration = true }
  local refs = client().request_sync('textDocument/references', params, 10000, mp_buf)
  check(#refs.result == 3, vim.inspect(refs.result))
end)

run('an edit gives a syntax error, a fix and a save verify again', function()
  local from = #statuses
  vim.api.nvim_buf_set_lines(mp_buf, 6, 7, false, { '  flag = ;' })
  wait(5000, function()
    for _, d in ipairs(vim.diagnostic.get(mp_buf, { severity = vim.diagnostic.severity.ERROR })) do
      if d.lnum == 6 then return true end
    end
    return false
  end, 'syntax error on line 7')
  vim.api.nvim_buf_set_lines(mp_buf, 6, 7, false, { '  fence;', '  flag = 1;' })
  vim.cmd('silent write')
  wait(30000, function() return status_done(mp_uri, from) ~= nil end, 'verification after save')
  local s = status_done(mp_uri, from)
  check(s.verdicts.pso == 'holds', 'the fence repairs MP under PSO: ' .. vim.inspect(s))
  wait(5000, function() return #vim.diagnostic.get(mp_buf, { severity = vim.diagnostic.severity.ERROR }) == 0 end, 'no errors')
end)

run('examples/sb.litmus: witness lens on the condition', function()
  local f = assert(io.open(root .. '/examples/sb.litmus'))
  local text = f:read('*a')
  f:close()
  local buf, uri, from = open('sb.litmus', text)
  wait(30000, function() return status_done(uri, from) ~= nil end, 'verification')
  local res = client().request_sync('textDocument/codeLens', { textDocument = { uri = uri } }, 10000, buf)
  local titles = {}
  for _, l in ipairs(res.result) do table.insert(titles, l.command.title) end
  -- An unobserved `exists` is herd's No: an answer, not a failure (docs/reference.md).
  check(table.concat(titles, ' | '):find('SC No | TSO Ok | PSO Ok', 1, true) ~= nil, table.concat(titles, ' | '))
end)

vim.lsp.stop_client(client_id)
finish()
