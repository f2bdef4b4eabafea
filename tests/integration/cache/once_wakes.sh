#!/bin/sh
# pthread_once under the cache makes no FUTEX_WAKE when nobody sleeps on the word (glibc makes
# one on every first call); TM_CACHE_ONCE=0 and TM_CACHE=0 give glibc's pthread_once back.
# The program counts the wakes on its word with a seccomp filter (once.c, --count-wakes).
# usage: once_wakes.sh LIB PROGRAM   (PROGRAM: cache_sem_once)
lib=$1
prog=$2
if [ -n "$THREADMAP_SANITIZE" ]; then
  echo "skipped: sanitizer build; preload runs are checked in the plain build"
  exit 77
fi
plain=$("$prog" --count-wakes)
rc=$?
if [ $rc -eq 77 ]; then echo "$plain"; exit 77; fi
[ $rc -eq 0 ] || { echo "FAIL the program without the cache: exit status $rc"; exit 1; }
echo "glibc's pthread_once: $plain wake(s)"
probe=--count-wakes
. "$(dirname "$0")/preload_check.sh"
check "the cache's pthread_once wakes nobody when nobody sleeps" 0
check "TM_CACHE_ONCE=0 is glibc's pthread_once" "$plain" TM_CACHE_ONCE=0
check "TM_CACHE=0 is glibc's pthread_once" "$plain" TM_CACHE=0
exit $status
