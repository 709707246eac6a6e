" Files ending in .litmus are litmus tests (native or herd7 x86 dialect).
autocmd BufRead,BufNewFile *.litmus setfiletype litmus
