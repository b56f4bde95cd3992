/* regex.c - parser and compiler of the regex engine (see regex.h).
 *
 * Approach: a recursive-descent parser (nesting bounded by RX_MAX_DEPTH so
 * the C stack stays small, also on wasm) builds a small AST in an array; the
 * compiler turns it into a Thompson-style program (rx_inst) of byte sets,
 * splits, jumps, capture saves, assertions and back-references. Counted
 * repetitions are expanded, with the program size bounded so a hostile
 * pattern fails with "Regular expression too big". Submatches follow glibc:
 * repetitions are expanded in glibc's shape (x{2,} is x, x, x*) and each
 * group close carries glibc's "optional subexpression" mark, so the
 * matcher can replay glibc's update_regs (an empty iteration of an
 * optional group that matched before is undone). A loop whose body can
 * match empty records where each iteration began; an empty iteration ends
 * the loop, which also guarantees progress for the backtracker. The
 * matchers live in regex_exec.c. */
#include <string.h>

#include "memsandbox.h"
#include "regex_int.h"

/* ---- AST ------------------------------------------------------------ */

enum {
  RXN_EMPTY,
  RXN_SET,    /* arg: set index */
  RXN_CAT,    /* kid: first child, linked by next */
  RXN_ALT,    /* kid: first alternative, linked by next */
  RXN_REP,    /* kid: body; min, max (-1 = infinite); lazy */
  RXN_GROUP,  /* kid: body (RX_NONE when empty); arg: group number */
  RXN_ASSERT, /* arg: RXA_* */
  RXN_BREF,   /* arg: group number */
  RXN_LOOK,   /* kid: body; arg: RXI_LOOK kind; min: lookbehind length */
  RXN_KEEP    /* Perl \K: the reported match starts here */
};

typedef struct rx_node {
  uint8_t type;
  uint8_t lazy;
  int32_t min, max;
  uint32_t arg;
  uint32_t kid;
  uint32_t next;
} rx_node;

#define RX_NONE 0xffffffffu
#define RX_MAX_DEPTH 200
#define RX_MAX_INSTS (1u << 17)
#define RX_MAX_SLOTWORK (1u << 20)
#define RX_DUP_MAX 32767

/* Parser tokens. */
enum {
  RXT_END,
  RXT_CHAR,    /* c */
  RXT_ANY,
  RXT_BRACKET,
  RXT_STAR,
  RXT_PLUS,
  RXT_QMARK,
  RXT_OPEN_DUP,
  RXT_CLOSE_DUP,
  RXT_OPEN,
  RXT_CLOSE,
  RXT_ALT,
  RXT_ANCHOR,  /* c: RXA_* */
  RXT_BREF,    /* c: group number */
  RXT_CLASS,   /* c: the letter of \w \W \s \S \d \D */
  RXT_NCGROUP  /* Perl "(?": handled by the group parser */
};

typedef struct rx_tok {
  int type;
  int c;
  size_t len; /* bytes the token spans */
} rx_tok;

typedef struct rx_parser {
  mem *m;
  const uint8_t *pat;
  size_t len, pos;
  unsigned flags;
  int syn;        /* RX_BRE, RX_ERE, RX_PERL */
  int icase;      /* current case-insensitivity (Perl (?i) changes it) */
  int dotall;     /* Perl (?s): '.' also matches '\n' */
  int err;
  const char *msg;
  rx_node *nodes;
  size_t nnodes, capnodes;
  uint8_t (*sets)[32];
  size_t nsets, capsets;
  uint32_t ngroups;
  uint32_t closed[10]; /* groups 1..9 closed so far (back-ref check) */
  int has_bref;
  int has_look;
  int caret_ok;   /* BRE: '^' here would be an anchor */
  buf *warn;      /* grep's warnings go here (RX_GREP), or NULL */
} rx_parser;

static int rx_fail(rx_parser *p, const char *msg) {
  if (p->syn == RX_PERL && !strncmp(msg, "Unmatched [", 11))
    msg = "missing terminating ] for character class";
  if (!p->err) {
    p->err = MSB_EINVAL;
    p->msg = msg;
  }
  return p->err;
}

/* Records one of grep's warnings ("* at start of expression") as a
 * "warning: ..." line; grep prints them even when compiling succeeds. */
static void rx_warn(rx_parser *p, const char *what) {
  if (!p->warn || !(p->flags & RX_GREP)) return;
  buf_puts(p->warn, "warning: ");
  buf_puts(p->warn, what);
  buf_puts(p->warn, " at start of expression\n");
}

static uint32_t rx_node_new(rx_parser *p, int type) {
  rx_node *n;
  if (p->err) return RX_NONE;
  if (p->nnodes == p->capnodes) {
    size_t nc = p->capnodes ? p->capnodes * 2 : 64;
    rx_node *nn;
    if (nc > RX_MAX_INSTS * 4) {
      rx_fail(p, "Regular expression too big");
      return RX_NONE;
    }
    nn = mem_realloc(p->m, p->nodes, nc * sizeof *nn);
    if (!nn) {
      p->err = MSB_ENOMEM;
      return RX_NONE;
    }
    p->nodes = nn;
    p->capnodes = nc;
  }
  n = &p->nodes[p->nnodes];
  memset(n, 0, sizeof *n);
  n->type = (uint8_t)type;
  n->kid = RX_NONE;
  n->next = RX_NONE;
  return (uint32_t)p->nnodes++;
}

/* A new empty byte set; returns its index or RX_NONE. */
static uint32_t rx_set_new(rx_parser *p) {
  if (p->err) return RX_NONE;
  if (p->nsets == p->capsets) {
    size_t nc = p->capsets ? p->capsets * 2 : 16;
    uint8_t(*ns)[32];
    if (nc > RX_MAX_INSTS) {
      rx_fail(p, "Regular expression too big");
      return RX_NONE;
    }
    ns = mem_realloc(p->m, p->sets, nc * 32);
    if (!ns) {
      p->err = MSB_ENOMEM;
      return RX_NONE;
    }
    p->sets = ns;
    p->capsets = nc;
  }
  memset(p->sets[p->nsets], 0, 32);
  return (uint32_t)p->nsets++;
}

static void rx_set_add(uint8_t *set, int c) {
  set[(unsigned)c >> 3] |= (uint8_t)(1u << (c & 7));
}

static int rx_set_has(const uint8_t *set, int c) {
  return (set[(unsigned)c >> 3] >> (c & 7)) & 1;
}

static int rx_isword(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* Adds the members of a named POSIX class; 0 or -1 for an unknown name. */
static int rx_set_class(uint8_t *set, const char *name, size_t n) {
  static const char *const names[] = {"alpha", "digit", "alnum", "upper",
                                      "lower", "space", "blank", "punct",
                                      "print", "graph", "cntrl", "xdigit"};
  int k, c;
  for (k = 0; k < 12; k++)
    if (strlen(names[k]) == n && !memcmp(names[k], name, n)) break;
  if (k == 12) return -1;
  for (c = 0; c < 256; c++) {
    int al = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    int di = c >= '0' && c <= '9';
    int in = 0;
    switch (k) {
    case 0: in = al; break;
    case 1: in = di; break;
    case 2: in = al || di; break;
    case 3: in = c >= 'A' && c <= 'Z'; break;
    case 4: in = c >= 'a' && c <= 'z'; break;
    case 5: in = c == ' ' || (c >= 9 && c <= 13); break;
    case 6: in = c == ' ' || c == '\t'; break;
    case 7: in = c > 32 && c < 127 && !al && !di; break;
    case 8: in = c >= 32 && c < 127; break;
    case 9: in = c > 32 && c < 127; break;
    case 10: in = c < 32 || c == 127; break;
    default: in = di || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); break;
    }
    if (in) rx_set_add(set, c);
  }
  return 0;
}

/* Adds the set of a shorthand class letter (w W s S d D). */
static void rx_set_short(uint8_t *set, int letter) {
  uint8_t tmp[32];
  int c, neg = letter >= 'A' && letter <= 'Z';
  memset(tmp, 0, sizeof tmp);
  switch (letter | 0x20) {
  case 'w':
    for (c = 0; c < 256; c++)
      if (rx_isword(c)) rx_set_add(tmp, c);
    break;
  case 's': rx_set_class(tmp, "space", 5); break;
  default: rx_set_class(tmp, "digit", 5); break;
  }
  for (c = 0; c < 32; c++) set[c] |= (uint8_t)(neg ? ~tmp[c] : tmp[c]);
}

static void rx_set_fold(uint8_t *set) {
  int c;
  for (c = 'a'; c <= 'z'; c++)
    if (rx_set_has(set, c) || rx_set_has(set, c - 32)) {
      rx_set_add(set, c);
      rx_set_add(set, c - 32);
    }
}

/* A node matching one byte (both cases under icase). */
static uint32_t rx_node_byte(rx_parser *p, int c) {
  uint32_t n = rx_node_new(p, RXN_SET), s = rx_set_new(p);
  if (p->err) return RX_NONE;
  rx_set_add(p->sets[s], c);
  if (p->icase) rx_set_fold(p->sets[s]);
  p->nodes[n].arg = s;
  return n;
}

/* A node for '.', or for a shorthand class letter. */
static uint32_t rx_node_class(rx_parser *p, int letter) {
  uint32_t n = rx_node_new(p, RXN_SET), s = rx_set_new(p);
  if (p->err) return RX_NONE;
  if (letter) {
    rx_set_short(p->sets[s], letter);
  } else {
    memset(p->sets[s], 0xff, 32);
    if ((p->flags & RX_NEWLINE) || (p->syn == RX_PERL && !p->dotall))
      p->sets[s][1] &= (uint8_t)~(1u << 2);
  }
  p->nodes[n].arg = s;
  return n;
}

/* ---- Tokens ---------------------------------------------------------- */

static int rx_at(const rx_parser *p, size_t i) {
  return i < p->len ? p->pat[i] : -1;
}

/* Classifies the token at p->pos without consuming it. */
static void rx_peek(rx_parser *p, rx_tok *t) {
  int c = rx_at(p, p->pos), c2;
  int ere = p->syn != RX_BRE;
  t->len = 1;
  t->c = c;
  t->type = RXT_CHAR;
  if (c < 0) {
    t->type = RXT_END;
    t->len = 0;
    return;
  }
  if (c == '\\') {
    c2 = rx_at(p, p->pos + 1);
    t->len = 2;
    t->c = c2;
    if (c2 < 0) {
      t->type = RXT_END;
      t->len = 1;
      t->c = -2; /* trailing backslash */
      return;
    }
    if (p->syn == RX_PERL) {
      /* Perl escapes are decoded by the Perl atom parser. */
      t->type = RXT_CHAR;
      t->c = -3;
      return;
    }
    /* sed --posix: GNU's operators are ordinary escaped characters. */
    if ((p->flags & RX_POSIX) && strchr("|+?wWsSbB<>`'", c2)) return;
    switch (c2) {
    case '(':
      if (!ere) t->type = RXT_OPEN;
      break;
    case ')':
      if (!ere) t->type = RXT_CLOSE;
      break;
    case '|':
      if (!ere) t->type = RXT_ALT;
      break;
    case '{':
      if (!ere) t->type = RXT_OPEN_DUP;
      break;
    case '}':
      if (!ere) t->type = RXT_CLOSE_DUP;
      break;
    case '+':
      if (!ere) t->type = RXT_PLUS;
      break;
    case '?':
      if (!ere) t->type = RXT_QMARK;
      break;
    case 'w':
    case 'W':
    case 's':
    case 'S': t->type = RXT_CLASS; break;
    case 'b':
      t->type = RXT_ANCHOR;
      t->c = RXA_WORDB;
      break;
    case 'B':
      t->type = RXT_ANCHOR;
      t->c = RXA_NWORDB;
      break;
    case '<':
      t->type = RXT_ANCHOR;
      t->c = RXA_WBEG;
      break;
    case '>':
      t->type = RXT_ANCHOR;
      t->c = RXA_WEND;
      break;
    case '`':
      t->type = RXT_ANCHOR;
      t->c = RXA_BUFBEG;
      break;
    case '\'':
      t->type = RXT_ANCHOR;
      t->c = RXA_BUFEND;
      break;
    default:
      if (c2 >= '1' && c2 <= '9') {
        t->type = RXT_BREF;
        t->c = c2 - '0';
      }
      break;
    }
    return;
  }
  switch (c) {
  case '.': t->type = RXT_ANY; break;
  case '[': t->type = RXT_BRACKET; break;
  case '*': t->type = RXT_STAR; break;
  case '+':
    if (ere) t->type = RXT_PLUS;
    break;
  case '?':
    if (ere) t->type = RXT_QMARK;
    break;
  case '{':
    if (ere) t->type = RXT_OPEN_DUP;
    break;
  case '}':
    if (ere) t->type = RXT_CLOSE_DUP;
    break;
  case '(':
    if (ere) {
      t->type = RXT_OPEN;
      if (p->syn == RX_PERL && rx_at(p, p->pos + 1) == '?') {
        t->type = RXT_NCGROUP;
        t->len = 2;
      }
    }
    break;
  case ')':
    if (ere) t->type = RXT_CLOSE;
    break;
  case '|':
    if (ere) t->type = RXT_ALT;
    break;
  case '^':
    if (ere || p->caret_ok) {
      t->type = RXT_ANCHOR;
      t->c = RXA_BOL;
    }
    break;
  case '$':
    if (ere || p->pos + 1 == p->len) {
      t->type = RXT_ANCHOR;
      t->c = RXA_EOL;
    } else if (rx_at(p, p->pos + 1) == '\\' &&
               (rx_at(p, p->pos + 2) == ')' || rx_at(p, p->pos + 2) == '|')) {
      t->type = RXT_ANCHOR;
      t->c = RXA_EOL;
    }
    break;
  default: break;
  }
}

/* ---- Bracket expressions --------------------------------------------- */

/* Reads "[:name:]", "[=c=]" or "[.c.]" starting at p->pos (the '[');
 * delim is ':', '=' or '.'. Returns the name span via *name, *n. */
static int rx_bracket_symbol(rx_parser *p, int delim, const uint8_t **name,
                             size_t *n) {
  size_t i = p->pos + 2, start = i;
  for (;;) {
    if (i >= p->len || i - start >= 32)
      return rx_fail(p, "Unmatched [, [^, [:, [., or [=");
    if (p->pat[i] == delim && rx_at(p, i + 1) == ']') break;
    i++;
  }
  *name = p->pat + start;
  *n = i - start;
  p->pos = i + 2;
  return 0;
}

/* Perl escape inside or outside brackets: decodes \n \t \xHH etc. into a
 * byte (returns it) or a class letter (returns -'w' etc.), or fails. */
static int rx_perl_escape(rx_parser *p, int in_bracket);

/* One bracket element: a byte (returns 0, *c set), a class already added to
 * set (returns 1), or an error. accept_hyphen: '-' may be an element. */
static int rx_bracket_elem(rx_parser *p, uint8_t *set, int *c,
                           int accept_hyphen) {
  int ch = rx_at(p, p->pos), c2;
  const uint8_t *name;
  size_t n;
  if (ch < 0) return rx_fail(p, "Unmatched [, [^, [:, [., or [=");
  c2 = rx_at(p, p->pos + 1);
  if (ch == '[' && (c2 == ':' || c2 == '=' || c2 == '.') &&
      p->pos + 2 < p->len) {
    if (rx_bracket_symbol(p, c2, &name, &n)) return p->err;
    if (c2 == ':') {
      uint8_t tmp[32];
      int k, neg = p->syn == RX_PERL && n > 0 && name[0] == '^';
      memset(tmp, 0, sizeof tmp);
      if (rx_set_class(tmp, (const char *)name + neg, n - (size_t)neg))
        return rx_fail(p, p->syn == RX_PERL ? "unknown POSIX class name"
                                            : "Invalid character class name");
      for (k = 0; k < 32; k++) set[k] |= (uint8_t)(neg ? ~tmp[k] : tmp[k]);
      return 1;
    }
    if (n != 1) return rx_fail(p, "Invalid collation character");
    *c = name[0];
    return c2 == '=' ? 2 : 0;
  }
  if (ch == '-' && !accept_hyphen && c2 != ']') {
    if (p->syn != RX_PERL) return rx_fail(p, "Invalid range end");
  }
  if (ch == '\\' && p->syn == RX_PERL) {
    int e = rx_perl_escape(p, 1);
    if (p->err) return p->err;
    if (e < 0) {
      rx_set_short(set, -e);
      return 1;
    }
    *c = e;
    return 0;
  }
  *c = ch;
  p->pos++;
  return 0;
}

/* Perl: whether the '[' at p->pos starts "[:name:]" outside a class,
 * which PCRE2 refuses. Scans like PCRE2 for ":]" before any ']' or "[:". */
static int rx_perl_posix_outside(const rx_parser *p) {
  size_t i;
  if (rx_at(p, p->pos + 1) != ':') return 0;
  for (i = p->pos + 2; i < p->len; i++) {
    int c = p->pat[i], nx = rx_at(p, i + 1);
    if (c == '\\' && (nx == ']' || nx == '\\'))
      i++;
    else if ((c == '[' && nx == ':') || c == ']')
      return 0;
    else if (c == ':' && nx == ']')
      return 1;
  }
  return 0;
}

/* Parses a bracket expression at p->pos ('['); returns a SET node. */
static uint32_t rx_bracket(rx_parser *p) {
  uint32_t n = rx_node_new(p, RXN_SET), s = rx_set_new(p);
  uint8_t *set;
  int neg = 0, first = 1, k;
  /* grep and sed (GNU dfa) refuse "[:alpha:]": bit 1 starts with ':',
   * 2 last element was ':', 4 another character seen, 8 range or class. */
  int colon = 0;
  if (p->err) return RX_NONE;
  set = p->sets[s];
  p->nodes[n].arg = s;
  p->pos++;
  if (rx_at(p, p->pos) == '^') {
    neg = 1;
    p->pos++;
  }
  if (p->pos >= p->len && p->syn != RX_PERL) {
    rx_fail(p, "Invalid regular expression"); /* glibc: REG_BADPAT */
    return RX_NONE;
  }
  for (;;) {
    int c, kind, hi, r;
    int ch = rx_at(p, p->pos);
    if (ch < 0) {
      rx_fail(p, "Unmatched [, [^, [:, [., or [=");
      return RX_NONE;
    }
    if (ch == ']' && !first) {
      p->pos++;
      break;
    }
    if (first) colon = ch == ':';
    colon &= ~2;
    kind = rx_bracket_elem(p, set, &c, first);
    colon |= kind != 0 ? 8 : c == ':' ? 2 : 4;
    set = p->sets[s];
    first = 0;
    if (p->err) return RX_NONE;
    if (rx_at(p, p->pos) == '-' && rx_at(p, p->pos + 1) != ']' &&
        rx_at(p, p->pos + 1) >= 0) {
      p->pos++;
      if (kind != 0) {
        if (p->syn == RX_PERL && kind == 1) {
          rx_set_add(set, '-');
          continue;
        }
        rx_fail(p, "Invalid range end");
        return RX_NONE;
      }
      r = rx_bracket_elem(p, set, &hi, 1);
      if (p->err) return RX_NONE;
      if (r != 0 || hi < c) {
        rx_fail(p, p->syn == RX_PERL ? "range out of order in character class"
                                     : "Invalid range end");
        return RX_NONE;
      }
      for (k = c; k <= hi; k++) rx_set_add(set, k);
      colon |= 8;
      continue;
    }
    if (kind != 1) rx_set_add(set, c);
  }
  if (colon == 7 && p->syn != RX_PERL && (p->flags & (RX_GREP | RX_SED))) {
    rx_fail(p, RX_COLON_MSG);
    return RX_NONE;
  }
  if (p->icase) rx_set_fold(set);
  if (neg) {
    for (k = 0; k < 32; k++) set[k] = (uint8_t)~set[k];
    if (p->flags & RX_NEWLINE) set[1] &= (uint8_t)~(1u << 2);
  }
  return n;
}

/* ---- Perl escapes ----------------------------------------------------- */

static int rx_hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int rx_perl_escape(rx_parser *p, int in_bracket) {
  int c = rx_at(p, p->pos + 1), v, d;
  p->pos += 2;
  switch (c) {
  case -1: p->pos--; return rx_fail(p, "\\ at end of pattern");
  case 'n': return '\n';
  case 't': return '\t';
  case 'r': return '\r';
  case 'f': return '\f';
  case 'e': return 27;
  case 'a': return 7;
  case 'v':
    if (in_bracket) return 11;
    return -'v';
  case 'd':
  case 'D':
  case 'w':
  case 'W':
  case 's':
  case 'S': return -c;
  case 'x':
    v = 0;
    if (rx_at(p, p->pos) == '{') {
      size_t i = p->pos + 1;
      while ((d = rx_hexval(rx_at(p, i))) >= 0 && v < 0x100) {
        v = v * 16 + d;
        i++;
      }
      if (rx_at(p, i) != '}' || i == p->pos + 1)
        return rx_fail(p, "\\x{ is not followed by hex digits and }");
      if (v > 255)
        return rx_fail(p,
                       "character code point value in \\x{} is too "
                       "large");
      p->pos = i + 1;
      return v;
    }
    for (d = 0; d < 2 && rx_hexval(rx_at(p, p->pos)) >= 0; d++)
      v = v * 16 + rx_hexval(p->pat[p->pos++]);
    return v;
  case '0':
    v = 0;
    for (d = 0; d < 2 && rx_at(p, p->pos) >= '0' && rx_at(p, p->pos) <= '7';
         d++)
      v = v * 8 + (p->pat[p->pos++] - '0');
    return v;
  default:
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        (c >= '0' && c <= '9')) {
      if (in_bracket && c == 'b') return 8;
      return rx_fail(p, "unrecognized character follows \\");
    }
    return c;
  }
}

/* ---- Grammar ------------------------------------------------------------ */

static uint32_t rx_parse_alt(rx_parser *p, int depth);

/* Wraps a node in a repetition. */
static uint32_t rx_node_rep(rx_parser *p, uint32_t kid, int min, int max) {
  uint32_t n = rx_node_new(p, RXN_REP);
  if (p->err) return RX_NONE;
  p->nodes[n].kid = kid;
  p->nodes[n].min = min;
  p->nodes[n].max = max;
  return n;
}

/* Reads a decimal number for an interval: -1 none, -2 invalid. */
static long rx_interval_num(rx_parser *p) {
  long v = -1;
  int c;
  while ((c = rx_at(p, p->pos)) >= '0' && c <= '9') {
    v = (v < 0 ? 0 : v) * 10 + (c - '0');
    if (v > RX_DUP_MAX + 1) v = RX_DUP_MAX + 1;
    p->pos++;
  }
  return v;
}

/* Parses "{m,n}" after the open token (already consumed). Returns 1 with
 * min and max set, 0 when the text is to be taken literally (grep ERE and
 * Perl), or an error. */
static int rx_interval(rx_parser *p, size_t open_pos, int *min, int *max) {
  long lo, hi;
  int bre = p->syn == RX_BRE, c;
  int lenient = p->syn == RX_PERL || (!bre && (p->flags & RX_GREP));
  lo = rx_interval_num(p);
  hi = lo;
  c = rx_at(p, p->pos);
  if (c == ',') {
    if (lo < 0 && p->syn == RX_PERL) goto literal;
    p->pos++;
    if (lo < 0) lo = 0;
    hi = rx_interval_num(p);
    c = rx_at(p, p->pos);
  } else if (lo < 0) {
    if (lenient && !(p->syn != RX_PERL && c == '}')) goto literal;
    if (c < 0 && !(p->syn == RX_PERL)) return rx_fail(p, "Unmatched \\{");
    return rx_fail(p, "Invalid content of \\{\\}");
  }
  if (bre ? (c == '\\' && rx_at(p, p->pos + 1) == '}') : c == '}') {
    p->pos += bre ? 2 : 1;
  } else {
    if (lenient) goto literal;
    if (c < 0 || (bre && c == '\\' && rx_at(p, p->pos + 1) < 0))
      return rx_fail(p, "Unmatched \\{");
    return rx_fail(p, "Invalid content of \\{\\}");
  }
  if (hi >= 0 && lo > hi) {
    if (p->syn == RX_PERL)
      return rx_fail(p, "numbers out of order in {} quantifier");
    return rx_fail(p, "Invalid content of \\{\\}");
  }
  if ((hi < 0 ? lo : hi) > RX_DUP_MAX) {
    if (p->syn == RX_PERL) return rx_fail(p, "number too big in {} quantifier");
    return rx_fail(p, "Regular expression too big");
  }
  *min = (int)lo;
  *max = (int)hi;
  return 1;
literal:
  p->pos = open_pos;
  return 0;
}

/* Applies the postfix operators following an atom. */
static uint32_t rx_postfix(rx_parser *p, uint32_t atom, int depth) {
  rx_tok t;
  for (;;) {
    int min, max, r;
    size_t open_pos = p->pos;
    rx_peek(p, &t);
    if (t.type == RXT_STAR) {
      min = 0, max = -1;
    } else if (t.type == RXT_PLUS) {
      min = 1, max = -1;
    } else if (t.type == RXT_QMARK) {
      min = 0, max = 1;
    } else if (t.type != RXT_OPEN_DUP) {
      return atom;
    }
    /* POSIX_BASIC (sed, regcomp) refuses a '*' or '\{' right after
     * another repetition operator; grep accepts it. */
    if (p->syn == RX_BRE && !(p->flags & RX_GREP) &&
        (t.type == RXT_STAR || t.type == RXT_OPEN_DUP) &&
        p->nodes[atom].type == RXN_REP) {
      rx_fail(p, "Invalid preceding regular expression");
      return RX_NONE;
    }
    if (p->syn == RX_PERL && p->nodes[atom].type == RXN_REP &&
        !p->nodes[atom].lazy && t.type == RXT_PLUS) {
      rx_fail(p, "possessive quantifiers are not supported");
      return RX_NONE;
    }
    p->pos += t.len;
    if (t.type == RXT_OPEN_DUP) {
      r = rx_interval(p, open_pos, &min, &max);
      if (r < 0) return RX_NONE;
      if (r == 0) return atom; /* '{' is literal; the caller reads it */
    }
    if (++depth > RX_MAX_DEPTH) {
      rx_fail(p, "Regular expression too big");
      return RX_NONE;
    }
    atom = rx_node_rep(p, atom, min, max);
    if (p->err) return RX_NONE;
    if (p->syn == RX_PERL && rx_at(p, p->pos) == '?') {
      p->nodes[atom].lazy = 1;
      p->pos++;
    }
  }
}

/* The length every match of a node has, or -1 when it varies (Perl
 * lookbehind needs a fixed length). */
static long rx_fixed_len(const rx_parser *p, uint32_t n, int depth) {
  const rx_node *nd;
  uint32_t k;
  long len = 0, l;
  if (n == RX_NONE) return 0;
  if (depth > RX_MAX_DEPTH * 2 + 8) return -1;
  nd = &p->nodes[n];
  switch (nd->type) {
  case RXN_SET: return 1;
  case RXN_CAT:
    for (k = nd->kid; k != RX_NONE; k = p->nodes[k].next) {
      l = rx_fixed_len(p, k, depth + 1);
      if (l < 0) return -1;
      len += l;
    }
    return len;
  case RXN_ALT:
    len = -2;
    for (k = nd->kid; k != RX_NONE; k = p->nodes[k].next) {
      l = rx_fixed_len(p, k, depth + 1);
      if (l < 0 || (len != -2 && l != len)) return -1;
      len = l;
    }
    return len;
  case RXN_GROUP: return rx_fixed_len(p, nd->kid, depth + 1);
  case RXN_REP:
    if (nd->min != nd->max) return -1;
    l = rx_fixed_len(p, nd->kid, depth + 1);
    return l < 0 ? -1 : l * nd->min;
  case RXN_BREF: return -1;
  default: return 0;
  }
}

/* Perl "(?...)": non-capturing groups, named groups, inline flags. Refuses
 * lookaround and the other extensions loudly. *out receives the node (an
 * EMPTY node for a bare flag setting). */
static void rx_perl_group(rx_parser *p, uint32_t *out, int depth) {
  int c = rx_at(p, p->pos + 2), on = 1, icase = p->icase, capture = 0;
  int dotall = p->dotall;
  uint32_t body, g = 0;
  size_t i;
  *out = RX_NONE;
  p->pos += 2;
  if (c == '=' || c == '!' ||
      (c == '<' &&
       (rx_at(p, p->pos + 1) == '=' || rx_at(p, p->pos + 1) == '!'))) {
    uint32_t kind = c == '<' ? 2u : 0u;
    long flen = 0;
    if (c == '<') c = rx_at(p, ++p->pos);
    if (c == '!') kind |= 1;
    p->pos++;
    body = rx_parse_alt(p, depth + 1);
    if (p->err) return;
    if (rx_at(p, p->pos) != ')') {
      rx_fail(p, "missing closing parenthesis");
      return;
    }
    p->pos++;
    p->icase = icase;
    p->dotall = dotall;
    if (kind >= 2) {
      flen = rx_fixed_len(p, body, 0);
      if (flen < 0) {
        rx_fail(p, "lookbehind assertion is not fixed length");
        return;
      }
    }
    *out = rx_node_new(p, RXN_LOOK);
    if (p->err) return;
    p->nodes[*out].kid = body;
    p->nodes[*out].arg = kind;
    p->nodes[*out].min = (int32_t)flen;
    p->has_look = 1;
    return;
  }
  if (c == '>') {
    rx_fail(p, "atomic groups are not supported");
    return;
  }
  if (c == '#') {
    while (rx_at(p, p->pos) >= 0 && rx_at(p, p->pos) != ')') p->pos++;
    if (rx_at(p, p->pos) < 0) {
      rx_fail(p, "missing ) after (?# comment");
      return;
    }
    p->pos++;
    *out = rx_node_new(p, RXN_EMPTY);
    return;
  }
  if (c == '<' || c == 'P' || c == '\'') {
    int close = c == '\'' ? '\'' : '>';
    if (c == 'P') {
      if (rx_at(p, p->pos + 1) != '<') {
        rx_fail(p, "unrecognized character after (?P");
        return;
      }
      p->pos++;
    }
    i = p->pos + 1;
    while (rx_at(p, i) >= 0 && rx_isword(rx_at(p, i))) i++;
    if (rx_at(p, i) != close || i == p->pos + 1) {
      rx_fail(p, "syntax error in subpattern name (missing terminator?)");
      return;
    }
    p->pos = i + 1;
    capture = 1;
  } else {
    for (;;) {
      c = rx_at(p, p->pos);
      if (c == 'i') {
        p->icase = on;
      } else if (c == 's') {
        p->dotall = on;
      } else if (c == '-') {
        on = 0;
      } else if (c == ':') {
        p->pos++;
        break;
      } else if (c == ')') {
        /* (?i) applies to the rest of the enclosing group. */
        p->pos++;
        *out = rx_node_new(p, RXN_EMPTY);
        return;
      } else if (c < 0) {
        rx_fail(p, "missing closing parenthesis");
        return;
      } else {
        rx_fail(p, c > 0 && strchr("mxnUJ", c)
                       ? "unsupported option in (?...) group (only i and s "
                         "are supported)"
                       : "unrecognized character after (? or (?-");
        return;
      }
      p->pos++;
    }
  }
  if (capture) g = ++p->ngroups;
  body = rx_parse_alt(p, depth + 1);
  if (p->err) return;
  if (rx_at(p, p->pos) != ')') {
    rx_fail(p, "missing closing parenthesis");
    return;
  }
  p->pos++;
  p->icase = icase;
  p->dotall = dotall;
  if (!capture) {
    if (body != RX_NONE && p->nodes[body].type != RXN_REP) {
      *out = body;
      return;
    }
    /* A one-kid concatenation, so "(?:a+)+" is not read as possessive. */
    *out = rx_node_new(p, body == RX_NONE ? RXN_EMPTY : RXN_CAT);
    if (!p->err && body != RX_NONE) p->nodes[*out].kid = body;
    return;
  }
  *out = rx_node_new(p, RXN_GROUP);
  if (p->err) return;
  p->nodes[*out].kid = body;
  p->nodes[*out].arg = g;
  if (g <= 9) p->closed[g] = 1;
}

/* One atom (without postfix operators). *anchor is set for assertions,
 * after which a repetition operator counts as the start of an expression. */
static uint32_t rx_parse_atom(rx_parser *p, int depth, int *anchor) {
  rx_tok t;
  uint32_t n = RX_NONE, body;
  rx_peek(p, &t);
  *anchor = 0;
  switch (t.type) {
  case RXT_END:
    if (t.c == -2)
      rx_fail(
          p, p->syn == RX_PERL ? "\\ at end of pattern" : "Trailing backslash");
    return RX_NONE;
  case RXT_ANY: p->pos++; return rx_node_class(p, 0);
  case RXT_BRACKET:
    if (p->syn == RX_PERL && rx_perl_posix_outside(p)) {
      rx_fail(p, "POSIX named classes are supported only within a class");
      return RX_NONE;
    }
    return rx_bracket(p);
  case RXT_OPEN:
    if (depth + 1 > RX_MAX_DEPTH) {
      rx_fail(p, "Regular expression too big");
      return RX_NONE;
    }
    p->pos += t.len;
    {
      uint32_t g = ++p->ngroups;
      int icase = p->icase, dotall = p->dotall;
      p->caret_ok = 1;
      body = rx_parse_alt(p, depth + 1);
      if (p->err) return RX_NONE;
      rx_peek(p, &t);
      if (t.type != RXT_CLOSE) {
        rx_fail(p, p->syn == RX_PERL ? "missing closing parenthesis"
                                     : "Unmatched ( or \\(");
        return RX_NONE;
      }
      p->pos += t.len;
      p->icase = icase;
      p->dotall = dotall;
      n = rx_node_new(p, RXN_GROUP);
      if (p->err) return RX_NONE;
      p->nodes[n].kid = body;
      p->nodes[n].arg = g;
      if (g <= 9) p->closed[g] = 1;
      return n;
    }
  case RXT_NCGROUP:
    if (depth + 1 > RX_MAX_DEPTH) {
      rx_fail(p, "Regular expression too big");
      return RX_NONE;
    }
    rx_perl_group(p, &n, depth);
    return n;
  case RXT_ANCHOR:
    p->pos += t.len;
    *anchor = 1;
    n = rx_node_new(p, RXN_ASSERT);
    if (p->err) return RX_NONE;
    p->nodes[n].arg = (uint32_t)t.c;
    /* Perl's $ also matches before a final newline. */
    if (p->syn == RX_PERL && t.c == RXA_EOL && !(p->flags & RX_NEWLINE))
      p->nodes[n].arg = RXA_PEND;
    return n;
  case RXT_BREF:
    if (!p->closed[t.c]) {
      rx_fail(p, "Invalid back reference");
      return RX_NONE;
    }
    p->pos += t.len;
    p->has_bref = 1;
    n = rx_node_new(p, RXN_BREF);
    if (!p->err) p->nodes[n].arg = (uint32_t)t.c;
    return n;
  case RXT_CLASS: p->pos += t.len; return rx_node_class(p, t.c);
  case RXT_CHAR:
    if (t.c == -3) { /* Perl escape */
      int c = rx_at(p, p->pos + 1), e;
      if (c >= '1' && c <= '9') {
        p->pos += 2;
        p->has_bref = 1;
        if (c - '0' > (int)p->ngroups) {
          rx_fail(p, "reference to non-existent subpattern");
          return RX_NONE;
        }
        n = rx_node_new(p, RXN_BREF);
        if (!p->err) p->nodes[n].arg = (uint32_t)(c - '0');
        return n;
      }
      if (c == 'b' || c == 'B' || c == 'A' || c == 'z' || c == 'Z') {
        p->pos += 2;
        *anchor = 1;
        n = rx_node_new(p, RXN_ASSERT);
        if (!p->err)
          p->nodes[n].arg = c == 'b'   ? RXA_WORDB
                            : c == 'B' ? RXA_NWORDB
                            : c == 'A' ? RXA_BUFBEG
                            : c == 'z' ? RXA_BUFEND
                                       : RXA_PEND;
        return n;
      }
      if (c == 'K') {
        p->pos += 2;
        *anchor = 1;
        return rx_node_new(p, RXN_KEEP);
      }
      if (c == 'Q' || c == 'E' || c == 'G' || c == 'p' || c == 'P' ||
          c == 'X' || c == 'R' || c == 'h' || c == 'H' || c == 'N' ||
          c == 'C' || c == 'g' || c == 'k') {
        p->pos++;
        rx_fail(p, "this \\ escape is not supported");
        return RX_NONE;
      }
      e = rx_perl_escape(p, 0);
      if (p->err) return RX_NONE;
      if (e < 0) {
        if (e == -'v') {
          n = rx_node_new(p, RXN_SET);
          body = rx_set_new(p);
          if (p->err) return RX_NONE;
          rx_set_add(p->sets[body], 10);
          rx_set_add(p->sets[body], 11);
          rx_set_add(p->sets[body], 12);
          rx_set_add(p->sets[body], 13);
          p->nodes[n].arg = body;
          return n;
        }
        return rx_node_class(p, -e);
      }
      return rx_node_byte(p, e);
    }
    p->pos += t.len;
    return rx_node_byte(p, t.c);
  default:
    /* Operators in a position where they are ordinary characters. */
    p->pos += t.len;
    return rx_node_byte(p, p->pat[p->pos - 1]);
  }
}

/* A concatenation: atoms with their postfix operators, up to '|', ')' or
 * the end. Returns RX_NONE for an empty branch. */
static uint32_t rx_parse_cat(rx_parser *p, int depth) {
  uint32_t first = RX_NONE, last = RX_NONE, cat = RX_NONE, n;
  int start = 1, count = 0, anchor;
  rx_tok t;
  for (;;) {
    rx_peek(p, &t);
    if (t.type == RXT_END && t.c != -2) break;
    if (t.type == RXT_ALT) break;
    if (t.type == RXT_CLOSE) {
      if (depth > 0) break;
      if (p->syn == RX_BRE || (p->flags & (RX_SED | RX_POSIX)) == RX_SED) {
        rx_fail(p, "Unmatched ) or \\)");
        return RX_NONE;
      }
      if (p->syn == RX_PERL) {
        rx_fail(p, "unmatched closing parenthesis");
        return RX_NONE;
      }
      t.type = RXT_CHAR; /* regcomp and grep: a lone ')' is literal */
    }
    if (start && (t.type == RXT_STAR || t.type == RXT_PLUS ||
                  t.type == RXT_QMARK || t.type == RXT_OPEN_DUP)) {
      if (p->syn == RX_PERL) {
        int r = 1, lo, hi;
        if (t.type == RXT_OPEN_DUP) {
          size_t save = p->pos;
          p->pos++;
          r = rx_interval(p, save, &lo, &hi);
          if (r < 0) return RX_NONE;
          p->pos = save;
        }
        if (r == 1) {
          rx_fail(p, "quantifier does not follow a repeatable item");
          return RX_NONE;
        }
      } else if (p->syn == RX_ERE) {
        int r = 1, lo, hi;
        size_t save = p->pos;
        if (!(p->flags & RX_GREP)) {
          rx_fail(p, "Invalid preceding regular expression");
          return RX_NONE;
        }
        /* grep -E warns and ignores it; a '{' that starts no valid
         * interval is an ordinary character. */
        p->pos += t.len;
        if (t.type == RXT_OPEN_DUP) r = rx_interval(p, save, &lo, &hi);
        if (r < 0) return RX_NONE;
        if (r == 1) {
          rx_warn(p, t.type == RXT_STAR    ? "*"
                     : t.type == RXT_PLUS  ? "+"
                     : t.type == RXT_QMARK ? "?"
                                           : "{...}");
          continue;
        }
        p->pos = save;
      } else if (t.type == RXT_OPEN_DUP && (p->flags & RX_GREP)) {
        /* grep: a leading \{...\} is taken literally, text and all. */
        p->pos += t.len;
        n = rx_node_byte(p, '{');
        anchor = 0;
        goto atom_done;
      } else if (t.type == RXT_OPEN_DUP) {
        rx_fail(p, "Invalid preceding regular expression");
        return RX_NONE;
      }
      /* Otherwise the operator is an ordinary character. */
      p->pos += t.len;
      n = rx_node_byte(p, p->pat[p->pos - 1]);
      anchor = 0;
    } else {
      n = rx_parse_atom(p, depth, &anchor);
    }
  atom_done:
    p->caret_ok = 0;
    if (p->err) return RX_NONE;
    if (n == RX_NONE) continue;
    if (!anchor) {
      n = rx_postfix(p, n, depth);
      if (p->err) return RX_NONE;
    }
    start = anchor;
    if (count == 0) {
      first = n;
    } else {
      if (count == 1) {
        cat = rx_node_new(p, RXN_CAT);
        if (p->err) return RX_NONE;
        p->nodes[cat].kid = first;
      }
      p->nodes[last].next = n;
    }
    last = n;
    count++;
  }
  return count > 1 ? cat : first;
}

/* Alternatives separated by '|' (or \| in BRE). */
static uint32_t rx_parse_alt(rx_parser *p, int depth) {
  uint32_t alt = RX_NONE, last, n, closed[10];
  rx_tok t;
  /* glibc: a back-reference may only name a group closed earlier in the
   * same alternative. */
  memcpy(closed, p->closed, sizeof closed);
  p->caret_ok = 1;
  n = rx_parse_cat(p, depth);
  if (p->err) return RX_NONE;
  rx_peek(p, &t);
  if (t.type != RXT_ALT) return n;
  alt = rx_node_new(p, RXN_ALT);
  if (n == RX_NONE) n = rx_node_new(p, RXN_EMPTY);
  if (p->err) return RX_NONE;
  p->nodes[alt].kid = n;
  last = n;
  while (t.type == RXT_ALT) {
    p->pos += t.len;
    p->caret_ok = 1;
    if (p->syn != RX_PERL) memcpy(p->closed, closed, sizeof closed);
    n = rx_parse_cat(p, depth);
    if (n == RX_NONE) n = rx_node_new(p, RXN_EMPTY);
    if (p->err) return RX_NONE;
    p->nodes[last].next = n;
    last = n;
    rx_peek(p, &t);
  }
  return alt;
}

/* ---- Compiler ------------------------------------------------------------ */

typedef struct rx_comp {
  rx_parser *p;
  rx_inst *prog;
  uint32_t n, cap;
  uint32_t *loopreg; /* per AST node: 1 + register index, 0 = none yet */
  uint32_t nslots;
  int need_loopregs;
  uint8_t *nullc; /* per AST node: 0 unknown, 1 not nullable, 2 nullable */
  uint32_t *ngc; /* per AST node: 1 + groups inside, 0 unknown */
  uint32_t prevbase;
  int has_opt; /* some group close has the optional mark */
  int clear; /* inside a copy glibc duplicated: no optional marks */
  int mark; /* the next node, if a group, is an optional subexp */
  uint16_t *setcnt; /* per set: 1 + members, 0 unknown */
  uint8_t *setone; /* per set: its member when it has exactly one */
} rx_comp;

static uint32_t rx_emit(rx_comp *c, int op, uint32_t x, uint32_t y) {
  if (c->p->err) return 0;
  if (c->n == c->cap) {
    uint32_t nc = c->cap ? c->cap * 2 : 64;
    rx_inst *np;
    if (c->n >= RX_MAX_INSTS) {
      rx_fail(c->p, "Regular expression too big");
      return 0;
    }
    np = mem_realloc(c->p->m, c->prog, (size_t)nc * sizeof *np);
    if (!np) {
      c->p->err = MSB_ENOMEM;
      return 0;
    }
    c->prog = np;
    c->cap = nc;
  }
  c->prog[c->n].op = (uint8_t)op;
  c->prog[c->n].c = 0;
  c->prog[c->n].x = x;
  c->prog[c->n].y = y;
  c->prog[c->n].z = x;
  c->prog[c->n].w = 0;
  return c->n++;
}

/* Whether a node can match the empty string (assertions count as empty). */
static int rx_nullable(const rx_parser *p, uint32_t n, int depth) {
  const rx_node *nd;
  uint32_t k;
  if (n == RX_NONE) return 1;
  if (depth > RX_MAX_DEPTH * 2 + 8) return 1;
  nd = &p->nodes[n];
  switch (nd->type) {
  case RXN_SET: return 0;
  case RXN_CAT:
    for (k = nd->kid; k != RX_NONE; k = p->nodes[k].next)
      if (!rx_nullable(p, k, depth + 1)) return 0;
    return 1;
  case RXN_ALT:
    for (k = nd->kid; k != RX_NONE; k = p->nodes[k].next)
      if (rx_nullable(p, k, depth + 1)) return 1;
    return 0;
  case RXN_REP: return nd->min == 0 || rx_nullable(p, nd->kid, depth + 1);
  case RXN_GROUP: return rx_nullable(p, nd->kid, depth + 1);
  default: return 1;
  }
}

/* rx_nullable, remembered per node (repetitions ask it once per copy). */
static int rx_comp_nullable(rx_comp *c, uint32_t n) {
  if (n == RX_NONE) return 1;
  if (!c->nullc[n]) c->nullc[n] = (uint8_t)(1 + rx_nullable(c->p, n, 0));
  return c->nullc[n] == 2;
}

static void rx_comp_node(rx_comp *c, uint32_t n, int depth);

/* Number of groups in a subtree. */
static uint32_t rx_count_groups(const rx_parser *p, uint32_t n, int depth) {
  const rx_node *nd;
  uint32_t k, cnt = 0;
  if (n == RX_NONE || depth > RX_MAX_DEPTH * 2 + 8) return 0;
  nd = &p->nodes[n];
  if (nd->type == RXN_GROUP) return 1 + rx_count_groups(p, nd->kid, depth + 1);
  if (nd->type == RXN_REP || nd->type == RXN_LOOK)
    return rx_count_groups(p, nd->kid, depth + 1);
  if (nd->type != RXN_CAT && nd->type != RXN_ALT) return 0;
  for (k = nd->kid; k != RX_NONE; k = p->nodes[k].next)
    cnt += rx_count_groups(p, k, depth + 1);
  return cnt;
}

/* The register of repetition node n, whose body can match empty: where
 * the current iteration began. Allocated on first use. */
static uint32_t rx_loop_reg(rx_comp *c, uint32_t n) {
  if (!c->loopreg[n]) c->loopreg[n] = 1 + c->nslots++;
  return c->loopreg[n] - 1;
}

/* Compiles a repetition's body the way glibc's copy of it behaves: clear
 * when glibc duplicated the tree (which drops the "optional subexpression"
 * marks inside), mark when the copy is optional and the body a group. */
static void rx_comp_body(rx_comp *c, uint32_t kid, int depth, int clear,
                         int mark) {
  int save = c->clear;
  c->clear = clear;
  c->mark = mark && !save;
  rx_comp_node(c, kid, depth + 1);
  c->clear = save;
  c->mark = 0;
}

/* A loop: the body repeated min_one ? 1.. : 0.. times. Only x* loops
 * with a body that can match empty carry a register (x+ is used only when
 * the body cannot match empty and has no groups). */
static void rx_comp_loop(rx_comp *c, uint32_t n, int min_one, int clear,
                         int depth) {
  const rx_node *nd = &c->p->nodes[n];
  uint32_t kid = nd->kid, split, body, chk = 0;
  int lazy = nd->lazy, regs = 0;
  if (!min_one && c->need_loopregs && rx_comp_nullable(c, kid)) regs = 1;
  if (!min_one) split = rx_emit(c, RXI_SPLIT, 0, 0);
  body = c->n;
  if (regs) rx_emit(c, RXI_LSET, rx_loop_reg(c, n), 0);
  rx_comp_body(c, kid, depth, clear, !min_one);
  if (regs) chk = rx_emit(c, RXI_LCHK, 0, 0);
  if (!min_one && !regs) rx_emit(c, RXI_JMP, split, 0);
  if (min_one) split = rx_emit(c, RXI_SPLIT, 0, 0);
  if (c->p->err) return;
  c->prog[split].x = lazy ? c->n : body;
  c->prog[split].y = lazy ? body : c->n;
  if (regs) {
    c->prog[chk].x = c->n; /* exit */
    c->prog[chk].y = split; /* loop head */
    c->prog[chk].z = c->loopreg[n] - 1;
  }
}

static void rx_comp_node(rx_comp *c, uint32_t n, int depth) {
  const rx_node *nd;
  uint32_t k, i, nk;
  int mark = c->mark;
  c->mark = 0; /* it applies to this node only */
  if (n == RX_NONE || c->p->err) return;
  if (depth > RX_MAX_DEPTH * 2 + 8) {
    rx_fail(c->p, "Regular expression too big");
    return;
  }
  nd = &c->p->nodes[n];
  switch (nd->type) {
  case RXN_EMPTY: return;
  case RXN_SET: {
    const uint8_t *set = c->p->sets[nd->arg];
    int cnt, b;
    if (!c->setcnt[nd->arg]) {
      cnt = 0;
      for (b = 0; b < 256; b++)
        if (rx_set_has(set, b)) {
          cnt++;
          c->setone[nd->arg] = (uint8_t)b;
        }
      c->setcnt[nd->arg] = (uint16_t)(cnt + 1);
    }
    cnt = c->setcnt[nd->arg] - 1;
    if (cnt == 1) {
      k = rx_emit(c, RXI_BYTE, 0, 0);
      if (!c->p->err) c->prog[k].c = c->setone[nd->arg];
    } else if (cnt == 256) {
      rx_emit(c, RXI_ANY, 0, 0);
    } else {
      rx_emit(c, RXI_SET, nd->arg, 0);
    }
    return;
  }
  case RXN_CAT:
    for (k = nd->kid; k != RX_NONE; k = c->p->nodes[k].next)
      rx_comp_node(c, k, depth + 1);
    return;
  case RXN_ALT: {
    uint32_t jumps = RX_NONE; /* chain of JMPs to patch, through .y */
    for (k = nd->kid; k != RX_NONE; k = nk) {
      nk = c->p->nodes[k].next;
      if (nk != RX_NONE) {
        uint32_t split = rx_emit(c, RXI_SPLIT, 0, 0), j;
        if (c->p->err) return;
        c->prog[split].x = split + 1;
        rx_comp_node(c, k, depth + 1);
        j = rx_emit(c, RXI_JMP, 0, jumps);
        if (c->p->err) return;
        jumps = j;
        c->prog[split].y = c->n;
      } else {
        rx_comp_node(c, k, depth + 1);
      }
    }
    if (c->p->err) return;
    while (jumps != RX_NONE) {
      uint32_t nx = c->prog[jumps].y;
      c->prog[jumps].x = c->n;
      c->prog[jumps].y = 0;
      jumps = nx;
    }
    return;
  }
  case RXN_GROUP:
    rx_emit(c, RXI_SAVE, 2 * nd->arg, 0);
    rx_comp_node(c, nd->kid, depth + 1);
    k = rx_emit(c, RXI_SAVE, 2 * nd->arg + 1, 0);
    if (!c->p->err) c->prog[k].c = (uint8_t)mark;
    return;
  case RXN_ASSERT: rx_emit(c, RXI_ASSERT, nd->arg, 0); return;
  case RXN_BREF: rx_emit(c, RXI_BREF, nd->arg, 0); return;
  case RXN_KEEP: rx_emit(c, RXI_SAVE, 0, 0); return;
  case RXN_LOOK:
    /* The body is compiled after the main program (rx_compile). */
    k = rx_emit(c, RXI_LOOK, n, nd->arg);
    if (!c->p->err) c->prog[k].z = (uint32_t)nd->min;
    return;
  case RXN_REP: {
    int min = nd->min, max = nd->max, lazy = nd->lazy;
    uint32_t kid = nd->kid, splits = RX_NONE;
    int clear = c->clear;
    if (max < 0) {
      /* x{m,} is m-1 copies and x+ (a loop entered at the body) when the
       * body cannot match empty and has no groups; otherwise glibc's shape,
       * m copies and x*, which decides what the groups report. */
      int plus = min > 0 && !rx_comp_nullable(c, kid);
      if (plus) {
        if (!c->ngc[kid]) c->ngc[kid] = 1 + rx_count_groups(c->p, kid, 0);
        plus = c->ngc[kid] == 1;
      }
      for (i = 0; (int)i < min - plus; i++)
        rx_comp_body(c, kid, depth, i > 0 || clear, 0);
      rx_comp_loop(c, n, plus, min > 0 || clear, depth);
      return;
    }
    for (i = 0; (int)i < min; i++)
      rx_comp_body(c, kid, depth, i > 0 || clear, 0);
    /* Optional copies, nested: x(x(x)?)?; glibc marks only the first. */
    for (i = (uint32_t)min; (int)i < max; i++) {
      uint32_t split = rx_emit(c, RXI_SPLIT, 0, splits);
      if (c->p->err) return;
      c->prog[split].c = (uint8_t)lazy;
      splits = split;
      if ((int)i == min)
        rx_comp_body(c, kid, depth, min > 0 || clear, 1);
      else
        rx_comp_body(c, kid, depth, 1, 0);
      if (c->p->err) return;
    }
    while (splits != RX_NONE) {
      uint32_t nx = c->prog[splits].y;
      if (c->prog[splits].c) {
        c->prog[splits].x = c->n;
        c->prog[splits].y = splits + 1;
      } else {
        c->prog[splits].x = splits + 1;
        c->prog[splits].y = c->n;
      }
      c->prog[splits].c = 0;
      splits = nx;
    }
    return;
  }
  default: return;
  }
}

/* ---- Analysis --------------------------------------------------------- */

/* The longest run of single bytes among the top-level concatenation: every
 * match contains it, so a memmem miss proves there is no match. */
static void rx_find_literal(rx *r, const rx_parser *p, uint32_t root) {
  uint32_t k, first = root;
  size_t run = 0, best = 0, bstart = 0, start = 0, idx = 0;
  const rx_node *nd;
  uint8_t tmp[256];
  if (root == RX_NONE) return;
  if (p->nodes[root].type == RXN_CAT)
    first = p->nodes[root].kid;
  else if (p->nodes[root].type != RXN_SET)
    return;
  for (k = first; k != RX_NONE; k = p->nodes[k].next, idx++) {
    int cnt = 0, b, last = 0;
    nd = &p->nodes[k];
    if (nd->type == RXN_SET) {
      for (b = 0; b < 256 && cnt < 2; b++)
        if (rx_set_has(r->sets[nd->arg], b)) {
          cnt++;
          last = b;
        }
    }
    if (cnt == 1 && idx < 256) {
      if (run == 0) start = idx;
      tmp[idx] = (uint8_t)last;
      run++;
      if (run > best) {
        best = run;
        bstart = start;
      }
    } else {
      run = 0;
    }
    if (p->nodes[root].type != RXN_CAT) break;
  }
  if (best == 0) return;
  if (best > 64) best = 64;
  memcpy(r->lit, tmp + bstart, best);
  r->litlen = best;
  /* memchr looks for the byte least likely in text: not a space, not a
   * frequent letter. */
  {
    static const char common[] = " etaoinshrdlucmfwypvbgk";
    size_t i, bestrank = 999;
    for (i = 0; i < best; i++) {
      const char *q = memchr(common, r->lit[i], sizeof common - 1);
      size_t rank = q ? (size_t)(q - common) : 0;
      if (!q && (r->lit[i] == '\n' || r->lit[i] == '\t')) rank = 1;
      rank = q ? sizeof common - rank : rank;
      if (rank < bestrank) {
        bestrank = rank;
        r->litkey = i;
      }
    }
  }
}

/* Byte classes: bytes that every instruction (and the word / newline tests
 * of assertions) treats alike share a class, shrinking DFA tables. */
static int rx_byte_classes(rx *r, size_t nsets) {
  uint8_t bound[257], *done;
  uint32_t i;
  int b, cls = 0;
  done = mem_zalloc(r->m, nsets + 1);
  if (!done) return MSB_ENOMEM;
  memset(bound, 0, sizeof bound);
  /* A boundary before byte b means b starts a new class. */
  bound[0] = 1;
  for (i = 0; i < r->ninst; i++) {
    const rx_inst *in = &r->prog[i];
    if (in->op == RXI_BYTE) {
      bound[in->c] = 1;
      bound[in->c + 1] = 1;
    } else if (in->op == RXI_SET && !done[in->x]) {
      const uint8_t *set = r->sets[in->x];
      done[in->x] = 1; /* copies of a repetition share their sets */
      for (b = 1; b < 256; b++)
        if (rx_set_has(set, b) != rx_set_has(set, b - 1)) bound[b] = 1;
    }
  }
  mem_free(r->m, done);
  for (b = 1; b < 256; b++)
    if (rx_isword(b) != rx_isword(b - 1)) bound[b] = 1;
  bound['\n'] = bound['\n' + 1] = 1;
  for (b = 0; b < 256; b++) {
    if (b && bound[b]) cls++;
    r->bclass[b] = (uint8_t)cls;
  }
  r->nclass = (uint32_t)cls + 1;
  return 0;
}

/* The set of bytes a match can start with; empty_ok when the pattern can
 * match without consuming (then no skipping is possible). */
static int rx_first_bytes(rx *r) {
  uint32_t *stack, *seen, sp = 0, i, pc;
  int ok = 1, b;
  stack = mem_alloc(r->m, (size_t)(r->ninst + 1) * 2 * sizeof *stack);
  seen = mem_zalloc(r->m, (size_t)(r->ninst + 1) * sizeof *seen);
  if (!stack || !seen) {
    mem_free(r->m, stack);
    mem_free(r->m, seen);
    return MSB_ENOMEM;
  }
  memset(r->first, 0, sizeof r->first);
  stack[sp++] = 0;
  while (sp && ok) {
    pc = stack[--sp];
    if (seen[pc]) continue;
    seen[pc] = 1;
    switch (r->prog[pc].op) {
    case RXI_BYTE: rx_set_add(r->first, r->prog[pc].c); break;
    case RXI_SET:
      for (i = 0; i < 32; i++) r->first[i] |= r->sets[r->prog[pc].x][i];
      break;
    case RXI_ANY: memset(r->first, 0xff, 32); break;
    case RXI_MATCH:
    case RXI_BREF: ok = 0; break;
    case RXI_JMP: stack[sp++] = r->prog[pc].x; break;
    case RXI_SPLIT:
    case RXI_LCHK:
      stack[sp++] = r->prog[pc].x;
      stack[sp++] = r->prog[pc].y;
      break;
    default: stack[sp++] = pc + 1; break;
    }
  }
  mem_free(r->m, stack);
  mem_free(r->m, seen);
  r->first_ok = 0;
  if (ok) {
    for (b = 0; b < 32; b++)
      if (r->first[b] != 0xff) r->first_ok = 1;
  }
  return 0;
}

/* ---- Public entry points ------------------------------------------------ */

int rx_compile(mem *m, const char *pat, size_t len, unsigned flags, rx **out,
               buf *errmsg) {
  rx_parser p;
  rx_comp c;
  rx *r = NULL;
  uint32_t root, i, ncons = 0;
  int rc;
  *out = NULL;
  memset(&p, 0, sizeof p);
  memset(&c, 0, sizeof c);
  p.m = m;
  p.pat = (const uint8_t *)pat;
  p.len = len;
  p.flags = flags;
  p.syn = (int)(flags & RX_SYNTAX);
  if (p.syn == 3) p.syn = RX_ERE;
  p.icase = (flags & RX_ICASE) != 0;
  p.warn = errmsg;
  root = rx_parse_alt(&p, 0);
  if (!p.err && p.pos < p.len) {
    /* Only a ')' can stop the top-level parse early. */
    rx_fail(&p, p.syn == RX_PERL ? "unmatched closing parenthesis"
                                 : "Unmatched ) or \\)");
  }
  if (p.err) goto fail;
  c.p = &p;
  c.nslots = 2 * (p.ngroups + 1);
  c.need_loopregs = 1;
  c.loopreg = mem_zalloc(m, (p.nnodes + 1) * sizeof *c.loopreg);
  c.nullc = mem_zalloc(m, p.nnodes + 1);
  c.ngc = mem_zalloc(m, (p.nnodes + 1) * sizeof *c.ngc);
  c.setcnt = mem_zalloc(m, (p.nsets + 1) * sizeof *c.setcnt);
  c.setone = mem_zalloc(m, p.nsets + 1);
  if (!c.loopreg || !c.nullc || !c.ngc || !c.setcnt || !c.setone) {
    p.err = MSB_ENOMEM;
    goto fail;
  }
  rx_emit(&c, RXI_SAVE, 0, 0);
  rx_comp_node(&c, root, 0);
  rx_emit(&c, RXI_SAVE, 1, 0);
  rx_emit(&c, RXI_MATCH, 0, 0);
  /* Lookaround bodies, each a sub-program ending in MATCH; LOOK's x holds
   * the AST node until its body is placed. Bodies may add more. */
  for (i = 0; i < c.n && !p.err; i++) {
    if (c.prog[i].op == RXI_LOOK && c.prog[i].w == 0) {
      uint32_t node = c.prog[i].x;
      c.prog[i].w = 1;
      c.prog[i].x = c.n;
      rx_comp_node(&c, p.nodes[node].kid, 0);
      rx_emit(&c, RXI_MATCH, 0, 0);
    }
  }
  if (p.err) goto fail;
  for (i = 0; i < c.n; i++)
    if (c.prog[i].op <= RXI_MATCH) ncons++;
  /* glibc's prev_idx_match: the groups at the last non-empty close. */
  c.prevbase = c.nslots;
  for (i = 0; i < c.n; i++)
    if (c.prog[i].op == RXI_SAVE && c.prog[i].c) c.has_opt = 1;
  if (c.has_opt) c.nslots += 2 * (p.ngroups + 1);
  if ((uint64_t)ncons * c.nslots > RX_MAX_SLOTWORK) {
    rx_fail(&p, "Regular expression too big");
    goto fail;
  }
  r = mem_zalloc(m, sizeof *r);
  if (!r) {
    p.err = MSB_ENOMEM;
    goto fail;
  }
  r->m = m;
  r->flags = flags;
  r->syn = p.syn;
  r->prog = c.prog;
  r->ninst = c.n;
  c.prog = NULL;
  r->sets = p.sets;
  p.sets = NULL;
  r->nsub = p.ngroups;
  r->nslots = c.nslots;
  r->prevbase = c.prevbase;
  r->has_opt = c.has_opt;
  r->has_bref = p.has_bref;
  r->has_look = p.has_look;
  for (i = 0; i < r->ninst; i++)
    if (r->prog[i].op == RXI_ASSERT && r->prog[i].x == RXA_PEND)
      r->has_pend = 1;
  rx_find_literal(r, &p, root);
  rc = rx_byte_classes(r, p.nsets);
  if (!rc) rc = rx_first_bytes(r);
  if (rc) {
    p.err = rc;
    goto fail;
  }
  mem_free(m, c.loopreg);
  mem_free(m, c.nullc);
  mem_free(m, c.ngc);
  mem_free(m, c.setcnt);
  mem_free(m, c.setone);
  mem_free(m, p.nodes);
  *out = r;
  return 0;
fail:
  if (p.err == MSB_EINVAL && errmsg) buf_puts(errmsg, p.msg);
  if (r) {
    rx_free(r);
  } else {
    mem_free(m, c.prog);
    mem_free(m, p.sets);
  }
  mem_free(m, c.loopreg);
  mem_free(m, c.nullc);
  mem_free(m, c.ngc);
  mem_free(m, c.setcnt);
  mem_free(m, c.setone);
  mem_free(m, p.nodes);
  return p.err;
}

size_t rx_nsub(const rx *r) { return r ? r->nsub : 0; }

void rx_free(rx *r) {
  if (!r) return;
  rx_exec_finish(r);
  mem_free(r->m, r->prog);
  mem_free(r->m, r->sets);
  mem_free(r->m, r);
}
