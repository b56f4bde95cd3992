/* bc.h - shared declarations of bc's numbers (bc_num.c) and language
 * (bc.c).
 *
 * A number is an arbitrary-precision decimal: a magnitude of base-10
 * digits, least significant first, with no zero digits at the top (zero
 * has none), and a scale, the count of those digits that lie after the
 * point. Its value is sign * digits / 10^scale. Results are truncated
 * toward zero to the scale bc's rules give each operation, as POSIX bc
 * and GNU bc 1.07 do. Digit buffers come from the sandbox allocator and
 * every operation charges its digit work to the command's step budget, so
 * that 2^999999 stops on max_steps rather than running for hours. */
#ifndef MSB_BC_H
#define MSB_BC_H

#include "cmd.h"

typedef struct bcn {
  int neg;
  int scale; /* digits after the point */
  int n;     /* digits held */
  uint8_t *d; /* n digits, least significant first (owned) */
} bcn;

/* What number work needs: the allocator and the step meter. */
typedef struct bcn_env {
  cmd_ctx *c;
  uint64_t work; /* digit operations not yet charged */
} bcn_env;

/* Result codes besides 0 and negative MSB_E*. */
#define BCN_EDIV 1 /* division by zero */
#define BCN_ENEG 2 /* square root of a negative number */

void bcn_free(bcn_env *e, bcn *a);
int bcn_is_zero(const bcn *a);
/* Integer value of a small number's integer part (saturates). */
int64_t bcn_to_long(const bcn *a);
int bcn_from_long(bcn_env *e, int64_t v, bcn *out);
int bcn_copy(bcn_env *e, const bcn *a, bcn *out);
/* Parses digits [0-9A-Z.] in ibase as bc's lexer reads them. */
int bcn_parse(bcn_env *e, const char *s, int ibase, bcn *out);
int bcn_cmp(const bcn *a, const bcn *b);
/* Integer digits as length() counts them, and the scale. */
int bcn_length(const bcn *a);
int bcn_add(bcn_env *e, const bcn *a, const bcn *b, int sub, bcn *out);
int bcn_mul(bcn_env *e, const bcn *a, const bcn *b, int scale, bcn *out);
int bcn_div(bcn_env *e, const bcn *a, const bcn *b, int scale, bcn *out);
int bcn_mod(bcn_env *e, const bcn *a, const bcn *b, int scale, bcn *out);
/* a ^ b for an integer b (the caller warns about and drops b's fraction). */
int bcn_pow(bcn_env *e, const bcn *a, const bcn *b, int scale, bcn *out);
int bcn_sqrt(bcn_env *e, const bcn *a, int scale, bcn *out);
/* Prints a in obase to o, breaking lines as bc does (*col is the output
 * column, linelen 0 for no breaks). */
int bcn_print(bcn_env *e, const bcn *a, int obase, buf *o, int *col,
              int linelen);
/* One output byte with bc's line breaking. */
int bcn_putc(buf *o, int ch, int *col, int linelen);
/* Charges pending digit work; MSB_ELIMIT when the budget is gone. */
int bcn_charge(bcn_env *e);

#endif
