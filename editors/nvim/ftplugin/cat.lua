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
vim.wo.foldmethod = 'syntax'
vim.wo.foldenable = false
vim.b.undo_ftplugin = 'setlocal commentstring< comments< expandtab< shiftwidth< foldmethod< foldenable<'
