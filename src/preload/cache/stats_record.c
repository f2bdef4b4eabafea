/* TM_CACHE_STATS=FILE: the live record, so that a process leaves its line however it ends.
 *
 * A line written at the end (stats.c) is lost when the end cannot be caught: a raw exit_group
 * made without libc (Go's runtime), a signal that kills. So a process appends its record at its
 * first thread create instead: the same tm-cache-stats/1 line, padded to TM_RECORD_BYTES with a
 * "pad=000..." token (readers ignore keys they do not know), with "final=0". It rewrites the
 * record in place (pwrite at the offset its O_APPEND write landed on) when a worker is about to
 * sleep parked, if a count changed and the last rewrite is at least TM_RECORD_PERIOD_NS old;
 * a worker that put a rewrite off for that reason sleeps no longer than until it is due and
 * comes back for it (so a process whose threads are all parked has its record up to date
 * within a tick of the coarse clock); and a last time at a normal end with "final=1". A record
 * still at final=0 ended abruptly: its counts are as of its last rewrite.
 *
 * Never at start-up: a process that creates no thread opens nothing until its end (and then
 * writes its line as before).
 *
 * Why pwrite through a fresh descriptor rather than a MAP_SHARED mapping of the record's page:
 * a store into a mapped page beyond the file's end (the file truncated while the process runs)
 * raises SIGBUS in the host program, and a descriptor kept open would be a trace (and a program
 * that closes every descriptor could reuse its number for a file of its own). Each rewrite
 * opens the path, checks it is still the same file (device, inode) and long enough, writes and
 * closes: four system calls, at most once per period, on a thread about to sleep anyway.
 *
 * Torn rewrites: a rewrite within one page is one pwrite, which a dying process completes or
 * never starts. A record that crosses a page boundary could be cut between its pages: its tag's
 * version character is overwritten first ("tm-cache-stats/-") and restored last, so a record
 * cut there reads as no line at all (readers count it unread) rather than a mix of two. */
#include <fcntl.h>

#include "../common/tm_prim.h"
#include "stats.h"

enum {
  TM_RECORD_BYTES = 2048, /* every count and about 30 retirement causes */
  TM_TAG_VERSION_AT = 15, /* "tm-cache-stats/1": the '1' */
};
#define TM_RECORD_PERIOD_NS 1000000ULL /* 1 ms of the coarse clock (its ticks are 1-4 ms) */

/* GONE: no record was appended (the line is written at the end, as without a record); LOST: a
 * record was appended but can no longer be rewritten (the file became unreachable by name): it
 * stays as last written, and nothing more is appended (a second line would count twice). */
enum { TM_REC_NONE, TM_REC_STARTING, TM_REC_LIVE, TM_REC_GONE, TM_REC_LOST, TM_REC_FINAL };

static _Atomic int tm__rec_state;
static _Atomic int tm__rec_busy; /* one writer at a time; the others skip */
static long long tm__rec_offset;
static struct tm_file_id tm__rec_file;
static unsigned long long tm__rec_changes; /* tm__stats_changes() at the last rewrite */
static uint64_t tm__rec_when_ns;           /* coarse clock at the last rewrite */
static char tm__rec_comm[TM_COMM_BYTES];   /* read at the start and the end only */
static char tm__rec_text[TM_RECORD_BYTES]; /* under tm__rec_busy (static: small stacks) */

/* The record of the counts now in tm__rec_text: the line, " pad=0...0", '\n'. */
static void tm__rec_render(int final) {
  size_t n = tm__stats_file_line(tm__rec_text, TM_RECORD_BYTES - 6, tm__rec_comm, final);
  memcpy(tm__rec_text + n, " pad=", 5);
  n += 5;
  memset(tm__rec_text + n, '0', TM_RECORD_BYTES - 1 - n);
  tm__rec_text[TM_RECORD_BYTES - 1] = '\n';
}

/* Rewrites the record in place: 1, or 0 when the file is no longer ours (replaced, truncated,
 * gone: the record is given up). */
static int tm__rec_rewrite(void) {
  const char *path = tm__stats_file();
  int fd = path ? tm__prim_open(path, O_WRONLY | O_CLOEXEC, 0) : -1;
  if (fd < 0) return 0;
  struct tm_file_id now = {0, 0, 0};
  int ok = tm__prim_file_id(fd, &now) == 0 && now.dev == tm__rec_file.dev &&
           now.ino == tm__rec_file.ino && now.size >= tm__rec_offset + TM_RECORD_BYTES;
  if (ok) {
    long long page = tm__prim_page_size();
    long long at = tm__rec_offset;
    if (at / page == (at + TM_RECORD_BYTES - 1) / page) {
      ok = tm__prim_pwrite(fd, tm__rec_text, TM_RECORD_BYTES, at) == TM_RECORD_BYTES;
    } else {
      const char *version = tm__rec_text + TM_TAG_VERSION_AT;
      const size_t rest = TM_RECORD_BYTES - TM_TAG_VERSION_AT - 1;
      ok = tm__prim_pwrite(fd, "-", 1, at + TM_TAG_VERSION_AT) == 1 &&
           tm__prim_pwrite(fd, version + 1, rest, at + TM_TAG_VERSION_AT + 1) == (long)rest &&
           tm__prim_pwrite(fd, version, 1, at + TM_TAG_VERSION_AT) == 1;
    }
  }
  tm__prim_close(fd);
  return ok;
}

void tm__stats_record_start(void) {
  if (atomic_load_explicit(&tm__rec_state, memory_order_relaxed) != TM_REC_NONE) return;
  int expected = TM_REC_NONE;
  if (!atomic_compare_exchange_strong(&tm__rec_state, &expected, TM_REC_STARTING)) return;
  const char *path = tm__stats_file();
  int inherited = 0;
  int fd = path ? tm__stats_open_append(&inherited) : -1;
  if (path && fd < 0) tm__stats_cannot_write(-fd); /* another user's file: said, not lost */
  int state = TM_REC_GONE; /* stderr, or no regular file: the line at the end, as before */
  if (inherited) {         /* pwrite on an O_APPEND descriptor appends: no record to rewrite */
    tm__prim_close(fd);
    fd = -1;
  }
  if (fd >= 0) {
    if (tm__prim_file_id(fd, &tm__rec_file) == 0) {
      tm__stats_read_comm(tm__rec_comm);
      tm__rec_changes = tm__stats_changes();
      tm__rec_render(0);
      long long end;
      /* The O_APPEND write and the position after it are one step: the offset is ours even
       * with other processes appending at the same time. */
      if (tm__prim_write(fd, tm__rec_text, TM_RECORD_BYTES) == TM_RECORD_BYTES &&
          (end = tm__prim_offset(fd)) >= TM_RECORD_BYTES) {
        tm__rec_offset = end - TM_RECORD_BYTES;
        tm__rec_when_ns = tm__coarse_now_ns();
        state = TM_REC_LIVE;
      }
    }
    tm__prim_close(fd);
  }
  atomic_store_explicit(&tm__rec_state, state, memory_order_release);
}

uint64_t tm__stats_record_idle(void) {
  if (atomic_load_explicit(&tm__rec_state, memory_order_acquire) != TM_REC_LIVE) return 0;
  unsigned long long changes = tm__stats_changes();
  if (changes == __atomic_load_n(&tm__rec_changes, __ATOMIC_RELAXED)) return 0;
  uint64_t now = tm__coarse_now_ns();
  uint64_t since = now - __atomic_load_n(&tm__rec_when_ns, __ATOMIC_RELAXED);
  if (since < TM_RECORD_PERIOD_NS) return TM_RECORD_PERIOD_NS - since;
  if (atomic_exchange_explicit(&tm__rec_busy, 1, memory_order_acquire)) return 0;
  if (atomic_load_explicit(&tm__rec_state, memory_order_acquire) == TM_REC_LIVE) {
    __atomic_store_n(&tm__rec_changes, changes, __ATOMIC_RELAXED);
    __atomic_store_n(&tm__rec_when_ns, now, __ATOMIC_RELAXED);
    tm__rec_render(0);
    if (!tm__rec_rewrite()) atomic_store(&tm__rec_state, TM_REC_LOST);
  }
  atomic_store_explicit(&tm__rec_busy, 0, memory_order_release);
  return 0;
}

int tm__stats_record_final(void) {
  int state = atomic_load_explicit(&tm__rec_state, memory_order_acquire);
  /* Another thread is appending the record (it started its first thread as this one exits):
   * wait for it a little; if it does not finish, its record stays at final=0. */
  for (int i = 0; state == TM_REC_STARTING && i < 1000; ++i) {
    tm__prim_yield();
    state = atomic_load_explicit(&tm__rec_state, memory_order_acquire);
  }
  if (state == TM_REC_STARTING || state == TM_REC_LOST) return 1;
  if (state != TM_REC_LIVE) return 0;
  /* A worker rewriting it finishes in microseconds; this thread itself, interrupted there by a
   * signal handler that exits, never does: bounded, then the record stays as last written.
   * The lock is kept: no worker rewrites a final record with final=0 after this. */
  int held = 0;
  for (int i = 0; i < 1000 && !(held = !atomic_exchange(&tm__rec_busy, 1)); ++i) tm__prim_yield();
  if (!held) return 1;
  tm__stats_read_comm(tm__rec_comm); /* the name it ends with, as the line at the end says */
  tm__rec_render(1);
  int ok = tm__rec_rewrite();
  atomic_store(&tm__rec_state, ok ? TM_REC_FINAL : TM_REC_LOST);
  return 1; /* written, or left as last written: either way no second line */
}

/* A fork child is another process: its own record at its own first create (the parent's
 * record and lock are the parent's). */
void tm__stats_record_after_fork(void) {
  atomic_store(&tm__rec_state, TM_REC_NONE);
  atomic_store(&tm__rec_busy, 0);
  tm__rec_changes = 0;
  tm__rec_when_ns = 0;
}
