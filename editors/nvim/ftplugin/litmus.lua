-- Buffer-local settings for litmus tests. The language server is started by
-- require('litmus').setup(), not here, so that users choose when it runs.
if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1

vim.bo.commentstring = '// %s'
vim.bo.comments = 's1:/*,mb:*,ex:*/,://'
vim.bo.expandtab = true
vim.bo.shiftwidth = 2
vim.bo.softtabstop = 2
vim.b.undo_ftplugin = 'setlocal commentstring< comments< expandtab< shiftwidth< softtabstop<'

-- Tree-sitter highlighting when a `litmus` parser is installed (parser/litmus.so on the
-- runtimepath, see docs/editors.md; the parser has ABI 15, which Neovim 0.11+ loads). Without
-- one this does nothing and syntax/litmus.vim highlights the buffer.
if vim.treesitter and vim.treesitter.start then
  pcall(vim.treesitter.start, 0, 'litmus')
end
