//! Lagoon: a fast, deterministic discrete-event simulator of SSDs whose flash chips (or flash
//! controllers) are joined by an interconnection network.
//!
//! Layout follows the drive: [`host`] (flows, replay), [`ssd`] (host interface, cache, FTL),
//! [`flash`] (geometry, timing), [`interconnect`] (one trait, one module per back end),
//! [`sim`] (the event loop tying them together), [`stats`], [`energy`] and [`report`] (what a
//! run reports), [`config`] (presets and TOML). Time is integer picoseconds ([`time`]).

pub mod cancel;
pub mod config;
pub mod energy;
pub mod engine;
pub mod flash;
pub mod host;
pub mod interconnect;
pub mod lifetime;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod ssd;
pub mod stats;
pub mod testing;
pub mod time;

pub use lagoon_workload as workload;
