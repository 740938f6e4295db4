#ifndef C_MALLOC_STATS_H
#define C_MALLOC_STATS_H
#include <stddef.h>

/// Bytes that glibc's allocator has handed out and not had back: the in-use bytes of
/// every arena plus mmapped blocks (`mallinfo2`). For memory tests.
size_t rm_malloc_bytes_in_use(void);

#endif
