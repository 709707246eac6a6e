" Files ending in .cat or .bell are herd's cat language (memory models).
autocmd BufRead,BufNewFile *.cat,*.bell set filetype=cat
