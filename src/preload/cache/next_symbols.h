/* The next definition of a libc function, as dlsym(RTLD_NEXT, name) from this library would
 * find it, without dlsym's cost (next_symbols.c). */
#ifndef THREADMAP_CACHE_NEXT_SYMBOLS_H
#define THREADMAP_CACHE_NEXT_SYMBOLS_H

#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Returns *SLOT when it is set; else looks NAME up, stores it in *SLOT (release) and returns
 * it (NULL: not defined after this library). */
TM_HIDDEN void *tm__next_symbol(void **slot, const char *name);
/* Lists the objects after this library (once; start-up): 1 when every lookup can be answered
 * from their tables, without dlsym and without a lock, so that a first lookup may safely run
 * in a signal handler or a vfork child (an IFUNC, which needs dlsym, excepted). */
TM_HIDDEN int tm__next_symbols_exact(void);
/* How lookups went since start (for the unit test): answered from the symbol tables, and
 * handed to dlsym (an IFUNC, an object without a GNU hash table, a call while the object list
 * is being read). */
TM_HIDDEN void tm__next_symbol_counts(unsigned *from_tables, unsigned *from_dlsym);
/* dl_iterate_phdr's dlpi_addr of the object whose segments hold ADDRESS, 0 when none does
 * (dladdr's dli_fbase for a shared object, without dladdr's search for the nearest symbol:
 * ~45k instructions a call). */
TM_HIDDEN unsigned long tm__object_load_address(const void *address);

#endif
