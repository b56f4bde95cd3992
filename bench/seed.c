/* seed.c - seeding benchmark: insert 10,000 files one by one through the
 * public API, into a small tree and into one directory, and compare the
 * cost per file near the start (files 1..1000) with the cost near the end
 * (files 9001..10000). The ratio must stay near 1: an insert costs
 * O(depth * log entries) plus one memmove, never O(workspace).
 *
 * Build (until `make bench` exists), after `make` built the library:
 *   cc -O2 -std=c11 -D_DEFAULT_SOURCE -Iinclude bench/seed.c \
 *      build/libmemsandbox.a -o build/bench-seed && build/bench-seed
 * -DSEED_FILES=100000 runs a bigger seeding.
 * Host-side program: it may use the real clock and stdio. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "memsandbox.h"

#ifndef SEED_FILES /* -DSEED_FILES=... for bigger runs */
#define SEED_FILES 10000
#endif
#define SEED_WINDOW (SEED_FILES / 10)
#define SEED_RUNS 5 /* best of, to see through a noisy machine */

static double seed_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seeds SEED_FILES files; flat 0: spread over /workspace/t/dNN/eNN;
 * 1: all in /workspace/flat in name order; 2: the same in scrambled
 * order; 3: names file%d (unpadded, so inserts land mid-directory);
 * 4: like 3 but one msb_exec of `echo N > flat/fileN.txt` per file (each
 * exec holds the old tree for its all-or-nothing guarantee, so the first
 * write of each exec copies the directory's chunk pointers).
 * Keeps the best times seen. Returns 0 or -1. */
static int seed_run(int flat, double *best_early, double *best_late,
                    double *best_total, double *best_hash) {
  msb_sandbox *sb;
  char path[128], body[64];
  double t0 = 0, early = 0, late = 0, start = seed_now();
  uint8_t h[32];
  int i;
  if (msb_open(NULL, &sb)) {
    fprintf(stderr, "seed: msb_open failed\n");
    return -1;
  }
  for (i = 0; i < SEED_FILES; i++) {
    int n;
    if (i == 0 || i == SEED_FILES - SEED_WINDOW) t0 = seed_now();
    if (flat)
      snprintf(path, sizeof path, "flat/file%06d.txt",
               flat == 2 ? (i * 7919) % SEED_FILES : i);
    if (flat == 3)
      snprintf(path, sizeof path, "flat/file%d.txt", i);
    else
      snprintf(path, sizeof path, "t/d%02d/e%02d/file%06d.txt", i % 10,
               (i / 10) % 10, i);
    n = snprintf(body, sizeof body, "content of file %d\n", i);
    if (flat == 4) {
      msb_result res;
      char script[160];
      int sn =
          snprintf(script, sizeof script, "echo %d > flat/file%d.txt", i, i);
      if (i == 0) msb_mkdir(sb, "flat", 0, 0);
      if (msb_exec(sb, script, (size_t)sn, NULL, &res) || res.exit_code) {
        fprintf(stderr, "seed: %s: %s %.*s\n", script, msb_errmsg(sb),
                (int)res.err_len, res.err ? (const char *)res.err : "");
        msb_result_finish(sb, &res);
        msb_close(sb);
        return -1;
      }
      msb_result_finish(sb, &res);
    } else if (msb_write(sb, path, body, (size_t)n, MSB_WRITE_ANY, NULL, 0,
                         MSB_PARENTS)) {
      fprintf(stderr, "seed: %s: %s\n", path, msb_errmsg(sb));
      msb_close(sb);
      return -1;
    }
    if (i == SEED_WINDOW - 1) early = (seed_now() - t0) / SEED_WINDOW;
    if (i == SEED_FILES - 1) late = (seed_now() - t0) / SEED_WINDOW;
  }
  t0 = seed_now();
  if (!*best_total || t0 - start < *best_total) *best_total = t0 - start;
  msb_root_hash(sb, h);
  t0 = seed_now() - t0;
  if (!*best_hash || t0 < *best_hash) *best_hash = t0;
  if (!*best_early || early < *best_early) *best_early = early;
  if (!*best_late || late < *best_late) *best_late = late;
  msb_close(sb);
  return 0;
}

int main(void) {
  int flat, r;
  static const char *const names[] = {"small-tree", "one-dir", "one-dir-rnd",
                                      "one-dir-%d", "exec-%d"};
  for (flat = 0; flat < 5; flat++) {
    double early = 0, late = 0, total = 0, hash = 0;
    for (r = 0; r < SEED_RUNS; r++)
      if (seed_run(flat, &early, &late, &total, &hash)) return 1;
    printf(
        "%-11s %d files: %.1f ms; per file at 1k %.2f us, at 10k %.2f "
        "us, ratio %.2f; root hash %.1f ms (best of %d)\n",
        names[flat], SEED_FILES, total * 1e3, early * 1e6, late * 1e6,
        late / early, hash * 1e3, SEED_RUNS);
  }
  return 0;
}
