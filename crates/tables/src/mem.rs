//! Memory hints for the large arrays of a build: huge pages and prefetches. Both are only
//! hints; without them (other systems) the build is the same, only slower.

/// Asks the kernel to back `buf` with huge pages: the sweeps read it at random, and with
/// 4 KiB pages nearly every read of a large layer also misses the TLB.
pub(crate) fn advise_huge_pages(buf: &mut [u8]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = buf.as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(HUGE);
        let end = start + buf.len();
        if end > aligned + HUGE {
            let len = (end - aligned) / HUGE * HUGE;
            // SAFETY: the range lies inside `buf`, which this process owns; madvise with
            // MADV_HUGEPAGE changes no contents, and a failure is harmless.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// Starts loading the cache line of `slice[i]` (if `i` is in range), so that the read that
/// follows later overlaps with other work.
#[inline(always)]
pub(crate) fn prefetch<T>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = slice.get(i) {
        // SAFETY: a prefetch is a hint that never faults, and the pointer is valid anyway.
        unsafe {
            core::arch::x86_64::_mm_prefetch(
                x as *const T as *const i8,
                core::arch::x86_64::_MM_HINT_T0,
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}
