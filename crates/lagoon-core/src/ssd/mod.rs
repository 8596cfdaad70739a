//! The SSD controller: host interface, DRAM data cache, FTL (mapping, cached mapping table,
//! allocation, GC, wear levelling). Scheduling of transactions onto dies lives in
//! [`crate::sim`], which ties these parts to the flash and the interconnect.

pub mod cache;
pub mod controller;
pub mod dynamic_superblock;
pub mod ftl;
pub mod hil;
pub mod lru;

/// Ask for the cache line holding `x` (a hint: no effect on results).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, even for an invalid address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            x as *const T as *const i8,
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
