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
/* How lookups went since start (for the unit test): answered from the symbol tables, and
 * handed to dlsym (an IFUNC, an object without a GNU hash table, a call while the object list
 * is being read). */
TM_HIDDEN void tm__next_symbol_counts(unsigned *from_tables, unsigned *from_dlsym);

#endif
