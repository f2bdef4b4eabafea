# Perl ithreads case of the thread-cache matrix: threads created again and again, with a result
# that depends only on the work.
#   perl spawn.pl N   N threads->create(...)->join in turn
use strict;
use warnings;
use threads;

sub work {
  my ($index) = @_;
  my $sum = 0;
  $sum += ($_ ^ $index) % 7 for 0 .. 999;
  return $sum;
}

my $n = $ARGV[0] // 1000;
die "spawn.pl: N must be a positive integer\n" unless $n =~ /^[1-9][0-9]*$/;
my $total = 0;
$total += threads->create(\&work, $_)->join() for 0 .. $n - 1;
print "ithreads $n $total\n";
