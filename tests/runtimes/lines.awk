# The tools' input for the runtime matrix: 300,000 lines "NUMBER WORD", the numbers from the
# Park-Miller sequence (x * 16807 mod 2^31-1: every product stays below 2^46, exact in awk's
# doubles), so the file, and every tool's output, is the same on every run and every awk.
BEGIN {
  x = 1
  for (i = 0; i < 300000; i++) {
    x = (x * 16807) % 2147483647
    printf "%d %s\n", x % 1000003, (x % 3 ? "alpha" : "beta")
  }
}
