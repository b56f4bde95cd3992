/* jq.c - command-line JSON processor (jq 1.7.1).
 *
 * The options, messages and exit statuses are jq 1.7.1's: 2 for usage
 * errors and unreadable files, 3 for compile errors, 5 for runtime
 * errors and invalid input, -e's 1 (last output false or null) and 4 (no
 * output), halt_error's code. The language lives in jq_parse.c,
 * jq_eval.c and jq_builtin.c, values and JSON text in jq_value.c and
 * jq_json.c. Input modes: JSON texts, -R lines, -s, --seq
 * (RS-separated, jq's recovery rules), --stream / --stream-errors (events
 * as the text is read). Deviations: -C (colour), -L and modules are
 * refused; $__prog_args is not provided; times are UTC (the sandbox's
 * TZ); the version and --build-configuration are jq 1.7.1's release
 * ones, not the oracle build's "1.7.1-dirty".
 *
 * Usage: jq [options] <jq filter> [file...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "jq.h"

static const char jq_usage[] MSB_COLD =
    "jq - commandline JSON processor [version 1.7.1]\n"
    "\n"
    "Usage:\tjq [options] <jq filter> [file...]\n"
    "\tjq [options] --args <jq filter> [strings...]\n"
    "\tjq [options] --jsonargs <jq filter> [JSON_TEXTS...]\n"
    "\n"
    "jq is a tool for processing JSON inputs, applying the given filter to\n"
    "its JSON text inputs and producing the filter's results as JSON on\n"
    "standard output.\n"
    "\n"
    "The simplest filter is ., which copies jq's input to its output\n"
    "unmodified except for formatting. For more advanced filters see\n"
    "the jq(1) manpage (\"man jq\") and/or https://jqlang.github.io/jq/.\n"
    "\n"
    "Example:\n"
    "\n"
    "\t$ echo '{\"foo\": 0}' | jq .\n"
    "\t{\n"
    "\t  \"foo\": 0\n"
    "\t}\n"
    "\n"
    "Command options:\n"
    "  -n, --null-input          use `null` as the single input value;\n"
    "  -R, --raw-input           read each line as string instead of JSON;\n"
    "  -s, --slurp               read all inputs into an array and use it "
    "as\n"
    "                            the single input value;\n"
    "  -c, --compact-output      compact instead of pretty-printed output;\n"
    "  -r, --raw-output          output strings without escapes and "
    "quotes;\n"
    "      --raw-output0         implies -r and output NUL after each "
    "output;\n"
    "  -j, --join-output         implies -r and output without newline "
    "after\n"
    "                            each output;\n"
    "  -a, --ascii-output        output strings by only ASCII characters\n"
    "                            using escape sequences;\n"
    "  -S, --sort-keys           sort keys of each object on output;\n"
    "  -C, --color-output        colorize JSON output;\n"
    "  -M, --monochrome-output   disable colored output;\n"
    "      --tab                 use tabs for indentation;\n"
    "      --indent n            use n spaces for indentation (max 7 "
    "spaces);\n"
    "      --unbuffered          flush output stream after each output;\n"
    "      --stream              parse the input value in streaming "
    "fashion;\n"
    "      --stream-errors       implies --stream and report parse error "
    "as\n"
    "                            an array;\n"
    "      --seq                 parse input/output as "
    "application/json-seq;\n"
    "  -f, --from-file file      load filter from the file;\n"
    "  -L directory              search modules from the directory;\n"
    "      --arg name value      set $name to the string value;\n"
    "      --argjson name value  set $name to the JSON value;\n"
    "      --slurpfile name file set $name to an array of JSON values "
    "read\n"
    "                            from the file;\n"
    "      --rawfile name file   set $name to string contents of file;\n"
    "      --args                consume remaining arguments as "
    "positional\n"
    "                            string values;\n"
    "      --jsonargs            consume remaining arguments as "
    "positional\n"
    "                            JSON values;\n"
    "  -e, --exit-status         set exit status code based on the "
    "output;\n"
    "  -V, --version             show the version;\n"
    "  --build-configuration     show jq's build configuration;\n"
    "  -h, --help                show the help;\n"
    "  --                        terminates argument processing;\n"
    "\n"
    "Named arguments are also available as $ARGS.named[], while\n"
    "positional arguments are available as $ARGS.positional[].\n";

typedef struct jq_opts {
  int null_in, raw_in, slurp, raw_out, join, raw0, seq, stream, exit_st;
  int stream_errors;
  int tab, indent, ascii, sort;
  const char *prog;
  int from_file; /* -f: the program operand names a file */
  char **files;
  int nfiles;
  const char **gnames;
  jv *gvals;
  int ng;
  jv positional, named;
} jq_opts;

/* The input stream: files (or stdin) parsed one value at a time. */
typedef struct jq_in {
  jq_ev *E;
  jq_opts *o;
  int fi;            /* next file index */
  const uint8_t *d;  /* current text */
  size_t len;
  int open;
  jq_rd rd;
  const char *name;  /* for messages */
  size_t lc_pos, lc_n; /* newline counting */
  int failed;        /* a parse error ended the input */
  int status;        /* 2 when a file could not be read */
  size_t raw_pos;
  int slurped;
  const uint8_t *last_end; /* after the last value read */
  jv evq;                  /* --stream: events read, next at evi */
  size_t evi;
  int err_pending;         /* --stream: a parse error after the events */
  int ended;               /* --stream-errors: reported an error */
  int seq_wait;            /* --seq: before the first RS */
  int resync;              /* --seq: the error was inside a text */
  jv held;                 /* --stream -s: the event after the array */
} jq_in;

/* jq's die(): the hint after a usage error. */
static void jq_die_hint(cmd_ctx *c) {
  buf_puts(c->err,
           "Use jq --help for help with command-line options,\n"
           "or see the jq manpage, or online docs  at "
           "https://jqlang.github.io/jq\n");
}

static void jq_usage_err(cmd_ctx *c, const char *fmt, const char *arg) {
  buf_puts(c->err, "jq: ");
  buf_printf(c->err, fmt, arg);
  buf_putc(c->err, '\n');
  jq_die_hint(c);
}

/* jq_load_file's reason: jq words a directory its own way. */
static const char *jq_open_reason(int rc) {
  return rc == MSB_EISDIR ? "It's a directory" : cmd_strerror(rc);
}

/* Lines jq has read when the parser has the value ending before p. */
static size_t jq_lines(jq_in *in, const uint8_t *p) {
  const uint8_t *q = in->d + in->lc_pos, *end = in->d + in->len, *nl;
  const uint8_t *stop = p > in->d ? p - 1 : p;
  while (q < end && (nl = memchr(q, '\n', (size_t)(end - q)))) {
    in->lc_n++;
    q = nl + 1;
    if (nl >= stop) break;
  }
  if (q >= end || (q > in->d && q[-1] != '\n')) q = end;
  in->lc_pos = (size_t)(q - in->d);
  return in->lc_n;
}

static void jq_seq_text(jq_in *in, const uint8_t *p);

static int jq_open_next(jq_in *in) {
  cmd_ctx *c = in->E->c;
  jq_opts *o = in->o;
  while (in->fi < (o->nfiles ? o->nfiles : 1)) {
    const char *f = o->nfiles ? o->files[in->fi] : "-";
    int rc;
    in->fi++;
    rc = cmd_input(c, f, &in->d, &in->len);
    if (rc == MSB_ENOMEM) return rc;
    if (rc < 0) {
      buf_printf(c->err, "jq: error: Could not open file %s: %s\n", f,
                 cmd_strerror(rc));
      in->name = f; /* jq names it in later errors all the same */
      in->lc_n = 0;
      in->status = 2;
      continue;
    }
    if (!strcmp(f, "-")) c->in_used = c->in_len;
    /* reading is work like any other command's */
    if ((rc = cmd_charge_work(c, in->len, CMD_COST_JQ)) < 0) return rc;
    in->name = strcmp(f, "-") ? f : "<stdin>";
    in->E->input_name = in->name;
    in->lc_pos = in->lc_n = in->raw_pos = 0;
    jq_rd_init(&in->rd, &in->E->R, in->d, in->len);
    if (o->seq && !in->seq_wait) jq_seq_text(in, in->d);
    in->last_end = in->d;
    in->open = 1;
    return 1;
  }
  return 0;
}

/* Next raw line (-R). */
static int jq_next_raw(jq_in *in, jv *out) {
  for (;;) {
    const uint8_t *s, *nl;
    if (!in->open) {
      int rc = jq_open_next(in);
      if (rc <= 0) return rc;
    }
    if (in->raw_pos >= in->len) {
      in->open = 0;
      continue;
    }
    s = in->d + in->raw_pos;
    nl = memchr(s, '\n', in->len - in->raw_pos);
    if (!nl) nl = in->d + in->len;
    *out = jv_str_utf8(&in->E->R, (const char *)s, (size_t)(nl - s));
    in->raw_pos = (size_t)(nl - in->d) + (nl < in->d + in->len);
    in->lc_n += nl < in->d + in->len;
    in->E->input_line = in->lc_n;
    return 1;
  }
}

/* jq reads a line at a time and closes a file on the read after the one
 * that met its end; errors after that are "at <unknown>". That read has
 * happened by the end of the input when the text does not end in a
 * newline and the last value ended on its last line. */
static int jq_closed_at_eof(jq_in *in) {
  const uint8_t *end = in->d + in->len;
  if (!in->len || end[-1] == '\n') return 0;
  return !memchr(in->last_end, '\n', (size_t)(end - in->last_end));
}

/* The reader's last error as jq words it. */
static jv jq_parse_msg(jq_in *in) {
  char t[256];
  snprintf(t, sizeof t, "%s at line %zu, column %zu%s", in->rd.err,
           in->rd.eline, in->rd.ecol, in->resync ? " (need RS to resync)" : "");
  return jv_cstr(&in->E->R, t);
}

/* ---- --seq ----------------------------------------------------------- */

/* --seq reads RS-separated texts as jq 1.7.1 does: bytes before the first
 * RS are skipped, an RS ends the text before it (inside a string too),
 * a value the RS cut off is an error unless whitespace preceded the RS, a
 * bare number right before an RS or the end may have been truncated so
 * it is an error, and after any other error the reading goes on right
 * after the offending byte. Errors are not fatal: jq prints them as
 * "ignoring parse error". */
#define JQ_RS 0x1e

/* Reads the text starting at p, up to the next RS or the end. */
static void jq_seq_text(jq_in *in, const uint8_t *p) {
  const uint8_t *end = in->d + in->len;
  const uint8_t *rs = memchr(p, JQ_RS, (size_t)(end - p));
  in->rd.p = p;
  in->rd.end = rs ? rs : end;
}

static int jq_isws(int c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Like jq_rd_next; -1 errors leave the message in in->rd and the reading
 * ready to go on. */
static int jq_seq_next(jq_in *in, jv *out) {
  jq_rd *r = &in->rd;
  const uint8_t *end = in->d + in->len, *text;
  int rc, at_rs;
  in->resync = 0;
  for (;;) {
    if (in->seq_wait) {
      const uint8_t *rs = memchr(r->p, JQ_RS, (size_t)(end - r->p));
      if (!rs) {
        if (in->fi < in->o->nfiles) return 0;
        jq_rd_fail(r, "Unfinished abandoned text at EOF", end);
        r->p = r->end = end;
        in->seq_wait = 0;
        return -1;
      }
      in->seq_wait = 0;
      jq_seq_text(in, rs + 1);
    }
    text = r->p;
    at_rs = r->end < end;
    rc = jq_rd_next(r, out);
    if (rc == 1 && !in->o->stream && r->p == r->end && out->k <= JV_NUMBER &&
        !jq_isws(r->p[-1]) && (at_rs || out->k == JV_NUMBER)) {
      /* a bare literal the RS or the end cut */
      int num = out->k == JV_NUMBER;
      jv_unref(&in->E->R, *out);
      if (!at_rs) {
        jq_rd_fail(r, "Potentially truncated top-level numeric value at EOF",
                   end);
        return -1;
      }
      jq_rd_fail(r,
                 num ? "Potentially truncated top-level numeric value"
                     : "Truncated value",
                 r->end + 1);
      jq_seq_text(in, r->end + 1);
      return -1;
    }
    if (rc == 1) return 1;
    if (rc == 0) {
      if (!at_rs) return 0;
      jq_seq_text(in, r->end + 1);
      continue;
    }
    if (!strstr(r->err, "at EOF")) {
      /* jq resets its parser and reads on after the byte */
      in->resync = 1;
      jq_seq_text(in, r->errp);
      return -1;
    }
    if (!at_rs) return -1;
    if (in->o->stream && !jv_alen(r->epath)) {
      /* jq's streaming parser checks the top-level token the RS ended
         as a literal */
      jq_rd_fail(r,
                 strstr(r->err, "string")    ? "Invalid numeric literal"
                 : strstr(r->err, "numeric") ? r->err
                                             : "Invalid literal",
                 r->end + 1);
      jq_seq_text(in, r->end + 1);
      return -1;
    }
    {
      const uint8_t *rs = r->end;
      /* the streaming parser calls any open container truncated */
      int ws = !in->o->stream && rs > text && jq_isws(rs[-1]);
      jq_rd_fail(r, "Truncated value", rs + 1);
      jq_seq_text(in, rs + 1);
      if (!ws) return -1;
    }
  }
}

/* --stream: the next queued event, or after the events read before a
 * parse error, the error (as an event under --stream-errors). Returns 1,
 * -2 for the error, or 0 when the queue is empty. */
static int jq_next_event(jq_in *in, jv *out) {
  jq_rt *R = &in->E->R;
  if (in->evq.k == JV_ARRAY && in->evi < jv_alen(in->evq)) {
    *out = jv_ref(jv_aget(in->evq, in->evi++));
    return 1;
  }
  if (!in->err_pending) return 0;
  in->err_pending = 0;
  if (!in->o->stream_errors) {
    in->failed = 1;
    return -2;
  }
  /* the reading ends there (--seq reads on), but not as a failure */
  in->ended = !in->o->seq;
  *out = jv_arr(R);
  jv_apush(R, out, jq_parse_msg(in));
  jv_apush(R, out, jv_ref(in->rd.epath));
  return 1;
}

static int jq_next_value(jq_in *in, jv *out) {
  for (;;) {
    int rc;
    if (in->o->stream && (rc = jq_next_event(in, out)) != 0) return rc;
    if (in->failed || in->ended) return 0;
    if (!in->open) {
      rc = jq_open_next(in);
      if (rc <= 0) return rc;
    }
    if (in->o->stream) {
      jv_unref(&in->E->R, in->evq);
      in->evq = jv_arr(&in->E->R);
      in->evi = 0;
      in->rd.evs = &in->evq;
    }
    rc = in->o->seq ? jq_seq_next(in, out) : jq_rd_next(&in->rd, out);
    if (rc == 1) {
      in->E->input_line = jq_lines(in, in->rd.p);
      in->last_end = in->rd.p;
      if (!in->o->stream) return 1;
      jv_unref(&in->E->R, *out);
      continue;
    }
    if (rc == 0 && jq_closed_at_eof(in)) {
      /* closing the file forgets its name and line count */
      in->name = NULL;
      in->lc_n = in->E->input_line = 0;
    }
    if (rc < 0 && in->o->seq) {
      jq_lines(in, in->rd.errp); /* errors are "at" the lines read */
      if (!in->o->stream_errors) return -3; /* not fatal */
      /* an event after the ones read before it */
      in->err_pending = 1;
      continue;
    }
    if (rc < 0) {
      if (in->o->stream) {
        in->err_pending = 1;
        continue;
      }
      in->failed = 1;
      return -2;
    }
    in->open = 0;
  }
}

static int jq_slurp(jq_in *in, jv *out);

/* A parse error of the main input loop, printed; -3 is --seq's. */
static void jq_parse_error(jq_in *in, int rc) {
  jv m = jq_parse_msg(in);
  buf_printf(in->E->c->err, "jq: %s: %s\n",
             rc == -3 ? "ignoring parse error" : "parse error", jv_sp(m));
  jv_unref(&in->E->R, m);
}

/* The event jq_hold_last_event kept back: 1 and *out, or 0. */
static int jq_take_held(jq_in *in, jv *out) {
  if (in->held.k != JV_ARRAY) return 0;
  *out = in->held;
  in->held = jv_null();
  return 1;
}

static int jq_input_cb(jq_ev *E, jv *out) {
  jq_in *in = E->input_ctx;
  int rc;
  if (in->o->slurp) {
    /* -n -s: `input` yields the slurped array once */
    if (in->slurped) return jq_take_held(in, out);
    in->slurped = 1;
    rc = jq_slurp(in, out);
    return rc < 0 ? rc : rc == 5 ? 0 : 1;
  }
  rc = in->o->raw_in ? jq_next_raw(in, out) : jq_next_value(in, out);
  if (rc == -2 || rc == -3) {
    /* for input/inputs a parse error is an error of the program */
    E->err = jq_parse_msg(in);
    return JQ_INPUT_ERR;
  }
  return rc;
}

/* jq reads its input a line at a time, and --stream -s stops slurping
 * when the last line (one without a newline) is used up. A closing bracket
 * right after a scalar yields two events, its value and the close; when
 * that bracket is the input's last byte, the close event is still pending
 * then, so jq gives it as one more input after the array. */
static void jq_hold_last_event(jq_in *in, jv *all) {
  jq_rt *R = &in->E->R;
  size_t n = jv_alen(*all);
  jv last, prev, slim;
  int end;
  if (n < 2 || !in->d || !in->len) return;
  end = in->d[in->len - 1];
  last = jv_aget(*all, n - 1);
  prev = jv_aget(*all, n - 2);
  if ((end != ']' && end != '}') || jv_alen(last) != 1 || jv_alen(prev) != 2 ||
      jv_aget(prev, 1).k >= JV_ARRAY)
    return;
  in->held = jv_ref(last);
  slim = jv_aslice(R, *all, 0, n - 1);
  jv_unref(R, *all);
  *all = slim;
}

/* -s: every input as one value (a string with -R). Returns 0 and *out,
 * 5 after a parse error (printed) or a negative code. */
static int jq_slurp(jq_in *in, jv *out) {
  jq_rt *R = &in->E->R;
  jv all, v;
  int rc;
  if (in->o->raw_in) {
    all = jv_str(R, "", 0);
    while ((rc = jq_open_next(in)) > 0) {
      all = jv_sappend(R, all, (const char *)in->d, in->len);
      in->open = 0;
    }
    *out = jv_str_utf8(R, jv_sp(all), jv_sl(all));
    jv_unref(R, all);
    return rc < 0 ? rc : 0;
  }
  all = jv_arr(R);
  while ((rc = jq_next_value(in, &v)) > 0 || rc == -3) {
    if (rc == -3)
      jq_parse_error(in, rc);
    else
      jv_apush(R, &all, v);
  }
  if (rc < 0) {
    jv_unref(R, all);
    if (rc == -2) jq_parse_error(in, rc);
    return rc == -2 ? 5 : rc;
  }
  if (in->o->stream) jq_hold_last_event(in, &all);
  *out = all;
  return 0;
}

/* ---- output ------------------------------------------------------------ */

typedef struct jq_out {
  jq_opts *o;
  jq_fmt fmt;
  buf tmp;
  int any;
  jv last;
} jq_out;

static int jq_k_out(jq_ev *E, jv v, jv p, void *d) {
  jq_out *o = d;
  cmd_ctx *c = E->c;
  int rc;
  (void)p;
  buf_clear(&o->tmp);
  if (o->o->seq) buf_putc(&o->tmp, 0x1e);
  if (v.k == JV_STRING && (o->o->raw_out || o->o->join || o->o->raw0) &&
      !o->fmt.ascii) {
    if (o->o->raw0 && memchr(jv_sp(v), 0, jv_sl(v)))
      return jq_errf(E,
                     "Cannot dump a string containing NUL with "
                     "--raw-output0 option");
    buf_put(&o->tmp, jv_sp(v), jv_sl(v));
  } else
    jv_dump(&E->R, &o->tmp, v, &o->fmt, 0);
  if (o->o->raw0)
    buf_putc(&o->tmp, 0);
  else if (!o->o->join)
    buf_putc(&o->tmp, '\n');
  if (o->tmp.err) return MSB_ENOMEM;
  jv_unref(&E->R, o->last);
  o->last = jv_ref(v);
  o->any = 1;
  rc = cmd_write(c, o->tmp.p, o->tmp.len);
  return rc;
}

/* Runs the program on one input; prints an uncaught error. Returns 0, 5
 * after an error, JQ_HALT, or a negative code. */
static int jq_run1(jq_ev *E, jq_node *prog, jv v, jq_out *o, jq_in *in,
                   const char *where) {
  int rc;
  rc = jq_eval(E, prog, NULL, v, jq_pt_off(), jq_k_out, o);
  if (rc == JQ_ERRX) rc = JQ_ERR;
  if (rc == JQ_ERR) {
    jv e = E->err;
    cmd_ctx *c = E->c;
    char at[300];
    E->err = jv_null();
    if (where)
      snprintf(at, sizeof at, "%s", where);
    else if (!in->name)
      snprintf(at, sizeof at, "<unknown>");
    else
      snprintf(at, sizeof at, "%s:%zu", in->name ? in->name : "<stdin>",
               in->lc_n);
    if (e.k == JV_STRING)
      buf_printf(c->err, "jq: error (at %s): %s\n", at, jv_sp(e));
    else {
      jq_fmt f = {0, 0, 0, 0};
      buf_printf(c->err, "jq: error (at %s) (not a string): ", at);
      jv_dump(&E->R, c->err, e, &f, 0);
      buf_putc(c->err, '\n');
    }
    jv_unref(&E->R, e);
    return 5;
  }
  if (rc == JQ_BRK) {
    buf_puts(E->c->err, "jq: error (at <unknown>): break\n");
    return 5;
  }
  return rc;
}

/* ---- options ----------------------------------------------------------- */

static int jq_read_file(cmd_ctx *c, const char *f, const uint8_t **d,
                        size_t *n) {
  int rc = cmd_input(c, f, d, n);
  return rc;
}

static int jq_addarg(jq_ev *E, jq_opts *o, const char *name, jv v) {
  int i;
  /* the first definition of a name wins, as in jq */
  for (i = 0; i < o->ng; i++)
    if (!strcmp(o->gnames[i], name)) {
      jv_unref(&E->R, v);
      return 0;
    }
  o->gnames[o->ng] = name;
  o->gvals[o->ng++] = jv_ref(v);
  jv_oset(&E->R, &o->named, jv_cstr(&E->R, name), v);
  return 0;
}

static int jq_parse_opts(jq_ev *E, jq_opts *o) {
  cmd_ctx *c = E->c;
  int i, args_mode = 0, dashdash = 0;
  o->indent = 2;
  o->files = arena_alloc(c->a, (size_t)(c->argc + 1) * sizeof(char *));
  o->gnames = arena_alloc(c->a, (size_t)(c->argc + 1) * sizeof(char *));
  o->gvals = arena_alloc(c->a, (size_t)(c->argc + 1) * sizeof(jv));
  if (!o->files || !o->gnames || !o->gvals) return MSB_ENOMEM;
  o->positional = jv_arr(&E->R);
  o->named = jv_obj(&E->R);
  for (i = 1; i < c->argc; i++) {
    const char *a = c->argv[i];
    /* jq takes an argument for an option only when it is "--..." or
       "-" and a letter: "-." and "-1" are programs */
    if (dashdash || a[0] != '-' ||
        !(a[1] == '-' || (a[1] >= 'a' && a[1] <= 'z') ||
          (a[1] >= 'A' && a[1] <= 'Z'))) {
      if (!o->prog)
        o->prog = a;
      else if (args_mode == 1)
        jv_apush(&E->R, &o->positional, jv_cstr(&E->R, a));
      else if (args_mode == 2) {
        jv v;
        buf err;
        buf_init(&err, E->R.m);
        if (jq_parse_one(&E->R, a, strlen(a), &v, &err) < 0 ||
            v.k == JV_INVALID) {
          buf_finish(&err);
          jq_usage_err(c, "invalid JSON text passed to --jsonargs%s", "");
          return 2;
        }
        buf_finish(&err);
        jv_apush(&E->R, &o->positional, v);
      } else
        o->files[o->nfiles++] = (char *)a;
      continue;
    }
    if (!strcmp(a, "--")) {
      dashdash = 1;
      continue;
    }
    if (a[1] == '-') {
      const char *l = a + 2;
      if (!strcmp(l, "null-input"))
        o->null_in = 1;
      else if (!strcmp(l, "raw-input"))
        o->raw_in = 1;
      else if (!strcmp(l, "slurp"))
        o->slurp = 1;
      else if (!strcmp(l, "compact-output"))
        o->indent = 0, o->tab = 0;
      else if (!strcmp(l, "raw-output"))
        o->raw_out = 1;
      else if (!strcmp(l, "raw-output0"))
        o->raw0 = 1;
      else if (!strcmp(l, "join-output"))
        o->join = 1;
      else if (!strcmp(l, "ascii-output"))
        o->ascii = 1;
      else if (!strcmp(l, "sort-keys"))
        o->sort = 1;
      else if (!strcmp(l, "monochrome-output") || !strcmp(l, "unbuffered"))
        ;
      else if (!strcmp(l, "color-output")) {
        buf_puts(c->err,
                 "jq: memsandbox: colored output (-C) is not "
                 "supported\n");
        return 2;
      } else if (!strcmp(l, "tab"))
        o->tab = 1, o->indent = 1;
      else if (!strcmp(l, "seq"))
        o->seq = 1;
      else if (!strcmp(l, "stream"))
        o->stream = 1;
      else if (!strcmp(l, "stream-errors"))
        o->stream = o->stream_errors = 1;
      else if (!strcmp(l, "exit-status"))
        o->exit_st = 1;
      else if (!strcmp(l, "args"))
        args_mode = 1;
      else if (!strcmp(l, "jsonargs"))
        args_mode = 2;
      else if (!strcmp(l, "help")) {
        buf_puts(c->out, cold_get(jq_usage));
        return -100;
      } else if (!strcmp(l, "version")) {
        buf_puts(c->out, "jq-1.7.1\n");
        return -100;
      } else if (!strcmp(l, "build-configuration")) {
        buf_puts(c->out, "memsandbox\n");
        return -100;
      } else if (!strcmp(l, "indent")) {
        int n;
        if (i + 1 >= c->argc) {
          jq_usage_err(c, "--indent takes one parameter%s", "");
          return 2;
        }
        /* atoi as jq: "x" is 0, "3x" is 3; -1 means tabs */
        n = atoi(c->argv[++i]);
        if (n < -1 || n > 7) {
          jq_usage_err(c, "--indent takes a number between -1 and 7%s", "");
          return 2;
        }
        o->indent = n < 0 ? 1 : n;
        o->tab = n < 0;
      } else if (!strcmp(l, "from-file")) {
        o->from_file = 1;
      } else if (!strcmp(l, "arg") || !strcmp(l, "argjson") ||
                 !strcmp(l, "slurpfile") || !strcmp(l, "rawfile")) {
        const char *name, *val;
        jv v;
        if (i + 2 >= c->argc) {
          buf_printf(c->err,
                     "jq: --%s takes two parameters (e.g. --%s "
                     "varname %s)\n",
                     l, l,
                     !strcmp(l, "arg")       ? "value"
                     : !strcmp(l, "argjson") ? "text"
                                             : "filename");
          jq_die_hint(c);
          return 2;
        }
        name = c->argv[++i];
        val = c->argv[++i];
        if (!strcmp(l, "arg"))
          v = jv_cstr(&E->R, val);
        else if (!strcmp(l, "argjson")) {
          buf err;
          buf_init(&err, E->R.m);
          if (jq_parse_one(&E->R, val, strlen(val), &v, &err) < 0 ||
              v.k == JV_INVALID) {
            buf_finish(&err);
            jq_usage_err(c, "invalid JSON text passed to --argjson%s", "");
            return 2;
          }
          buf_finish(&err);
        } else {
          const uint8_t *d;
          size_t n;
          int rc = jq_read_file(c, val, &d, &n);
          if (rc < 0) {
            buf_printf(c->err,
                       "jq: Bad JSON in --%s %s %s: Could not open "
                       "%s: %s\n",
                       l, name, val, val, jq_open_reason(rc));
            return 2;
          }
          if (!strcmp(l, "rawfile"))
            v = jv_str_utf8(&E->R, (const char *)d, n); /* U+FFFD */
          else {
            jq_rd r;
            jv x;
            int k;
            v = jv_arr(&E->R);
            jq_rd_init(&r, &E->R, d, n);
            while ((k = jq_rd_next(&r, &x)) == 1) jv_apush(&E->R, &v, x);
            if (k < 0) {
              buf_printf(c->err,
                         "jq: Bad JSON in --%s %s %s: %s at line "
                         "%zu, column %zu\n",
                         l, name, val, r.err, r.eline, r.ecol);
              jv_unref(&E->R, v);
              return 2;
            }
          }
        }
        jq_addarg(E, o, name, v);
      } else {
        jq_usage_err(c, "Unknown option %s", a);
        return 2;
      }
      continue;
    }
    {
      const char *p;
      for (p = a + 1; *p; p++) {
        switch (*p) {
        case 'n': o->null_in = 1; break;
        case 'R': o->raw_in = 1; break;
        case 's': o->slurp = 1; break;
        case 'c': o->indent = 0, o->tab = 0; break;
        case 'r': o->raw_out = 1; break;
        case 'j': o->join = 1; break;
        case 'a': o->ascii = 1; break;
        case 'S': o->sort = 1; break;
        case 'M': break;
        case 'e': o->exit_st = 1; break;
        case 'C':
          buf_puts(c->err,
                   "jq: memsandbox: colored output (-C) is not "
                   "supported\n");
          return 2;
        case 'L':
          buf_puts(c->err,
                   "jq: memsandbox: modules (-L) are not "
                   "supported\n");
          return 2;
        case 'h': buf_puts(c->out, cold_get(jq_usage)); return -100;
        case 'V': buf_puts(c->out, "jq-1.7.1\n"); return -100;
        case 'f': o->from_file = 1; break;
        default: jq_usage_err(c, "Unknown option %s", a); return 2;
        }
      }
    }
  }
  return 0;
}

/* ---- main -------------------------------------------------------------- */

static jv jq_env_obj(jq_ev *E) {
  jv o = jv_obj(&E->R);
  char **e;
  for (e = E->c->envp; e && *e; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq) continue;
    jv_oset(&E->R, &o, jv_str(&E->R, *e, (size_t)(eq - *e)),
            jv_cstr(&E->R, eq + 1));
  }
  return o;
}

static int jq_main(jq_ev *E, jq_opts *o, arena *ar) {
  cmd_ctx *c = E->c;
  jq_node *prog, **gnodes;
  buf err;
  int nerr, rc = 0, status = 0, i;
  jq_in in;
  jq_out out;
  const char *src = o->prog;
  jv *gvals;
  if (o->from_file && o->prog) {
    const uint8_t *d;
    size_t n;
    int r = cmd_input(c, o->prog, &d, &n);
    if (r < 0) {
      buf_printf(c->err, "jq: Could not open %s: %s\n", o->prog,
                 jq_open_reason(r));
      return 2;
    }
    src = arena_strndup(ar, (const char *)d, n);
    if (!src) return MSB_ENOMEM;
  }
  if (!src) src = ".";
  buf_init(&err, E->R.m);
  /* $ARGS is a global too */
  o->gnames[o->ng] = "ARGS";
  {
    jv args = jv_obj(&E->R);
    jv_oset(&E->R, &args, jv_cstr(&E->R, "positional"), jv_ref(o->positional));
    jv_oset(&E->R, &args, jv_cstr(&E->R, "named"), jv_ref(o->named));
    o->gvals[o->ng++] = args;
  }
  nerr = jq_compile(ar, &E->R, cold_get(jq_prelude), src, o->gnames, o->ng,
                    &gnodes, &prog, &err);
  if (E->R.oom) {
    buf_finish(&err);
    return MSB_ENOMEM;
  }
  if (nerr) {
    buf_put(c->err, buf_str(&err), err.len);
    buf_printf(c->err, "jq: %d compile error%s\n", nerr, nerr > 1 ? "s" : "");
    buf_finish(&err);
    return 3;
  }
  buf_finish(&err);
  gvals = arena_alloc(ar, (size_t)(o->ng + 1) * sizeof *gvals);
  if (!gvals) return MSB_ENOMEM;
  for (i = 0; i < o->ng; i++) gvals[i] = o->gvals[i];
  gvals[o->ng] = jq_env_obj(E);
  E->gnodes = gnodes;
  E->gvals = gvals;
  E->nglobals = o->ng;

  memset(&in, 0, sizeof in);
  in.seq_wait = o->seq;
  in.E = E;
  in.o = o;
  E->input_ctx = &in;
  E->next_input = jq_input_cb;
  memset(&out, 0, sizeof out);
  out.o = o;
  out.fmt.indent = o->indent;
  out.fmt.tab = o->tab;
  out.fmt.ascii = o->ascii;
  out.fmt.sort = o->sort;
  E->debug_fmt.ascii = o->ascii;
  E->debug_fmt.sort = o->sort;
  out.last = jv_null();
  buf_init(&out.tmp, E->R.m);

  if (o->null_in) {
    rc = jq_run1(E, prog, jv_null(), &out, &in, NULL);
  } else if (o->slurp) {
    jv all;
    in.slurped = 1;
    rc = jq_slurp(&in, &all);
    if (rc == 5)
      status = 5, rc = 0;
    else if (rc == 0)
      rc = jq_run1(E, prog, all, &out, &in, NULL), jv_unref(&E->R, all);
    if (rc == 0 && jq_take_held(&in, &all))
      rc = jq_run1(E, prog, all, &out, &in, NULL), jv_unref(&E->R, all);
  } else {
    jv v;
    for (;;) {
      int r = o->raw_in ? jq_next_raw(&in, &v) : jq_next_value(&in, &v);
      if (r == -2 || r == -3) jq_parse_error(&in, r);
      if (r == -3) continue;
      if (r <= 0) {
        if (in.failed) status = 5;
        rc = r == -2 ? 0 : r;
        break;
      }
      rc = jq_run1(E, prog, v, &out, &in, NULL);
      jv_unref(&E->R, v);
      /* jq 1.7.1's status is the last input's */
      status = rc == 5 ? 5 : 0;
      if (rc == 5) rc = 0;
      if (rc) break;
    }
  }
  if (rc == 5) status = 5, rc = 0;
  if (rc == JQ_HALT) {
    /* jq exits with halt's code; a negative one is 0, or its absolute
       value under -e */
    rc = 0;
    status = E->halt_code;
    if (status < 0) status = o->exit_st ? -status : 0;
  } else if (rc == 0 && o->exit_st && status == 0)
    status = !out.any ? 4 : jv_truthy(out.last) ? 0 : 1;
  /* an input file that could not be opened makes the status 2 */
  if (rc == 0 && in.status) status = in.status;
  jv_unref(&E->R, out.last);
  buf_finish(&out.tmp);
  jv_unref(&E->R, in.evq);
  jv_unref(&E->R, in.held);
  jv_unref(&E->R, in.rd.epath);
  if (E->R.oom && rc == 0) rc = MSB_ENOMEM;
  return rc < 0 ? rc : status;
}

/* Entry point: see the usage above. */
int cmd_jq(cmd_ctx *c) {
  jq_ev E;
  jq_opts o;
  arena ar;
  int rc, i;
  char base;
  memset(&E, 0, sizeof E);
  memset(&o, 0, sizeof o);
  E.R.m = c->m;
  E.R.c = c;
  E.c = c;
  E.err = jv_null();
  E.stack_base = &base;
  E.now_ns = c->clock_ns ? *c->clock_ns : 0;
  arena_init(&ar, c->m);
  rc = jq_parse_opts(&E, &o);
  if (rc == 0) rc = cmd_tick(c, CMD_COST_JQ_START);
  if (rc == 0)
    rc = jq_main(&E, &o, &ar);
  else if (rc == -100)
    rc = 0;
  for (i = 0; i < o.ng; i++) jv_unref(&E.R, o.gvals[i]);
  jv_unref(&E.R, o.positional);
  jv_unref(&E.R, o.named);
  if (E.gvals) jv_unref(&E.R, E.gvals[o.ng]);
  jv_unref(&E.R, E.err);
  jq_free_lits(&E.R);
  arena_finish(&ar);
  if (rc == MSB_ELIMIT && E.limit_depth) rc = 5;
  return rc;
}
