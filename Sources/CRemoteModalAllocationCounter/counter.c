// Counts heap allocations for the benchmarks by interposing malloc, calloc and realloc
// and forwarding to glibc's own implementations. Only benchmark executables link this.
#include "CAllocationCounter.h"
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);

static _Atomic uint64_t allocations;

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

uint64_t rm_allocation_count(void) { return allocations; }
