#ifndef BRIDGET_MEMORY_H
#define BRIDGET_MEMORY_H

/// Returns the allocator's free memory to the system where the C library can (glibc's `malloc_trim`); does
/// nothing elsewhere. Long streams that allocate on several threads call it between batches: glibc keeps a heap
/// per thread, and without it their freed pages stay resident, so the peak grows with the data.
void bridget_release_free_memory(void);

#endif
