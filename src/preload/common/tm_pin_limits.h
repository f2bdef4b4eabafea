/*
 * The limits of the tm-pin/1 configuration format (TM_PIN_CONFIG), in one place: the C parser
 * inside the user's program (src/preload/pin/pin_config.c) and the C++ encoder and plan-file
 * reader (src/apply) both include this header, so the two sides cannot drift apart.
 * Plain macros, no includes: it must compile as C11 and as C++.
 */
#ifndef THREADMAP_PRELOAD_TM_PIN_LIMITS_H
#define THREADMAP_PRELOAD_TM_PIN_LIMITS_H

/** Version prefix every configuration starts with. */
#define TM_PIN_CONFIG_HEADER "tm-pin/1"
/** Highest CPU number a configuration may name (keeps masks small and typos caught). */
#define TM_PIN_MAX_CPU 65535
/** Highest slot or skip index a configuration may name. */
#define TM_PIN_MAX_INDEX 1000000
/** Highest NUMA node a configuration may name (the kernel's MAX_NUMNODES is at most 1024). */
#define TM_PIN_MAX_NODE 1023

#endif /* THREADMAP_PRELOAD_TM_PIN_LIMITS_H */
