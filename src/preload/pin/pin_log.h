/* threadmap pin preload — output without stdio or allocation: the line writer shared with the
 * thread cache (../common/tm_line.h). */
#ifndef THREADMAP_PRELOAD_PIN_LOG_H
#define THREADMAP_PRELOAD_PIN_LOG_H

#include "../common/tm_line.h"

#endif /* THREADMAP_PRELOAD_PIN_LOG_H */
