-- Issue 56: an AArch64 and a RISC-V test against the real litmus binary (part of test.lua):
-- :LitmusStatus gives their model's verdict (not "no verdict yet"), the hover on the condition
-- answers under the model, and :LitmusVerifyAll counts and reports both files.

local H = ...
local tmp, real_bin, check, skip, eq, wait_for, write_file, notes, litmus, stop_all = H.tmp, H.real_bin, H.check, H.skip, H.eq, H.wait_for, H.write_file, H.notes, H.litmus, H.stop_all

-- LB with a data dependency on one side: the state is allowed (herd's Ok), so the `exists`
-- passes with the answer Ok.
local LB_AARCH64 = {
  'AArch64 LB+data+po',
  '{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }',
  ' P0            | P1          ;',
  ' LDR W0,[X1]   | LDR W0,[X1] ;',
  ' EOR W2,W0,W0  | MOV W2,#1   ;',
  ' ADD W2,W2,#1  | STR W2,[X3] ;',
  ' STR W2,[X3]   |             ;',
  'exists (0:X0=1 /\\ 1:X0=1)',
}

-- SB with one fence: P1's store may pass its load, so the `~exists` does not hold (herd's No).
local SB_RISCV = {
  'RISCV SB+fence.rw.rw+po',
  '{ 0:x5=1; 0:x6=x; 0:x8=y; 1:x5=1; 1:x6=y; 1:x8=x; }',
  ' P0            | P1            ;',
  ' sw x5,0(x6)   | sw x5,0(x6)   ;',
  ' fence rw,rw   | lw x7,0(x8)   ;',
  ' lw x7,0(x8)   |               ;',
  '~exists (0:x7=0 /\\ 1:x7=0)',
}

if real_bin == '' then
  skip('AArch64 and RISC-V files against the real litmus binary', 'no binary: set LITMUS_BIN or cargo build -p litmus')
  return
end

local dir = tmp .. '/dialects'
vim.fn.mkdir(dir, 'p')

--- The markdown of the server's hover at (line, character) of `buf`, 0-based.
local function hover_md(buf, line, character)
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }, 15000)
  for _, r in pairs(res or {}) do
    if r.result and r.result.contents then
      return r.result.contents.value
    end
  end
  return nil
end

local cases = {
  {
    file = 'lb-aarch64.litmus',
    lines = LB_AARCH64,
    status = 'aarch64.cat ✓ Ok',
    hover = "Ok: the condition's state is allowed under aarch64.cat",
    herd = 'Observation LB+data+po Sometimes 1',
  },
  {
    file = 'sb-riscv.litmus',
    lines = SB_RISCV,
    status = 'riscv.cat ✗',
    hover = "No: the condition's state is allowed under riscv.cat",
    herd = 'Observation SB+fence.rw.rw+po Sometimes 1',
  },
}

for _, c in ipairs(cases) do
  check(':LitmusStatus and the hover of ' .. c.file .. ' give its model\'s verdict', function()
    litmus.setup({ cmd = { real_bin, 'lsp' } })
    vim.cmd('edit ' .. write_file(dir .. '/' .. c.file, c.lines))
    local b = vim.api.nvim_get_current_buf()
    wait_for(60000, 'the status of ' .. c.file, function()
      return litmus.statusline(b) == c.status
    end)
    -- :LitmusStatus says the same through vim.notify
    local before = #notes
    vim.cmd('LitmusStatus')
    local said = notes[before + 1] and notes[before + 1].msg or ''
    eq(said:find(c.status, 1, true) ~= nil, true, ':LitmusStatus said ' .. vim.inspect(said))
    eq(said:find('no verdict yet', 1, true), nil, ':LitmusStatus said ' .. vim.inspect(said))
    -- the hover on the condition (the last line): the model's answer and herd's block
    local md = hover_md(b, #c.lines - 1, 2)
    eq(type(md), 'string', 'a hover on the condition')
    local shown = litmus.hover_text(md, true)
    eq(shown:find(c.hover, 1, true) ~= nil, true, 'the answer in\n' .. shown)
    eq(shown:find(c.herd, 1, true) ~= nil, true, "herd's block in\n" .. shown)
    eq(shown:find('not available', 1, true), nil, 'no operational error in\n' .. shown)
    vim.cmd('bwipe!')
  end)
end

check(':LitmusVerifyAll counts the AArch64 and RISC-V files and reports the failing ~exists', function()
  litmus.setup({ cmd = { real_bin, 'lsp' }, settings = { timeout = 60 } })
  local done, items, counts = false, nil, nil
  vim.fn.setqflist({}, 'r')
  eq(litmus.verify_all(dir, function(i, c)
    done, items, counts = true, i, c
  end) ~= nil, true, 'a job')
  wait_for(120000, 'the run', function()
    return done
  end)
  eq(type(counts), 'table', 'the run ended with a document')
  eq(counts.files, 2, 'both files checked')
  eq(counts.errors, 0, 'no file has an error')
  eq(counts.failing, 1, 'the RISC-V ~exists fails, the AArch64 exists does not')
  local texts = {}
  for _, it in ipairs(vim.fn.getqflist()) do
    table.insert(texts, vim.fn.fnamemodify(vim.fn.bufname(it.bufnr), ':t') .. ':' .. it.lnum .. ' ' .. it.text)
  end
  eq(#items, #texts, 'the quickfix list holds the items')
  local riscv = vim.tbl_filter(function(t)
    return t:match('^sb%-riscv%.litmus:%d+ riscv%.cat condition violation') ~= nil
  end, texts)
  eq(#riscv, 1, 'the RISC-V failure: ' .. vim.inspect(texts))
  eq(#vim.tbl_filter(function(t)
    return t:match('^lb%-aarch64%.litmus') ~= nil
  end, texts), 0, 'nothing on the AArch64 file: ' .. vim.inspect(texts))
  eq(vim.fn.getqflist({ title = 0 }).title:match('^litmus: 2 files, 1 with violations, 0 with errors') ~= nil, true, 'title ' .. vim.fn.getqflist({ title = 0 }).title)
end)

stop_all()

-- The `settings` table gives the server `includePath` (docs/models.md#the-include-path): a cat
-- model including a file found only in a folder outside the workspace goes to its definition
-- there (Neovim 0.7 cannot be asked for settings: the server takes them from the
-- initialization options; a later Neovim answers `workspace/configuration` from the table,
-- after initialize: the request is retried until the answer lands).
check('settings.includePath: a model\'s include is found in a folder of the include path', function()
  local lib, models = tmp .. '/cat-lib', tmp .. '/cat-models'
  vim.fn.mkdir(lib, 'p')
  vim.fn.mkdir(models, 'p')
  local libfile = write_file(lib .. '/mylib.cat', { '(* what program order keeps *)', 'let kept = po' })
  litmus.setup({ cmd = { real_bin, 'lsp' }, settings = { includePath = { lib } } })
  vim.cmd('edit ' .. write_file(models .. '/m.cat', { '"mine"', 'include "mylib.cat"', 'acyclic kept | rf as sc' }))
  local b = vim.api.nvim_get_current_buf()
  local where, want = nil, vim.fn.fnamemodify(libfile, ':p') .. ':1'
  pcall(wait_for, 30000, 'the definition of kept in ' .. libfile, function()
    local res = vim.lsp.buf_request_sync(b, 'textDocument/definition', {
      textDocument = { uri = vim.uri_from_bufnr(b) },
      position = { line = 2, character = 9 },
    }, 5000)
    for _, r in pairs(res or {}) do
      local loc = r.result and (r.result.uri and r.result or r.result[1])
      if loc and loc.uri then
        where = vim.uri_to_fname(loc.uri) .. ':' .. loc.range.start.line
      end
    end
    return where == want
  end)
  eq(where, want, 'where the definition of kept is')
  vim.cmd('bwipe!')
end)

stop_all()
