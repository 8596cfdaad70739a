//! The discrete-event engine: the event queue ([`queue`]) and the slabs and intrusive lists
//! that hold per-request and per-transaction state without allocating per event ([`slab`]).
//! The engine's event type is the simulator's (`crate::sim::Event`); components schedule
//! their own sub-events through [`Queue`].

pub mod queue;
pub mod slab;

pub use queue::{packed, Clock, EventQueue, Key, KeyedHeap, Queue};
pub use slab::{Linked, List, Slab, NONE};
