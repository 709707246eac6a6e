; Syntax highlighting for litmus tests (native and herd's X86 / X86_64 / AArch64 / RISCV / PPC / ARM / C dialects).

(comment) @comment
(herd_block) @comment
(metadata) @comment

[
  "litmus"
  "X86"
  "x86"
  "X86_64"
  "AArch64"
  "RISCV"
  "PPC"
  "ARM"
  "C"
  "shared"
  "mutex"
  "thread"
] @keyword

[
  "if"
  "else"
  "while"
] @keyword.control

[
  "exists"
  "forall"
  "final"
  "locations"
  "filter"
  "with"
] @keyword

[
  "fence"
  "lock"
  "unlock"
  "assert"
  "assume"
  "await"
  "xchg"
  "cas"
  "fetch_add"
] @function.builtin

(native_header name: (test_name) @title)
(x86_header name: (test_name) @title)
(x86_header texname: (test_name) @label)
(asm_header name: (test_name) @title)
(asm_header texname: (test_name) @label)
(string) @string

(thread name: (identifier) @type)
(x86_thread_row thread: (identifier) @type)
(thread_register thread: (_) @type)
(thread_register register: (identifier) @variable.parameter)

(shared_declarator name: (identifier) @variable)
(mutex_declaration name: (identifier) @variable)
(x86_instruction mnemonic: (identifier) @function.builtin)
(memory_operand location: (identifier) @variable)
(att_memory base: (identifier) @variable)
(att_register) @variable.parameter
(lock_prefix) @keyword
(x86_label name: (identifier) @label)
(mnemonic) @function.builtin
(asm_label name: (identifier) @label)
(asm_instruction operand: (identifier) @variable.parameter)
(arm_address base: (identifier) @variable.parameter)
(arm_address offset: (identifier) @variable.parameter)
(riscv_address base: (identifier) @variable.parameter)
(shifted_operand operator: (identifier) @keyword)
(arm_immediate) @number
(signed_integer) @number
(x86_init_entry type: (type_name) @type.builtin)
(with_entry model: (identifier) @attribute)

; herd's C dialect: macros (`READ_ONCE`, `smp_mb`) are calls, resolved with the `.def` file.
(c_header name: (test_name) @title)
(c_info) @comment
(c_thread name: (identifier) @type)
(c_parameter name: (identifier) @variable.parameter)
(c_declarator name: (identifier) @variable)
(c_init_entry location: (identifier) @variable)
(c_type) @type.builtin
(c_call function: (identifier) @function.macro)
[
  "struct" "volatile" "const" "unsigned" "signed" "int" "long" "char" "short" "void"
] @type.builtin
["?" "|" "^" "<<" ">>" "+=" "-=" "|=" "&=" "^=" "->"] @operator

(integer) @number
(immediate) @number
[(true) (false)] @constant.builtin

[
  "=" "==" "!=" "<>" "<" "<=" ">" ">=" "+" "-" "*" "/" "%" "!" "~" "&&" "||"
  "/\\" "\\/" "=>" "not" "$" "#" "&"
] @operator

["(" ")" "[" "]" "{" "}"] @punctuation.bracket
[";" "," "|" ":"] @punctuation.delimiter
