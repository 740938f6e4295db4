#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H
#include <stdint.h>

/// The number of malloc, calloc and realloc calls this process has made so far.
/// Linking this module into a program interposes those functions (benchmarks only).
uint64_t rm_allocation_count(void);

#endif
