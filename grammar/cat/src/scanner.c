// External scanner for the cat grammar (grammar.js): comments, which nest (`(* (* *) *)`) and
// which a regular expression cannot match, and the two meanings of `*`, which depend on what
// follows it: the cartesian product when an operand follows (`r * s`, `R * (W | F)`), else the
// postfix closure (`r*`, `(po ; rf)* ;`). The project's parser (engine/src/cat/parse.rs) makes
// the same choice.

#include "tree_sitter/parser.h"

#include <stdbool.h>
#include <string.h>

enum TokenType { COMMENT, CARTESIAN_STAR, POSTFIX_STAR };

void *tree_sitter_cat_external_scanner_create(void) { return NULL; }
void tree_sitter_cat_external_scanner_destroy(void *payload) { (void)payload; }
unsigned tree_sitter_cat_external_scanner_serialize(void *payload, char *buffer) {
  (void)payload;
  (void)buffer;
  return 0;
}
void tree_sitter_cat_external_scanner_deserialize(void *payload, const char *buffer, unsigned length) {
  (void)payload;
  (void)buffer;
  (void)length;
}

static void advance(TSLexer *lexer) { lexer->advance(lexer, false); }
static void skip(TSLexer *lexer) { lexer->advance(lexer, true); }

static bool is_space(int32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static bool is_alpha(int32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(int32_t c) { return c >= '0' && c <= '9'; }
static bool is_name_char(int32_t c) {
  return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '-' || c == '\'';
}

// The rest of a `(* ... *)` comment whose `(` has been consumed and whose `*` is next.
static bool finish_block_comment(TSLexer *lexer) {
  advance(lexer); // '*'
  unsigned depth = 1;
  while (!lexer->eof(lexer)) {
    if (lexer->lookahead == '(') {
      advance(lexer);
      if (lexer->lookahead == '*') {
        advance(lexer);
        depth++;
      }
    } else if (lexer->lookahead == '*') {
      advance(lexer);
      if (lexer->lookahead == ')') {
        advance(lexer);
        if (--depth == 0) {
          return true;
        }
      }
    } else {
      advance(lexer);
    }
  }
  return false; // unterminated
}

static void finish_line(TSLexer *lexer) {
  while (!lexer->eof(lexer) && lexer->lookahead != '\n') {
    advance(lexer);
  }
}

// After a `*` (its end marked): skips blanks and comments and says whether an operand starts
// there, as `starts_operand` in engine/src/cat/parse.rs: a name that is not a keyword (or is
// `begin`), a tag, `(`, `[`, `{`, `0`, `_`, `~`.
static bool operand_follows(TSLexer *lexer) {
  for (;;) {
    while (!lexer->eof(lexer) && is_space(lexer->lookahead)) {
      advance(lexer);
    }
    int32_t c = lexer->lookahead;
    if (c == '(') {
      advance(lexer);
      if (lexer->lookahead != '*') {
        return true; // `(` starts an operand
      }
      if (!finish_block_comment(lexer)) {
        return false;
      }
      continue;
    }
    if (c == '#') {
      finish_line(lexer);
      continue;
    }
    if (c == '/') {
      advance(lexer);
      if (lexer->lookahead != '/') {
        return false;
      }
      finish_line(lexer);
      continue;
    }
    if (c == '\'' || c == '[' || c == '{' || c == '~' || c == '0') {
      return true;
    }
    if (c == '_' || is_alpha(c)) {
      // A name, unless it is a keyword other than `begin`.
      static const char *const keywords[] = {
          "let",     "rec",       "and",       "when",  "acyclic",     "irreflexive",
          "show",    "unshow",    "empty",     "subset", "as",         "fun",
          "in",      "undefined_unless", "flag", "assert", "include",  "variant",
          "end",     "procedure", "call",      "enum",  "debug",       "match",
          "with",    "forall",    "from",      "do",    "try",         "if",
          "then",    "else",      "catdep",    "instructions", "default", "not",
      };
      char word[24];
      unsigned n = 0;
      while (!lexer->eof(lexer) && is_name_char(lexer->lookahead)) {
        if (n < sizeof word - 1) {
          word[n] = (char)lexer->lookahead;
        }
        n++;
        advance(lexer);
      }
      if (n >= sizeof word) {
        return true; // longer than any keyword
      }
      word[n] = 0;
      if (strcmp(word, "_") == 0) {
        return true;
      }
      for (unsigned i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
        if (strcmp(word, keywords[i]) == 0) {
          return false;
        }
      }
      return true;
    }
    if (c >= '1' && c <= '9') {
      return true; // a name such as `1x`
    }
    return false;
  }
}

bool tree_sitter_cat_external_scanner_scan(void *payload, TSLexer *lexer, const bool *valid_symbols) {
  (void)payload;
  while (!lexer->eof(lexer) && is_space(lexer->lookahead)) {
    skip(lexer);
  }
  int32_t c = lexer->lookahead;
  if (c == '(' && valid_symbols[COMMENT]) {
    advance(lexer);
    if (lexer->lookahead != '*') {
      return false;
    }
    finish_block_comment(lexer);
    lexer->mark_end(lexer);
    lexer->result_symbol = COMMENT;
    return true;
  }
  if (c == '#' && valid_symbols[COMMENT]) {
    finish_line(lexer);
    lexer->mark_end(lexer);
    lexer->result_symbol = COMMENT;
    return true;
  }
  if (c == '/' && valid_symbols[COMMENT]) {
    advance(lexer);
    if (lexer->lookahead != '/') {
      return false;
    }
    finish_line(lexer);
    lexer->mark_end(lexer);
    lexer->result_symbol = COMMENT;
    return true;
  }
  if (c == '*' && (valid_symbols[CARTESIAN_STAR] || valid_symbols[POSTFIX_STAR])) {
    advance(lexer);
    lexer->mark_end(lexer);
    bool cartesian = operand_follows(lexer);
    if (cartesian && valid_symbols[CARTESIAN_STAR]) {
      lexer->result_symbol = CARTESIAN_STAR;
      return true;
    }
    if (!cartesian && valid_symbols[POSTFIX_STAR]) {
      lexer->result_symbol = POSTFIX_STAR;
      return true;
    }
    lexer->result_symbol = valid_symbols[CARTESIAN_STAR] ? CARTESIAN_STAR : POSTFIX_STAR;
    return true;
  }
  return false;
}
