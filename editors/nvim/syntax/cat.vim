" Regex highlighting for herd's cat language (.cat, .bell), for Vim and for a Neovim without the
" tree-sitter parser of grammar/cat (ftplugin/cat.lua starts tree-sitter when there is one).
if exists('b:current_syntax')
  finish
endif

syn case match
syn iskeyword @,48-57,_,.,-,'
syn keyword catKeyword let rec and in as fun include show unshow debug procedure call end begin
syn keyword catKeyword match with from forall do try if then else enum instructions default when
syn keyword catKeyword subset variant not catdep
syn keyword catCheck acyclic irreflexive empty flag undefined_unless assert
syn keyword catBuiltin po rf co fr rfe rfi coe coi fre fri po-loc loc int ext id addr data ctrl rmw
syn keyword catBuiltin R W M F IW FW domain range fencerel classes-loc linearisations
syn keyword catBuiltin different-values tag2events tag2set
syn match catTag "'\h[A-Za-z0-9_.-]*"
syn match catOperator '\^-1\|||\|&&\|->\|++\|[|;\\&*+?~=]'
syn match catDefinition '\(\<let\s\+\(rec\s\+\)\?\)\@<=\h[A-Za-z0-9_.-]*'
syn region catString start='"' end='"'
syn region catComment start='(\*' end='\*)' contains=catComment,@Spell fold
syn match catLineComment '//.*$' contains=@Spell

hi def link catKeyword Keyword
hi def link catCheck Statement
hi def link catBuiltin Identifier
hi def link catTag Constant
hi def link catOperator Operator
hi def link catDefinition Function
hi def link catString String
hi def link catComment Comment
hi def link catLineComment Comment

let b:current_syntax = 'cat'
