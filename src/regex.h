/* regex.h - the regular expression engine shared by grep, sed, awk,
 * [[ =~ ]], find -regex and jq.
 *
 * Three syntaxes: POSIX basic (BRE) and extended (ERE), both with the GNU
 * extensions glibc accepts, and a Perl-style syntax for grep -P. Matching is
 * on bytes in the C locale: invalid UTF-8 and NUL bytes are ordinary bytes.
 *
 * Semantics: BRE/ERE find the leftmost-longest match; submatches follow
 * glibc (among the paths that produce that overall match, the one that
 * prefers earlier alternatives and more loop iterations; a repeated group
 * reports its last iteration). Perl mode is leftmost-first with lazy
 * quantifiers, \d \w \s \b \A \z \Z \K \xHH, (?:...), named groups,
 * (?i) (?s) and lookaround (lookbehind of fixed length); possessive and
 * atomic groups, \p, \Q, \G and other (?...) options are refused at
 * compile time with a message. Matching is linear in the subject for every
 * pattern without back-references or lookaround; those backtrack. All work
 * is charged to the caller's step meter (rx_meter), so nothing can hang. A hostile pattern
 * is refused at compile time ("Regular expression too big") rather than
 * allowed to exhaust memory.
 *
 * A compiled rx is long-lived data: it is allocated from the mem given to
 * rx_compile (never an arena) and freed with rx_free. rx_exec updates a
 * lazily built DFA cache inside the rx, so one rx must not be used by two
 * threads at once (MemSandbox is single-threaded per sandbox). */
#ifndef MSB_REGEX_H
#define MSB_REGEX_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "mem.h"

typedef struct rx rx;

/* Compile flags: exactly one of the syntax values, or-ed with options. */
#define RX_BRE 0u    /* POSIX basic syntax with GNU extensions (grep, sed) */
#define RX_ERE 1u    /* POSIX extended syntax with GNU extensions (-E) */
#define RX_PERL 2u   /* Perl-style syntax (grep -P) */
#define RX_SYNTAX 3u /* mask selecting the syntax value */
#define RX_ICASE 4u  /* ASCII case-insensitive (C locale) */
/* Like REG_NEWLINE: '.' and [^...] never match '\n'; ^ and $ also match
 * after / before a '\n'. */
#define RX_NEWLINE 8u
/* Groups are never reported (m[1..] stay -1); m[0] still gets the overall
 * match when nm >= 1. The fastest test is nm == 0: a DFA answers it. */
#define RX_NOSUB 16u
/* Dialects of BRE/ERE. Without either, the syntax is regcomp's
 * (RE_SYNTAX_POSIX_BASIC / _EXTENDED), as bash [[ =~ ]] and find use it:
 * "*a" in ERE is "Invalid preceding regular expression", an unmatched ")"
 * in ERE is an ordinary character.
 * RX_GREP: grep's syntax (RE_SYNTAX_GREP / _EGREP): in ERE a leading
 * * + ? or {..} is ignored, a '{' that does not start a valid interval is
 * literal, ')' alone is literal; in BRE a leading \{ is a literal '{' and
 * "a**" is accepted.
 * RX_SED: sed's syntax: as regcomp, except that an unmatched ')' in ERE is
 * "Unmatched ) or \)". */
#define RX_GREP 32u
#define RX_SED 64u
/* sed --posix: GNU's \| \+ \? \w \W \s \S \b \B \< \> \` \' stand for
 * the plain character, and an unmatched ')' in ERE is ordinary again. */
#define RX_POSIX 128u
/* With RX_GREP or RX_SED, a bracket like "[:alpha:]" is an error with this
 * message (GNU dfa's; sed prints it without its expression frame). */
#define RX_COLON_MSG "character class syntax is [[:space:]], not [:space:]"

/* Compiles pat[0..len) (may contain NUL bytes). On success returns 0 and
 * stores a new rx in *out (free with rx_free). On a syntax error returns
 * MSB_EINVAL and, when errmsg is not NULL, appends GNU's wording without a
 * prefix or newline, e.g. "Unmatched [, [^, [:, [., or [=",
 * "Invalid preceding regular expression", "Unmatched ( or \\(",
 * "Unmatched ) or \\)", "Trailing backslash", "Invalid back reference",
 * "Invalid range end", "Invalid character class name",
 * "Invalid content of \\{\\}", "Unmatched \\{", "Regular expression too big";
 * grep and sed print it in their own frame ("grep: %s", "sed: -e expression
 * #1, char N: %s"). Perl mode uses PCRE2-like wording. With RX_GREP,
 * grep -E's warnings ("warning: * at start of expression", one line each,
 * ending in '\n') are appended to errmsg before the error, and on success
 * too. Returns MSB_ENOMEM
 * when m's limit is reached. m is borrowed and must outlive the rx. */
int rx_compile(mem *m, const char *pat, size_t len, unsigned flags, rx **out,
               buf *errmsg);

/* Number of capture groups (\(...\) or (...)) in the pattern. */
size_t rx_nsub(const rx *r);

/* One match or submatch: byte offsets into the subject, end exclusive; both
 * -1 when the group did not participate. */
typedef struct rx_match {
  long so, eo;
} rx_match;

/* Exec flags. */
/* s[0] is not at the beginning of a line: ^ does not match there (\`
 * still does). */
#define RX_NOTBOL 1u
/* s[len] is not at the end of a line: $ does not match there (\' still
 * does). */
#define RX_NOTEOL 2u

/* A step meter: how a caller makes the engine's work count against a
 * budget it keeps, such as the sandbox's step limit (max_steps). Work is
 * counted in units of about one NFA state visited (a backtracking step, a
 * DFA closure; 32 bytes scanned by the DFA). The
 * engine spends `left` first; when it needs more it calls charge(arg, n)
 * to pay n more steps, each worth RX_UNITS_PER_STEP units. charge returns
 * 0 to go on, or a negative MSB_E* code (after recording which limit ran
 * out) to stop the search, which then returns MSB_ELIMIT. Units paid for
 * and not used stay in `left`, so keep one meter for all the searches of
 * a command or a script and many short searches cost their real work.
 * charge NULL makes `left` a fixed budget. Initialise with
 * RX_METER(charge, arg). */
typedef struct rx_meter {
  uint64_t left;                            /* units paid and not spent */
  int (*charge)(void *arg, uint64_t steps); /* pays steps more */
  void *arg;
} rx_meter;

/* Units of work one step pays for: a step of regex work takes about as
 * long as the cheapest shell step (`:` in a loop), so a search that runs
 * to the step limit takes as long as any other run that does. */
#define RX_UNITS_PER_STEP 16u
/* Bytes the DFA or the prefilter scans per unit. */
#define RX_BYTES_PER_UNIT 32u

#define RX_METER(charge, arg) {0, (charge), (arg)}

/* Searches s[start..len) for the leftmost match. Bytes before start are
 * context only: they decide ^ (which matches at start only when start is 0,
 * or after a '\n' in RX_NEWLINE mode), \b, \B, \< and \>. On a match
 * returns 1 and fills m[0] with the overall match and m[1..nm) with the
 * groups (groups beyond rx_nsub are set to -1); nm may be 0 and m NULL.
 * Returns 0 when there is no match, MSB_ELIMIT when the meter stops the
 * search (the result is then unknown), MSB_ENOMEM when memory runs out.
 * meter NULL means unlimited. r is not const because of the DFA cache. */
int rx_search(rx *r, const uint8_t *s, size_t len, size_t start,
              unsigned eflags, rx_match *m, size_t nm, rx_meter *meter);

/* rx_search with a fixed budget of units: *budget is decremented by the
 * work done and MSB_ELIMIT returned when it runs out; NULL means
 * unlimited. For callers outside a sandbox's run (tests, host tools);
 * code running a script passes the step meter to rx_search instead. */
int rx_exec(rx *r, const uint8_t *s, size_t len, size_t start, unsigned eflags,
            rx_match *m, size_t nm, uint64_t *budget);

/* Frees a compiled regex; NULL is accepted. */
void rx_free(rx *r);

#endif
