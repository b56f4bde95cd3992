/* events.h - the per-sandbox event queue: structured records of what the
 * host's operations did, drained as JSON lines by msb_events_take.
 *
 * The queue is bounded in events and bytes. When it is full further events
 * are counted, not stored, and the next drain ends with one
 * "events.dropped" event carrying the count. Every string an event holds
 * (paths, names) goes through events_add, the one place where escaping
 * (and redaction, when secrets exist) happens. Events never hold file
 * contents, command text, output or environment values. */
#ifndef MSB_EVENTS_H
#define MSB_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "mem.h"

#define EVENTS_MAX 256              /* pending events */
#define EVENTS_MAX_BYTES (64 << 10) /* pending JSON bytes */
#define EVENTS_MAX_PATHS 8          /* paths per event */

typedef struct events {
  mem *m;
  char *p; /* pending JSON lines */
  size_t len, cap;
  size_t count;     /* pending events */
  uint64_t dropped; /* events not stored since the last drain */
  uint64_t seq;     /* last sequence number given */
  uint64_t next_op; /* last operation id given */
} events;

/* Which optional numeric fields an event carries (events_ev.has). */
#define EVENTS_HAS_REV 1u
#define EVENTS_HAS_EXIT 2u
#define EVENTS_HAS_OUT 4u
#define EVENTS_HAS_ERR 8u
#define EVENTS_HAS_READ 16u
#define EVENTS_HAS_WRITTEN 32u
#define EVENTS_HAS_COUNT 64u

/* One event. Keys are written in this order, absent ones skipped:
 * seq, kind, operation, op, revision, exit_code, paths, bytes{stdout,
 * stderr, read, written}, count, limit, code, reason. */
typedef struct events_ev {
  const char *kind;   /* e.g. "operation.started" */
  uint64_t operation; /* operation id; 0 = none */
  const char *op;     /* operation kind; NULL = none */
  unsigned has;       /* EVENTS_HAS_* */
  uint64_t revision;
  int exit_code;
  const char *paths[EVENTS_MAX_PATHS]; /* normalised paths */
  size_t npaths;
  uint64_t out, err, read, written, count;
  const char *limit;  /* limit name */
  const char *code;   /* error code name, e.g. "MSB_ENOENT" */
  const char *reason; /* short static reason */
} events_ev;

void events_init(events *q, mem *m);
void events_finish(events *q);
/* Queues an event, or counts it as dropped when the queue is full or
 * memory runs out: events never make an operation fail. */
void events_emit(events *q, const events_ev *ev);
/* Moves the pending lines (plus an events.dropped line when events were
 * dropped) into a caller-freed NUL-terminated string; *json is NULL when
 * nothing is pending. MSB_ENOMEM leaves the queue as it was. */
int events_take(events *q, char **json, size_t *len);
/* Appends s as a JSON string: quotes, escapes for '"', '\\' and control
 * bytes, valid UTF-8 kept, each byte of an invalid sequence as \u00XX.
 * The single path for strings into events. */
int events_add(buf *b, const char *s, size_t len);

#endif
