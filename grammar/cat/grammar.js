/**
 * @file tree-sitter grammar for herd's cat language (`.cat` models and `.bell` files), as the
 *       project's own cat parser (`engine/src/cat/lex.rs`, `parse.rs`, `parse_stmt.rs`) and
 *       `docs/cat.md` define it.
 * @license MIT
 *
 * Precedence, loosest first, as herd's grammar: a tuple `a, b` (only where herd's `expr` is
 * allowed), `|`, `++` (both right-associative), `;` (right), `\` (left), `&` (right), `*`
 * (cartesian product, left), prefix `~`, the postfix operators `^-1`, `-1`, `+`, `*`, `?`, then
 * application by juxtaposition (`f x`, `f(a, b)`). A `*` is the cartesian product when an
 * operand follows it and the postfix closure otherwise: the external scanner (`src/scanner.c`)
 * looks past the `*` to tell which, and also reads the nested `(* ... *)` comments and the `//`
 * and `#` line comments.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const PREC = {
  union: 1,
  add: 2,
  seq: 3,
  diff: 4,
  inter: 5,
  cartesian: 6,
  complement: 7,
  postfix: 8,
  application: 9,
};

/** herd's names: an optional `_`, a letter, then letters, digits, `_`, `.`, `-` (never a
 * trailing `-`, so `x->` is `x` and `->`), and an optional trailing `'`. */
const NAME = /_?[A-Za-z]([A-Za-z0-9_.]|-+[A-Za-z0-9_.])*'?/;

/**
 * @param {RuleOrLiteral} sep
 * @param {RuleOrLiteral} rule
 */
function sepBy1(sep, rule) {
  return seq(rule, repeat(seq(sep, rule)));
}

/**
 * @param {RuleOrLiteral} sep
 * @param {RuleOrLiteral} rule
 */
function sepBy(sep, rule) {
  return optional(sepBy1(sep, rule));
}

export default grammar({
  name: 'cat',

  extras: $ => [/\s/, $.comment],

  externals: $ => [$.comment, $._cartesian_star, $._postfix_star],

  word: $ => $.identifier,

  // herd's keywords are reserved everywhere (engine/src/cat/lex.rs): `let in = po` is an error.
  reserved: {
    global: _ => [
      'let', 'rec', 'and', 'when', 'acyclic', 'irreflexive', 'show', 'unshow', 'empty', 'subset',
      'as', 'fun', 'in', 'undefined_unless', 'flag', 'assert', 'include', 'variant', 'begin',
      'end', 'procedure', 'call', 'enum', 'debug', 'match', 'with', 'forall', 'from', 'do', 'try',
      'if', 'then', 'else', 'catdep', 'instructions', 'default', 'not',
    ],
  },

  supertypes: $ => [$._statement, $._expression, $._base],

  rules: {
    source_file: $ => seq(optional($.header), repeat($._statement)),

    // The model's name: up to two words or strings, then optionally `catdep`.
    header: $ => choice(
      seq(
        field('name', choice($.identifier, $.string)),
        optional(field('name', choice($.identifier, $.string))),
        optional('catdep'),
      ),
      'catdep',
    ),

    // ---------------------------------------------------------------- statements

    _statement: $ => choice(
      $.let_statement,
      $.include_statement,
      $.check_statement,
      $.show_statement,
      $.debug_statement,
      $.enum_statement,
      $.events_statement,
      $.procedure_statement,
      $.call_statement,
      $.forall_statement,
      $.with_statement,
      $.if_statement,
      $.match_statement,
    ),

    let_statement: $ => prec.right(seq(
      'let',
      optional(field('rec', 'rec')),
      sepBy1('and', field('binding', $.binding)),
      optional(seq('when', field('check', $.check_statement))),
      optional('in'),
    )),

    binding: $ => choice(
      // let (a, b) = e
      seq(field('pattern', $.tuple_pattern), '=', field('value', $._expression)),
      // let f(x, y) = e
      seq(field('name', $.identifier), field('parameters', $.parameters), '=', field('value', $._expression)),
      // let f x = e
      seq(field('name', $.identifier), field('parameter', $._pattern), '=', field('value', $._expression)),
      // let x = e, let _ = e, let a, b = e
      seq(sepBy1(',', field('name', $._pattern)), '=', field('value', $._expression)),
    ),

    _pattern: $ => choice($.identifier, $.wildcard),
    wildcard: _ => '_',
    tuple_pattern: $ => seq('(', sepBy(',', $._pattern), ')'),
    parameters: $ => seq('(', sepBy(',', $._pattern), ')'),

    include_statement: $ => seq('include', field('file', $.string)),

    check_statement: $ => prec.right(seq(
      optional(field('mode', choice('flag', 'undefined_unless', 'assert'))),
      optional(field('negation', '~')),
      field('kind', choice('acyclic', 'irreflexive', 'empty')),
      field('expression', $._expression),
      optional(seq('as', field('name', $.identifier))),
    )),

    show_statement: $ => prec.right(seq(
      choice('show', 'unshow'),
      choice(
        seq(field('expression', $._base), 'as', field('name', $.identifier)),
        sepBy1(',', field('expression', $._base)),
      ),
    )),

    debug_statement: $ => seq('debug', field('expression', $._expression)),

    enum_statement: $ => prec.right(seq(
      'enum',
      field('name', $.identifier),
      '=',
      optional('||'),
      sepBy1('||', field('tag', $.tag)),
    )),

    // bell files: `instructions R[Accesses]`, `default W[Once]`
    events_statement: $ => seq(
      choice('instructions', 'default'),
      field('name', $.identifier),
      '[',
      sepBy(',', field('argument', $._base)),
      ']',
    ),

    procedure_statement: $ => seq(
      'procedure',
      optional(field('rec', 'rec')),
      field('name', $.identifier),
      choice(field('parameters', $.parameters), field('parameter', $._pattern)),
      '=',
      field('body', optional($.block)),
      'end',
    ),

    block: $ => repeat1($._statement),

    call_statement: $ => prec.right(seq(
      'call',
      field('name', $.identifier),
      field('argument', $._atom),
      optional(seq('as', field('alias', $.identifier))),
    )),

    forall_statement: $ => seq(
      'forall',
      field('variable', $.identifier),
      'in',
      field('set', $._expression),
      'do',
      field('body', optional($.block)),
      'end',
    ),

    with_statement: $ => seq(
      'with',
      field('variable', $.identifier),
      'from',
      field('set', $._expression),
    ),

    if_statement: $ => seq(
      'if',
      field('condition', $._variant),
      field('consequence', optional($.block)),
      optional(seq('else', field('alternative', optional($.block)))),
      'end',
    ),

    match_statement: $ => seq(
      'match',
      field('value', $._expression),
      'with',
      optional('||'),
      repeat(seq(alias($.match_statement_clause, $.match_clause), '||')),
      choice(
        alias($.match_statement_clause, $.match_clause),
        alias($.default_statement_clause, $.default_clause),
      ),
      'end',
    ),

    match_statement_clause: $ => seq(field('tag', $.tag), '->', field('body', optional($.block))),
    default_statement_clause: $ => seq('_', '->', field('body', optional($.block))),

    // ---------------------------------------------------------------- expressions

    // herd's `expr`: a `base`, a tuple of them, or a form that extends as far as it can.
    _expression: $ => choice(
      $._base,
      $.tuple_expression,
      $.let_expression,
      $.fun_expression,
      $.try_expression,
      $.if_expression,
      $.match_expression,
    ),

    tuple_expression: $ => seq($._base, repeat1(seq(',', $._base))),

    let_expression: $ => seq(
      'let',
      optional(field('rec', 'rec')),
      sepBy1('and', field('binding', $.binding)),
      'in',
      field('body', $._expression),
    ),

    fun_expression: $ => seq(
      'fun',
      choice(field('parameters', $.parameters), field('parameter', $._pattern)),
      '->',
      field('body', $._expression),
    ),

    try_expression: $ => seq('try', field('body', $._expression), 'with', field('default', $._expression)),

    if_expression: $ => seq(
      'if',
      field('condition', choice($._variant, $.condition)),
      'then',
      field('consequence', $._expression),
      'else',
      field('alternative', $._expression),
    ),

    condition: $ => seq(
      field('left', $._base),
      field('operator', choice('=', 'subset', 'in')),
      field('right', $._base),
    ),

    match_expression: $ => seq(
      'match',
      field('value', $._expression),
      'with',
      optional('||'),
      choice(
        // on tags
        seq(repeat(seq($.match_clause, '||')), choice($.match_clause, $.default_clause)),
        // on sets, in either order
        seq($.empty_clause, '||', $.element_clause),
        seq($.element_clause, '||', $.empty_clause),
      ),
      'end',
    ),

    match_clause: $ => seq(field('tag', $.tag), '->', field('body', $._expression)),
    default_clause: $ => seq('_', '->', field('body', $._expression)),
    empty_clause: $ => seq('{', '}', '->', field('body', $._expression)),
    element_clause: $ => seq(
      field('element', $._pattern),
      '++',
      field('rest', $._pattern),
      '->',
      field('body', $._expression),
    ),

    // herd's `base`: the operators.
    _base: $ => choice(
      $.binary_expression,
      $.complement_expression,
      $.postfix_expression,
      $.application,
      $._atom,
    ),

    binary_expression: $ => {
      const table = [
        [prec.right, PREC.union, '|'],
        [prec.right, PREC.add, '++'],
        [prec.right, PREC.seq, ';'],
        [prec.left, PREC.diff, '\\'],
        [prec.right, PREC.inter, '&'],
        [prec.left, PREC.cartesian, alias($._cartesian_star, '*')],
      ];
      return choice(...table.map(([assoc, p, op]) =>
        // @ts-ignore
        assoc(p, seq(field('left', $._base), field('operator', op), field('right', $._base)))));
    },

    complement_expression: $ => prec(PREC.complement, seq(field('operator', '~'), field('operand', $._base))),

    postfix_expression: $ => prec(PREC.postfix, seq(
      field('operand', $._base),
      field('operator', choice('^-1', seq('^', '-1'), '-1', '+', '?', alias($._postfix_star, '*'))),
    )),

    // herd's `exp0`: a name applied to arguments by juxtaposition.
    application: $ => prec(PREC.application, seq(
      field('function', $.identifier),
      repeat1(field('argument', $._atom)),
    )),

    // herd's `simple`, and names.
    _atom: $ => choice(
      $.identifier,
      $.tag,
      $.empty_set,
      $.universe,
      $.unit,
      $.parenthesized_expression,
      $.begin_expression,
      $.identity_expression,
      $.set_expression,
    ),

    empty_set: _ => '0',
    universe: _ => '_',
    unit: _ => seq('(', ')'),
    parenthesized_expression: $ => seq('(', $._expression, ')'),
    begin_expression: $ => seq('begin', $._expression, 'end'),
    identity_expression: $ => seq('[', $._expression, ']'),
    set_expression: $ => seq('{', sepBy(',', $._base), '}'),

    // ---------------------------------------------------------------- variants

    _variant: $ => choice(
      $.variant,
      $.variant_not,
      $.variant_and,
      $.variant_or,
      $.parenthesized_variant,
    ),
    variant: $ => seq(optional('variant'), field('name', $.string)),
    variant_not: $ => prec(3, seq('not', $._variant)),
    variant_and: $ => prec.left(2, seq(field('left', $._variant), '&&', field('right', $._variant))),
    variant_or: $ => prec.left(1, seq(field('left', $._variant), '||', field('right', $._variant))),
    parenthesized_variant: $ => seq('(', $._variant, ')'),

    // ---------------------------------------------------------------- tokens

    identifier: _ => token(choice(NAME, /[1-9]([A-Za-z0-9_.]|-+[A-Za-z0-9_.])*/)),
    tag: _ => token(seq('\'', NAME)),
    string: _ => token(seq('"', /[^"]*/, '"')),
  },
});
