/**
 * @file tree-sitter grammar for litmus tests: the native dialect (`litmus NAME ...`, `docs/reference.md#native`)
 *       and herd7's x86 dialects (`X86 NAME ...` in Intel syntax, `docs/reference.md#x86`, and `X86_64 NAME ...`
 *       in AT&T syntax).
 * @license MIT
 *
 * Both dialects share one expression grammar. It is deliberately more permissive than either
 * dialect: x86 connectives (`/\`, `\/`, `=>`, `~`, `not`, `=`, `<>`) and memory operands (`[x]`)
 * parse everywhere, and so do atomics inside expressions or `P0:r0` inside threads. The front end
 * (`engine/src/syntax`) rejects what a dialect does not allow, with a message at the right range,
 * which is a better experience than a bare syntax error.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

// C's precedence for the native operators; herd's for the x86 connectives.
const PREC = {
  implies: 1, // `=>` (x86), right-associative, loosest
  or: 2, // `||`, `\/`
  and: 3, // `&&`, `/\`
  prop_not: 4, // `~`, `not` (x86): `~x=1` is `~(x=1)`, as in herd
  equality: 6, // `==`, `!=`, `<>`, and `=` (an equality in x86, an error in native conditions)
  relational: 7, // `<`, `<=`, `>`, `>=`
  additive: 8, // `+`, `-`
  multiplicative: 9, // `*`, `/`, `%`
  unary: 10, // `-`, `!`
  postfix: 11, // `a[i]`
};

/**
 * @param {RuleOrLiteral} rule
 * @param {RuleOrLiteral} sep
 */
function sep1(rule, sep) {
  return seq(rule, repeat(seq(sep, rule)));
}

/** @param {RuleOrLiteral} rule */
function commaSep1(rule) {
  return sep1(rule, ',');
}

/**
 * `-e`, `!e` (C) and `~e`, `not e` (herd's propositions, looser than `=`).
 * @param {Rule} operand
 */
function unaryRule(operand) {
  return choice(
    prec(PREC.unary, seq(field('operator', choice('-', '!')), field('operand', operand))),
    prec(PREC.prop_not, seq(field('operator', choice('~', 'not')), field('operand', operand))),
  );
}

/**
 * Every binary operator of both dialects, with C's precedence and herd's connectives.
 * @param {Rule} operand
 */
function binaryRule(operand) {
  /** @type {[string, number][]} */
  const table = [
    ['||', PREC.or],
    ['\\/', PREC.or],
    ['&&', PREC.and],
    ['/\\', PREC.and],
    ['==', PREC.equality],
    ['!=', PREC.equality],
    ['<>', PREC.equality],
    ['<', PREC.relational],
    ['<=', PREC.relational],
    ['>', PREC.relational],
    ['>=', PREC.relational],
    ['+', PREC.additive],
    ['-', PREC.additive],
    ['*', PREC.multiplicative],
    ['/', PREC.multiplicative],
    ['%', PREC.multiplicative],
  ];
  return choice(
    ...table.map(([op, p]) => prec.left(p, seq(
      field('left', operand),
      field('operator', op),
      field('right', operand),
    ))),
    prec.right(PREC.implies, seq(
      field('left', operand),
      field('operator', '=>'),
      field('right', operand),
    )),
  );
}

export default grammar({
  name: 'litmus',

  extras: $ => [/\s/, $.comment, $.herd_block],

  word: $ => $.identifier,

  // Words that never lex as identifiers, so that after a forgotten `;` or `}` the next
  // declaration or statement is still seen as one (error recovery). `xchg` is left out: x86
  // tests write it in lower case as a mnemonic; so are `not`, `with` and `locations`, which
  // only matter in herd's syntax.
  reserved: {
    global: _ => [
      'litmus', 'shared', 'mutex', 'thread',
      'if', 'else', 'while', 'fence', 'lock', 'unlock', 'assert', 'assume', 'await',
      'exists', 'forall', 'final', 'true', 'false',
    ],
  },

  // No `conflicts`: precedences resolve every ambiguity (the condition expressions are a
  // separate copy so that they never compete with thread expressions).
  // The C dialect's declarations and casts (`spinlock_t *s;`, `(intptr_t *)p`) start like
  // expressions: GLR keeps both readings until the next tokens decide.
  conflicts: $ => [
    [$.c_type, $._c_primary],
  ],

  rules: {
    // The first word tells the dialects apart.
    source_file: $ => choice($.native_test, $.x86_test, $.asm_test, $.c_test),

    // ------------------------------------------------------------------ native dialect (`docs/reference.md#native`)

    native_test: $ => seq(
      field('header', $.native_header),
      // Declarations must come before the threads; the front end says so, the grammar does
      // not insist (a better message than a syntax error).
      repeat(field('item', choice($.shared_declaration, $.mutex_declaration, $.thread))),
      optional(field('condition', $.final_condition)),
    ),

    native_header: $ => seq(
      'litmus',
      field('name', $.test_name),
      optional(field('description', $.string)),
    ),

    // The `;` is optional here and required by the front end ("expected `;`"): tree-sitter's
    // recovery cannot insert it before a keyword that is invalid at that point, and would
    // swallow the next thread into an ERROR.
    shared_declaration: $ => seq(
      'shared',
      commaSep1(field('declarator', $.shared_declarator)),
      optional(field('terminator', ';')),
    ),

    shared_declarator: $ => seq(
      field('name', $.identifier),
      optional(seq('[', field('size', $._expression), ']')),
      optional(seq('=', field('value', choice($._expression, $.initializer_list)))),
    ),

    initializer_list: $ => seq(
      '{',
      optional(seq(commaSep1(field('element', $._expression)), optional(','))),
      '}',
    ),

    mutex_declaration: $ => seq(
      'mutex',
      commaSep1(field('name', $.identifier)),
      optional(field('terminator', ';')),
    ),

    thread: $ => seq(
      'thread',
      field('name', $.identifier),
      field('body', $.block),
    ),

    block: $ => seq('{', repeat(field('statement', $._statement)), '}'),

    _statement: $ => choice(
      $.assignment_statement,
      $.atomic_statement,
      $.fence_statement,
      $.lock_statement,
      $.unlock_statement,
      $.assert_statement,
      $.assume_statement,
      $.await_statement,
      $.if_statement,
      $.while_statement,
    ),

    // `x = e;`, `a[i] = e;`, `r = e;`, `r = xchg(x, e);`: the front end tells stores from
    // register assignments once names are resolved.
    assignment_statement: $ => seq(
      field('left', choice($.identifier, $.subscript_expression)),
      '=',
      field('right', $._expression),
      ';',
    ),

    // A bare atomic: `xchg(x, 1);`
    atomic_statement: $ => seq(field('atomic', $.atomic_expression), ';'),

    fence_statement: $ => seq('fence', ';'),

    // The parentheses of `lock(m)`, `assert(c)`, `if (c)`, `while (c)` are required by the
    // front end, not the grammar: `if r0 == 1 {` then gets "expected `(`" at the right place
    // instead of an ERROR that swallows the block. A parenthesised operand is a
    // `parenthesized_expression` node.
    lock_statement: $ => seq('lock', field('mutex', $._expression), ';'),

    unlock_statement: $ => seq('unlock', field('mutex', $._expression), ';'),

    assert_statement: $ => seq('assert', field('condition', $._expression), ';'),

    assume_statement: $ => seq('assume', field('condition', $._expression), ';'),

    await_statement: $ => seq('await', field('condition', $._expression), ';'),

    if_statement: $ => seq(
      'if',
      field('condition', $._expression),
      field('consequence', $.block),
      optional(field('alternative', $.else_clause)),
    ),

    else_clause: $ => seq('else', field('body', choice($.block, $.if_statement))),

    while_statement: $ => seq(
      'while',
      field('condition', $._expression),
      field('body', $.block),
    ),

    // `exists (c)`, `forall (c)`, `~exists (c)` (native); x86 adds `final c;` and a `with`
    // trailer (see x86_test). The `;` is optional in both.
    final_condition: $ => seq(
      field('quantifier', $.quantifier),
      field('expression', $._condition_expression),
      optional(';'),
    ),

    quantifier: $ => choice('exists', 'forall', seq('~', 'exists'), 'final'),

    // ------------------------------------------------------------------ expressions

    _expression: $ => choice(
      $._primary_expression,
      $.parenthesized_expression,
      $.unary_expression,
      $.binary_expression,
    ),

    // The final condition's expressions: the same as `_expression` plus `e = e`, which is an
    // equality in x86 (`x=1`) and, in the native dialect, the mistake the front end reports as
    // "assignment in final condition; did you mean `==`?". Its nodes are aliased to the same
    // names as `_expression`'s, so the front end reads one shape. Keeping `=` out of
    // `_expression` keeps a forgotten `;` in a thread a clean MISSING node.
    _condition_expression: $ => choice(
      $._primary_expression,
      alias($.condition_parenthesized, $.parenthesized_expression),
      alias($.condition_unary, $.unary_expression),
      alias($.condition_binary, $.binary_expression),
      $.assignment_expression,
    ),

    _primary_expression: $ => choice(
      $.integer,
      $.true,
      $.false,
      $.identifier,
      $.subscript_expression,
      $.thread_register,
      $.memory_operand,
      $.atomic_expression,
    ),

    parenthesized_expression: $ => seq('(', field('expression', $._expression), ')'),

    condition_parenthesized: $ => seq('(', field('expression', $._condition_expression), ')'),

    subscript_expression: $ => prec(PREC.postfix, seq(
      field('array', $.identifier),
      '[',
      field('index', $._expression),
      ']',
    )),

    // `P0:r0` or `0:EAX`: a thread's register in the final state.
    thread_register: $ => seq(
      field('thread', choice($.identifier, $.integer)),
      ':',
      field('register', $.identifier),
    ),

    // `[x]`: a location in an x86 condition, init block or instruction.
    memory_operand: $ => seq('[', field('location', $.identifier), ']'),

    // `xchg(x, e)`, `cas(x, old, new)`, `fetch_add(x, e)`; the argument count is checked by
    // the front end.
    atomic_expression: $ => seq(
      field('operation', choice('xchg', 'cas', 'fetch_add')),
      '(',
      field('location', $._expression),
      repeat(seq(',', field('argument', $._expression))),
      optional(','),
      ')',
    ),

    unary_expression: $ => unaryRule($._expression),

    condition_unary: $ => unaryRule($._condition_expression),

    binary_expression: $ => binaryRule($._expression),

    condition_binary: $ => binaryRule($._condition_expression),

    assignment_expression: $ => prec.left(PREC.equality, seq(
      field('left', $._condition_expression),
      '=',
      field('right', $._condition_expression),
    )),

    // ------------------------------------------------------------------ x86 dialect (`docs/reference.md#x86`)

    x86_test: $ => seq(
      field('header', $.x86_header),
      repeat(field('metadata', $.metadata)),
      field('init', $.x86_init),
      field('threads', $.x86_thread_row),
      repeat(field('row', $.x86_row)),
      repeat(field('locations', $.locations_clause)),
      optional(seq(
        field('condition', $.final_condition),
        optional(field('trailer', $.with_clause)),
      )),
    ),

    // `X86` (Intel operand order, `MOV [x],$1`) and `X86_64` (AT&T: `movq $1,(x)`) share the
    // rules below; the front end reads the operands in the dialect's order.
    x86_header: $ => seq(
      field('dialect', choice('X86', 'x86', 'X86_64')),
      field('name', $.test_name),
      optional(seq('(', field('texname', $.test_name), ')')),
      optional(field('description', $.string)),
    ),

    // `Cycle=Rfi PodRW Wse` and friends: metadata, kept whole, ignored.
    metadata: _ => token(prec(-1, /[A-Za-z][A-Za-z0-9_]*=[^\n]*/)),

    // `{ x=0; 0:EAX=2; }` with an optional `;` after the `}`.
    x86_init: $ => seq(
      '{',
      optional(seq(sep1(field('entry', $.x86_init_entry), ';'), optional(';'))),
      '}',
      optional(';'),
    ),

    // `x=1`, `0:EAX=2`, and X86_64's typed declarations `uint64_t x;`, `int64_t t[2]={1,-1}`,
    // `uint64_t 0:rax;`, `0:rax=t` (a register holding the address of `t`).
    // AArch64 and RISC-V add pointers `int *p=&x;` / `int *p=x;`, labels `0:X1=P1:L0` and
    // herd's symbolic registers `%r` (reported by the front end).
    x86_init_entry: $ => seq(
      optional(field('type', alias($.identifier, $.type_name))),
      optional(field('pointer', '*')),
      field('location', choice($.identifier, $.thread_register, $.memory_operand, $.att_register)),
      optional(seq('[', field('size', $.integer), ']')),
      optional(seq('=', field('value', choice(
        $.immediate, $.identifier, $.initializer_list, $.thread_register, $.address_of,
      )))),
    ),

    // `&x`: the address of a location.
    address_of: $ => seq('&', field('location', $.identifier)),

    // ` P0 | P1 ;`
    x86_thread_row: $ => seq(sep1(field('thread', $.identifier), '|'), ';'),

    // One instruction slot: cells separated by `|`, any of them empty, ending with `;`.
    x86_row: $ => seq(
      optional(field('instruction', $.x86_instruction)),
      repeat(seq('|', optional(field('instruction', $.x86_instruction)))),
      ';',
    ),

    // `L0:`, `L0: MOV EAX,[x]`, `LOCK ADD [x],$1`, `LOCK; XADD [x],EAX`, `lock xaddq %rax,(x)`.
    // Any mnemonic parses; the front end reports the unsupported ones at their cell.
    x86_instruction: $ => choice(
      seq(field('label', $.x86_label), optional($._x86_operation)),
      $._x86_operation,
    ),

    _x86_operation: $ => seq(
      optional(field('prefix', $.lock_prefix)),
      field('mnemonic', $.identifier),
      optional(commaSep1(field('operand', $._x86_operand))),
    ),

    x86_label: $ => seq(field('name', $.identifier), ':'),

    lock_prefix: $ => seq(choice('lock', 'LOCK', 'Lock'), optional(';')),

    _x86_operand: $ => choice(
      $.memory_operand,
      $.identifier,
      $.immediate,
      $.att_register,
      $.att_memory,
    ),

    // `$1`, `1`, `$-1`, `$0x10`
    immediate: $ => seq(optional('$'), optional('-'), field('value', $.integer)),

    // AT&T: `%rax`
    att_register: $ => seq('%', field('name', $.identifier)),

    // AT&T memory: `(x)`, `(%rax)`, `8(%rax,%rbx,8)`, `x(%rip)`, `%cs:0(%rax,%eax,0)`.
    att_memory: $ => seq(
      optional(seq(field('segment', $.att_register), ':')),
      optional(field('offset', choice($.identifier, $.immediate))),
      '(',
      optional(field('base', choice($.identifier, $.att_register))),
      optional(seq(
        ',',
        field('index', $.att_register),
        optional(seq(',', field('scale', $.integer))),
      )),
      ')',
    ),

    // ------------------------------------------------------------------ AArch64 and RISC-V (`docs/arm-riscv.md`)

    // herd's `AArch64` and `RISCV` tests: the same table as x86 (metadata, init block, thread
    // row, `|`-separated rows, `locations`, condition), with assembly cells of their own.
    asm_test: $ => seq(
      field('header', $.asm_header),
      repeat(field('metadata', $.metadata)),
      field('init', $.x86_init),
      field('threads', $.x86_thread_row),
      repeat(field('row', $.asm_row)),
      repeat(field('locations', $.locations_clause)),
      optional(field('filter', $.filter_clause)),
      optional(seq(
        field('condition', $.final_condition),
        optional(field('trailer', $.with_clause)),
      )),
    ),

    // herd's `filter c`: only executions whose final state satisfies `c` count.
    filter_clause: $ => seq('filter', field('expression', $._condition_expression)),

    asm_header: $ => seq(
      field('dialect', choice('AArch64', 'RISCV', 'PPC', 'ARM')),
      field('name', $.test_name),
      // `(texname)`, empty in some of the herding-cats archive's tests.
      optional(seq('(', optional(field('texname', $.test_name)), ')')),
      optional(field('description', $.string)),
    ),

    asm_row: $ => seq(
      optional(field('instruction', $.asm_instruction)),
      repeat(seq('|', optional(field('instruction', $.asm_instruction)))),
      ';',
    ),

    // `Fail0:`, `L0: LDR W0,[X1]`, `amoswap.w.aq.rl x0,x5,(x6)`, `B.NE Exit1`, `fence r,rw`.
    // Any mnemonic parses; the front end reports the ones outside the supported subset.
    asm_instruction: $ => choice(
      seq(field('label', $.asm_label), optional($._asm_operation)),
      $._asm_operation,
    ),

    _asm_operation: $ => seq(
      field('mnemonic', $.mnemonic),
      optional(commaSep1(field('operand', $._asm_operand))),
    ),

    asm_label: $ => seq(field('name', $.identifier), ':'),

    // `LDR`, `B.EQ`, `amoswap.w.aq.rl`, `fence.tso` (`fence` is a keyword of the native
    // dialect), POWER's `stwcx.` (a final `.`: the form that sets CR0).
    mnemonic: $ => seq(
      choice($.identifier, 'fence'),
      repeat(token.immediate(/\.[A-Za-z0-9_]*/)),
    ),

    _asm_operand: $ => choice(
      $.identifier,
      $.att_register,
      $.arm_immediate,
      $.signed_integer,
      $.arm_address,
      $.riscv_address,
      $.shifted_operand,
    ),

    // `#1`, `#-1`, `#0x10`
    arm_immediate: $ => seq('#', optional('-'), field('value', $.integer)),

    // `1`, `-1` (RISC-V immediates; AArch64's `[X1,560]`, `LSL 2`).
    signed_integer: $ => seq(optional('-'), field('value', $.integer)),

    // `LSL #2`, `asr #2`, `SXTW`, `LSL 1`: a register's shift or extension.
    shifted_operand: $ => seq(
      field('operator', $.identifier),
      field('amount', choice($.arm_immediate, $.signed_integer)),
    ),

    // `[X1]`, `[X1,X2]`, `[X1,X2,SXTW]`, `[X1,X2,LSL #2]`, `[X1,#8]`, `[X1,#8]!`; ARMv7's
    // `[%x0]`, `[R1,%x0]` (herd's symbolic registers).
    arm_address: $ => seq(
      '[',
      field('base', choice($.identifier, $.att_register)),
      optional(seq(
        ',',
        field('offset', choice($.identifier, $.att_register, $.arm_immediate, $.signed_integer)),
        optional(seq(',', field('extend', choice($.identifier, $.shifted_operand)))),
      )),
      ']',
      optional(field('writeback', '!')),
    ),

    // `0(x6)`, `(x6)`, `-8(x6)`; POWER's `0(r2)`, `0(%r2)`.
    riscv_address: $ => seq(
      optional(field('offset', $.signed_integer)),
      '(',
      field('base', choice($.identifier, $.att_register)),
      ')',
    ),

    // herd's `locations [x; 0:EAX;]`: what to show; the front end declares its locations.
    locations_clause: $ => seq(
      'locations',
      '[',
      repeat(seq(choice($.identifier, $.thread_register, $.memory_operand), optional(';'))),
      ']',
      optional(';'),
    ),

    // `with tso: ~exists; cc: exists;`: accepted and ignored.
    with_clause: $ => seq('with', repeat1($.with_entry)),

    with_entry: $ => seq(field('model', $.identifier), ':', field('quantifier', $.quantifier), optional(';')),


    // ------------------------------------------------------------------ herd's C dialect (`docs/reference.md#c`)

    // `C NAME`, an optional doc string and metadata, the init block, the threads
    // `P0(int *x) { ... }`, `locations`, `filter` and the condition. Macros (`READ_ONCE`,
    // `smp_mb`, ...) are ordinary calls here: the front end expands them with the model's
    // `.def` file.
    c_test: $ => seq(
      field('header', $.c_header),
      repeat(field('metadata', choice($.metadata, $.c_info))),
      field('init', $.c_init),
      repeat(field('thread', $.c_thread)),
      repeat(field('locations', $.locations_clause)),
      optional(field('filter', $.filter_clause)),
      optional(seq(
        field('condition', $.final_condition),
        optional(field('trailer', $.with_clause)),
      )),
    ),

    // A line before the init block that is not `key=value` (`C rwsem` under the header):
    // herd skips it.
    c_info: _ => token(prec(-2, /[A-Za-z][^\n{=]*/)),

    c_header: $ => seq(
      field('dialect', 'C'),
      field('name', $.test_name),
      optional(field('description', $.string)),
    ),

    // `{ x = 1; int *p = &y; 0:r0 = 0; atomic_t v = ATOMIC_INIT(2); [x] = 0; }`: entries
    // separated by `;` (any number, also before the `}`).
    c_init: $ => seq(
      '{',
      repeat(';'),
      repeat(seq(field('entry', $.c_init_entry), repeat1(';'))),
      optional(field('entry', $.c_init_entry)),
      '}',
      optional(';'),
    ),

    c_init_entry: $ => seq(
      choice(
        seq(
          optional(field('type', $.c_type)),
          repeat(field('pointer', '*')),
          field('location', choice($.identifier, $.thread_register)),
          optional(seq('[', field('size', $.integer), ']')),
        ),
        field('location', $.memory_operand),
      ),
      optional(seq('=', field('value', $._c_expression))),
    ),

    // `int`, `intptr_t`, `atomic_int`, `volatile int`, `struct srcu_struct`, `unsigned long`:
    // the words before a declared name (the `*`s belong to the declarator).
    c_type: $ => seq(
      repeat(field('qualifier', choice('volatile', 'const'))),
      choice(
        seq(field('word', 'struct'), field('word', $.identifier)),
        repeat1(field('word', choice('unsigned', 'signed', 'int', 'long', 'char', 'short', 'void'))),
        field('word', $.identifier),
      ),
    ),

    // `P0(int *x, spinlock_t *s) { ... }`, also `void P0(...)`; `P0(void)` has no parameters.
    c_thread: $ => seq(
      optional(field('return_type', 'void')),
      field('name', $.identifier),
      '(',
      optional(choice(commaSep1(field('parameter', $.c_parameter)), 'void')),
      ')',
      field('body', $.c_block),
    ),

    c_parameter: $ => seq(
      field('type', $.c_type),
      repeat(field('pointer', '*')),
      field('name', $.identifier),
    ),

    c_block: $ => seq('{', repeat(field('statement', $._c_statement)), '}'),

    _c_statement: $ => choice(
      $.c_declaration,
      $.c_expression_statement,
      $.c_if_statement,
      $.c_while_statement,
      $.c_block,
      $.c_empty_statement,
    ),

    c_empty_statement: _ => ';',

    // `int r0;`, `intptr_t r1 = READ_ONCE(*x);`, `int *p, r2 = 0;`
    c_declaration: $ => prec.dynamic(1, seq(
      field('type', $.c_type),
      commaSep1(field('declarator', $.c_declarator)),
      ';',
    )),

    c_declarator: $ => seq(
      repeat(field('pointer', '*')),
      field('name', $.identifier),
      optional(seq('=', field('value', $._c_expression))),
    ),

    c_expression_statement: $ => seq(field('expression', $._c_expression), ';'),

    c_if_statement: $ => prec.right(seq(
      'if',
      '(',
      field('condition', $._c_expression),
      ')',
      field('consequence', $._c_statement),
      optional(seq('else', field('alternative', $._c_statement))),
    )),

    c_while_statement: $ => seq(
      'while',
      '(',
      field('condition', $._c_expression),
      ')',
      field('body', $._c_statement),
    ),

    _c_expression: $ => choice(
      $.c_assignment,
      $.c_conditional,
      $._c_operand,
    ),

    _c_operand: $ => choice(
      $.c_binary,
      $.c_unary,
      $.c_cast,
      $._c_primary,
    ),

    _c_primary: $ => choice(
      $.identifier,
      $.integer,
      $.c_call,
      $.c_parenthesized,
      $.c_member,
      $.c_subscript,
    ),

    // `r0 = e`, `*x = e`, `r0 += e`
    c_assignment: $ => prec.right(1, seq(
      field('left', $._c_operand),
      field('operator', choice('=', '+=', '-=', '|=', '&=', '^=')),
      field('right', $._c_expression),
    )),

    c_conditional: $ => prec.right(2, seq(
      field('condition', $._c_operand),
      '?',
      field('consequence', $._c_expression),
      ':',
      field('alternative', $._c_expression),
    )),

    c_binary: $ => {
      /** @type {[string, number][]} */
      const table = [
        ['||', 3], ['&&', 4], ['|', 5], ['^', 6], ['&', 7],
        ['==', 8], ['!=', 8], ['<', 9], ['<=', 9], ['>', 9], ['>=', 9],
        ['<<', 10], ['>>', 10], ['+', 11], ['-', 11], ['*', 12], ['/', 12], ['%', 12],
      ];
      return choice(...table.map(([op, p]) => prec.left(p, seq(
        field('left', $._c_operand),
        field('operator', op),
        field('right', $._c_operand),
      ))));
    },

    // `-e`, `!e`, `~e`, `*p`, `&x`
    c_unary: $ => prec(13, seq(
      field('operator', choice('-', '!', '~', '*', '&', '+')),
      field('operand', $._c_operand),
    )),

    // `(intptr_t *)p`, `(int)r0`: a type with `*`s, or one of C's own type words.
    c_cast: $ => prec(13, seq(
      '(',
      field('type', $.c_type),
      repeat(field('pointer', '*')),
      ')',
      field('operand', $._c_operand),
    )),

    // `READ_ONCE(*x)`, `smp_mb()`, `atomic_add(1, v)`: macros and functions alike.
    c_call: $ => prec(14, seq(
      field('function', $.identifier),
      '(',
      optional(commaSep1(field('argument', $._c_expression))),
      ')',
    )),

    c_parenthesized: $ => prec.dynamic(1, prec(14, seq('(', field('expression', $._c_expression), ')'))),

    c_member: $ => prec(14, seq(
      field('object', $._c_primary),
      field('operator', choice('->', '.')),
      field('member', $.identifier),
    )),

    c_subscript: $ => prec(14, seq(
      field('array', $._c_primary),
      '[',
      field('index', $._c_expression),
      ']',
    )),

    // ------------------------------------------------------------------ tokens

    // Test names may contain `+ - . ,` (`SB+mfences`) and, in herd's catalogues, `/` and `[ ]`
    // (`MP+[rf-addr-fr]+addr`).
    test_name: _ => /[A-Za-z0-9_][A-Za-z0-9_+\-.,\/'\[\]]*/,

    // A one-line string; `\"` and `\\` escape a quote and a backslash.
    string: _ => /"([^"\\\n]|\\.)*"/,

    identifier: _ => /[A-Za-z_][A-Za-z0-9_]*/,

    // Decimal, or hexadecimal as herd writes initial values (`0x202020202020202`).
    integer: _ => /0[xX][0-9a-fA-F]+|[0-9]+/,

    true: _ => 'true',

    false: _ => 'false',

    // `// ...`, `/* ... */` and herd's `(* ... *)`.
    comment: _ => token(choice(
      seq('//', /[^\n]*/),
      seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/'),
      // In C code `(*x` is a dereference (`WRITE_ONCE(*x, 1)`): a herd comment does not
      // start `(*` with a lower-case word unless a space and a letter follow it (`(*test MV`).
      seq('(*', /([^a-z_(&*][^*]*)?\*+([^)*][^*]*\*+)*/, ')'),
      seq('(*', /[a-z_][A-Za-z0-9_]*[ \t]+[A-Za-z][^*]*\*+([^)*][^*]*\*+)*/, ')'),
    )),

    // herd's `<< ... >>` blocks (display directives), ignored.
    herd_block: _ => token(seq('<<', /([^>]|>[^>])*/, '>>')),
  },
});
