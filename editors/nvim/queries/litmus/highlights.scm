; Syntax highlighting for litmus tests (native and herd's X86 / X86_64 dialects).

(comment) @comment
(herd_block) @comment
(metadata) @comment

[
  "litmus"
  "X86"
  "x86"
  "X86_64"
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
(x86_init_entry type: (type_name) @type.builtin)
(with_entry model: (identifier) @attribute)

(integer) @number
(immediate) @number
[(true) (false)] @constant.builtin

[
  "=" "==" "!=" "<>" "<" "<=" ">" ">=" "+" "-" "*" "/" "%" "!" "~" "&&" "||"
  "/\\" "\\/" "=>" "not" "$"
] @operator

["(" ")" "[" "]" "{" "}"] @punctuation.bracket
[";" "," "|" ":"] @punctuation.delimiter
