/* A library linked with -z execstack: loading it makes every thread stack executable. */
int execstack_lib_value(void) { return 7; }
