-- Filetype, ftplugin, regex syntax and tree-sitter highlighting (part of test.lua).

local H = ...
local root, tmp, check, skip, eq, write_file, SB, litmus = H.root, H.tmp, H.check, H.skip, H.eq, H.write_file, H.SB, H.litmus

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

check('*.cat and *.bell files get filetype cat, (* *) comments and the regex syntax', function()
  local model = { '(* Observed-by *)', "let obs = rfe | coe", "acyclic po | obs as ext", "enum A = 'once" }
  vim.cmd('edit ' .. write_file(tmp .. '/m.cat', model))
  eq(vim.bo.filetype, 'cat', 'filetype')
  eq(vim.bo.commentstring, '(* %s *)', 'commentstring')
  eq(vim.b.current_syntax, 'cat', 'b:current_syntax')
  local function group(l, c)
    return vim.fn.synIDattr(vim.fn.synID(l, c, 1), 'name')
  end
  eq(group(1, 1), 'catComment', 'comment')
  eq(group(2, 1), 'catKeyword', 'let')
  eq(group(2, 5), 'catDefinition', 'the defined name')
  eq(group(2, 11), 'catBuiltin', 'rfe')
  eq(group(3, 1), 'catCheck', 'acyclic')
  eq(group(4, 10), 'catTag', "'once")
  vim.cmd('edit ' .. write_file(tmp .. '/m.bell', { 'enum A = \'x' }))
  eq(vim.bo.filetype, 'cat', 'bell filetype')
  vim.cmd('bwipeout!')
end)
