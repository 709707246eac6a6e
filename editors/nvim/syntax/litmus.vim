" Regex highlighting for litmus tests, for Neovim without nvim-treesitter. Covers the native
" dialect (`litmus NAME ...`) and herd7's x86 dialects (`X86 NAME ...`, `X86_64 NAME ...`).
if exists('b:current_syntax')
  finish
endif

syn case match
syn keyword litmusHeader litmus
syn keyword litmusStorage shared mutex thread
syn keyword litmusConditional if else
syn keyword litmusRepeat while
syn keyword litmusAssert assert assume await
syn keyword litmusFence fence
syn keyword litmusFunction lock unlock xchg cas fetch_add
syn keyword litmusBoolean true false
syn keyword litmusCondition exists forall final with
syn match litmusCondition '\~\s*exists'
syn match litmusNumber '\<\d\+\>'
syn match litmusThreadReg '\<\(\h\w*\|\d\+\):\h\w*\>'
syn match litmusOperator '&&\|||\|==\|!=\|<=\|>=\|/\\\|\\/\|<>\|=>'
syn region litmusString start='"' skip='\\.' end='"'
syn match litmusComment '//.*$' contains=@Spell
syn region litmusComment start='/\*' end='\*/' contains=@Spell
syn region litmusComment start='(\*' end='\*)' contains=@Spell
syn region litmusComment start='<<' end='>>'

" x86 dialect: instructions and registers in any case, [x], $1, the | column separator.
syn case ignore
syn keyword litmusX86Header X86 X86_64
syn keyword litmusInstruction mov xchg lock add sub inc dec cmp xor and or jmp je jne cmpxchg xadd
syn keyword litmusInstruction movb movw movl movq xchgl xchgq addl addq subl subq incl incq decl decq
syn keyword litmusInstruction xaddl xaddq cmpxchgl cmpxchgq shl shr jz jnz jl jle jg jge
syn keyword litmusInstruction nop nopl nopw endbr64
syn keyword litmusFence mfence lfence sfence
syn keyword litmusRegister eax ebx ecx edx esi edi ebp esp rax rbx rcx rdx rsi rdi rbp rsp
syn case match
syn match litmusImmediate '\$-\?\d\+'
syn match litmusRegister '%\h\w*'
syn match litmusMemory '\[\s*\h\w*\s*\]'
syn match litmusSeparator '|'

hi def link litmusHeader Keyword
hi def link litmusX86Header Keyword
hi def link litmusStorage StorageClass
hi def link litmusConditional Conditional
hi def link litmusRepeat Repeat
hi def link litmusAssert Exception
hi def link litmusFence Special
hi def link litmusFunction Function
hi def link litmusBoolean Boolean
hi def link litmusCondition Keyword
hi def link litmusNumber Number
hi def link litmusImmediate Number
hi def link litmusThreadReg Identifier
hi def link litmusOperator Operator
hi def link litmusString String
hi def link litmusComment Comment
hi def link litmusInstruction Statement
hi def link litmusRegister Identifier
hi def link litmusMemory Identifier
hi def link litmusSeparator Delimiter

let b:current_syntax = 'litmus'
