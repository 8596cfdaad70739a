//! The SSD controller: host interface, DRAM data cache, FTL (mapping, cached mapping table,
//! allocation, GC, wear levelling). Scheduling of transactions onto dies lives in
//! [`crate::sim`], which ties these parts to the flash and the interconnect.

pub mod cache;
pub mod controller;
pub mod dynamic_superblock;
pub mod ftl;
pub mod hil;
pub mod lru;
