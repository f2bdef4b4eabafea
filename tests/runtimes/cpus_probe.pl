# Placed-CPU-count probe (cpus_case.sh) for Perl: Perl has no call of its own for the affinity
# mask; a program reads it with syscall(SYS_sched_getaffinity) from syscall.ph (libc's
# syscall(2)). Read on the main thread, and in an ithread when Perl has them; then every
# thread's CPUs from the kernel.
use strict;
use warnings;
require 'syscall.ph';

sub cpus {
  my $mask = "\0" x 1024;
  my $bytes = syscall(&SYS_sched_getaffinity, 0, length($mask), $mask);
  return -1 if $bytes < 0;
  return unpack('%32b*', substr($mask, 0, $bytes));
}

# ithreads where this perl has them (loaded at compile time: the :shared attribute needs them).
our $have_threads;
BEGIN {
  $have_threads = eval {
    require threads;
    threads->import;
    require threads::shared;
    threads::shared->import;
    1;
  };
}

print "size syscall_sched_getaffinity ", cpus(), "\n";
my @threads;
if ($have_threads) {
  my $started :shared = 0;
  my $release :shared = 0;
  for (1 .. 3) {
    push @threads, threads->create(sub {
      my $n = cpus();
      { lock($started); $started++; threads::shared::cond_broadcast($started); }
      { lock($release); threads::shared::cond_wait($release) until $release; }
      return $n;
    });
  }
  { lock($started); threads::shared::cond_wait($started) until $started == 3; }
  opendir(my $dir, '/proc/self/task') or die "/proc/self/task: $!";
  for my $tid (grep { /^\d+$/ } readdir($dir)) {
    open(my $status, '<', "/proc/self/task/$tid/status") or next;
    while (<$status>) { print "thread-cpus $1\n" if /^Cpus_allowed_list:\s*(\S+)/; }
  }
  { lock($release); $release = 1; threads::shared::cond_broadcast($release); }
  my @in_thread = map { $_->join } @threads;
  print "size thread_syscall_sched_getaffinity $in_thread[0]\n";
}
