-- Buffer-local settings for cat models (herd's cat language). The language server is started
-- by require('litmus').setup() for these buffers too.
if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1

vim.bo.commentstring = '(* %s *)'
vim.bo.comments = 's1:(*,mb:*,ex:*)'
vim.bo.expandtab = true
vim.bo.shiftwidth = 2
vim.wo.foldenable = false
vim.b.undo_ftplugin = 'setlocal commentstring< comments< expandtab< shiftwidth< foldmethod< foldexpr< foldenable<'

-- Tree-sitter when a `cat` parser is installed (parser/cat.so on the runtimepath, see
-- docs/editors.md; ABI 15, which Neovim 0.11+ loads): highlighting and folds by the queries of
-- queries/cat/. Without one, syntax/cat.vim highlights the buffer and folds by its regions.
local started = false
if vim.treesitter and vim.treesitter.start then
  started = pcall(vim.treesitter.start, 0, 'cat')
end
if started and vim.treesitter.foldexpr then
  vim.wo.foldmethod = 'expr'
  vim.wo.foldexpr = 'v:lua.vim.treesitter.foldexpr()'
else
  vim.wo.foldmethod = 'syntax'
end
