#ifndef BRIDGET_MEMORY_H
#define BRIDGET_MEMORY_H

/// Returns the allocator's free memory to the system where the C library can (glibc's `malloc_trim`) once it holds
/// more than 32 MB free; does nothing elsewhere. Long streams that allocate on several threads call it between
/// batches: glibc keeps a heap per thread, and their freed pages could stay resident and the peak grow with the data.
/// Below the bound the pages are kept for the next batch, which would otherwise fault them in again.
void bridget_release_free_memory(void);

#endif
