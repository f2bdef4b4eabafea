/* libgcc_s's forced unwind, loaded when first needed (unwinder.c). */
#ifndef THREADMAP_CACHE_UNWINDER_H
#define THREADMAP_CACHE_UNWINDER_H

#include <unwind.h>

#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

/* _Unwind_ForcedUnwind of libgcc_s; _URC_FATAL_PHASE1_ERROR when libgcc_s cannot be loaded
 * (the caller then leaves through glibc). */
TM_HIDDEN _Unwind_Reason_Code tm__forced_unwind(struct _Unwind_Exception *exc, _Unwind_Stop_Fn stop,
                                                void *param);
/* _Unwind_GetCFA of the same libgcc_s (only called from a stop function tm__forced_unwind ran). */
TM_HIDDEN _Unwind_Word tm__unwind_get_cfa(struct _Unwind_Context *context);

#endif
