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

check('the tree-sitter queries are copies of grammar/queries and grammar/cat/queries', function()
  for _, copy in ipairs({
    { lang = 'litmus', dir = 'grammar/queries', names = { 'highlights.scm', 'locals.scm' } },
    { lang = 'cat', dir = 'grammar/cat/queries', names = { 'folds.scm', 'highlights.scm', 'locals.scm' } },
  }) do
    -- Every query of the grammar is copied, and nothing else is in the copy.
    local theirs_dir = root .. '/../../' .. copy.dir
    eq(vim.fn.readdir(theirs_dir), copy.names, copy.dir)
    eq(vim.fn.readdir(root .. '/queries/' .. copy.lang), copy.names, 'editors/nvim/queries/' .. copy.lang)
    for _, name in ipairs(copy.names) do
      local ours = vim.fn.readfile(root .. '/queries/' .. copy.lang .. '/' .. name)
      local theirs = vim.fn.readfile(theirs_dir .. '/' .. name)
      eq(#theirs > 0, true, copy.dir .. '/' .. name .. ' exists')
      eq(ours, theirs, 'editors/nvim/queries/' .. copy.lang .. '/' .. name
        .. ' (run: cp ' .. copy.dir .. '/*.scm editors/nvim/queries/' .. copy.lang .. '/)')
    end
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
  eq(vim.wo.foldmethod, 'syntax', 'folds by the syntax file without the cat parser')
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

local cat_site = os.getenv('LITMUS_TS_CAT_SITE') or ''
if cat_site == '' then
  skip('tree-sitter for cat models', 'no parser: grammar/cat/src/parser.c or cc missing')
elseif not (vim.treesitter.language and vim.treesitter.language.add and vim.treesitter.get_captures_at_pos
    and vim.treesitter.foldexpr) then
  skip('tree-sitter for cat models', (vim.fn.execute('version'):match('NVIM v[%w.-]+') or 'this Neovim') .. ' cannot load an ABI 15 parser (needs 0.11+)')
else
  check('with the cat parser installed, cat buffers are highlighted and folded by tree-sitter', function()
    vim.opt.runtimepath:append(cat_site)
    eq(vim.treesitter.language.add('cat'), true, 'parser/cat.so loads')
    for _, name in ipairs({ 'highlights', 'locals', 'folds' }) do
      eq(vim.treesitter.query.get('cat', name) ~= nil, true, 'the copied ' .. name .. ' query compiles')
    end
    local model = {
      '"Model" (* the model',
      '   over two lines *)',
      "let com = rf | co | fr",
      'procedure p(a) =',
      '  acyclic a as cyc',
      'end',
      "let f(x) = x^-1 ; 'tag",
      'call p(com)',
    }
    vim.cmd('edit ' .. write_file(tmp .. '/ts.cat', model))
    local buf = vim.api.nvim_get_current_buf()
    eq(vim.bo.filetype, 'cat', 'filetype')
    eq(vim.treesitter.highlighter.active[buf] ~= nil, true, 'ftplugin started tree-sitter')
    vim.treesitter.get_parser(0, 'cat'):parse(true) -- parsing may be asynchronous (0.12)
    -- The capture that shows: of equal priorities, the later pattern's.
    local function caps(row, col)
      local all = vim.treesitter.get_captures_at_pos(0, row, col)
      return all[#all] and all[#all].capture or ''
    end
    eq(caps(0, 0), 'title', 'the model name')
    eq(caps(0, 8), 'comment', 'a comment')
    eq(caps(2, 0), 'keyword', '`let`')
    eq(caps(2, 4), 'variable', 'the defined name')
    eq(caps(2, 13), 'operator', '`|`')
    eq(caps(3, 0), 'keyword.function', '`procedure`')
    eq(caps(3, 10), 'function', 'the procedure name')
    eq(caps(3, 12), 'variable.parameter', 'its parameter')
    eq(caps(4, 2), 'keyword', '`acyclic`')
    eq(caps(4, 15), 'label', 'the check name')
    eq(caps(6, 4), 'function', 'a function definition')
    eq(caps(6, 6), 'variable.parameter', 'its parameter')
    eq(caps(6, 18), 'constant', 'a tag')
    eq(caps(7, 5), 'function.call', 'a call')
    -- Folds by the folds query: the comment and the procedure.
    eq(vim.wo.foldmethod, 'expr', 'foldmethod')
    eq(vim.wo.foldexpr, 'v:lua.vim.treesitter.foldexpr()', 'foldexpr')
    local function level(lnum)
      return vim.api.nvim_buf_call(buf, function()
        return vim.fn.foldlevel(lnum)
      end)
    end
    vim.cmd('normal! zx') -- recompute folds now that the tree exists
    eq({ level(1), level(2), level(3), level(4), level(5), level(6), level(7) }, { 1, 1, 0, 1, 1, 1, 0 }, 'fold levels')
    vim.cmd('bwipeout!')
  end)
end
