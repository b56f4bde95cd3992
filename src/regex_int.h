/* regex_int.h - internals shared by regex.c (parser, compiler) and
 * regex_exec.c (matchers). Not an API: only the regex files include it.
 *
 * The program is a Thompson NFA: consuming instructions (BYTE, SET, ANY)
 * first, so "op <= RXI_MATCH" means "a thread rests here between bytes". */
#ifndef MSB_REGEX_INT_H
#define MSB_REGEX_INT_H

#include "regex.h"

enum {
  RXI_BYTE,   /* c: the byte */
  RXI_SET,    /* x: set index */
  RXI_ANY,    /* any byte */
  RXI_MATCH,
  RXI_JMP,    /* x: target */
  RXI_SPLIT,  /* x: preferred target, y: the other */
  RXI_SAVE,   /* x: slot; c: 1 on the close of an "optional
                 subexpression" (glibc's opt_subexp) */
  RXI_ASSERT, /* x: RXA_* */
  RXI_BREF,   /* x: group */
  RXI_LSET,   /* x: loop register := position (an iteration starts) */
  RXI_LCHK,   /* x: exit, y: loop head, z: loop register. An empty
                 iteration of x* leaves the loop */
  RXI_LOOK    /* Perl lookaround: x: sub-program (ends in MATCH), y: 0 (?=,
                 1 (?!, 2 (?<=, 3 (?<!; z: lookbehind length */
};

/* Assertion kinds. */
enum {
  RXA_BOL = 1, /* ^ */
  RXA_EOL,     /* $ */
  RXA_BUFBEG,  /* \` and \A */
  RXA_BUFEND,  /* \' and \z */
  RXA_WORDB,   /* \b */
  RXA_NWORDB,  /* \B */
  RXA_WBEG,    /* \< */
  RXA_WEND,    /* \> */
  RXA_PEND     /* Perl \Z: the end, or before a final newline */
};

typedef struct rx_inst {
  uint8_t op;
  uint8_t c;
  uint32_t x, y, z, w;
} rx_inst;

typedef struct rx_vm rx_vm;
typedef struct rx_dfa rx_dfa;

struct rx {
  mem *m;
  unsigned flags;
  int syn;
  rx_inst *prog;
  uint32_t ninst;
  uint8_t (*sets)[32];
  uint32_t nsub;
  uint32_t nslots;   /* 2 * (nsub + 1) captures, loop registers, then
                        glibc's prev_idx_match copy of the captures */
  uint32_t prevbase; /* where that copy starts */
  int has_opt;       /* some close is an optional subexpression's */
  int has_bref;
  int has_pend;
  int has_look; /* lookaround: no DFA */
  uint8_t lit[256]; /* a substring every match contains */
  size_t litlen;
  size_t litkey;     /* index of its rarest byte, for memchr */
  uint8_t first[32]; /* bytes a match can start with, when first_ok */
  int first_ok;
  uint8_t bclass[256]; /* byte -> DFA input class */
  uint32_t nclass;
  rx_vm *vm;   /* scratch of the NFA matchers, kept between calls */
  rx_dfa *dfa; /* lazily built DFA cache */
};

/* Frees the exec-time caches of r (regex_exec.c). */
void rx_exec_finish(rx *r);

#endif
