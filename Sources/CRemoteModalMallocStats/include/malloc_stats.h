#ifndef C_MALLOC_STATS_H
#define C_MALLOC_STATS_H
#include <stddef.h>

/// Bytes that glibc's allocator has handed out and not had back: the in-use bytes of
/// every arena plus mmapped blocks (`mallinfo2`). For memory tests.
size_t rm_malloc_bytes_in_use(void);

/// Gives free heap memory back to the system (`malloc_trim(0)`); returns 1 when some was.
int rm_malloc_trim(void);

#endif
